// ManifestWork through the hub's API: OCM's shape with objects kept as sent, the cluster label required
// and immutable, manifests identified and unique, the 1 MiB cap, annotations, and the kubectl columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds } from '../builtin/index.js';
import { APPLY, causesOf, MERGE_PATCH, useTestApi, TABLE, tableRow, type Json } from './test-support.js';

const api = useTestApi(builtinKinds);

const works = '/apis/work.open-cluster-management.io/v1/namespaces/team-a/manifestworks';

const deployment = (name: string, extra: Json = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'web' },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'c', image: 'nginx', futureField: { x: 1 } }] } },
  },
  ...extra,
});

const work = (
  name: string,
  spec: Json,
  labels: Record<string, string> = { 'fleethub.io/cluster': 'edge-1' },
  annotations?: Json,
): Json => ({
  apiVersion: 'work.open-cluster-management.io/v1',
  kind: 'ManifestWork',
  metadata: { name, labels, ...(annotations ? { annotations } : {}) },
  spec,
});

test('a ManifestWork in OCM shape is accepted with its manifests kept exactly as sent', async () => {
  const spec = {
    workload: {
      manifests: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } },
        deployment('web'),
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w' },
          anything: [1, { deep: true }],
        },
      ],
    },
    deleteOption: {
      propagationPolicy: 'SelectivelyOrphan',
      selectivelyOrphans: { orphaningRules: [{ group: '', resource: 'namespaces', name: 'web' }] },
      ttlSecondsAfterFinished: 60,
    },
    manifestConfigs: [
      {
        resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'web', name: 'web' },
        feedbackRules: [
          { type: 'WellKnownStatus' },
          { type: 'JSONPaths', jsonPaths: [{ name: 'ready', path: '.status.readyReplicas' }] },
        ],
        updateStrategy: {
          type: 'ServerSideApply',
          serverSideApply: {
            force: true,
            fieldManager: 'work-agent-web',
            ignoreFields: [{ condition: 'OnSpokeChange', jsonPaths: ['.spec.replicas'] }],
          },
        },
      },
    ],
  };
  const created = await api.call(
    'POST',
    `${works}?fieldValidation=Strict`,
    work(
      'web',
      spec,
      { 'fleethub.io/cluster': 'edge-1' },
      { 'fleethub.io/drift-correction': 'false', 'fleethub.io/dry-run': 'true' },
    ),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.spec, spec);
  assert.equal(created.headers.get('warning'), null);
  // The hub adds the agent's cleanup finalizer at creation (the agent need not write it before applying).
  assert.deepEqual((created.body.metadata as Json).finalizers, ['fleethub.io/agent-cleanup']);
});

