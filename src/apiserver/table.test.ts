import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { KindDefinition } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { ApiError } from '../util/errors.js';
import {
  parseIncludeObject,
  tableFromList,
  tableFromObject,
  tableWatchConverter,
  wantsTable,
} from './table.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
const schema = Type.Object({});

const def = (group: string, kind: string, extra: Partial<KindDefinition> = {}): KindDefinition => ({
  group,
  version: 'v1',
  kind,
  plural: `${kind.toLowerCase()}s`,
  singular: kind.toLowerCase(),
  namespaced: true,
  schema,
  ...extra,
});

const obj = (name: string, createdSecondsAgo: number, rest: Record<string, unknown> = {}): KubeObject => ({
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    resourceVersion: '7',
    creationTimestamp: ago(createdSecondsAgo),
    labels: { app: 'x' },
  },
  ...rest,
});

const columns = (t: { columnDefinitions: { name: string; priority: number }[] | null }) =>
  t.columnDefinitions!.map((c) => (c.priority ? `${c.name}*` : c.name));

const kubectlAccept =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

void test('wantsTable: the first clause we can produce decides', () => {
  assert.equal(wantsTable(kubectlAccept), 'v1');
  assert.equal(wantsTable('application/json;as=Table;v=v1beta1;g=meta.k8s.io'), 'v1beta1');
  assert.equal(wantsTable('application/json'), undefined);
  assert.equal(wantsTable(undefined), undefined);
  assert.equal(wantsTable('application/json, */*'), undefined);
  // protobuf Tables cannot be produced; the JSON Table after it can.
  assert.equal(
    wantsTable(
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io',
    ),
    'v1',
  );
  assert.equal(wantsTable('application/vnd.kubernetes.protobuf,application/json'), undefined);
  assert.equal(wantsTable('application/json;as=Table;v=v2;g=meta.k8s.io,application/json'), undefined);
});

void test('includeObject defaults to Metadata; anything unknown is a 400', () => {
  assert.equal(parseIncludeObject(new URLSearchParams()), 'Metadata');
  assert.equal(parseIncludeObject(new URLSearchParams('includeObject=Object')), 'Object');
  assert.equal(parseIncludeObject(new URLSearchParams('includeObject=None')), 'None');
  assert.throws(
    () => parseIncludeObject(new URLSearchParams('includeObject=All')),
    (e: unknown) =>
      e instanceof ApiError && e.code === 400 && /includeObject: Invalid value: "All"/.test(e.message),
  );
});

