// decodeProtobufBody on hand-built bodies: the zero-value rules (drop Go's plain zeros, keep pointer zeros),
// the special messages (Time, MicroTime, IntOrString, Quantity, FieldsV1, inline, ExtraValue) and 400s.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../util/errors.js';
import { decodeProtobufBody, isProtobufContentType, messageNameFor } from './index.js';
import { bytes, concat, envelope, fixed32, mapEntry, msg, str, varint } from './wire-writer.js';

/** ObjectMeta exactly as Go writes an unset one: every plain field present with its zero value. */
function goZeroMeta(name: string): Uint8Array {
  return concat(
    str(1, name),
    str(2, ''),
    str(3, ''),
    str(4, ''),
    str(5, ''),
    str(6, ''),
    varint(7, 0),
    msg(8),
  );
}

const time = (no: number, seconds: number, nanos = 0) => msg(no, varint(1, seconds), varint(2, nanos));

function expectBadRequest(body: Uint8Array, message: RegExp): void {
  assert.throws(
    () => decodeProtobufBody(body),
    (e: unknown) =>
      e instanceof ApiError && e.code === 400 && e.reason === 'BadRequest' && message.test(e.message),
  );
}

void test('Go zero values of plain fields vanish; present pointer zeros (immutable: false) stay', () => {
  const raw = concat(
    msg(1, goZeroMeta('s1')),
    mapEntry(2, 'k', bytes(2, Buffer.from('v'))),
    str(3, ''),
    mapEntry(4, 'plain', str(2, '')),
    varint(5, false),
  );
  const { apiVersion, kind, object } = decodeProtobufBody(envelope('v1', 'Secret', raw));
  assert.equal(apiVersion, 'v1');
  assert.equal(kind, 'Secret');
  assert.deepEqual(object, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's1' },
    data: { k: 'dg==' },
    stringData: { plain: '' },
    immutable: false,
  });
});

void test('DeleteOptions resolves to meta/v1 under any group version and keeps its pointer zeros', () => {
  const raw = concat(
    varint(1, 0),
    msg(2, str(1, ''), str(2, '42')),
    varint(3, false),
    str(4, 'Foreground'),
    str(5, 'All'),
  );
  for (const apiVersion of ['v1', 'meta.k8s.io/v1', 'apps/v1']) {
    assert.deepEqual(decodeProtobufBody(envelope(apiVersion, 'DeleteOptions', raw)).object, {
      apiVersion,
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: '', resourceVersion: '42' },
      orphanDependents: false,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
  }
});

void test('a present but empty pointer message stays (Eviction deleteOptions: {}, as the JSON body has it)', () => {
  const raw = concat(msg(1, goZeroMeta('bare'), str(3, 'default')), msg(2));
  assert.deepEqual(decodeProtobufBody(envelope('policy/v1', 'Eviction', raw)).object, {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name: 'bare', namespace: 'default' },
    deleteOptions: {},
  });
});

void test('Time is RFC 3339 in whole seconds, MicroTime keeps microseconds, an empty Time is unset', () => {
  const lease = concat(
    msg(1, goZeroMeta('l1')),
    msg(2, str(1, ''), varint(2, 0), time(3, 1700000000, 123456789), msg(4), varint(5, 3)),
  );
  assert.deepEqual(decodeProtobufBody(envelope('coordination.k8s.io/v1', 'Lease', lease)).object, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l1' },
    spec: {
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: '2023-11-14T22:13:20.123456Z',
      leaseTransitions: 3,
    },
  });

  const event = concat(
    msg(1, goZeroMeta('e1')),
    msg(2, str(1, 'Pod'), str(2, 'default'), str(3, 'p1'), str(4, ''), str(5, 'v1'), str(6, ''), str(7, '')),
    str(3, 'Started'),
    str(4, ''),
    msg(5, str(1, 'kubelet'), str(2, '')),
    time(6, 1700000000, 999),
    msg(7),
    varint(8, 0),
    str(9, 'Normal'),
    msg(10),
    msg(11, varint(1, 2), time(2, 1700000001, 5000)),
    str(12, ''),
  );
  assert.deepEqual(decodeProtobufBody(envelope('v1', 'Event', event)).object, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e1' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'p1', apiVersion: 'v1' },
    reason: 'Started',
    source: { component: 'kubelet' },
    firstTimestamp: '2023-11-14T22:13:20Z',
    type: 'Normal',
    series: { count: 2, lastObservedTime: '2023-11-14T22:13:21.000005Z' },
  });
});

