// Profile tenancy through the hub's API, as a matrix: every reference to the hub left empty is set to the
// Profile's namespace, one naming another namespace is a 422 naming the field, and Local is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds } from '../builtin/index.js';
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

const profiles = '/apis/config.projectsveltos.io/v1beta1/namespaces/team-a/profiles';
const clusterProfiles = '/apis/config.projectsveltos.io/v1beta1/clusterprofiles';

const profile = (name: string, spec: Json): Json => ({
  apiVersion: 'config.projectsveltos.io/v1beta1',
  kind: 'Profile',
  metadata: { name },
  spec,
});

const check = (extra: Json): Json => ({ name: 'h', featureID: 'Resources', ...extra });

/**
 * Each row: a spec with one reference to the hub written as `ns` ('' = left out), and where that
 * reference's namespace sits in the stored spec.
 */
const references: [string, (ns?: string) => Json, (spec: Json) => unknown][] = [
  [
    'spec.clusterRefs[0].namespace',
    (ns) => ({
      clusterRefs: [
        {
          apiVersion: 'fleet.fleethub.io/v1alpha1',
          kind: 'Cluster',
          name: 'c1',
          ...(ns ? { namespace: ns } : {}),
        },
      ],
    }),
    (s) => s.clusterRefs[0].namespace,
  ],
  [
    'spec.policyRefs[0].namespace',
    (ns) => ({ policyRefs: [{ kind: 'ConfigMap', name: 'cm', ...(ns ? { namespace: ns } : {}) }] }),
    (s) => s.policyRefs[0].namespace,
  ],
  [
    'spec.policyRefs[0].remoteURL.secretRef.namespace',
    (ns) => ({
      policyRefs: [
        {
          namespace: 'team-a',
          remoteURL: {
            url: 'https://e.example/x',
            secretRef: { name: 's', ...(ns ? { namespace: ns } : {}) },
          },
        },
      ],
    }),
    (s) => s.policyRefs[0].remoteURL.secretRef.namespace,
  ],
  [
    'spec.kustomizationRefs[0].namespace',
    (ns) => ({ kustomizationRefs: [{ kind: 'ConfigMap', name: 'k', ...(ns ? { namespace: ns } : {}) }] }),
    (s) => s.kustomizationRefs[0].namespace,
  ],
  [
    'spec.kustomizationRefs[0].valuesFrom[0].namespace',
    (ns) => ({
      kustomizationRefs: [
        {
          kind: 'ConfigMap',
          name: 'k',
          namespace: 'team-a',
          valuesFrom: [{ kind: 'Secret', name: 'v', ...(ns ? { namespace: ns } : {}) }],
        },
      ],
    }),
    (s) => s.kustomizationRefs[0].valuesFrom[0].namespace,
  ],
  [
    'spec.helmCharts[0].valuesFrom[0].namespace',
    (ns) => ({
      helmCharts: [
        {
          repositoryURL: 'gitrepository://team-a/repo/chart',
          releaseName: 'r',
          releaseNamespace: 'r',
          valuesFrom: [{ kind: 'ConfigMap', name: 'v', ...(ns ? { namespace: ns } : {}) }],
        },
      ],
    }),
    (s) => s.helmCharts[0].valuesFrom[0].namespace,
  ],
  [
    'spec.helmCharts[0].registryCredentialsConfig.credentials.namespace',
    (ns) => ({
      helmCharts: [
        {
          repositoryURL: 'gitrepository://team-a/repo/chart',
          releaseName: 'r',
          releaseNamespace: 'r',
          registryCredentialsConfig: { credentials: { name: 'c', ...(ns ? { namespace: ns } : {}) } },
        },
      ],
    }),
    (s) => s.helmCharts[0].registryCredentialsConfig.credentials.namespace,
  ],
  [
    'spec.helmCharts[0].registryCredentialsConfig.ca.namespace',
    (ns) => ({
      helmCharts: [
        {
          repositoryURL: 'gitrepository://team-a/repo/chart',
          releaseName: 'r',
          releaseNamespace: 'r',
          registryCredentialsConfig: { ca: { name: 'c', ...(ns ? { namespace: ns } : {}) } },
        },
      ],
    }),
    (s) => s.helmCharts[0].registryCredentialsConfig.ca.namespace,
  ],
  [
    'spec.patchesFrom[0].namespace',
    (ns) => ({ patchesFrom: [{ kind: 'ConfigMap', name: 'p', ...(ns ? { namespace: ns } : {}) }] }),
    (s) => s.patchesFrom[0].namespace,
  ],
  [
    'spec.templateResourceRefs[0].resource.namespace',
    (ns) => ({
      templateResourceRefs: [
        {
          identifier: 'x',
          resource: { apiVersion: 'v1', kind: 'Secret', name: 's', ...(ns ? { namespace: ns } : {}) },
        },
      ],
    }),
    (s) => s.templateResourceRefs[0].resource.namespace,
  ],
  [
    'spec.validateHealths[0].metricSource.secretRef.namespace',
    (ns) => ({
      validateHealths: [
        check({
          script: 'x',
          metricSource: { url: 'http://prom', secretRef: { name: 's', ...(ns ? { namespace: ns } : {}) } },
        }),
      ],
    }),
    (s) => s.validateHealths[0].metricSource.secretRef.namespace,
  ],
  [
    'spec.preDeployChecks[0].jobCheck.jobRef.namespace',
    (ns) => ({
      preDeployChecks: [
        check({ jobCheck: { jobRef: { kind: 'ConfigMap', name: 'j', namespace: ns ?? '' } } }),
      ],
    }),
    (s) => s.preDeployChecks[0].jobCheck.jobRef.namespace,
  ],
];

