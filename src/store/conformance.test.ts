// One conformance suite for every store backend: the same Kubernetes semantics must hold on memory,
// SQLite and PostgreSQL, plus each backend's own promises (reopen, replicas, values at rest).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { isApiError, type ApiError } from '../util/errors.js';
import { createDatabase, createSchema, startPostgres, type PostgresServer } from '../testing/postgres.js';
import { openStore, type ObjectStore, type OpenStoreOptions } from './index.js';
import type { KubeObject, ValueCodec, WatchEvent, WatchOptions } from './types.js';

type BackendName = 'memory' | 'sqlite' | 'postgres';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Asserts that `fn` rejects with an ApiError of this code and reason; returns it for more checks. */
async function rejectsWith(fn: () => Promise<unknown>, code: number, reason: string): Promise<ApiError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(isApiError(err), `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.reason, reason, err.message);
    return err;
  }
  assert.fail(`expected ${code} ${reason}`);
}

function configMap(
  name: string,
  namespace = 'default',
  data: Record<string, string> = { k: 'v' },
): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function widget(name: string, spec: Record<string, unknown> = { size: 1 }): KubeObject {
  return {
    apiVersion: 'example.fleethub.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec,
  };
}

interface Recorder {
  events: WatchEvent[];
  errors: Error[];
  progress: string[];
  stop(): void;
}

function record(store: ObjectStore, options: WatchOptions): Recorder {
  const rec: Recorder = { events: [], errors: [], progress: [], stop: () => undefined };
  const watcher = store.watch(options, {
    onEvent: (e) => rec.events.push(e),
    onError: (e) => rec.errors.push(e),
    onProgress: (rv) => rec.progress.push(rv),
  });
  rec.stop = () => watcher.stop();
  return rec;
}

const summary = (events: WatchEvent[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name} ${e.resourceVersion}`);

/** A codec that makes values at rest unreadable as JSON, to prove nothing bypasses it. */
const rot13Codec: ValueCodec = {
  encode: (_resource, obj) =>
    'enc:' + Buffer.from(JSON.stringify(obj)).toString('base64').split('').reverse().join(''),
  decode: (_resource, stored) => {
    assert.ok(stored.startsWith('enc:'), 'a stored value did not come from the codec');
    return JSON.parse(
      Buffer.from(stored.slice(4).split('').reverse().join(''), 'base64').toString(),
    ) as KubeObject;
  },
};

