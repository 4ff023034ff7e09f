// ClusterProfile through the hub's API: the seed's flannel profile accepted unchanged with Sveltos's CRD
// defaults visible, 422s naming the field for what Sveltos's CRD refuses (and more), and the kubectl columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { builtinKinds } from '../builtin/index.js';
import { seedFlannelProfile } from '../../testing/flannel-seed.js';
import {
  APPLY,
  causesOf,
  MERGE_PATCH,
  useTestApi,
  TABLE,
  tableRow,
  type Json,
} from '../fleet/test-support.js';

const api = useTestApi(builtinKinds);

const profiles = '/apis/config.projectsveltos.io/v1beta1/clusterprofiles';

/** Verbatim from the requirement (seeds/001, "Give tenant clusters a CNI"). */
const FLANNEL = seedFlannelProfile();

const profile = (name: string, spec: Json): Json => ({
  apiVersion: 'config.projectsveltos.io/v1beta1',
  kind: 'ClusterProfile',
  metadata: { name },
  spec,
});

test('the seed’s flannel ClusterProfile is accepted unchanged (Strict) and shows the CRD’s defaults', async () => {
  const sent = parse(FLANNEL) as Json;
  const created = await api.call('POST', `${profiles}?fieldValidation=Strict`, sent);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.headers.get('warning'), null);
  const spec = created.body.spec as Json;
  // What was sent is kept as sent…
  assert.deepEqual(spec.clusterSelector, sent.spec.clusterSelector);
  assert.deepEqual(spec.patches, sent.spec.patches);
  assert.equal(spec.syncMode, 'ContinuousWithDriftDetection');
  // …and what Sveltos's CRD defaults is filled in, at every level that was sent.
  assert.deepEqual(
    {
      tier: spec.tier,
      continueOnConflict: spec.continueOnConflict,
      continueOnError: spec.continueOnError,
      stopMatchingBehavior: spec.stopMatchingBehavior,
      reloader: spec.reloader,
    },
    {
      tier: 100,
      continueOnConflict: false,
      continueOnError: false,
      stopMatchingBehavior: 'WithdrawPolicies',
      reloader: false,
    },
  );
  assert.deepEqual(spec.policyRefs, [
    {
      remoteURL: {
        url: 'https://github.com/flannel-io/flannel/releases/download/v0.28.2/kube-flannel.yml',
        interval: '10m',
        insecureSkipTLSVerify: false,
        plainHTTP: false,
      },
      deploymentType: 'Remote',
      optional: false,
      tier: 100,
      skipNamespaceCreation: false,
      force: false,
    },
  ]);
  // Sveltos's CRD sets no default for maxUpdate (its controller reads unset as 100%): none appears.
  assert.equal(spec.maxUpdate, undefined);
  const read = await api.call('GET', `${profiles}/flannel-cni`);
  assert.deepEqual(read.body.spec, spec);
});

test('an empty spec gets syncMode Continuous; defaults return on update when a field is dropped', async () => {
  const created = await api.call('POST', profiles, profile('bare', {}));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((created.body.spec as Json).syncMode, 'Continuous');
  const replaced = await api.call('PUT', `${profiles}/bare`, {
    ...profile('bare', { tier: 50, helmCharts: [] }),
    metadata: created.body.metadata,
  });
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  assert.equal((replaced.body.spec as Json).syncMode, 'Continuous');
  assert.equal((replaced.body.spec as Json).tier, 50);
});