void test('a list Table: columns, cells, list metadata and PartialObjectMetadata rows', () => {
  const cm = def('', 'ConfigMap');
  const items = [obj('a', 300, { data: { x: '1', y: '2' }, binaryData: { z: 'AA==' } }), obj('b', 90061)];
  const table = tableFromList(
    cm,
    items,
    { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 },
    { now: NOW },
  );
  assert.equal(table.kind, 'Table');
  assert.equal(table.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(table.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
  assert.deepEqual(columns(table), ['Name', 'Data', 'Age']);
  assert.deepEqual(table.columnDefinitions![0], {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: table.columnDefinitions![0]!.description,
    priority: 0,
  });
  assert.deepEqual(
    table.rows.map((r) => r.cells),
    [
      ['a', 3, '5m'],
      ['b', 0, '25h'],
    ],
  );
  assert.deepEqual(table.rows[0]!.object, {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: items[0]!.metadata,
  });
  const empty = tableFromList(cm, [], { resourceVersion: '42' }, { version: 'v1beta1' });
  assert.deepEqual(empty.rows, []);
  assert.equal(empty.apiVersion, 'meta.k8s.io/v1beta1');
});

void test('includeObject=Object embeds whole objects with kind/apiVersion; None embeds null', () => {
  const lease = def('coordination.k8s.io', 'Lease');
  const item = obj('l', 10, { spec: { holderIdentity: 'node-1' } });
  const full = tableFromList(lease, [item], { resourceVersion: '1' }, { includeObject: 'Object', now: NOW });
  assert.deepEqual(full.rows[0]!.object, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...item });
  assert.deepEqual(full.rows[0]!.cells, ['l', 'node-1', '10s']);
  const none = tableFromList(lease, [item], { resourceVersion: '1' }, { includeObject: 'None', now: NOW });
  assert.equal(none.rows[0]!.object, null);
});

void test('a single object Table carries the object resourceVersion', () => {
  const table = tableFromObject(
    def('', 'Namespace', { namespaced: false }),
    obj('team-a', 5, { status: { phase: 'Active' } }),
    { now: NOW },
  );
  assert.deepEqual(table.metadata, { resourceVersion: '7' });
  assert.deepEqual(columns(table), ['Name', 'Status', 'Age']);
  assert.deepEqual(table.rows[0]!.cells, ['team-a', 'Active', '5s']);
});

void test('our kinds print like CRDs: Name, declared JSONPath columns, then Age rendered by the server', () => {
  const widget = def('fleet.example.io', 'Widget', {
    printerColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Selector', type: 'string', jsonPath: '.spec.selector', priority: 1 },
      { name: 'Weight', type: 'number', jsonPath: '.spec.weight' },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
      { name: 'Hosts', type: 'string', jsonPath: '.spec.hosts[*]' },
      {
        name: 'Keys',
        type: 'integer',
        jsonPath: '.spec.selector',
        value: (o) => Object.keys((o.spec as { selector: object }).selector).length,
      },
      { name: 'Since', type: 'date', jsonPath: '.status.since' },
    ],
  });
  const full = obj('w1', 30, {
    spec: { replicas: 2.9, selector: { b: '2', a: '<1>' }, weight: 0.5, paused: false, hosts: ['h1', 'h2'] },
    status: { conditions: [{ type: 'Ready', status: 'True' }], since: ago(7200) },
  });
  const bare = obj('w2', 30);
  const table = tableFromList(widget, [full, bare], { resourceVersion: '9' }, { now: NOW });
  assert.deepEqual(columns(table), [
    'Name',
    'Replicas',
    'Ready',
    'Selector*',
    'Weight',
    'Paused',
    'Hosts',
    'Keys',
    'Since',
    'Age',
  ]);
  assert.equal(table.columnDefinitions!.at(-1)!.type, 'date');
  assert.deepEqual(table.rows[0]!.cells, [
    'w1',
    2,
    'True',
    '{"a":"\\u003c1\\u003e","b":"2"}',
    0.5,
    false,
    'h1',
    2,
    '120m',
    '30s',
  ]);
  // Missing values are null cells (kubectl prints them empty), not "<none>".
  // Computed cells that throw on odd objects are empty too.
  assert.deepEqual(table.rows[1]!.cells, ['w2', null, null, null, null, null, null, null, null, '30s']);
  // A kind of ours without columns still gets Name + Age.
  assert.deepEqual(columns(tableFromList(def('fleet.example.io', 'Gadget'), [], {})), ['Name', 'Age']);
});

void test('date columns: RFC 3339 strings become ages, anything else <invalid> or <unknown>', () => {
  const k = def('fleet.example.io', 'Clock', {
    printerColumns: [{ name: 'At', type: 'date', jsonPath: '.at' }],
  });
  const cells = (at: unknown) => tableFromObject(k, obj('c', 1, { at }), { now: NOW }).rows[0]!.cells[1];
  assert.equal(cells(ago(59)), '59s');
  assert.equal(cells('yesterday'), '<invalid>');
  assert.equal(cells(''), '<unknown>');
  assert.equal(cells(12), null);
});

