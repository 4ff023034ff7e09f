// Host and FleetHostJoin (cluster-scoped) through the hub's API: the site label, validation, join
// defaults and immutability, and the kubectl columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds } from '../builtin/index.js';
import { causesOf, MERGE_PATCH, useTestApi, TABLE, tableRow, type Json } from './test-support.js';

const api = useTestApi(builtinKinds);

const hosts = '/apis/fleet.fleethub.io/v1alpha1/hosts';
const joins = '/apis/fleet.fleethub.io/v1alpha1/fleethostjoins';
const host = (name: string, spec: Json = {}, labels: Record<string, string> = {}): Json => ({
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'Host',
  metadata: { name, labels },
  spec,
});

test('Host: fleet.site follows spec.site whatever the labels say', async () => {
  const created = await api.call(
    'POST',
    hosts,
    host('nuc-1', { site: 'berlin' }, { 'fleet.site': 'paris', rack: 'a' }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.metadata.labels, { 'fleet.site': 'berlin', rack: 'a' });
  const unset = await api.call(
    'PATCH',
    `${hosts}/nuc-1`,
    { spec: { site: null, unschedulable: true } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(unset.status, 200, JSON.stringify(unset.body));
  assert.deepEqual(unset.body.metadata.labels, { rack: 'a' });
  const relabel = await api.call(
    'PATCH',
    `${hosts}/nuc-1`,
    { metadata: { labels: { 'fleet.site': 'x' } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(relabel.status, 200);
  assert.deepEqual(relabel.body.metadata.labels, { rack: 'a' });
});

test('Host: names are DNS labels, quantities parse, the site must be a label value', async () => {
  const cases: [Json, string[]][] = [
    [host('nuc.1'), ['metadata.name: FieldValueInvalid']],
    [host('nuc-2', { site: '-x-' }), ['spec.site: FieldValueInvalid']],
    [host('nuc-3', { unschedulable: 'no' }), ['spec.unschedulable: FieldValueTypeInvalid']],
  ];
  for (const [obj, expected] of cases) {
    const reply = await api.call('POST', hosts, obj);
    assert.equal(reply.status, 422, JSON.stringify(obj));
    assert.deepEqual(causesOf(reply), expected, JSON.stringify(obj));
  }
  const badQuantity = await api.call(
    'PATCH',
    `${hosts}/nuc-1/status`,
    { status: { cpu: 'lots' } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(badQuantity.status, 422);
  assert.deepEqual(causesOf(badQuantity), ['status.cpu: FieldValueInvalid']);
});

test('Host: kubectl get shows Site, Available, Arch, CPU, Memory, K3s, Age', async () => {
  await api.call('PATCH', `${hosts}/nuc-1`, { spec: { site: 'berlin' } }, { contentType: MERGE_PATCH });
  const status = await api.call(
    'PATCH',
    `${hosts}/nuc-1/status`,
    {
      status: {
        hostname: 'nuc-1.lan',
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
        os: 'linux',
        osImage: 'Ubuntu 24.04 LTS',
        kernelVersion: '6.8.0',
        architecture: 'arm64',
        cpu: '4',
        memory: '16Gi',
        k3sEnabled: true,
        agentVersion: '0.1.0',
        lastContactTime: '2024-01-01T00:00:00Z',
        conditions: [{ type: 'Available', status: 'True' }],
      },
    },
    { contentType: MERGE_PATCH },
  );
  assert.equal(status.status, 200, JSON.stringify(status.body));
  const row = tableRow(await api.call('GET', `${hosts}/nuc-1`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Site', 'Available', 'Arch', 'CPU', 'Memory', 'K3s', 'Age']);
  assert.deepEqual(
    [row.Name, row.Site, row.Available, row.Arch, row.CPU, row.Memory, row.K3s],
    ['nuc-1', 'berlin', 'True', 'arm64', '4', '16Gi', true],
  );
});

const join = (name: string, spec: Json): Json => ({
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'FleetHostJoin',
  metadata: { name },
  spec,
});

test('FleetHostJoin: defaults, validation and an immutable spec', async () => {
  const created = await api.call('POST', joins, join('hj-1', { hostName: 'nuc-9', site: 'berlin' }));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.spec.ttlSeconds, 86400);
  assert.deepEqual(created.body.status, { phase: 'Pending' });

  const cases: [Json, string[]][] = [
    [{ site: 'berlin' }, ['spec.hostName: FieldValueRequired']],
    [{ hostName: 'NUC' }, ['spec.hostName: FieldValueInvalid']],
    [{ hostName: 'n', ttlSeconds: 59 }, ['spec.ttlSeconds: FieldValueInvalid']],
    [{ hostName: 'n', labels: { '/x': 'y' } }, ['spec.labels: FieldValueInvalid']],
  ];
  for (const [spec, expected] of cases) {
    const reply = await api.call('POST', joins, join('bad', spec));
    assert.equal(reply.status, 422, JSON.stringify(spec));
    assert.deepEqual(causesOf(reply), expected, JSON.stringify(spec));
  }

  const changed = await api.call(
    'PATCH',
    `${joins}/hj-1`,
    { spec: { ttlSeconds: 600 } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(changed.status, 422);
  assert.deepEqual(causesOf(changed), ['spec: FieldValueForbidden']);

  const used = await api.call(
    'PATCH',
    `${joins}/hj-1/status`,
    { status: { phase: 'Used', usedTime: '2024-01-01T00:00:00Z', hostRef: { name: 'nuc-9' } } },
    { contentType: MERGE_PATCH },
  );
  assert.equal(used.status, 200, JSON.stringify(used.body));
  const row = tableRow(await api.call('GET', `${joins}/hj-1`, undefined, { accept: TABLE }));
  assert.deepEqual(Object.keys(row), ['Name', 'Host', 'Status', 'Expires', 'Age']);
  assert.deepEqual([row.Host, row.Status, row.Expires], ['nuc-9', 'Used', null]);
});