test('a ClusterProfile with every part of the spec is accepted, with nested defaults', async () => {
  const spec = {
    clusterSelector: {
      matchLabels: { env: 'prod' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }],
    },
    clusterRefs: [
      { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', namespace: 'team-a', name: 'c1' },
    ],
    setRefs: ['blue'],
    syncMode: 'DryRun',
    tier: 10,
    maxUpdate: '30%',
    maxConsecutiveFailures: 3,
    stopMatchingBehavior: 'LeavePolicies',
    dependsOn: ['base'],
    extraLabels: { 'app.kubernetes.io/part-of': 'platform' },
    extraAnnotations: { note: 'x' },
    policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'cm', deploymentType: 'Local' }],
    helmCharts: [
      {
        repositoryURL: 'oci://registry-1.docker.io/bitnamicharts',
        repositoryName: 'bitnami',
        chartName: 'vault',
        chartVersion: '1.2.3',
        releaseName: 'vault',
        releaseNamespace: 'vault',
        values: 'replicas: {{ len .Cluster.metadata.labels }}',
        valuesFrom: [{ kind: 'Secret', name: 'vals' }],
        options: { timeout: '10m', installOptions: {}, upgradeOptions: { maxHistory: 5 } },
        registryCredentialsConfig: { credentials: { name: 'creds' } },
      },
      { repositoryURL: 'gitrepository://flux-system/repo/charts/x', releaseName: 'x', releaseNamespace: 'x' },
    ],
    kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'repo', path: 'base' }],
    patches: [
      { patch: 'metadata:\n  labels:\n    a: b', target: { kind: 'Deployment', labelSelector: 'app=web' } },
    ],
    patchesFrom: [{ kind: 'ConfigMap', name: 'patches' }],
    templateResourceRefs: [
      { identifier: 'cfg', resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' } },
    ],
    validateHealths: [
      { name: 'deps', featureID: 'Helm', group: 'apps', version: 'v1', kind: 'Deployment', script: 'x' },
    ],
    driftExclusions: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment' } }],
  };
  const created = await api.call('POST', `${profiles}?fieldValidation=Strict`, profile('full', spec));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const got = created.body.spec as Json;
  assert.equal(got.helmCharts[0].helmChartAction, 'Install');
  assert.deepEqual(got.helmCharts[0].options.installOptions, {
    createNamespace: true,
    replace: true,
    disableHooks: false,
    takeOwnership: false,
    recoverAfterConsecutiveFailures: 5,
  });
  assert.equal(got.helmCharts[0].options.upgradeOptions.maxHistory, 5);
  assert.equal(got.helmCharts[0].valuesFrom[0].optional, false);
  assert.equal(got.helmCharts[0].options.uninstallOptions, undefined, 'no parent is created');
  assert.equal(got.kustomizationRefs[0].deploymentType, 'Remote');
  assert.equal(got.templateResourceRefs[0].ignoreStatusChanges, false);
  assert.equal(got.policyRefs[0].deploymentType, 'Local', 'Local is for ClusterProfiles');
});