void test('Kubernetes kinds without a printer: Name and Created At as RFC 3339', () => {
  const role = def('rbac.authorization.k8s.io', 'Role', {
    printerColumns: [{ name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
  });
  const table = tableFromObject(role, obj('reader', 3600), { now: NOW });
  assert.deepEqual(columns(table), ['Name', 'Created At']);
  assert.deepEqual(table.columnDefinitions![1]!.type, 'date');
  assert.deepEqual(table.rows[0]!.cells, ['reader', '2026-03-01T11:00:00Z']);
  assert.deepEqual(tableFromObject(def('', 'PodTemplate'), obj('t', 1), { now: NOW }).rows[0]!.cells, [
    't',
    '2026-03-01T11:59:59Z',
  ]);
});

void test('built-in printers: Secret, ServiceAccount, RoleBinding (wide cells included)', () => {
  const secret = tableFromObject(
    def('', 'Secret'),
    obj('s', 700, { type: 'Opaque', data: { a: 'YQ==', b: 'Yg==' }, stringData: { c: 'c' } }),
    { now: NOW },
  );
  assert.deepEqual(columns(secret), ['Name', 'Type', 'Data', 'Age']);
  assert.deepEqual(secret.rows[0]!.cells, ['s', 'Opaque', 2, '11m']);

  const sa = tableFromObject(def('', 'ServiceAccount'), obj('default', 150, { secrets: [{ name: 'x' }] }), {
    now: NOW,
  });
  assert.deepEqual(sa.rows[0]!.cells, ['default', 1, '2m30s']);

  const binding = tableFromObject(
    def('rbac.authorization.k8s.io', 'RoleBinding'),
    obj('rb', 60, {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'tools' },
        { kind: 'User', name: 'bob' },
      ],
    }),
    { now: NOW },
  );
  assert.deepEqual(columns(binding), ['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
  assert.deepEqual(binding.rows[0]!.cells, [
    'rb',
    'ClusterRole/view',
    '60s',
    'alice, bob',
    'devs',
    'tools/ci',
  ]);
});

void test('Event printer: last/first seen, object, source, count defaults', () => {
  const events = def('', 'Event');
  const e = obj('web.17a', 4000, {
    type: 'Warning',
    reason: 'BackOff',
    message: '  Back-off restarting  \n',
    involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{app}' },
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: ago(3600),
    lastTimestamp: ago(60),
    count: 5,
  });
  const table = tableFromObject(events, e, { now: NOW });
  assert.deepEqual(columns(table), [
    'Last Seen',
    'Type',
    'Reason',
    'Object',
    'Subobject*',
    'Source*',
    'Message',
    'First Seen*',
    'Count*',
    'Name*',
  ]);
  assert.deepEqual(table.rows[0]!.cells, [
    '60s',
    'Warning',
    'BackOff',
    'pod/web',
    'spec.containers{app}',
    'kubelet, node-1',
    'Back-off restarting',
    '60m',
    5,
    'web.17a',
  ]);
  // New-style event: eventTime only, no count, series absent → count 1, last seen = first seen.
  const single = tableFromObject(
    events,
    obj('x', 10, { eventTime: ago(20), involvedObject: { kind: 'Node' }, reportingController: 'ctl' }),
    { now: NOW },
  );
  assert.deepEqual(single.rows[0]!.cells, ['20s', '', '', 'node', '', 'ctl', '', '20s', 1, 'x']);
  const eventsV1 = def('events.k8s.io', 'Event');
  const renamed = tableFromObject(
    eventsV1,
    obj('y', 10, {
      regarding: { kind: 'Pod', name: 'p' },
      note: 'hi',
      series: { count: 3, lastObservedTime: ago(5) },
      eventTime: ago(50),
    }),
    { now: NOW },
  );
  assert.deepEqual(renamed.rows[0]!.cells, ['5s', '', '', 'pod/p', '', '', 'hi', '50s', 3, 'y']);
});

void test('ages follow apimachinery HumanDuration', () => {
  const k = def('', 'Namespace', { namespaced: false });
  const age = (seconds: number) => tableFromObject(k, obj('n', seconds), { now: NOW }).rows[0]!.cells[2];
  const h = 3600;
  const d = 24 * h;
  const y = 365 * d;
  const cases: [number, string][] = [
    [-1, '0s'],
    [-3, '<invalid>'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [150, '2m30s'],
    [600, '10m'],
    [179 * 60, '179m'],
    [3 * h, '3h'],
    [3 * h + 30 * 60, '3h30m'],
    [8 * h, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [49 * h, '2d1h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [2 * y, '2y'],
    [2 * y + 10 * d, '2y10d'],
    [8 * y, '8y'],
  ];
  for (const [seconds, expected] of cases) assert.equal(age(seconds), expected, `${seconds}s`);
  assert.equal(tableFromObject(k, { metadata: { name: 'n' } }, { now: NOW }).rows[0]!.cells[2], '<unknown>');
});

void test('watch: the first event carries column definitions, later ones null; Status passes through', () => {
  const convert = tableWatchConverter(def('', 'ConfigMap'), { now: NOW, version: 'v1' });
  const first = convert(obj('a', 1)) as { columnDefinitions: unknown; rows: unknown[]; metadata: unknown };
  const second = convert(obj('b', 1)) as { columnDefinitions: unknown; rows: { cells: unknown[] }[] };
  assert.ok(Array.isArray(first.columnDefinitions));
  assert.deepEqual(first.metadata, { resourceVersion: '7' });
  assert.equal(second.columnDefinitions, null);
  assert.deepEqual(second.rows[0]!.cells, ['b', 0, '1s']);
  const status: KubeObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410 };
  assert.equal(convert(status), status);
});