for (const backend of ['memory', 'sqlite', 'postgres'] as const satisfies readonly BackendName[]) {
  void describe(`store conformance: ${backend}`, () => {
    let server: PostgresServer | undefined;
    let tmp: string;
    let databases = 0;
    /** PostgreSQL: one database for the file, a fresh schema per store (CREATE DATABASE is slow). */
    let database: string | undefined;
    const opened: ObjectStore[] = [];

    before(async () => {
      tmp = mkdtempSync(join(tmpdir(), 'fleethub-store-test-'));
      if (backend === 'postgres') {
        server = await startPostgres();
        database = await createDatabase(server.url, 'conformance');
      }
    });
    after(async () => {
      await server?.stop();
      rmSync(tmp, { recursive: true, force: true });
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    /** A URL naming fresh, empty storage. */
    async function freshUrl(): Promise<string> {
      databases++;
      if (backend === 'memory') return 'memory:';
      if (backend === 'sqlite') return `sqlite:${join(tmp, `db${databases}.sqlite`)}`;
      return createSchema(database!, `store_${databases}`);
    }

    async function open(url: string, options: Partial<OpenStoreOptions> = {}): Promise<ObjectStore> {
      const store = await openStore({ compactionIntervalMs: 0, ...options, url });
      opened.push(store);
      return store;
    }

    async function fresh(options: Partial<OpenStoreOptions> = {}): Promise<ObjectStore> {
      return open(await freshUrl(), options);
    }

    void test('reports its backend', async () => {
      const store = await fresh();
      assert.equal(store.backend, backend);
    });

    void test('create stamps uid, creationTimestamp, generation 1 and resourceVersion', async () => {
      const store = await fresh();
      const before = Date.now();
      const created = await store.create('configmaps', configMap('a'));
      const meta = created.metadata;
      assert.match(meta.uid ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(meta.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(Math.abs(Date.parse(meta.creationTimestamp!) - before) < 5000);
      assert.equal(meta.generation, 1);
      assert.match(meta.resourceVersion ?? '', /^\d+$/);
      assert.deepEqual(created.data, { k: 'v' });
      assert.deepEqual(await store.get('configmaps', 'default', 'a'), created);
      assert.equal(await store.currentResourceVersion(), meta.resourceVersion);

      const other = await store.create('configmaps', configMap('b'));
      assert.notEqual(other.metadata.uid, meta.uid);
    });

    void test('create ignores client-set uid, resourceVersion, generation and deletionTimestamp', async () => {
      const store = await fresh();
      const input = configMap('a');
      Object.assign(input.metadata, {
        uid: 'mine',
        resourceVersion: '999',
        generation: 7,
        deletionTimestamp: '2020-01-01T00:00:00Z',
        deletionGracePeriodSeconds: 30,
      });
      const created = await store.create('configmaps', input);
      assert.notEqual(created.metadata.uid, 'mine');
      assert.notEqual(created.metadata.resourceVersion, '999');
      assert.equal(created.metadata.generation, 1);
      assert.equal(created.metadata.deletionTimestamp, undefined);
      assert.equal(created.metadata.deletionGracePeriodSeconds, undefined);
      assert.equal(input.metadata.uid, 'mine', 'the caller object is not modified');
    });

    void test('create of an existing name is 409 AlreadyExists, named like Kubernetes', async () => {
      const store = await fresh();
      await store.create('configmaps', configMap('a'));
      const err = await rejectsWith(() => store.create('configmaps', configMap('a')), 409, 'AlreadyExists');
      assert.equal(err.message, 'configmaps "a" already exists');
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l', namespace: 'n' },
      };
      await store.create('leases.coordination.k8s.io', lease);
      const err2 = await rejectsWith(
        () => store.create('leases.coordination.k8s.io', lease),
        409,
        'AlreadyExists',
      );
      assert.equal(err2.message, 'leases.coordination.k8s.io "l" already exists');
      assert.deepEqual(err2.details, { name: 'l', kind: 'leases', group: 'coordination.k8s.io' });
      // Same name in another namespace or resource is a different object.
      await store.create('configmaps', configMap('a', 'other'));
      await store.create('secrets', configMap('a'));
    });

    void test('resourceVersion is one increasing counter across resources and namespaces', async () => {
      const store = await fresh();
      const versions: number[] = [];
      versions.push(Number((await store.create('configmaps', configMap('a'))).metadata.resourceVersion));
      versions.push(Number((await store.create('secrets', configMap('a', 'x'))).metadata.resourceVersion));
      versions.push(Number((await store.create('configmaps', configMap('b', 'y'))).metadata.resourceVersion));
      const updated = await store.update('configmaps', configMap('a', 'default', { k: 'w' }));
      versions.push(Number(updated.metadata.resourceVersion));
      versions.push(Number((await store.delete('secrets', 'x', 'a')).object.metadata.resourceVersion));
      for (let i = 1; i < versions.length; i++) assert.ok(versions[i]! > versions[i - 1]!, String(versions));
      assert.equal(await store.currentResourceVersion(), String(versions.at(-1)));
    });

    void test('cluster-scoped objects are stored under namespace ""', async () => {
      const store = await fresh();
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
      const created = await store.create('namespaces', ns);
      assert.equal(created.metadata.namespace, undefined);
      assert.equal((await store.get('namespaces', '', 'team-a'))?.metadata.uid, created.metadata.uid);
      assert.deepEqual(
        (await store.list('namespaces', { namespace: '' })).items.map((o) => o.metadata.name),
        ['team-a'],
      );
      const deleted = await store.delete('namespaces', '', 'team-a');
      assert.equal(deleted.deleted, true);
    });

    void test('update bumps generation only when something outside metadata and status changes', async () => {
      const store = await fresh();
      const created = await store.create('widgets.example.fleethub.io', widget('w'));
      const labelled = await store.update('widgets.example.fleethub.io', {
        ...created,
        metadata: { ...created.metadata, labels: { a: 'b' } },
      });
      assert.equal(labelled.metadata.generation, 1, 'metadata change');
      assert.notEqual(labelled.metadata.resourceVersion, created.metadata.resourceVersion);
      const withStatus = await store.update('widgets.example.fleethub.io', {
        ...labelled,
        status: { ready: true },
      });
      assert.equal(withStatus.metadata.generation, 1, 'status change');
      const resized = await store.update('widgets.example.fleethub.io', { ...withStatus, spec: { size: 2 } });
      assert.equal(resized.metadata.generation, 2, 'spec change');
      const extra = await store.update('widgets.example.fleethub.io', { ...resized, extra: 'field' });
      assert.equal(extra.metadata.generation, 3, 'a new top-level field');
      const claimed = await store.update('widgets.example.fleethub.io', {
        ...extra,
        metadata: { ...extra.metadata, generation: 42 },
      });
      assert.equal(claimed.metadata.generation, 3, 'clients cannot set generation');
    });

    void test('update keeps uid, creationTimestamp and deletionTimestamp from the stored object', async () => {
      const store = await fresh();
      const created = await store.create('configmaps', {
        ...configMap('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: ['x/y'] },
      });
      const forged = await store.update('configmaps', {
        ...created,
        metadata: {
          ...created.metadata,
          uid: 'forged',
          creationTimestamp: '2000-01-01T00:00:00Z',
          deletionTimestamp: '2000-01-01T00:00:00Z',
        },
        data: { k: 'changed' },
      });
      assert.equal(forged.metadata.uid, created.metadata.uid);
      assert.equal(forged.metadata.creationTimestamp, created.metadata.creationTimestamp);
      assert.equal(forged.metadata.deletionTimestamp, undefined);
      assert.deepEqual(forged.data, { k: 'changed' });

      const marked = await store.delete('configmaps', 'default', 'a');
      assert.equal(marked.deleted, false);
      const cleared = await store.update('configmaps', {
        ...marked.object,
        metadata: {
          ...marked.object.metadata,
          deletionTimestamp: undefined,
          deletionGracePeriodSeconds: undefined,
        },
      });
      assert.equal(cleared.metadata.deletionTimestamp, marked.object.metadata.deletionTimestamp);
      assert.equal(cleared.metadata.deletionGracePeriodSeconds, 0);
    });

    void test('update with a stale resourceVersion is 409 Conflict; without one it is unconditional', async () => {
      const store = await fresh();
      const v1 = await store.create('configmaps', configMap('a'));
      const v2 = await store.update('configmaps', { ...v1, data: { k: '2' } });
      const err = await rejectsWith(
        () => store.update('configmaps', { ...v1, data: { k: '3' } }),
        409,
        'Conflict',
      );
      assert.equal(
        err.message,
        'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      );
      assert.deepEqual((await store.get('configmaps', 'default', 'a'))?.data, { k: '2' });
      const unconditional = configMap('a', 'default', { k: '4' });
      const v3 = await store.update('configmaps', unconditional);
      assert.deepEqual(v3.data, { k: '4' });
      assert.ok(Number(v3.metadata.resourceVersion) > Number(v2.metadata.resourceVersion));
    });

    void test('update of a missing object is 404 NotFound', async () => {
      const store = await fresh();
      const err = await rejectsWith(() => store.update('configmaps', configMap('nope')), 404, 'NotFound');
      assert.equal(err.message, 'configmaps "nope" not found');
      const err2 = await rejectsWith(
        () => store.update('deployments.apps', { metadata: { name: 'd', namespace: 'n' } }),
        404,
        'NotFound',
      );
      assert.equal(err2.message, 'deployments.apps "d" not found');
    });

    void test('a status subresource update takes only .status and never bumps generation', async () => {
      const store = await fresh();
      const created = await store.create('widgets.example.fleethub.io', widget('w'));
      const updated = await store.update(
        'widgets.example.fleethub.io',
        {
          ...created,
          metadata: { ...created.metadata, labels: { sneaky: 'yes' } },
          spec: { size: 99 },
          status: { phase: 'Ready' },
        },
        { subresource: 'status' },
      );
      assert.deepEqual(updated.status, { phase: 'Ready' });
      assert.deepEqual(updated.spec, { size: 1 });
      assert.equal(updated.metadata.labels, undefined);
      assert.equal(updated.metadata.generation, 1);
      assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.deepEqual(await store.get('widgets.example.fleethub.io', 'default', 'w'), updated);
      const stale = rejectsWith(
        () =>
          store.update(
            'widgets.example.fleethub.io',
            { ...created, status: { phase: 'Old' } },
            { subresource: 'status' },
          ),
        409,
        'Conflict',
      );
      await stale;
    });

    void test('with statusSubresource a main-resource update keeps the stored status', async () => {
      const store = await fresh();
      const created = await store.create('widgets.example.fleethub.io', {
        ...widget('w'),
        status: { phase: 'Ready' },
      });
      const updated = await store.update(
        'widgets.example.fleethub.io',
        { ...created, spec: { size: 2 }, status: { phase: 'Forged' } },
        { statusSubresource: true },
      );
      assert.deepEqual(updated.status, { phase: 'Ready' });
      assert.deepEqual(updated.spec, { size: 2 });
      assert.equal(updated.metadata.generation, 2);
      const withoutSubresource = await store.update('widgets.example.fleethub.io', {
        ...updated,
        status: { phase: 'Taken' },
      });
      assert.deepEqual(withoutSubresource.status, { phase: 'Taken' });
    });

    void test('an update that changes nothing writes nothing and keeps the resourceVersion', async () => {
      const store = await fresh();
      const created = await store.create('configmaps', {
        ...configMap('a'),
        metadata: { name: 'a', namespace: 'default', labels: { x: '1', y: '2' } },
      });
      const rv = await store.currentResourceVersion();
      const watch = record(store, { resource: 'configmaps', resourceVersion: rv });
      // Same content, different key order, no resourceVersion: still a no-op.
      const same = await store.update('configmaps', {
        data: { k: 'v' },
        metadata: { labels: { y: '2', x: '1' }, namespace: 'default', name: 'a' },
        kind: 'ConfigMap',
        apiVersion: 'v1',
      });
      assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.deepEqual(same, created);
      const again = await store.update('configmaps', created, { statusSubresource: true });
      assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(await store.currentResourceVersion(), rv);
      await store.create('configmaps', configMap('marker'));
      await eventually(() => watch.events.length > 0, 'the marker event');
      assert.deepEqual(
        summary(watch.events).map((s) => s.split(' ').slice(0, 2).join(' ')),
        ['ADDED marker'],
      );
    });

    void test('delete without finalizers removes the object; deleting again is 404', async () => {
      const store = await fresh();
      const created = await store.create('configmaps', configMap('a'));
      const result = await store.delete('configmaps', 'default', 'a');
      assert.equal(result.deleted, true);
      assert.equal(result.object.metadata.uid, created.metadata.uid);
      assert.ok(Number(result.object.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
      assert.equal(await store.get('configmaps', 'default', 'a'), undefined);
      assert.deepEqual((await store.list('configmaps')).items, []);
      const err = await rejectsWith(() => store.delete('configmaps', 'default', 'a'), 404, 'NotFound');
      assert.equal(err.message, 'configmaps "a" not found');
      // The name is free again, for a new object with a new uid.
      const again = await store.create('configmaps', configMap('a'));
      assert.notEqual(again.metadata.uid, created.metadata.uid);
    });

    void test('finalizers: delete marks the object, removing the last finalizer deletes it', async () => {
      const store = await fresh();
      const created = await store.create('configmaps', {
        ...configMap('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: ['example.com/one', 'example.com/two'] },
      });
      const watch = record(store, {
        resource: 'configmaps',
        resourceVersion: created.metadata.resourceVersion!,
      });
      const marked = await store.delete('configmaps', 'default', 'a');
      assert.equal(marked.deleted, false);
      assert.match(marked.object.metadata.deletionTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 0);
      assert.deepEqual(await store.get('configmaps', 'default', 'a'), marked.object);

      const again = await store.delete('configmaps', 'default', 'a');
      assert.equal(again.deleted, false);
      assert.equal(
        again.object.metadata.resourceVersion,
        marked.object.metadata.resourceVersion,
        'no second write',
      );
      assert.equal(again.object.metadata.deletionTimestamp, marked.object.metadata.deletionTimestamp);

      const one = await store.update('configmaps', {
        ...marked.object,
        metadata: { ...marked.object.metadata, finalizers: ['example.com/two'] },
      });
      assert.deepEqual(one.metadata.finalizers, ['example.com/two']);
      assert.ok(await store.get('configmaps', 'default', 'a'));

      const last = await store.update('configmaps', {
        ...one,
        metadata: { ...one.metadata, finalizers: [] },
      });
      assert.equal(last.metadata.uid, created.metadata.uid);
      assert.equal(await store.get('configmaps', 'default', 'a'), undefined);
      await eventually(() => watch.events.length === 3, 'three events');
      assert.deepEqual(
        watch.events.map((e) => e.type),
        ['MODIFIED', 'MODIFIED', 'DELETED'],
      );
      assert.equal(
        watch.events[2]!.object.metadata.resourceVersion,
        String(watch.events[2]!.resourceVersion),
      );
      assert.equal(watch.events[2]!.resourceVersion, Number(last.metadata.resourceVersion));
    });

    void test('markOnly marks an object without finalizers; deleting the marked object removes it', async () => {
      const store = await fresh();
      const ns = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team' },
        spec: { finalizers: ['kubernetes'] },
      };
      const created = await store.create('namespaces', ns);
      const watch = record(store, {
        resource: 'namespaces',
        resourceVersion: created.metadata.resourceVersion!,
      });
      const marked = await store.delete('namespaces', '', 'team', { markOnly: true });
      assert.equal(marked.deleted, false);
      assert.ok(marked.object.metadata.deletionTimestamp);
      assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 0);
      // Updates of the marked object (status, spec) keep it and its deletionTimestamp.
      const terminating = await store.update('namespaces', {
        ...marked.object,
        status: { phase: 'Terminating' },
      });
      assert.equal(terminating.metadata.deletionTimestamp, marked.object.metadata.deletionTimestamp);
      assert.ok(await store.get('namespaces', '', 'team'));
      const removed = await store.delete('namespaces', '', 'team');
      assert.equal(removed.deleted, true);
      assert.equal(await store.get('namespaces', '', 'team'), undefined);
      await eventually(() => watch.events.length === 3, 'three events');
      assert.deepEqual(
        watch.events.map((e) => e.type),
        ['MODIFIED', 'MODIFIED', 'DELETED'],
      );
    });

    void test('delete preconditions on uid and resourceVersion fail with 409', async () => {
      const store = await fresh();
      const created = await store.create('configmaps', configMap('a'));
      const uidErr = await rejectsWith(
        () => store.delete('configmaps', 'default', 'a', { preconditions: { uid: 'other' } }),
        409,
        'Conflict',
      );
      assert.equal(
        uidErr.message,
        `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata.uid}`,
      );
      await rejectsWith(
        () => store.delete('configmaps', 'default', 'a', { preconditions: { resourceVersion: '1234567' } }),
        409,
        'Conflict',
      );
      assert.ok(await store.get('configmaps', 'default', 'a'));
      const ok = await store.delete('configmaps', 'default', 'a', {
        preconditions: { uid: created.metadata.uid!, resourceVersion: created.metadata.resourceVersion! },
      });
      assert.equal(ok.deleted, true);
    });

    void test('dryRun create, update and delete compute the result and store nothing', async () => {
      const store = await fresh();
      const watch = record(store, {});
      const planned = await store.create('configmaps', configMap('dry'), { dryRun: true });
      assert.equal(planned.metadata.generation, 1);
      assert.ok(planned.metadata.uid);
      assert.equal(planned.metadata.resourceVersion, undefined);
      assert.equal(await store.get('configmaps', 'default', 'dry'), undefined);
      assert.equal(await store.currentResourceVersion(), '0');

      const real = await store.create('configmaps', {
        ...configMap('a'),
        metadata: { name: 'a', namespace: 'default', finalizers: ['f'] },
      });
      await rejectsWith(
        () => store.create('configmaps', configMap('a'), { dryRun: true }),
        409,
        'AlreadyExists',
      );
      const rv = await store.currentResourceVersion();
      const dryUpdate = await store.update('configmaps', { ...real, data: { k: 'new' } }, { dryRun: true });
      assert.deepEqual(dryUpdate.data, { k: 'new' });
      assert.equal(dryUpdate.metadata.resourceVersion, real.metadata.resourceVersion);
      await rejectsWith(
        () =>
          store.update(
            'configmaps',
            { ...real, metadata: { ...real.metadata, resourceVersion: '999' } },
            { dryRun: true },
          ),
        409,
        'Conflict',
      );
      const dryDelete = await store.delete('configmaps', 'default', 'a', { dryRun: true });
      assert.equal(dryDelete.deleted, false);
      assert.ok(dryDelete.object.metadata.deletionTimestamp);
      assert.deepEqual(await store.get('configmaps', 'default', 'a'), real);
      assert.equal(await store.currentResourceVersion(), rv);
      await sleep(20);
      assert.deepEqual(summary(watch.events), [`ADDED a ${real.metadata.resourceVersion}`]);
    });

    void test('list is sorted by namespace then name and can be limited to one namespace', async () => {
      const store = await fresh();
      const keys = [
        ['b', 'z'],
        ['a', 'y'],
        ['b', 'a'],
        ['', 'c'],
        ['a', 'b'],
        ['c', 'x'],
        ['b', 'm'],
        ['', 'a'],
      ] as const;
      for (const [ns, name] of keys) {
        const obj = configMap(name, ns);
        if (ns === '') delete obj.metadata.namespace;
        await store.create('things', obj);
      }
      await store.create('others', configMap('zzz', 'b'));
      const all = await store.list('things');
      assert.deepEqual(
        all.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`),
        ['/a', '/c', 'a/b', 'a/y', 'b/a', 'b/m', 'b/z', 'c/x'],
      );
      assert.equal(all.resourceVersion, await store.currentResourceVersion());
      assert.equal(all.continue, undefined);
      assert.equal(all.remainingItemCount, undefined);
      const inB = await store.list('things', { namespace: 'b' });
      assert.deepEqual(
        inB.items.map((o) => o.metadata.name),
        ['a', 'm', 'z'],
      );
      assert.deepEqual((await store.list('things', { namespace: 'nope' })).items, []);
      assert.deepEqual((await store.list('nothing')).items, []);
    });

    void test('pages: limit and continue walk the list; remainingItemCount counts what is left', async () => {
      const store = await fresh();
      for (let i = 0; i < 7; i++)
        await store.create('configmaps', configMap(`cm-${i}`, i % 2 ? 'odd' : 'even'));
      const listRv = await store.currentResourceVersion();
      const first = await store.list('configmaps', { limit: 3 });
      assert.deepEqual(
        first.items.map((o) => o.metadata.name),
        ['cm-0', 'cm-2', 'cm-4'],
      );
      assert.equal(first.remainingItemCount, 4);
      assert.equal(first.resourceVersion, listRv);
      assert.ok(first.continue);
      // Writes between pages do not change the list's resourceVersion.
      await store.create('configmaps', configMap('late', 'zzz'));
      const second = await store.list('configmaps', { limit: 3, continue: first.continue });
      assert.deepEqual(
        second.items.map((o) => o.metadata.name),
        ['cm-6', 'cm-1', 'cm-3'],
      );
      assert.equal(second.remainingItemCount, 2);
      assert.equal(second.resourceVersion, listRv);
      const third = await store.list('configmaps', { limit: 3, continue: second.continue! });
      assert.deepEqual(
        third.items.map((o) => o.metadata.name),
        ['cm-5', 'late'],
      );
      assert.equal(third.continue, undefined);
      assert.equal(third.remainingItemCount, undefined);
      assert.equal(third.resourceVersion, listRv);

      const inOdd = await store.list('configmaps', { namespace: 'odd', limit: 2 });
      assert.deepEqual(
        inOdd.items.map((o) => o.metadata.name),
        ['cm-1', 'cm-3'],
      );
      assert.equal(inOdd.remainingItemCount, 1);
      const restOdd = await store.list('configmaps', {
        namespace: 'odd',
        limit: 2,
        continue: inOdd.continue!,
      });
      assert.deepEqual(
        restOdd.items.map((o) => o.metadata.name),
        ['cm-5'],
      );
      assert.equal(restOdd.continue, undefined);

      // A page that ends exactly at the end has no continue.
      const exact = await store.list('configmaps', { namespace: 'even', limit: 4 });
      assert.equal(exact.items.length, 4);
      assert.equal(exact.continue, undefined);
    });

    void test('a predicate applies before limit counts', async () => {
      const store = await fresh();
      for (let i = 0; i < 10; i++) {
        await store.create('configmaps', {
          ...configMap(`cm-${i}`),
          metadata: { name: `cm-${i}`, namespace: 'default', labels: { even: String(i % 2 === 0) } },
        });
      }
      const isEven = (o: KubeObject) => o.metadata.labels?.even === 'true';
      const page = await store.list('configmaps', { predicate: isEven, limit: 2 });
      assert.deepEqual(
        page.items.map((o) => o.metadata.name),
        ['cm-0', 'cm-2'],
      );
      assert.ok(page.continue);
      const rest = await store.list('configmaps', { predicate: isEven, limit: 10, continue: page.continue });
      assert.deepEqual(
        rest.items.map((o) => o.metadata.name),
        ['cm-4', 'cm-6', 'cm-8'],
      );
      assert.equal(rest.continue, undefined);
      const all = await store.list('configmaps', { predicate: isEven });
      assert.equal(all.items.length, 5);
    });

    void test('a malformed continue token is 400; one older than compaction is 410 Expired', async () => {
      const store = await fresh({ retention: { minEvents: 1, minAgeMs: 0 } });
      for (let i = 0; i < 4; i++) await store.create('configmaps', configMap(`cm-${i}`));
      for (const bad of ['!!!', 'bm90IGpzb24', Buffer.from('{"rv":"x","key":[]}').toString('base64url')]) {
        const err = await rejectsWith(
          () => store.list('configmaps', { limit: 1, continue: bad }),
          400,
          'BadRequest',
        );
        assert.match(err.message, /^continue key is not valid/);
      }
      const page = await store.list('configmaps', { limit: 2 });
      for (let i = 0; i < 3; i++)
        await store.update('configmaps', configMap('cm-3', 'default', { k: String(i) }));
      assert.ok((await store.compact()) > Number(page.resourceVersion));
      const err = await rejectsWith(
        () => store.list('configmaps', { limit: 2, continue: page.continue! }),
        410,
        'Expired',
      );
      assert.match(
        err.message,
        /^The provided continue parameter is too old to display a consistent list result\./,
      );
    });

    void test('watch from a resourceVersion replays every later event in order, then live events', async () => {
      const store = await fresh();
      await store.create('configmaps', configMap('before'));
      const from = await store.currentResourceVersion();
      const a = await store.create('configmaps', configMap('a'));
      const a2 = await store.update('configmaps', { ...a, data: { k: '2' } });
      const b = await store.create('secrets', configMap('b'));
      const gone = await store.delete('configmaps', 'default', 'a');
      const watch = record(store, { resourceVersion: from });
      await eventually(() => watch.events.length === 4, 'replayed events');
      assert.deepEqual(summary(watch.events), [
        `ADDED a ${a.metadata.resourceVersion}`,
        `MODIFIED a ${a2.metadata.resourceVersion}`,
        `ADDED b ${b.metadata.resourceVersion}`,
        `DELETED a ${gone.object.metadata.resourceVersion}`,
      ]);
      assert.deepEqual(
        watch.events.map((e) => e.resource),
        ['configmaps', 'configmaps', 'secrets', 'configmaps'],
      );
      assert.deepEqual(watch.events[1]!.object, a2);
      const live = await store.create('configmaps', configMap('live'));
      await eventually(() => watch.events.length === 5, 'the live event');
      assert.equal(watch.events[4]!.resourceVersion, Number(live.metadata.resourceVersion));
      assert.equal(watch.errors.length, 0);

      // '0' and undefined mean live events only.
      const fromNow = record(store, { resourceVersion: '0' });
      const liveOnly = record(store, {});
      await store.create('configmaps', configMap('later'));
      await eventually(() => fromNow.events.length === 1 && liveOnly.events.length === 1, 'live-only events');
      assert.equal(fromNow.events[0]!.object.metadata.name, 'later');
    });

    void test('a list then a watch from its resourceVersion sees exactly the changes after the list', async () => {
      const store = await fresh();
      for (let i = 0; i < 5; i++) await store.create('configmaps', configMap(`cm-${i}`));
      const listed = await store.list('configmaps');
      await store.update('configmaps', configMap('cm-1', 'default', { k: 'x' }));
      const watch = record(store, { resource: 'configmaps', resourceVersion: listed.resourceVersion });
      await store.delete('configmaps', 'default', 'cm-2');
      await eventually(() => watch.events.length === 2, 'two events');
      assert.deepEqual(
        watch.events.map((e) => `${e.type} ${e.object.metadata.name}`),
        ['MODIFIED cm-1', 'DELETED cm-2'],
      );
    });

    void test('watch filters by resource and namespace; stop ends delivery', async () => {
      const store = await fresh();
      const cmAll = record(store, { resource: 'configmaps' });
      const cmDefault = record(store, { resource: 'configmaps', namespace: 'default' });
      const clusterScoped = record(store, { resource: 'namespaces', namespace: '' });
      const everything = record(store, {});
      const stopped = record(store, { resource: 'configmaps' });
      stopped.stop();
      await store.create('configmaps', configMap('a', 'default'));
      await store.create('configmaps', configMap('b', 'other'));
      await store.create('secrets', configMap('c', 'default'));
      await store.create('namespaces', { metadata: { name: 'n' } });
      await eventually(() => everything.events.length === 4, 'all events');
      await sleep(20);
      assert.deepEqual(
        cmAll.events.map((e) => e.object.metadata.name),
        ['a', 'b'],
      );
      assert.deepEqual(
        cmDefault.events.map((e) => e.object.metadata.name),
        ['a'],
      );
      assert.deepEqual(
        clusterScoped.events.map((e) => e.object.metadata.name),
        ['n'],
      );
      assert.deepEqual(
        everything.events.map((e) => e.object.metadata.name),
        ['a', 'b', 'c', 'n'],
      );
      assert.deepEqual(stopped.events, []);
      cmAll.stop();
      await store.create('configmaps', configMap('d'));
      await eventually(() => everything.events.length === 5, 'the fifth event');
      assert.equal(cmAll.events.length, 2);
    });

    void test('watch from a compacted resourceVersion fails with 410 Expired', async () => {
      const store = await fresh({ retention: { minEvents: 2, minAgeMs: 0 } });
      for (let i = 0; i < 6; i++) await store.create('configmaps', configMap(`cm-${i}`));
      const compacted = await store.compact();
      assert.equal(compacted, 4);
      const old = record(store, { resourceVersion: '2' });
      await eventually(() => old.errors.length === 1, 'the 410');
      assert.equal((old.errors[0] as ApiError).code, 410);
      assert.equal((old.errors[0] as ApiError).reason, 'Expired');
      assert.equal(old.errors[0]!.message, 'too old resource version: 2 (4)');
      assert.deepEqual(old.events, []);
      await store.create('configmaps', configMap('after'));
      await sleep(20);
      assert.deepEqual(old.events, [], 'a failed watch stays stopped');
      // From the compaction point on, history is complete.
      const ok = record(store, { resourceVersion: '4' });
      await eventually(() => ok.events.length === 3, 'the retained events');
      assert.deepEqual(
        ok.events.map((e) => e.resourceVersion),
        [5, 6, 7],
      );
      assert.equal(ok.errors.length, 0);
    });

    void test('retention keeps events younger than minAgeMs', async () => {
      const store = await fresh({ retention: { minEvents: 1, minAgeMs: 60_000 } });
      for (let i = 0; i < 5; i++) await store.create('configmaps', configMap(`cm-${i}`));
      assert.equal(await store.compact(), 0);
      const all = record(store, { resourceVersion: '1' });
      await eventually(() => all.events.length === 4, 'every young event');
    });

    void test('watches older than the in-memory window replay from the change log', async () => {
      const store = await fresh({ watchCacheSize: 3 });
      const versions: number[] = [];
      for (let i = 0; i < 12; i++) {
        versions.push(
          Number(
            (await store.create(i % 3 ? 'configmaps' : 'secrets', configMap(`o-${i}`))).metadata
              .resourceVersion,
          ),
        );
      }
      const watch = record(store, { resource: 'configmaps', resourceVersion: String(versions[1]) });
      await store.create('configmaps', configMap('live'));
      await eventually(() => watch.events.length === 8, 'replay plus live');
      assert.deepEqual(
        watch.events.map((e) => e.object.metadata.name),
        ['o-2', 'o-4', 'o-5', 'o-7', 'o-8', 'o-10', 'o-11', 'live'],
      );
    });

    void test('watch objects are shared and frozen; get and list return private copies', async () => {
      const store = await fresh();
      const watch = record(store, {});
      const created = await store.create('configmaps', configMap('a'));
      created.metadata.labels = { mutated: 'by caller' };
      await eventually(() => watch.events.length === 1, 'the event');
      const event = watch.events[0]!;
      assert.equal(event.object.metadata.labels, undefined);
      assert.ok(Object.isFrozen(event.object) && Object.isFrozen(event.object.metadata));
      const got = await store.get('configmaps', 'default', 'a');
      got!.metadata.name = 'changed';
      assert.equal((await store.get('configmaps', 'default', 'a'))?.metadata.name, 'a');
    });

    void test('onProgress reports the store version to idle watchers', async () => {
      const store = await fresh({ progressIntervalMs: 50 });
      await store.create('configmaps', configMap('a'));
      const idle = record(store, { resource: 'secrets' });
      await store.create('configmaps', configMap('b'));
      const rv = await store.currentResourceVersion();
      await eventually(
        () => idle.progress.includes(rv),
        'a progress notification at the current version',
        3000,
      );
      assert.deepEqual(idle.events, []);
      const busy = record(store, { resource: 'configmaps', resourceVersion: '1' });
      await eventually(() => busy.progress.length > 0, 'progress after the replay');
      assert.equal(busy.events.length, 1);
      assert.ok(Number(busy.progress[0]) >= busy.events[0]!.resourceVersion);
    });

    void test('an invalid watch resourceVersion is 400', async () => {
      const store = await fresh();
      const watch = record(store, { resourceVersion: 'abc' });
      await eventually(() => watch.errors.length === 1, 'the error');
      assert.equal((watch.errors[0] as ApiError).code, 400);
    });

    void test('concurrent writers: every version reaches watchers once, in order, without gaps', async () => {
      const url = await freshUrl();
      const a = await open(url);
      // On PostgreSQL the second writer is another replica on the same database.
      const b = backend === 'postgres' ? await open(url) : a;
      await a.create('configmaps', configMap('first'));
      const start = await a.currentResourceVersion();
      const watchA = record(a, { resourceVersion: start });
      const watchB = b === a ? undefined : record(b, { resourceVersion: start });
      const written: number[] = [];
      const writer = async (store: ObjectStore, id: number) => {
        for (let i = 0; i < 25; i++) {
          const name = `w${id}-${i % 5}`;
          const existing = await store.get('configmaps', 'default', name);
          const result = existing
            ? await store.update('configmaps', { ...configMap(name, 'default', { i: String(i) }) })
            : await store.create('configmaps', configMap(name, 'default', { i: String(i) }));
          written.push(Number(result.metadata.resourceVersion));
        }
      };
      await Promise.all([writer(a, 0), writer(b, 1), writer(a, 2), writer(b, 3)]);
      const expected = [...written].sort((x, y) => x - y);
      assert.equal(new Set(expected).size, 100, 'every write got its own version');
      for (const watch of [watchA, watchB]) {
        if (!watch) continue;
        await eventually(() => watch.events.length >= 100, 'all 100 events');
        await sleep(50);
        assert.deepEqual(
          watch.events.map((e) => e.resourceVersion),
          expected,
        );
      }
      const late = record(b, { resourceVersion: start });
      await eventually(() => late.events.length >= 100, 'replay of all 100 events');
      assert.deepEqual(
        late.events.map((e) => e.resourceVersion),
        expected,
      );
    });

    void test('same-object races: one create wins, read-modify-write loses no update', async () => {
      const url = await freshUrl();
      const a = await open(url);
      const b = backend === 'postgres' ? await open(url) : a;
      const creates = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).create('configmaps', configMap('contested'))),
      );
      assert.equal(creates.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of creates) {
        if (r.status === 'rejected') assert.equal((r.reason as ApiError).reason, 'AlreadyExists');
      }
      // Optimistic concurrency: read, increment, write with the read resourceVersion, retry on 409.
      const increment = async (store: ObjectStore) => {
        for (;;) {
          const current = (await store.get('configmaps', 'default', 'contested'))!;
          const n = Number((current.data as Record<string, string>).n ?? 0);
          try {
            await store.update('configmaps', { ...current, data: { n: String(n + 1) } });
            return;
          } catch (err) {
            if (!isApiError(err) || err.code !== 409) throw err;
          }
        }
      };
      await Promise.all(Array.from({ length: 20 }, (_, i) => increment(i % 2 ? a : b)));
      const final = await a.get('configmaps', 'default', 'contested');
      assert.deepEqual(final?.data, { n: '20' });
    });

    void test('writes during a replay from the change log are delivered after it, without gaps', async () => {
      const url = await freshUrl();
      const a = await open(url, { watchCacheSize: 2 });
      const b = backend === 'postgres' ? await open(url) : a;
      const expected: number[] = [];
      for (let i = 0; i < 60; i++) {
        expected.push(Number((await a.create('configmaps', configMap(`old-${i}`))).metadata.resourceVersion));
      }
      const watch = record(a, { resourceVersion: String(expected[0]) });
      const live = await Promise.all(
        Array.from({ length: 30 }, (_, i) => b.create('configmaps', configMap(`new-${i}`))),
      );
      expected.push(...live.map((o) => Number(o.metadata.resourceVersion)).sort((x, y) => x - y));
      await eventually(() => watch.events.length >= expected.length - 1, 'replay and live events');
      await sleep(50);
      assert.deepEqual(
        watch.events.map((e) => e.resourceVersion),
        expected.slice(1),
      );
    });

    void test('1,000 watchers each receive every event', async () => {
      const store = await fresh();
      const counts = new Array<number>(1000).fill(0);
      const watchers = counts.map((_, i) =>
        store.watch(
          { resource: 'configmaps' },
          { onEvent: () => counts[i]!++, onError: (e) => assert.fail(e) },
        ),
      );
      for (let i = 0; i < 5; i++) await store.create('configmaps', configMap(`cm-${i}`));
      await eventually(() => counts.every((c) => c === 5), 'every watcher to see 5 events');
      for (const w of watchers) w.stop();
    });

    void test('rewriteAll re-encodes one resource at rest without new versions or events', async () => {
      const store = await fresh();
      await store.create('secrets', { metadata: { name: 'a', namespace: 'default' }, data: { k: 'djE=' } });
      await store.create('configmaps', { metadata: { name: 'b', namespace: 'default' }, data: { k: 'v' } });
      const version = await store.currentResourceVersion();
      const watch = record(store, { resourceVersion: version });
      const marked: string[] = [];
      const changed = await store.rewriteAll('secrets', (stored) => {
        marked.push(stored);
        return stored.replace('"k":"djE="', '"k":"djI="');
      });
      assert.equal(changed, 1);
      assert.ok(marked.length >= 2, 'the object and its change-log entry are both offered');
      assert.deepEqual((await store.get('secrets', 'default', 'a'))?.data, { k: 'djI=' });
      assert.deepEqual((await store.get('configmaps', 'default', 'b'))?.data, { k: 'v' });
      assert.equal(await store.currentResourceVersion(), version);
      assert.equal(
        await store.rewriteAll('secrets', (stored) => stored),
        0,
        'unchanged values are not written',
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(watch.events, []);
      watch.stop();
    });

    void test('values at rest go through the codec, in the object table and in the change log', async () => {
      const url = await freshUrl();
      const store = await open(url, { codec: rot13Codec });
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default' },
        data: { password: 'hunter2-plaintext' },
      };
      const created = await store.create('secrets', secret);
      await store.update('secrets', { ...created, data: { password: 'hunter3-plaintext' } });
      assert.deepEqual((await store.get('secrets', 'default', 's'))?.data, { password: 'hunter3-plaintext' });
      const watch = record(store, { resourceVersion: '0' });
      await store.delete('secrets', 'default', 's');
      await eventually(() => watch.events.length === 1, 'the delete event');
      assert.deepEqual(watch.events[0]!.object.data, { password: 'hunter3-plaintext' });
      if (backend === 'memory') return;
      let rawValues: string[];
      if (backend === 'sqlite') {
        await store.close();
        const db = new Database(url.slice('sqlite:'.length), { readonly: true });
        rawValues = [
          ...(db.prepare('SELECT value FROM store_objects').all() as { value: string }[]),
          ...(db.prepare('SELECT value FROM store_log').all() as { value: string }[]),
        ].map((r) => r.value);
        db.close();
      } else {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const { rows } = await client.query<{ value: string }>(
          'SELECT value FROM store_objects UNION ALL SELECT value FROM store_log',
        );
        await client.end();
        rawValues = rows.map((r) => r.value);
      }
      assert.equal(rawValues.length, 3, 'three log entries, no object left');
      for (const value of rawValues) {
        assert.ok(value.startsWith('enc:'));
        assert.ok(!value.includes('hunter'), 'plaintext at rest');
      }
    });

    if (backend !== 'memory') {
      void test('schema migrations are applied once and recorded', async () => {
        const url = await freshUrl();
        // Two openers at once, as two replicas starting together would.
        const [first, second] = await Promise.all([open(url), open(url)]);
        await first.create('configmaps', configMap('a'));
        assert.ok(await second.get('configmaps', 'default', 'a'));
        await first.close();
        await second.close();
        await open(url);
        let versions: number[];
        if (backend === 'sqlite') {
          const db = new Database(url.slice('sqlite:'.length), { readonly: true });
          versions = (
            db.prepare('SELECT version FROM store_migrations ORDER BY version').all() as { version: number }[]
          ).map((r) => r.version);
          db.close();
        } else {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          versions = (
            await client.query<{ version: number }>('SELECT version FROM store_migrations ORDER BY version')
          ).rows.map((r) => r.version);
          await client.end();
        }
        assert.deepEqual(versions, [1]);
      });
    }

    if (backend === 'sqlite') {
      void test('reopening a SQLite file keeps objects, the version counter and the change log', async () => {
        const url = await freshUrl();
        const first = await open(url);
        await first.create('configmaps', configMap('a'));
        const b = await first.create('configmaps', configMap('b'));
        await first.close();
        const second = await open(url);
        assert.equal(await second.currentResourceVersion(), b.metadata.resourceVersion);
        assert.deepEqual(
          (await second.list('configmaps')).items.map((o) => o.metadata.name),
          ['a', 'b'],
        );
        const c = await second.create('configmaps', configMap('c'));
        assert.equal(Number(c.metadata.resourceVersion), Number(b.metadata.resourceVersion) + 1);
        const watch = record(second, { resourceVersion: '0' });
        const replay = record(second, { resourceVersion: '1' });
        await eventually(() => replay.events.length === 2, 'replay across the reopen');
        assert.deepEqual(
          replay.events.map((e) => e.object.metadata.name),
          ['b', 'c'],
        );
        assert.deepEqual(watch.events, []);
      });
    }

    if (backend === 'sqlite') {
      void test('SQLite commits the writes of one turn together, answering each only once committed', async () => {
        const url = await freshUrl();
        const store = await open(url);
        const existing = await store.create('configmaps', configMap('existing'));
        const watch = record(store, {});
        const other = new Database(url.slice('sqlite:'.length), { readonly: true });
        const visible = () =>
          (
            other.prepare("SELECT count(*) AS n FROM store_objects WHERE name LIKE 'g-%'").get() as {
              n: number;
            }
          ).n;
        try {
          const answered: string[] = [];
          const writes = Array.from({ length: 20 }, (_, i) =>
            store.create('configmaps', configMap(`g-${i}`)).then((o) => void answered.push(o.metadata.name!)),
          );
          // In the same turn: a write that fails (the name is taken) and one with a stale version.
          const failure = (e: unknown) => (isApiError(e) ? `${e.code} ${e.reason}` : String(e));
          const taken = store.create('configmaps', configMap('existing')).then(String, failure);
          const stale = store
            .update('configmaps', {
              ...existing,
              metadata: {
                ...existing.metadata,
                resourceVersion: `${Number(existing.metadata.resourceVersion) + 1000}`,
              },
              data: { k: 'stale' },
            })
            .then(String, failure);
          assert.equal(visible(), 0, 'nothing is visible to another connection before the commit');
          assert.deepEqual(answered, [], 'no write is answered before the commit');
          await Promise.all(writes);
          assert.equal(await taken, '409 AlreadyExists');
          assert.equal(await stale, '409 Conflict');
          assert.equal(visible(), 20, 'the failed writes left the others of their group alone');
          const versions = (await store.list('configmaps')).items
            .filter((o) => o.metadata.name!.startsWith('g-'))
            .map((o) => Number(o.metadata.resourceVersion))
            .sort((a, b) => a - b);
          assert.deepEqual(
            versions,
            Array.from({ length: 20 }, (_, i) => versions[0]! + i),
            'consecutive versions',
          );
          await eventually(() => watch.events.length === 20, 'twenty events');
          assert.deepEqual(
            watch.events.map((e) => e.object.metadata.name),
            Array.from({ length: 20 }, (_, i) => `g-${i}`),
          );
          // Closing with a group open commits it.
          void store.create('configmaps', configMap('last'));
          await store.close();
          assert.ok((await open(url).then((s) => s.get('configmaps', 'default', 'last'))) !== undefined);
        } finally {
          other.close();
        }
      });
    }

    if (backend === 'postgres') {
      void test('two replicas: a write on one reaches a watch on the other within a second', async () => {
        const url = await freshUrl();
        const a = await open(url);
        const b = await open(url, { progressIntervalMs: 60_000 });
        const watch = record(b, { resource: 'configmaps' });
        for (let i = 0; i < 3; i++) {
          const started = Date.now();
          const created = await a.create('configmaps', configMap(`cm-${i}`));
          await eventually(() => watch.events.length === i + 1, 'the event on replica B', 1000);
          assert.ok(Date.now() - started < 1000);
          assert.deepEqual(watch.events[i]!.object, created);
        }
        assert.equal(await b.currentResourceVersion(), await a.currentResourceVersion());
        // And the other way round, with an update and a delete.
        const back = record(a, { resource: 'configmaps' });
        await b.update('configmaps', configMap('cm-0', 'default', { k: 'from b' }));
        await b.delete('configmaps', 'default', 'cm-1');
        await eventually(() => back.events.length === 2, 'the events on replica A', 1000);
        assert.deepEqual(
          back.events.map((e) => e.type),
          ['MODIFIED', 'DELETED'],
        );
        await rejectsWith(() => a.create('configmaps', configMap('cm-2')), 409, 'AlreadyExists');
      });
    }
  });
}