test('what Sveltos refuses is a 422 naming the field', async () => {
  const cases: [string, Json, string[]][] = [
    [
      'both remoteURL and kind',
      { policyRefs: [{ kind: 'ConfigMap', name: 'x', remoteURL: { url: 'https://e.example/x.yaml' } }] },
      ['spec.policyRefs[0].remoteURL: FieldValueForbidden'],
    ],
    [
      'neither remoteURL nor kind',
      { policyRefs: [{ name: 'x' }] },
      ['spec.policyRefs[0].kind: FieldValueRequired'],
    ],
    [
      'a kind without a name',
      { policyRefs: [{ kind: 'Secret' }] },
      ['spec.policyRefs[0].name: FieldValueRequired'],
    ],
    [
      'a policyRef kind not in the enum',
      { policyRefs: [{ kind: 'Deployment', name: 'x' }] },
      ['spec.policyRefs[0].kind: FieldValueNotSupported'],
    ],
    [
      'a remoteURL that is not http(s) or oci',
      { policyRefs: [{ remoteURL: { url: 'ftp://e.example/x' } }] },
      ['spec.policyRefs[0].remoteURL.url: FieldValueInvalid'],
    ],
    [
      'an interval that is not a Go duration',
      { policyRefs: [{ remoteURL: { url: 'https://e.example/x', interval: '5 minutes' } }] },
      ['spec.policyRefs[0].remoteURL.interval: FieldValueInvalid'],
    ],
    [
      'both on a kustomizationRef',
      { kustomizationRefs: [{ kind: 'ConfigMap', name: 'k', remoteURL: { url: 'oci://r/k' } }] },
      ['spec.kustomizationRefs[0].remoteURL: FieldValueForbidden'],
    ],
    [
      'a maxUpdate that is neither a number nor a percentage',
      { maxUpdate: 'half' },
      ['spec.maxUpdate: FieldValueInvalid'],
    ],
    ['a maxUpdate over 100%', { maxUpdate: '101%' }, ['spec.maxUpdate: FieldValueInvalid']],
    ['a negative maxUpdate', { maxUpdate: -1 }, ['spec.maxUpdate: FieldValueInvalid']],
    ['tier 0', { tier: 0 }, ['spec.tier: FieldValueInvalid']],
    [
      'a policyRef tier 0',
      { policyRefs: [{ kind: 'ConfigMap', name: 'x', tier: 0 }] },
      ['spec.policyRefs[0].tier: FieldValueInvalid'],
    ],
    ['an unknown syncMode', { syncMode: 'Sometimes' }, ['spec.syncMode: FieldValueNotSupported']],
    [
      'an unknown stopMatchingBehavior',
      { stopMatchingBehavior: 'Keep' },
      ['spec.stopMatchingBehavior: FieldValueNotSupported'],
    ],
    [
      'an http chart without chartVersion',
      {
        helmCharts: [
          {
            repositoryURL: 'https://kyverno.github.io/kyverno/',
            repositoryName: 'kyverno',
            chartName: 'kyverno/kyverno',
            releaseName: 'kyverno',
            releaseNamespace: 'kyverno',
          },
        ],
      },
      ['spec.helmCharts[0].chartVersion: FieldValueRequired'],
    ],
    [
      'an oci chart without chartName and repositoryName',
      {
        helmCharts: [
          { repositoryURL: 'oci://r/charts', chartVersion: '1.0.0', releaseName: 'a', releaseNamespace: 'a' },
        ],
      },
      [
        'spec.helmCharts[0].chartName: FieldValueRequired',
        'spec.helmCharts[0].repositoryName: FieldValueRequired',
      ],
    ],
    [
      'a chart without releaseName',
      { helmCharts: [{ repositoryURL: 'gitrepository://ns/n/p', releaseNamespace: 'a' }] },
      ['spec.helmCharts[0].releaseName: FieldValueRequired'],
    ],
    [
      'an unknown helmChartAction',
      {
        helmCharts: [
          {
            repositoryURL: 'gitrepository://ns/n/p',
            releaseName: 'a',
            releaseNamespace: 'a',
            helmChartAction: 'Upgrade',
          },
        ],
      },
      ['spec.helmCharts[0].helmChartAction: FieldValueNotSupported'],
    ],
    [
      'an unknown selector operator',
      { clusterSelector: { matchExpressions: [{ key: 'env', operator: 'Matches' }] } },
      ['spec.clusterSelector.matchExpressions[0].operator: FieldValueNotSupported'],
    ],
    [
      'In without values',
      { clusterSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] } },
      ['spec.clusterSelector.matchExpressions[0].values: FieldValueRequired'],
    ],
    [
      'a clusterRef to a SveltosCluster',
      { clusterRefs: [{ kind: 'SveltosCluster', namespace: 'team-a', name: 'c' }] },
      ['spec.clusterRefs[0].kind: FieldValueNotSupported'],
    ],
    [
      'a patch without its patch',
      { patches: [{ target: { kind: 'ConfigMap' } }] },
      ['spec.patches[0].patch: FieldValueRequired'],
    ],
    [
      'a patch target with a bad label selector',
      { patches: [{ patch: 'x', target: { labelSelector: 'a in (' } }] },
      ['spec.patches[0].target.labelSelector: FieldValueInvalid'],
    ],
    [
      'a drift exclusion without paths',
      { driftExclusions: [{ target: { kind: 'Pod' } }] },
      ['spec.driftExclusions[0].paths: FieldValueRequired'],
    ],
    [
      'a health check with jobCheck and script',
      {
        validateHealths: [
          {
            name: 'h',
            featureID: 'Resources',
            script: 'x',
            jobCheck: { jobRef: { kind: 'ConfigMap', name: 'j', namespace: 'n' } },
          },
        ],
      },
      ['spec.validateHealths[0].jobCheck: FieldValueForbidden'],
    ],
    [
      'a templateResourceRefs identifier twice',
      {
        templateResourceRefs: [
          { identifier: 'a', resource: { kind: 'ConfigMap', name: 'x' } },
          { identifier: 'a', resource: { kind: 'ConfigMap', name: 'y' } },
        ],
      },
      ['spec.templateResourceRefs[1].identifier: FieldValueDuplicate'],
    ],
    ['depending on itself', { dependsOn: ['bad'] }, ['spec.dependsOn[0]: FieldValueInvalid']],
  ];
  for (const [what, spec, expected] of cases) {
    const reply = await api.call('POST', profiles, profile('bad', spec));
    assert.equal(reply.status, 422, `${what}: ${JSON.stringify(reply.body)}`);
    assert.deepEqual(causesOf(reply), expected, what);
  }
  const ok: Json[] = [{ maxUpdate: 5 }, { maxUpdate: '100%' }, { maxUpdate: '0%' }, { maxUpdate: '12' }];
  for (const spec of ok) {
    const reply = await api.call('POST', `${profiles}?dryRun=All`, profile('fine', spec));
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
  }
  const unknown = await api.call(
    'POST',
    `${profiles}?fieldValidation=Strict`,
    profile('bad', { syncmode: 'x' }),
  );
  assert.equal(unknown.status, 400);
  assert.match(String(unknown.body.message), /unknown field "spec.syncmode"/);
});