test('a reference left without a namespace is stored with the Profile’s own', async () => {
  let i = 0;
  for (const [field, spec, read] of references) {
    const created = await api.call(
      'POST',
      `${profiles}?fieldValidation=Strict`,
      profile(`empty-${i++}`, spec()),
    );
    assert.equal(created.status, 201, `${field}: ${JSON.stringify(created.body)}`);
    assert.equal(read(created.body.spec as Json), 'team-a', field);
  }
});

test('a reference naming the Profile’s own namespace is kept as written', async () => {
  let i = 0;
  for (const [field, spec, read] of references) {
    const created = await api.call('POST', profiles, profile(`own-${i++}`, spec('team-a')));
    assert.equal(created.status, 201, `${field}: ${JSON.stringify(created.body)}`);
    assert.equal(read(created.body.spec as Json), 'team-a', field);
  }
});

test('a reference naming another namespace is a 422 naming the field, never silently rewritten', async () => {
  for (const [field, spec] of references) {
    const reply = await api.call('POST', profiles, profile('other', spec('team-b')));
    assert.equal(reply.status, 422, `${field}: ${JSON.stringify(reply.body)}`);
    assert.deepEqual(causesOf(reply), [`${field}: FieldValueInvalid`]);
    assert.match(
      String(reply.body.message),
      new RegExp(
        `${field.replace(/[[\].]/g, '\\$&')}: Invalid value: "team-b": may only name the Profile's namespace team-a`,
      ),
    );
  }
  // The same references in a ClusterProfile are the platform's to make.
  let i = 0;
  for (const [field, spec, read] of references) {
    const reply = await api.call('POST', clusterProfiles, {
      ...profile(`platform-${i++}`, spec('team-b')),
      kind: 'ClusterProfile',
    });
    assert.equal(reply.status, 201, `${field}: ${JSON.stringify(reply.body)}`);
    assert.equal(read(reply.body.spec as Json), 'team-b', field);
  }
});

test('a chart from a Flux source in another namespace is a 422 naming repositoryURL; its own is kept', async () => {
  const chart = (repositoryURL: string): Json => ({
    helmCharts: [
      {
        repositoryURL: 'https://charts.example',
        repositoryName: 'x',
        chartName: 'x/x',
        chartVersion: '1',
        releaseName: 'x',
        releaseNamespace: 'x',
      },
      { repositoryURL, releaseName: 'r', releaseNamespace: 'r' },
    ],
  });
  for (const url of [
    'gitrepository://team-b/repo/chart',
    'OCIRepository://team-b/repo',
    'bucket:///b/chart',
  ]) {
    const reply = await api.call('POST', profiles, profile('flux-other', chart(url)));
    assert.equal(reply.status, 422, `${url}: ${JSON.stringify(reply.body)}`);
    assert.deepEqual(causesOf(reply), ['spec.helmCharts[1].repositoryURL: FieldValueInvalid']);
    assert.match(
      String(reply.body.message),
      new RegExp(
        `spec\\.helmCharts\\[1\\]\\.repositoryURL: Invalid value: "${url}": may only name a Flux source in the Profile's namespace team-a`,
      ),
    );
  }
  const own = await api.call(
    'POST',
    profiles,
    profile('flux-own', chart('gitrepository://team-a/repo/chart')),
  );
  assert.equal(own.status, 201, JSON.stringify(own.body));
  // The platform's ClusterProfile may use any namespace's source.
  const platform = await api.call('POST', `${clusterProfiles}?dryRun=All`, {
    ...profile('flux-platform', chart('gitrepository://flux-system/repo/chart')),
    kind: 'ClusterProfile',
  });
  assert.equal(platform.status, 201, JSON.stringify(platform.body));
});

