import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AUDIT_RESOURCE,
  AuditLog,
  sanitizeRequestURI,
  shouldAudit,
  type AuditEventObject,
  type AuditInput,
} from './audit.js';
import { memoryStore } from './test-support.js';
import type { Store } from '../store/types.js';
import { errors } from '../util/errors.js';

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const event = (i: number, extra: Partial<AuditInput> = {}): AuditInput => ({
  time: new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)),
  user: alice,
  verb: 'create',
  apiGroup: '',
  resource: 'configmaps',
  namespace: 'default',
  name: `cm-${i}`,
  responseCode: 201,
  requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply',
  sourceIP: '10.0.0.7',
  userAgent: 'kubectl/v1.31.0',
  ...extra,
});

async function events(store: Store): Promise<AuditEventObject[]> {
  return (await store.list(AUDIT_RESOURCE)).items as AuditEventObject[];
}

void test('audit: which requests are recorded', () => {
  assert.equal(shouldAudit({ verb: 'create', resource: 'configmaps' }), true);
  assert.equal(shouldAudit({ verb: 'patch', apiGroup: 'fleet.fleethub.io', resource: 'clusters' }), true);
  assert.equal(shouldAudit({ verb: 'deletecollection', resource: 'configmaps' }), true);
  assert.equal(shouldAudit({ verb: 'get', resource: 'secrets' }), true, 'Secret reads');
  assert.equal(shouldAudit({ verb: 'list', resource: 'secrets' }), true);
  assert.equal(shouldAudit({ verb: 'watch', resource: 'secrets' }), true);
  assert.equal(shouldAudit({ verb: 'get', resource: 'configmaps' }), false);
  assert.equal(shouldAudit({ verb: 'list', apiGroup: 'fleet.fleethub.io', resource: 'auditevents' }), false);
  assert.equal(
    shouldAudit({ verb: 'create', apiGroup: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' }),
    false,
  );
  assert.equal(shouldAudit({ verb: 'create', resource: 'serviceaccounts' }), true);
  assert.equal(shouldAudit({ verb: 'get', resourceRequest: false }), false);
  const lease = { apiGroup: 'coordination.k8s.io', resource: 'leases' };
  assert.equal(shouldAudit({ verb: 'update', ...lease }), false, 'heartbeats are not recorded');
  assert.equal(shouldAudit({ verb: 'patch', ...lease }), false);
  assert.equal(shouldAudit({ verb: 'create', ...lease }), true, 'a new Lease is');
  assert.equal(shouldAudit({ verb: 'delete', ...lease }), true);
});

void test('audit: requestURI keeps the path and known parameters only', () => {
  assert.equal(
    sanitizeRequestURI('/api/v1/namespaces/a/secrets?fieldManager=kubectl&token=s3cr3t&dryRun=All'),
    '/api/v1/namespaces/a/secrets?fieldManager=kubectl&dryRun=All',
  );
  assert.equal(sanitizeRequestURI('/apis?password=x'), '/apis');
  assert.equal(sanitizeRequestURI(`/api/${'x'.repeat(5000)}`).length, 2048);
});

void test('audit: record() never waits for the store; events are written in batches, in time order', async () => {
  const { store } = await memoryStore();
  let creates = 0;
  const realCreate = store.create.bind(store);
  store.create = async (...args) => {
    creates++;
    await sleep(1);
    return realCreate(...args);
  };
  const log = new AuditLog(store, { batchSize: 50, flushIntervalMs: 10_000 });
  const started = process.hrtime.bigint();
  for (let i = 0; i < 120; i++) log.record(event(i));
  const recordMs = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(creates, 0, 'nothing written synchronously');
  assert.ok(recordMs < 100, `record() took ${recordMs} ms for 120 events`);
  await log.flush();
  assert.equal(log.pending, 0);
  const written = await events(store);
  assert.equal(written.length, 120);
  const names = written.map((e) => e.metadata.name ?? '');
  assert.deepEqual([...names].sort(), names, 'store lists by name');
  assert.deepEqual(
    written.map((e) => e.spec.name),
    Array.from({ length: 120 }, (_, i) => `cm-${i}`),
    'name order is time order',
  );
  assert.deepEqual(written[0], {
    apiVersion: 'fleet.fleethub.io/v1alpha1',
    kind: 'AuditEvent',
    metadata: { ...written[0]?.metadata, name: names[0] },
    spec: {
      time: '2025-01-01T00:00:00.000Z',
      user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      verb: 'create',
      apiGroup: '',
      resource: 'configmaps',
      namespace: 'default',
      name: 'cm-0',
      responseCode: 201,
      requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply',
      sourceIP: '10.0.0.7',
      userAgent: 'kubectl/v1.31.0',
    },
  });
  assert.match(names[0] ?? '', /^1735689600000-\d{6}-[0-9a-f]{6}$/);
  await log.close();
  await store.close();
});

void test('audit: a partial batch is written after the interval without anyone flushing', async () => {
  const { store } = await memoryStore();
  const log = new AuditLog(store, { flushIntervalMs: 20 });
  log.record(event(1));
  assert.equal((await events(store)).length, 0);
  for (let i = 0; i < 50 && (await events(store)).length === 0; i++) await sleep(10);
  assert.equal((await events(store)).length, 1);
  await log.close();
  await store.close();
});

void test('audit: a full queue drops (and counts) instead of blocking; close writes the rest and refuses more', async () => {
  const { store } = await memoryStore();
  const problems: string[] = [];
  const log = new AuditLog(store, {
    maxQueue: 5,
    flushIntervalMs: 10_000,
    batchSize: 100,
    onError: (e) => problems.push(String(e)),
  });
  for (let i = 0; i < 8; i++) log.record(event(i));
  assert.equal(log.dropped, 3);
  assert.equal(problems.length, 3);
  await log.close();
  assert.equal((await events(store)).length, 5);
  log.record(event(9));
  assert.equal(log.dropped, 4);
  assert.equal((await events(store)).length, 5);
  await store.close();
});

void test('audit: failed writes are retried, then dropped after maxAttempts', async () => {
  const { store } = await memoryStore();
  let failures = 0;
  const realCreate = store.create.bind(store);
  store.create = async (...args) => {
    if (failures > 0) {
      failures--;
      throw errors.serviceUnavailable('database unreachable');
    }
    return realCreate(...args);
  };
  const reported: unknown[] = [];
  const log = new AuditLog(store, { maxAttempts: 3, onError: (e) => reported.push(e) });
  failures = 2;
  log.record(event(1));
  log.record(event(2));
  await log.flush();
  assert.equal((await events(store)).length, 2, 'two failures, then both written');
  assert.equal(log.dropped, 0);
  assert.equal(reported.length, 2);

  failures = 3;
  log.record(event(3));
  await log.flush();
  assert.equal(log.dropped, 1);
  assert.equal((await events(store)).length, 2);
  await log.close();
  await store.close();
});

void test('audit: events never carry bodies or Secret values', async () => {
  const { store, atRest } = await memoryStore();
  const log = new AuditLog(store);
  // Extra fields a careless caller might pass are not copied.
  log.record({
    ...event(1, {
      resource: 'secrets',
      verb: 'get',
      requestURI: '/api/v1/namespaces/default/secrets/db?x=hunter2',
    }),
    body: 'hunter2',
  } as AuditInput);
  await log.close();
  const raw = atRest.join('\n');
  assert.ok(raw.includes('"kind":"AuditEvent"'));
  assert.ok(!raw.includes('hunter2'));
  await store.close();
});