test('a merge patch that breaks the spec is refused; status is written through /status', async () => {
  const bad = await api.call(
    'PATCH',
    `${profiles}/flannel-cni`,
    { spec: { tier: 0 } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(bad.status, 422);
  assert.deepEqual(causesOf(bad), ['spec.tier: FieldValueInvalid']);
  const status = {
    matchingClusters: [
      { apiVersion: 'fleet.fleethub.io/v1alpha1', kind: 'Cluster', namespace: 'team-a', name: 'c1' },
      { apiVersion: 'fleet.fleethub.io/v1alpha1', kind: 'Cluster', namespace: 'team-a', name: 'c2' },
    ],
    updatedClusters: { hash: 'aGFzaA==', clusters: [] },
    failedClusters: [
      {
        clusterRef: { kind: 'Cluster', namespace: 'team-a', name: 'c3' },
        failureMessage: 'x',
        lastFailureTime: '2026-01-01T00:00:00Z',
      },
    ],
    reconciliationSuspended: false,
  };
  const written = await api.call(
    'PATCH',
    `${profiles}/flannel-cni/status`,
    { status },
    { contentType: MERGE_PATCH },
  );
  assert.equal(written.status, 200, JSON.stringify(written.body));
  assert.deepEqual(written.body.status, status);
  const ignored = await api.call(
    'PATCH',
    `${profiles}/flannel-cni`,
    { status: { matchingClusters: [] } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(ignored.status, 200);
  assert.equal((ignored.body.status as Json).matchingClusters.length, 2, 'status only through /status');
});

test('kubectl get clusterprofiles: SyncMode, the number of matching clusters, Tier (wide) and Age', async () => {
  const reply = await api.call('GET', `${profiles}/flannel-cni`, undefined, { accept: TABLE });
  assert.equal(reply.status, 200);
  const row = tableRow(reply);
  assert.deepEqual(Object.keys(row), ['Name', 'SyncMode', 'Clusters', 'Tier', 'Age']);
  assert.deepEqual(
    [row.Name, row.SyncMode, row.Clusters, row.Tier],
    ['flannel-cni', 'ContinuousWithDriftDetection', 2, 100],
  );
  const tier = (reply.body.columnDefinitions as Json[]).find((c) => c.name === 'Tier');
  assert.equal(tier?.priority, 1);
});

test('kubectl apply --server-side of the seed’s YAML as written: created, then changed, defaults kept', async () => {
  const yaml = FLANNEL.replace('name: flannel-cni', 'name: flannel-applied');
  const path = `${profiles}/flannel-applied?fieldManager=kubectl&fieldValidation=Strict`;
  const created = await api.call('PATCH', path, yaml, { contentType: APPLY });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.headers.get('warning'), null);
  assert.equal((created.body.spec as Json).tier, 100);
  const changed = await api.call('PATCH', path, yaml.replace('interval: 10m', 'interval: 1h'), {
    contentType: APPLY,
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const ref = (changed.body.spec as Json).policyRefs[0];
  assert.equal(ref.remoteURL.interval, '1h');
  assert.equal(ref.deploymentType, 'Remote');
  const broken = await api.call(
    'PATCH',
    path,
    yaml.replace('syncMode: ContinuousWithDriftDetection', 'syncMode: Always'),
    {
      contentType: APPLY,
    },
  );
  assert.equal(broken.status, 422);
  assert.deepEqual(causesOf(broken), ['spec.syncMode: FieldValueNotSupported']);
});