test('a Profile cannot deliver Local; a ClusterProfile can', async () => {
  const cases: [string, Json][] = [
    [
      'spec.policyRefs[1].deploymentType',
      {
        policyRefs: [
          { kind: 'ConfigMap', name: 'a' },
          { kind: 'ConfigMap', name: 'b', deploymentType: 'Local' },
        ],
      },
    ],
    [
      'spec.kustomizationRefs[0].deploymentType',
      { kustomizationRefs: [{ kind: 'Secret', name: 'k', deploymentType: 'Local' }] },
    ],
  ];
  for (const [field, spec] of cases) {
    const reply = await api.call('POST', profiles, profile('local', spec));
    assert.equal(reply.status, 422, JSON.stringify(reply.body));
    assert.deepEqual(causesOf(reply), [`${field}: FieldValueForbidden`]);
    assert.match(String(reply.body.message), /Local delivery is for ClusterProfiles only/);
    const platform = await api.call('POST', `${clusterProfiles}?dryRun=All`, {
      ...profile('local', spec),
      kind: 'ClusterProfile',
    });
    assert.equal(platform.status, 201, JSON.stringify(platform.body));
  }
  const remote = await api.call(
    'POST',
    profiles,
    profile('remote', { policyRefs: [{ kind: 'ConfigMap', name: 'a', deploymentType: 'Remote' }] }),
  );
  assert.equal(remote.status, 201, JSON.stringify(remote.body));
});

test('the rules hold on update: a patch to another namespace or to Local is refused', async () => {
  const toOther = await api.call(
    'PATCH',
    `${profiles}/empty-1`,
    { spec: { policyRefs: [{ kind: 'ConfigMap', name: 'cm', namespace: 'team-b' }] } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(toOther.status, 422);
  assert.deepEqual(causesOf(toOther), ['spec.policyRefs[0].namespace: FieldValueInvalid']);
  const toLocal = await api.call(
    'PATCH',
    `${profiles}/empty-1`,
    { spec: { policyRefs: [{ kind: 'ConfigMap', name: 'cm', deploymentType: 'Local' }] } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(toLocal.status, 422);
  assert.deepEqual(causesOf(toLocal), ['spec.policyRefs[0].deploymentType: FieldValueForbidden']);
  // A replacement list without namespaces is filled in again, and the CRD defaults return.
  const replaced = await api.call(
    'PATCH',
    `${profiles}/empty-1`,
    { spec: { policyRefs: [{ kind: 'Secret', name: 'other' }] } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  assert.deepEqual((replaced.body.spec as Json).policyRefs, [
    {
      kind: 'Secret',
      name: 'other',
      namespace: 'team-a',
      deploymentType: 'Remote',
      optional: false,
      tier: 100,
      skipNamespaceCreation: false,
      force: false,
    },
  ]);
});

test('kubectl get profiles shows the same columns as clusterprofiles', async () => {
  const row = tableRow(await api.call('GET', `${profiles}/remote`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'SyncMode', 'Clusters', 'Tier', 'Age']);
  assert.deepEqual([row.Name, row.SyncMode, row.Clusters, row.Tier], ['remote', 'Continuous', 0, 100]);
});

test('server-side apply of a Profile: namespaces filled in on each apply, another namespace refused', async () => {
  const yaml = (namespace: string) => `apiVersion: config.projectsveltos.io/v1beta1
kind: Profile
metadata:
  name: tenant-app
  namespace: team-a
spec:
  clusterSelector:
    matchLabels:
      env: prod
  policyRefs:
    - kind: ConfigMap
      name: app${namespace ? `\n      namespace: ${namespace}` : ''}
`;
  const path = `${profiles}/tenant-app?fieldManager=kubectl`;
  const created = await api.call('PATCH', path, yaml(''), { contentType: APPLY });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((created.body.spec as Json).policyRefs[0].namespace, 'team-a');
  const again = await api.call('PATCH', path, yaml(''), { contentType: APPLY });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal((again.body.spec as Json).policyRefs[0].namespace, 'team-a');
  const other = await api.call('PATCH', path, yaml('team-b'), { contentType: APPLY });
  assert.equal(other.status, 422);
  assert.deepEqual(causesOf(other), ['spec.policyRefs[0].namespace: FieldValueInvalid']);
});
