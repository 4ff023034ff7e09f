// ClusterSummary and ClusterReport through the hub's API (their shape, enums, defaults inside the copied
// spec, kubectl columns), and the Sveltos group in discovery and OpenAPI.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds, clusterKinds } from '../builtin/index.js';
import {
  causesOf,
  MERGE_PATCH,
  startApi,
  TABLE,
  tableRow,
  type Json,
  type TestApi,
} from '../fleet/test-support.js';
import { sveltosKinds } from './index.js';

let api: TestApi;
before(async () => {
  // Through the hub's API only the hub writes these (generated.test.ts); their schema and columns are
  // tested here with that guard lifted.
  api = await startApi(
    builtinKinds.map((k) => (k.group === 'config.projectsveltos.io' ? { ...k, guard: undefined } : k)),
  );
});
after(async () => {
  await api?.close();
});

const base = '/apis/config.projectsveltos.io/v1beta1/namespaces/team-a';
const summaries = `${base}/clustersummaries`;
const reports = `${base}/clusterreports`;

const summary = (name: string, spec: Json): Json => ({
  apiVersion: 'config.projectsveltos.io/v1beta1',
  kind: 'ClusterSummary',
  metadata: { name, labels: { 'projectsveltos.io/cluster-profile-name': 'flannel-cni' } },
  spec,
});

