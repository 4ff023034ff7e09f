// Cluster and FleetClusterJoin as a user of the hub's API sees them: stamped labels, validation
// (422 causes naming the field), join defaults and immutability, and the kubectl columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds } from '../builtin/index.js';
import { APPLY, causesOf, MERGE_PATCH, useTestApi, TABLE, tableRow, type Json } from './test-support.js';

const api = useTestApi(builtinKinds);

const clusters = (ns = 'team-a') => `/apis/fleet.fleethub.io/v1alpha1/namespaces/${ns}/clusters`;
const joins = (ns = 'team-a') => `/apis/fleet.fleethub.io/v1alpha1/namespaces/${ns}/fleetclusterjoins`;

const cluster = (name: string, spec: Json = {}, labels: Record<string, string> = {}): Json => ({
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name, labels },
  spec,
});

test('Cluster: tenant, cluster-name and site labels are stamped over what the user sent', async () => {
  const created = await api.call(
    'POST',
    clusters(),
    cluster(
      'edge-1',
      {
        site: 'berlin',
        clusterNetwork: {
          pods: { cidrBlocks: ['10.42.0.0/16'] },
          services: { cidrBlocks: ['10.43.0.0/16'] },
        },
      },
      {
        'fleethub.io/tenant': 'someone-else',
        'cluster.x-k8s.io/cluster-name': 'spoof',
        'fleet.site': 'x',
        app: 'kept',
      },
    ),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.metadata.labels, {
    'fleethub.io/tenant': 'team-a',
    'cluster.x-k8s.io/cluster-name': 'edge-1',
    'fleet.site': 'berlin',
    app: 'kept',
  });

  // A merge patch that tries to change the stamps and moves the cluster: stamps follow spec.site.
  const patched = await api.call(
    'PATCH',
    `${clusters()}/edge-1`,
    { metadata: { labels: { 'fleethub.io/tenant': 'team-b' } }, spec: { site: 'paris' } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.metadata.labels['fleethub.io/tenant'], 'team-a');
  assert.equal(patched.body.metadata.labels['fleet.site'], 'paris');

  // PUT without a site and without labels: fleet.site goes, the other stamps come back.
  const put = await api.call('PUT', `${clusters()}/edge-1`, {
    ...patched.body,
    metadata: { ...patched.body.metadata, labels: {} },
    spec: { paused: true },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.metadata.labels, {
    'fleethub.io/tenant': 'team-a',
    'cluster.x-k8s.io/cluster-name': 'edge-1',
  });

  // Server-side apply, create and update.
  const applied = await api.call(
    'PATCH',
    `${clusters('default')}/edge-2?fieldManager=ops`,
    cluster('edge-2', { site: 'rome' }, { 'fleethub.io/tenant': 'nope' }),
    { contentType: APPLY },
  );
  assert.equal(applied.status, 201, JSON.stringify(applied.body));
  assert.equal(applied.body.metadata.labels['fleethub.io/tenant'], 'default');
  assert.equal(applied.body.metadata.labels['fleet.site'], 'rome');
  const reapplied = await api.call(
    'PATCH',
    `${clusters('default')}/edge-2?fieldManager=ops`,
    cluster('edge-2', { site: 'oslo' }, { 'fleet.site': 'rome' }),
    { contentType: APPLY },
  );
  assert.equal(reapplied.status, 200, JSON.stringify(reapplied.body));
  assert.equal(reapplied.body.metadata.labels['fleet.site'], 'oslo');
});

test('Cluster: invalid names, CIDRs and sites are 422s naming the field', async () => {
  const badName = await api.call('POST', clusters(), cluster('edge.one'));
  assert.equal(badName.status, 422);
  assert.deepEqual(causesOf(badName), ['metadata.name: FieldValueInvalid']);
  assert.match(String(badName.body.message), /RFC 1123 label/);

  const longName = await api.call('POST', clusters(), cluster('x'.repeat(64)));
  assert.equal(longName.status, 422);
  assert.match(String(longName.body.message), /must be no more than 63 characters/);

  const badCidr = await api.call(
    'POST',
    clusters(),
    cluster('edge-3', {
      clusterNetwork: {
        pods: { cidrBlocks: ['10.42.0.0/16', '10.300.0.0/16'] },
        services: { cidrBlocks: ['fd00::/108'] },
      },
    }),
  );
  assert.equal(badCidr.status, 422);
  assert.deepEqual(causesOf(badCidr), [
    'spec.clusterNetwork.pods.cidrBlocks[1]: FieldValueInvalid',
    'spec.clusterNetwork.services.cidrBlocks[0]: FieldValueInvalid',
  ]);
  assert.match(String(badCidr.body.message), /"10\.300\.0\.0\/16": has an octet above 255/);
  assert.match(String(badCidr.body.message), /"fd00::\/108": is not an IPv4 CIDR/);

  const badSite = await api.call('POST', clusters(), cluster('edge-4', { site: 'Berlin Mitte' }));
  assert.equal(badSite.status, 422);
  assert.deepEqual(causesOf(badSite), ['spec.site: FieldValueInvalid']);

  const badType = await api.call('POST', clusters(), cluster('edge-5', { paused: 'yes' }));
  assert.equal(badType.status, 422);
  assert.deepEqual(causesOf(badType), ['spec.paused: FieldValueTypeInvalid']);

  const badCondition = await api.call(
    'PATCH',
    `${clusters()}/edge-1/status`,
    { status: { conditions: [{ type: 'Available', status: 'Yes' }] } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(badCondition.status, 422);
  assert.deepEqual(causesOf(badCondition), ['status.conditions[0].status: FieldValueNotSupported']);
});

test('Cluster: the agent reports status; kubectl get shows Site, Available, Version, Nodes, Age', async () => {
  const status = await api.call(
    'PATCH',
    `${clusters()}/edge-1/status`,
    {
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'AgentReady',
            lastTransitionTime: '2024-01-01T00:00:00Z',
          },
        ],
        kubernetesVersion: 'v1.31.4+k3s1',
        nodeCount: 3,
        capacity: { cpu: '12', memory: '48Gi', pods: '330' },
        allocatable: { cpu: '11', memory: '46Gi', pods: '330' },
        capabilities: {
          apiVersions: ['apps/v1', 'v1'],
          storageClasses: ['local-path'],
          ingressClasses: ['traefik'],
        },
        agentVersion: '0.1.0',
        lastContactTime: '2024-01-01T00:00:00Z',
        clusterNetwork: { pods: { cidrBlocks: ['10.42.0.0/16'] } },
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(status.status, 200, JSON.stringify(status.body));
  await api.call('PATCH', `${clusters()}/edge-1`, { spec: { site: 'berlin' } }, { contentType: MERGE_PATCH });
  const row = tableRow(await api.call('GET', `${clusters()}/edge-1`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Site', 'Available', 'Version', 'Nodes', 'Age']);
  assert.deepEqual(
    [row.Name, row.Site, row.Available, row.Version, row.Nodes],
    ['edge-1', 'berlin', 'True', 'v1.31.4+k3s1', 3],
  );
  assert.match(String(row.Age), /^\d+s$/);
});

const join = (name: string, spec: Json): Json => ({
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'FleetClusterJoin',
  metadata: { name },
  spec,
});

test('FleetClusterJoin: defaults ttlSeconds and a Pending phase', async () => {
  const created = await api.call(
    'POST',
    joins(),
    join('join-1', { clusterName: 'shop-17', site: 'berlin', labels: { tier: 'edge' } }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.spec.ttlSeconds, 86400);
  assert.deepEqual(created.body.status, { phase: 'Pending' });
  const short = await api.call('GET', '/apis/fleet.fleethub.io/v1alpha1');
  const resource = (short.body.resources as Json[]).find((r) => r.name === 'fleetclusterjoins')!;
  assert.deepEqual(
    [resource.shortNames, resource.categories, resource.namespaced],
    [['fcj'], ['fleet'], true],
  );
});

test('FleetClusterJoin: invalid specs are 422s naming the field', async () => {
  const cases: [Json, string[], RegExp?][] = [
    [{}, ['spec.clusterName: FieldValueRequired']],
    [{ clusterName: 'Shop_17' }, ['spec.clusterName: FieldValueInvalid'], /RFC 1123 label/],
    [{ clusterName: 's', ttlSeconds: 30 }, ['spec.ttlSeconds: FieldValueInvalid'], /greater or equal to 60/],
    [
      { clusterName: 's', ttlSeconds: 31 * 86400 },
      ['spec.ttlSeconds: FieldValueInvalid'],
      /less or equal to 2592000/,
    ],
    [{ clusterName: 's', labels: { 'bad key!': 'v' } }, ['spec.labels: FieldValueInvalid'], /bad key!/],
    [{ clusterName: 's', labels: { ok: 'bad value!' } }, ['spec.labels: FieldValueInvalid'], /bad value!/],
    [
      { clusterName: 's', clusterNetwork: { pods: { cidrBlocks: ['10.42.0.0'] } } },
      ['spec.clusterNetwork.pods.cidrBlocks[0]: FieldValueInvalid'],
    ],
  ];
  for (const [spec, expected, message] of cases) {
    const reply = await api.call('POST', joins(), join('bad', spec));
    assert.equal(reply.status, 422, JSON.stringify(spec));
    assert.deepEqual(causesOf(reply), expected, JSON.stringify(spec));
    if (message) assert.match(String(reply.body.message), message);
  }
});

test('FleetClusterJoin: the spec is immutable, metadata and status are not', async () => {
  const changed = await api.call(
    'PATCH',
    `${joins()}/join-1`,
    { spec: { clusterName: 'shop-18' } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(changed.status, 422);
  assert.deepEqual(causesOf(changed), ['spec: FieldValueForbidden']);
  assert.match(String(changed.body.message), /spec: Forbidden: spec is immutable/);

  // A PUT of the manifest as first written (no ttlSeconds) is the same spec once defaulted.
  const live = (await api.call('GET', `${joins()}/join-1`)).body;
  const put = await api.call('PUT', `${joins()}/join-1`, {
    ...live,
    metadata: { ...live.metadata, labels: { owner: 'ops' } },
    spec: { clusterName: 'shop-17', site: 'berlin', labels: { tier: 'edge' } },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.metadata.labels.owner, 'ops');

  const expires = new Date(Date.now() + 20 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const status = await api.call(
    'PATCH',
    `${joins()}/join-1/status`,
    {
      status: {
        phase: 'Ready',
        tokenSecretName: 'join-1-token',
        command: 'fleethub agent join …',
        expirationTime: expires,
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(status.status, 200, JSON.stringify(status.body));
  const row = tableRow(await api.call('GET', `${joins()}/join-1`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Cluster', 'Status', 'Expires', 'Age']);
  assert.deepEqual([row.Cluster, row.Status], ['shop-17', 'Ready']);
  assert.match(String(row.Expires), /^(19h|20h)$/);
});