test('the fleethub.io/cluster label is required and cannot change', async () => {
  const missing = await api.call('POST', works, work('w1', {}, {}));
  assert.equal(missing.status, 422);
  assert.deepEqual(causesOf(missing), ['metadata.labels[fleethub.io/cluster]: FieldValueRequired']);
  const empty = await api.call('POST', works, work('w1', {}, { 'fleethub.io/cluster': '' }));
  assert.deepEqual(causesOf(empty), ['metadata.labels[fleethub.io/cluster]: FieldValueRequired']);
  const invalid = await api.call('POST', works, work('w1', {}, { 'fleethub.io/cluster': 'not a label' }));
  assert.deepEqual(causesOf(invalid), ['metadata.labels: FieldValueInvalid']);

  const moved = await api.call(
    'PATCH',
    `${works}/web`,
    { metadata: { labels: { 'fleethub.io/cluster': 'edge-2' } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(moved.status, 422);
  assert.deepEqual(causesOf(moved), ['metadata.labels[fleethub.io/cluster]: FieldValueInvalid']);
  assert.match(String(moved.body.message), /"edge-2": field is immutable/);
  const dropped = await api.call(
    'PATCH',
    `${works}/web`,
    { metadata: { labels: { 'fleethub.io/cluster': null } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(dropped.status, 422);
  const other = await api.call(
    'PATCH',
    `${works}/web`,
    { metadata: { labels: { team: 'web' } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(other.status, 200, 'other labels may change');
});

test('every manifest needs apiVersion, kind and metadata.name, and names one object once', async () => {
  const reply = await api.call(
    'POST',
    works,
    work('w2', {
      workload: {
        manifests: [
          deployment('a'),
          { kind: 'ConfigMap', metadata: { name: 'c' } },
          { apiVersion: 'v1', metadata: { generateName: 'c-' } },
          deployment('a', { apiVersion: 'apps/v1beta2' }),
          deployment('a', { metadata: { name: 'a', namespace: 'other' } }),
        ],
      },
    }),
  );
  assert.equal(reply.status, 422);
  assert.deepEqual(causesOf(reply), [
    'spec.workload.manifests[1].apiVersion: FieldValueRequired',
    'spec.workload.manifests[2].kind: FieldValueRequired',
    'spec.workload.manifests[2].metadata.name: FieldValueRequired',
    'spec.workload.manifests[3]: FieldValueDuplicate',
  ]);
  assert.match(
    String(reply.body.message),
    /Duplicate value: "apps\/Deployment web\/a": the same object as spec\.workload\.manifests\[0\]/,
  );

  const notObject = await api.call(
    'POST',
    works,
    work('w3', { workload: { manifests: ['kind: ConfigMap'] } }),
  );
  assert.equal(notObject.status, 422);
  assert.deepEqual(causesOf(notObject), ['spec.workload.manifests[0]: FieldValueTypeInvalid']);
});

test('a ManifestWork over 1 MiB is refused with its size and the limit', async () => {
  const big = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big' },
    data: { blob: 'x'.repeat(1024 * 1024) },
  };
  const reply = await api.call('POST', works, work('huge', { workload: { manifests: [big] } }));
  assert.equal(reply.status, 422);
  assert.deepEqual(causesOf(reply), ['spec.workload.manifests: FieldValueTooLong']);
  assert.match(
    String(reply.body.message),
    /spec\.workload\.manifests: Too long: the ManifestWork is 10\d{5} bytes, may not be more than 1048576 bytes \(1 MiB\)/,
  );
  const justUnder = { ...big, data: { blob: 'x'.repeat(1000 * 1024) } };
  const ok = await api.call('POST', works, work('large', { workload: { manifests: [justUnder] } }));
  assert.equal(ok.status, 201, JSON.stringify(ok.body).slice(0, 500));
  const grown = await api.call(
    'PATCH',
    `${works}/large`,
    { spec: { workload: { manifests: [big] } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(grown.status, 422, 'the cap holds on update');
});

test('annotations and enums take only the values the agent understands', async () => {
  const annotations = await api.call(
    'POST',
    works,
    work(
      'w4',
      {},
      { 'fleethub.io/cluster': 'edge-1' },
      { 'fleethub.io/drift-correction': 'off', 'fleethub.io/dry-run': 'True' },
    ),
  );
  assert.equal(annotations.status, 422);
  assert.deepEqual(causesOf(annotations), [
    'metadata.annotations[fleethub.io/drift-correction]: FieldValueNotSupported',
    'metadata.annotations[fleethub.io/dry-run]: FieldValueNotSupported',
  ]);
  assert.match(
    String(annotations.body.message),
    /Unsupported value: "off": supported values: "true", "false"/,
  );

  const enums = await api.call(
    'POST',
    works,
    work('w5', {
      deleteOption: { propagationPolicy: 'Background' },
      manifestConfigs: [
        {
          resourceIdentifier: { resource: 'configmaps', name: 'c' },
          feedbackRules: [{ type: 'JSONPaths' }, { type: 'Everything' }],
          updateStrategy: {
            type: 'Replace',
            serverSideApply: { ignoreFields: [{ condition: 'Always', jsonPaths: [] }] },
          },
        },
      ],
    }),
  );
  assert.equal(enums.status, 422);
  assert.deepEqual(causesOf(enums), [
    'spec.deleteOption.propagationPolicy: FieldValueNotSupported',
    'spec.manifestConfigs[0].feedbackRules[0].jsonPaths: FieldValueRequired',
    'spec.manifestConfigs[0].feedbackRules[1].type: FieldValueNotSupported',
    'spec.manifestConfigs[0].updateStrategy.type: FieldValueNotSupported',
    'spec.manifestConfigs[0].updateStrategy.serverSideApply.ignoreFields[0].condition: FieldValueNotSupported',
    'spec.manifestConfigs[0].updateStrategy.serverSideApply.ignoreFields[0].jsonPaths: FieldValueRequired',
  ]);

  const missingResource = await api.call(
    'POST',
    works,
    work('w6', { manifestConfigs: [{ resourceIdentifier: { name: 'c' } }] }),
  );
  assert.deepEqual(causesOf(missingResource), [
    'spec.manifestConfigs[0].resourceIdentifier.resource: FieldValueRequired',
  ]);
});

test('the agent reports per-manifest status and feedback; kubectl get shows Cluster, Applied, Available', async () => {
  const status = {
    conditions: [
      {
        type: 'Applied',
        status: 'True',
        reason: 'AppliedManifestWorkComplete',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
      {
        type: 'Available',
        status: 'False',
        reason: 'ResourcesNotAvailable',
        lastTransitionTime: '2024-01-01T00:00:00Z',
      },
    ],
    resourceStatus: {
      manifests: [
        {
          resourceMeta: {
            ordinal: 1,
            group: 'apps',
            version: 'v1',
            kind: 'Deployment',
            resource: 'deployments',
            name: 'web',
            namespace: 'web',
          },
          statusFeedback: {
            values: [
              { name: 'ready', fieldValue: { type: 'Integer', integer: 2 } },
              { name: 'raw', fieldValue: { type: 'JsonRaw', jsonRaw: '{"a":1}' } },
            ],
          },
          conditions: [{ type: 'Applied', status: 'True' }],
        },
      ],
    },
  };
  const reply = await api.call('PATCH', `${works}/web/status`, { status }, { contentType: MERGE_PATCH });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.deepEqual(reply.body.status, status);
  const badFeedback = await api.call(
    'PATCH',
    `${works}/web/status`,
    {
      status: {
        resourceStatus: {
          manifests: [
            {
              resourceMeta: { ordinal: 0 },
              statusFeedback: { values: [{ name: 'x', fieldValue: { type: 'Float' } }] },
            },
          ],
        },
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.deepEqual(causesOf(badFeedback), [
    'status.resourceStatus.manifests[0].statusFeedback.values[0].fieldValue.type: FieldValueNotSupported',
  ]);

  const row = tableRow(await api.call('GET', `${works}/web`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Cluster', 'Applied', 'Available', 'Age']);
  assert.deepEqual([row.Name, row.Cluster, row.Applied, row.Available], ['web', 'edge-1', 'True', 'False']);
});

test('server-side apply of a ManifestWork keeps manifests whole and the label rules', async () => {
  const applied = (image: string, cluster = 'edge-1') =>
    work(
      'applied',
      {
        workload: {
          manifests: [
            deployment('api', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
          ],
        },
      },
      {
        'fleethub.io/cluster': cluster,
      },
    );
  const created = await api.call('PATCH', `${works}/applied?fieldManager=ci`, applied('api:1'), {
    contentType: APPLY,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const updated = await api.call('PATCH', `${works}/applied?fieldManager=ci`, applied('api:2'), {
    contentType: APPLY,
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.spec.workload.manifests[0].spec.template.spec.containers[0].image, 'api:2');
  const moved = await api.call('PATCH', `${works}/applied?fieldManager=ci`, applied('api:2', 'edge-9'), {
    contentType: APPLY,
  });
  assert.equal(moved.status, 422);
  assert.deepEqual(causesOf(moved), ['metadata.labels[fleethub.io/cluster]: FieldValueInvalid']);
});

test('a local ManifestWork (fleethub.io/local) is refused to everyone through the API: create, update, status, relabel, delete', async () => {
  const forbidden =
    /is labelled fleethub\.io\/local: the hub applies such works to itself and only its controllers write them/;
  const tenant = { user: 'alice', groups: ['team-a'] };
  const agent = { user: 'fleethub:cluster:team-a:edge-1', groups: ['fleethub:cluster-agents'] };
  const local = (name: string): Json =>
    work(name, { workload: { manifests: [deployment('x')] } }, { 'fleethub.io/local': 'true' });
  for (const who of [{}, tenant, agent]) {
    const created = await api.call('POST', works, local('mine'), who);
    assert.equal(created.status, 403, JSON.stringify(created.body));
    assert.match(String(created.body.message), forbidden);
    assert.match(String(created.body.message), /\(create refused\)/);
  }
  // One made by the hub's controllers (the store): nobody may change, relabel or delete it either.
  await api.store.create('manifestworks.work.open-cluster-management.io', {
    ...local('hub-made'),
    metadata: { name: 'hub-made', namespace: 'team-a', labels: { 'fleethub.io/local': 'true' } },
  });
  const path = `${works}/hub-made`;
  for (const who of [{}, tenant, agent]) {
    const changed = await api.call(
      'PATCH',
      path,
      { spec: { workload: { manifests: [] } } },
      { contentType: MERGE_PATCH, ...who },
    );
    assert.equal(changed.status, 403, JSON.stringify(changed.body));
    // An agent's spec write is refused by its own rule first (admission runs before the guard): 403 either way.
    if (who !== agent) assert.match(String(changed.body.message), /\(update refused\)/);
    const status = await api.call(
      'PATCH',
      `${path}/status`,
      { status: { conditions: [] } },
      { contentType: MERGE_PATCH, ...who },
    );
    assert.equal(status.status, 403, JSON.stringify(status.body));
    const unlabelled = await api.call(
      'PATCH',
      path,
      { metadata: { labels: { 'fleethub.io/local': null } } },
      { contentType: MERGE_PATCH, ...who },
    );
    assert.equal(unlabelled.status, 403, JSON.stringify(unlabelled.body));
    const deleted = await api.call('DELETE', path, undefined, who);
    assert.equal(deleted.status, 403, JSON.stringify(deleted.body));
    assert.match(String(deleted.body.message), /\(delete refused\)/);
  }
  assert.ok(await api.store.get('manifestworks.work.open-cluster-management.io', 'team-a', 'hub-made'));
  // An ordinary work may not be turned into a local one.
  assert.equal((await api.call('POST', works, work('plain', {}))).status, 201);
  const relabel = await api.call(
    'PATCH',
    `${works}/plain`,
    { metadata: { labels: { 'fleethub.io/local': 'true' } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(relabel.status, 403, JSON.stringify(relabel.body));
  assert.match(String(relabel.body.message), forbidden);
});