test('a ClusterSummary carries the profile’s spec, defaulted as the profile’s is', async () => {
  const created = await api.call(
    'POST',
    `${summaries}?fieldValidation=Strict`,
    summary('flannel-cni-capi-edge-1', {
      clusterNamespace: 'team-a',
      clusterName: 'edge-1',
      clusterType: 'Capi',
      clusterProfileSpec: {
        clusterSelector: { matchLabels: { env: 'prod' } },
        policyRefs: [{ remoteURL: { url: 'https://e.example/flannel.yml' } }],
      },
    }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const copied = (created.body.spec as Json).clusterProfileSpec as Json;
  assert.equal(copied.syncMode, 'Continuous');
  assert.equal(copied.tier, 100);
  assert.equal(copied.policyRefs[0].deploymentType, 'Remote');

  const bad = await api.call(
    'POST',
    summaries,
    summary('bad', {
      clusterNamespace: 'team-a',
      clusterName: 'x',
      clusterType: 'Kind',
      clusterProfileSpec: { tier: 0 },
    }),
  );
  assert.equal(bad.status, 422);
  assert.deepEqual(causesOf(bad), ['spec.clusterProfileSpec.tier: FieldValueInvalid']);
  const badType = await api.call(
    'POST',
    summaries,
    summary('bad', { clusterNamespace: 'team-a', clusterName: 'x', clusterType: 'Kind' }),
  );
  assert.deepEqual(causesOf(badType), ['spec.clusterType: FieldValueNotSupported']);
  const missing = await api.call(
    'POST',
    summaries,
    summary('bad', { clusterName: 'x', clusterType: 'Capi' }),
  );
  assert.deepEqual(causesOf(missing), ['spec.clusterNamespace: FieldValueRequired']);
});

test('ClusterSummary status: feature summaries, deployed GVKs and helm releases, keyed and enumerated', async () => {
  const status = {
    featureSummaries: [
      {
        featureID: 'Resources',
        status: 'Provisioned',
        hash: 'c2hhMjU2',
        lastAppliedTime: '2026-01-01T00:00:00Z',
      },
      {
        featureID: 'Helm',
        status: 'Failed',
        consecutiveFailures: 2,
        failureReason: 'Render',
        failureMessage: 'template: line 3',
      },
    ],
    deployedGVKs: [
      { featureID: 'Resources', deployedGroupVersionKind: ['ConfigMap.v1.', 'DaemonSet.v1.apps'] },
    ],
    helmReleaseSummaries: [
      {
        releaseName: 'web',
        releaseNamespace: 'web',
        status: 'Conflict',
        conflictMessage: 'ClusterSummary x managing it',
        chartVersion: '1.0.0',
      },
    ],
    dependencies: 'All dependencies deployed',
  };
  const path = `${summaries}/flannel-cni-capi-edge-1/status`;
  const written = await api.call('PATCH', path, { status }, { contentType: MERGE_PATCH });
  assert.equal(written.status, 200, JSON.stringify(written.body));
  assert.deepEqual(written.body.status, status);

  const cases: [Json, string[]][] = [
    [
      { featureSummaries: [{ featureID: 'Resources', status: 'Done' }] },
      ['status.featureSummaries[0].status: FieldValueNotSupported'],
    ],
    [
      { featureSummaries: [{ featureID: 'Everything' }] },
      ['status.featureSummaries[0].featureID: FieldValueNotSupported'],
    ],
    [
      { featureSummaries: [{ featureID: 'Helm' }, { featureID: 'Helm' }] },
      ['status.featureSummaries[1].featureID: FieldValueDuplicate'],
    ],
    [
      { helmReleaseSummaries: [{ releaseName: 'a', releaseNamespace: 'a', status: 'Owned' }] },
      ['status.helmReleaseSummaries[0].status: FieldValueNotSupported'],
    ],
    [
      { featureSummaries: [{ featureID: 'Helm', hash: 'not base64!' }] },
      ['status.featureSummaries[0].hash: FieldValueInvalid'],
    ],
  ];
  for (const [bad, expected] of cases) {
    const reply = await api.call('PUT', path, { ...written.body, status: bad });
    assert.equal(reply.status, 422, JSON.stringify(reply.body));
    assert.deepEqual(causesOf(reply), expected);
  }
});

test('kubectl get clustersummaries: Sveltos’s columns, one status per feature', async () => {
  const reply = await api.call('GET', `${summaries}/flannel-cni-capi-edge-1`, undefined, { accept: TABLE });
  const row = tableRow(reply);
  assert.deepEqual(Object.keys(row), ['Name', 'Age', 'HelmCharts', 'KustomizeRefs', 'PolicyRefs']);
  assert.deepEqual(
    [row.Name, row.HelmCharts, row.KustomizeRefs, row.PolicyRefs],
    ['flannel-cni-capi-edge-1', 'Failed', null, 'Provisioned'],
  );
});

test('a ClusterReport lists what a DryRun would do, with Sveltos’s actions', async () => {
  const created = await api.call('POST', `${reports}?fieldValidation=Strict`, {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterReport',
    metadata: { name: 'flannel-cni--capi--edge-1' },
    spec: { clusterNamespace: 'team-a', clusterName: 'edge-1' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const status = {
    releaseReports: [
      { chartName: 'web', releaseNamespace: 'web', chartVersion: '1.0.0', action: 'Update Values' },
    ],
    resourceReports: [
      {
        resource: {
          group: '',
          version: 'v1',
          kind: 'ConfigMap',
          namespace: 'kube-flannel',
          name: 'kube-flannel-cfg',
        },
        action: 'Update',
        message: 'data changes',
      },
      {
        resource: {
          group: 'apps',
          version: 'v1',
          kind: 'DaemonSet',
          namespace: 'kube-flannel',
          name: 'flannel',
        },
        action: 'No Action',
      },
    ],
    helmResourceReports: [
      {
        resource: { group: '', version: 'v1', kind: 'Service', name: 'web', namespace: 'web' },
        action: 'Create',
      },
    ],
  };
  const path = `${reports}/flannel-cni--capi--edge-1/status`;
  const written = await api.call('PATCH', path, { status }, { contentType: MERGE_PATCH });
  assert.equal(written.status, 200, JSON.stringify(written.body));
  assert.equal((written.body.status as Json).resourceReports[0].action, 'Update');

  const bad = await api.call(
    'PATCH',
    path,
    {
      status: {
        resourceReports: [
          { resource: { group: '', version: 'v1', kind: 'ConfigMap', name: 'x' }, action: 'Replace' },
        ],
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(bad.status, 422);
  assert.deepEqual(causesOf(bad), ['status.resourceReports[0].action: FieldValueNotSupported']);
  const badRelease = await api.call(
    'PATCH',
    path,
    {
      status: {
        releaseReports: [
          { chartName: 'web', releaseNamespace: 'web', chartVersion: '1', action: 'Rollback' },
        ],
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.deepEqual(causesOf(badRelease), ['status.releaseReports[0].action: FieldValueNotSupported']);

  const row = tableRow(await api.call('GET', path.replace(/\/status$/, ''), undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Cluster', 'Resources', 'Releases', 'Age']);
  assert.deepEqual(
    [row.Name, row.Cluster, row.Resources, row.Releases],
    ['flannel-cni--capi--edge-1', 'edge-1', 3, 1],
  );
});

test('discovery: the four kinds on the hub only, in the sveltos category, each with /status', async () => {
  for (const k of sveltosKinds) assert.ok(!clusterKinds.includes(k), k.kind);
  const reply = await api.call('GET', '/apis/config.projectsveltos.io/v1beta1');
  assert.equal(reply.status, 200);
  const resources = Object.fromEntries(
    (reply.body.resources as Json[]).map((r) => [
      r.name,
      [r.kind, r.namespaced, r.shortNames ?? [], r.categories ?? []],
    ]),
  );
  assert.deepEqual(resources, {
    clusterprofiles: ['ClusterProfile', false, [], ['sveltos']],
    'clusterprofiles/status': ['ClusterProfile', false, [], []],
    profiles: ['Profile', true, [], ['sveltos']],
    'profiles/status': ['Profile', true, [], []],
    clustersummaries: ['ClusterSummary', true, [], ['sveltos']],
    'clustersummaries/status': ['ClusterSummary', true, [], []],
    clusterreports: ['ClusterReport', true, [], ['sveltos']],
    'clusterreports/status': ['ClusterReport', true, [], []],
  });
  const openapi = await api.call('GET', '/openapi/v3/apis/config.projectsveltos.io/v1beta1');
  assert.equal(openapi.status, 200);
  const text = JSON.stringify(openapi.body);
  assert.ok(text.includes('"enum":["OneTime","Continuous","ContinuousWithDriftDetection","DryRun"]'));
  assert.ok(text.includes('"default":"Continuous"'));
  assert.ok(text.includes('"x-kubernetes-int-or-string":true'));
});