void test('pod spec: inline embeddings, IntOrString, Quantity maps, packed ints, present empty pointer structs', () => {
  const container = concat(
    str(1, 'app'),
    str(2, 'nginx'),
    msg(7, str(1, 'PASSWORD'), str(2, ''), msg(3, msg(4, msg(1, str(1, 'db')), str(2, 'pw')))),
    msg(8, mapEntry(1, 'cpu', msg(2, str(1, '500m'))), mapEntry(2, 'memory', msg(2, str(1, '1Gi')))),
    msg(
      10,
      msg(1, msg(2, str(1, '/healthz'), msg(2, varint(1, 0), varint(2, 8080), str(3, '')))),
      varint(4, 10),
    ),
    msg(11, msg(1, msg(3, msg(1, varint(1, 1), varint(2, 0), str(3, 'http'))))),
  );
  const spec = concat(
    msg(1, str(1, 'scratch'), msg(2, msg(2, str(1, '')))),
    msg(2, container),
    str(3, ''),
    varint(4, 0),
    varint(11, false),
    msg(14, bytes(4, concat(Uint8Array.of(1), Uint8Array.of(0xe8, 0x07)))),
  );
  const { object } = decodeProtobufBody(
    envelope('v1', 'Pod', concat(msg(1, goZeroMeta('p1')), msg(2, spec), msg(3))),
  );
  assert.deepEqual(object, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p1' },
    spec: {
      volumes: [{ name: 'scratch', emptyDir: {} }],
      containers: [
        {
          name: 'app',
          image: 'nginx',
          env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }],
          resources: { limits: { cpu: '500m' }, requests: { memory: '1Gi' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
          readinessProbe: { tcpSocket: { port: 'http' } },
        },
      ],
      terminationGracePeriodSeconds: 0,
      securityContext: { supplementalGroups: [1, 1000] },
    },
  });
});

void test('metadata details: managedFields FieldsV1 becomes JSON, owner references keep controller: true', () => {
  const meta = concat(
    str(1, 'cm1'),
    str(3, 'team1'),
    varint(7, 4),
    time(8, 1700000000),
    mapEntry(11, 'app', str(2, 'web')),
    msg(13, str(1, 'ReplicaSet'), str(3, 'rs1'), str(4, 'u-1'), str(5, 'apps/v1'), varint(6, true)),
    str(14, 'example.com/guard'),
    msg(
      17,
      str(1, 'kubectl'),
      str(2, 'Update'),
      str(3, 'v1'),
      time(4, 1700000000),
      str(6, 'FieldsV1'),
      msg(7, bytes(1, Buffer.from('{"f:data":{".":{}}}'))),
      str(8, ''),
    ),
  );
  const { object } = decodeProtobufBody(envelope('v1', 'ConfigMap', msg(1, meta)));
  assert.deepEqual(object.metadata, {
    name: 'cm1',
    namespace: 'team1',
    generation: 4,
    creationTimestamp: '2023-11-14T22:13:20Z',
    labels: { app: 'web' },
    ownerReferences: [
      { kind: 'ReplicaSet', name: 'rs1', uid: 'u-1', apiVersion: 'apps/v1', controller: true },
    ],
    finalizers: ['example.com/guard'],
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2023-11-14T22:13:20Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {} } },
      },
    ],
  });
});

void test('ExtraValue maps become string arrays; unknown fields of any wire type are skipped', () => {
  const spec = concat(
    msg(1, str(1, 'default'), str(2, 'get'), str(5, 'pods')),
    str(3, 'alice'),
    mapEntry(5, 'scopes', msg(2, str(1, 'a'), str(1, 'b'))),
    fixed32(40, 7),
    varint(41, 1),
  );
  const { object } = decodeProtobufBody(
    envelope('authorization.k8s.io/v1', 'SubjectAccessReview', concat(msg(2, spec), str(99, 'future'))),
  );
  assert.deepEqual(object.spec, {
    resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' },
    user: 'alice',
    extra: { scopes: ['a', 'b'] },
  });
});

void test('a map key named __proto__ is ordinary data (a valid ConfigMap key), not a prototype change', () => {
  const raw = concat(
    msg(1, str(1, 'cm')),
    mapEntry(2, '__proto__', str(2, 'x')),
    mapEntry(2, 'a', str(2, 'b')),
  );
  const data = decodeProtobufBody(envelope('v1', 'ConfigMap', raw)).object.data as Record<string, unknown>;
  assert.deepEqual(Object.keys(data), ['__proto__', 'a']);
  assert.equal(Object.getOwnPropertyDescriptor(data, '__proto__')?.value, 'x');
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
});

void test('a RawExtension holds JSON (ControllerRevision data)', () => {
  const raw = concat(
    msg(1, goZeroMeta('rev1')),
    msg(2, bytes(1, Buffer.from('{"spec":{"x":1}}'))),
    varint(3, 2),
  );
  assert.deepEqual(decodeProtobufBody(envelope('apps/v1', 'ControllerRevision', raw)).object, {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'rev1' },
    data: { spec: { x: 1 } },
    revision: 2,
  });
});

void test('an envelope declaring JSON content carries the JSON object', () => {
  const body = envelope('v1', 'ConfigMap', Buffer.from('{"metadata":{"name":"j"}}'), 'application/json');
  assert.deepEqual(decodeProtobufBody(body).object, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'j' },
  });
});

void test('unknown kinds, CRD look-alike groups and malformed bytes are 400 BadRequest, never a crash', () => {
  expectBadRequest(
    envelope('v1', 'Widget', new Uint8Array(0)),
    /no kind "Widget" is registered for version "v1"/,
  );
  expectBadRequest(envelope('apps.example.com/v1', 'Deployment', new Uint8Array(0)), /no kind "Deployment"/);
  expectBadRequest(envelope('v1', 'PodSpec', new Uint8Array(0)), /no kind "PodSpec"/);
  expectBadRequest(envelope('', '', new Uint8Array(0)), /Kind/);
  expectBadRequest(Buffer.from('{"kind":"Secret"}'), /does not appear to be a protobuf message/);
  expectBadRequest(Buffer.alloc(0), /does not appear to be a protobuf message/);
  const good = envelope('v1', 'Secret', msg(1, str(1, 's1')));
  expectBadRequest(good.subarray(0, good.length - 5), /unable to decode protobuf body/);
  expectBadRequest(envelope('v1', 'Secret', varint(3, 1)), /wire type 0, expected 2/);
  expectBadRequest(
    envelope('v1', 'Secret', Uint8Array.of(0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f)),
    /past the end/,
  );
  expectBadRequest(
    envelope('apps/v1', 'ControllerRevision', msg(2, bytes(1, Buffer.from('not json')))),
    /RawExtension does not hold JSON/,
  );
  const gz = Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    msg(1, str(1, 'v1'), str(2, 'Secret')),
    str(3, 'gzip'),
  ]);
  expectBadRequest(gz, /content encoding "gzip"/);
  for (let seed = 1; seed <= 200; seed++) {
    const junk = Buffer.concat([Buffer.from('k8s\0', 'latin1'), pseudoRandom(seed, 64)]);
    try {
      decodeProtobufBody(junk);
    } catch (e) {
      assert.ok(e instanceof ApiError && e.code === 400, `seed ${seed}: ${String(e)}`);
    }
  }
});

function pseudoRandom(seed: number, n: number): Buffer {
  const out = Buffer.alloc(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

void test('messageNameFor maps group/version/kind to the first label of the group', () => {
  assert.equal(messageNameFor('rbac.authorization.k8s.io/v1', 'ClusterRole'), 'rbac.v1.ClusterRole');
  assert.equal(messageNameFor('v1', 'Namespace'), 'core.v1.Namespace');
  assert.equal(messageNameFor('policy/v1', 'Eviction'), 'policy.v1.Eviction');
  assert.equal(messageNameFor('v1', 'DeleteOptions'), 'meta.v1.DeleteOptions');
  assert.equal(messageNameFor('v2', 'Namespace'), undefined);
});

void test('isProtobufContentType accepts the media type with parameters and any case only', () => {
  assert.equal(isProtobufContentType('application/vnd.kubernetes.protobuf'), true);
  assert.equal(isProtobufContentType('Application/VND.Kubernetes.Protobuf; charset=utf-8'), true);
  assert.equal(isProtobufContentType('application/json'), false);
  assert.equal(isProtobufContentType('application/vnd.kubernetes.protobuf-extra'), false);
  assert.equal(isProtobufContentType(undefined), false);
});
