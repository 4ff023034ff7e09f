import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { KubeObject, ListOptions, Store } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { FaultyStore } from '../testing/store.js';
import { sleep, waitFor } from '../testing/wait.js';
import { fieldEquals, Informer, InformerSet } from './informer.js';

const CM = 'configmaps';

function cm(namespace: string, name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data };
}

function recorder(): { events: string[]; handlers: Parameters<Informer['addEventHandler']>[0] } {
  const events: string[] = [];
  const id = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    events,
    handlers: {
      onAdd: (o) => events.push(`add ${id(o)}`),
      onUpdate: (old, o) =>
        events.push(`update ${id(o)} ${JSON.stringify(old['data'])}->${JSON.stringify(o['data'])}`),
      onDelete: (o) => events.push(`delete ${id(o)}`),
    },
  };
}

async function sameAsStore(store: Store, informer: Informer, namespace?: string): Promise<boolean> {
  const listed = await store.list(CM, namespace === undefined ? {} : { namespace });
  const want = listed.items.map(
    (o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`,
  );
  const have = informer
    .list()
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
  return JSON.stringify(want) === JSON.stringify(have);
}

describe('Informer', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  after(async () => {
    await store.close();
  });

  it('a write to a store never written to, landing between its list and its watch, is not missed', async () => {
    const fresh = await openStore({ url: 'memory:' });
    try {
      const informer = new Informer({ store: fresh, resource: CM });
      const rec = recorder();
      informer.addEventHandler(rec.handlers);
      informer.start(); // lists at version 0 ...
      await fresh.create(CM, cm('a', 'early')); // ... and this lands before the watch starts
      await waitFor(() => informer.get('a', 'early'), 'the early write in the cache');
      assert.deepEqual(rec.events, ['add a/early']);
      informer.stop();
    } finally {
      await fresh.close();
    }
  });

  it('lists, then follows the watch, and serves the cache', async () => {
    await store.create(CM, cm('a', 'one', { v: '1' }));
    await store.create(CM, cm('b', 'two'));
    const informer = new Informer({ store, resource: CM });
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    assert.equal(informer.hasSynced(), false);
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(rec.events.sort(), ['add a/one', 'add b/two']);
    rec.events.length = 0;

    const one = (await store.get(CM, 'a', 'one'))!;
    await store.update(CM, { ...one, data: { v: '2' } });
    await store.create(CM, cm('a', 'three'));
    await store.delete(CM, 'b', 'two');
    await waitFor(() => rec.events.length === 3, 'three events');
    assert.deepEqual(rec.events, ['update a/one {"v":"1"}->{"v":"2"}', 'add a/three', 'delete b/two']);
    assert.deepEqual(informer.get('a', 'one')?.['data'], { v: '2' });
    assert.equal(informer.get('b', 'two'), undefined);
    assert.deepEqual(
      informer.list('a').map((o) => o.metadata.name),
      ['one', 'three'],
    );
    assert.deepEqual(informer.list('b'), []);
    informer.stop();
    for (const o of (await store.list(CM)).items)
      await store.delete(CM, o.metadata.namespace!, o.metadata.name!);
  });

  it('misses nothing written while it lists and starts watching', async () => {
    const informer = new Informer({ store, resource: CM, namespace: 'busy' });
    informer.start();
    for (let i = 0; i < 60; i++) {
      const name = `o${i % 12}`;
      const current = await store.get(CM, 'busy', name);
      if (!current) await store.create(CM, cm('busy', name, { i: String(i) }));
      else if (i % 5 === 0) await store.delete(CM, 'busy', name);
      else await store.update(CM, { ...current, data: { i: String(i) } });
    }
    await informer.waitForSync();
    await waitFor(() => sameAsStore(store, informer, 'busy'), 'cache equal to store');
    informer.stop();
  });

  it('relists after 410 Expired and reports what changed while it was not watching', async () => {
    const faulty = new FaultyStore(store);
    await store.create(CM, cm('gap', 'kept', { v: '1' }));
    await store.create(CM, cm('gap', 'changed', { v: '1' }));
    await store.create(CM, cm('gap', 'removed'));
    const informer = new Informer({ store: faulty, resource: CM, namespace: 'gap', backoffBaseMs: 10 });
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    informer.start();
    await informer.waitForSync();
    rec.events.length = 0;

    const listsBefore = faulty.callsBy['list'] ?? 0;
    faulty.cut('fail'); // events are dropped and the relist fails for a while
    faulty.breakWatches(errors.gone('too old resource version'));
    const changed = (await store.get(CM, 'gap', 'changed'))!;
    await store.update(CM, { ...changed, data: { v: '2' } });
    await store.delete(CM, 'gap', 'removed');
    await store.create(CM, cm('gap', 'added'));
    await sleep(50);
    assert.deepEqual(rec.events, [], 'nothing seen while cut off');
    faulty.heal();

    await waitFor(() => rec.events.length >= 3, 'relist diff');
    assert.deepEqual(rec.events.sort(), [
      'add gap/added',
      'delete gap/removed',
      'update gap/changed {"v":"1"}->{"v":"2"}',
    ]);
    assert.ok((faulty.callsBy['list'] ?? 0) > listsBefore, '410 makes it list again');
    assert.ok(await sameAsStore(store, informer, 'gap'));
    // Still watching after the relist.
    await store.create(CM, cm('gap', 'later'));
    await waitFor(() => informer.get('gap', 'later'), 'event after relist');
    informer.stop();
  });

  it('resumes a broken watch from its last version without repeating events', async () => {
    const faulty = new FaultyStore(store);
    const informer = new Informer({ store: faulty, resource: CM, namespace: 'resume', backoffBaseMs: 10 });
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    informer.start();
    await informer.waitForSync();
    const lists = faulty.callsBy['list'];
    await store.create(CM, cm('resume', 'first'));
    await waitFor(() => rec.events.length === 1, 'first event');
    faulty.breakWatches(errors.internal('connection reset'));
    await store.create(CM, cm('resume', 'second'));
    await waitFor(() => rec.events.length >= 2, 'event from the gap');
    await sleep(30);
    assert.deepEqual(rec.events, ['add resume/first', 'add resume/second']);
    assert.equal(faulty.callsBy['list'], lists, 'a resumable watch needs no relist');
    informer.stop();
  });

  it('backs off while the store is unreachable, then syncs', async () => {
    const faulty = new FaultyStore(store);
    faulty.cut('fail');
    const informer = new Informer({ store: faulty, resource: CM, backoffBaseMs: 20, backoffMaxMs: 1000 });
    informer.start();
    await sleep(400);
    assert.equal(informer.hasSynced(), false);
    // 20, 40, 80, 160 ms: about five attempts in 400 ms, not hundreds.
    assert.ok(faulty.calls >= 3 && faulty.calls <= 7, `${faulty.calls} list attempts`);
    faulty.heal();
    assert.equal(await informer.waitForSync(), true);
    informer.stop();
  });

  it('indexes objects and replays the cache to late handlers', async () => {
    await store.create(CM, {
      ...cm('idx', 'x'),
      metadata: { namespace: 'idx', name: 'x', labels: { team: 'red' } },
    });
    await store.create(CM, {
      ...cm('idx', 'y'),
      metadata: { namespace: 'idx', name: 'y', labels: { team: 'blue' } },
    });
    const informer = new Informer({
      store,
      resource: CM,
      namespace: 'idx',
      indexers: { team: (o) => (o.metadata.labels?.['team'] ? [o.metadata.labels['team']] : []) },
    });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(
      informer.byIndex('team', 'red').map((o) => o.metadata.name),
      ['x'],
    );
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    assert.deepEqual(rec.events.sort(), ['add idx/x', 'add idx/y']);
    const x = (await store.get(CM, 'idx', 'x'))!;
    await store.update(CM, { ...x, metadata: { ...x.metadata, labels: { team: 'blue' } } });
    await waitFor(() => informer.byIndex('team', 'blue').length === 2, 'reindex');
    assert.deepEqual(informer.byIndex('team', 'red'), []);
    informer.stop();
  });

  it('InformerSet shares one informer per resource and reads through it', async () => {
    const set = new InformerSet(store);
    assert.equal(set.informer(CM), set.informer(CM));
    set.start();
    assert.equal(await set.waitForSync(), true);
    assert.ok(set.get(CM, 'idx', 'x'));
    assert.throws(() => set.list('secrets'), /only watched resources/);
    set.stop();
  });
});

const SECRETS = 'secrets';
const CONTENT = 'example.com/content';
const CONTENT_ONLY = fieldEquals('type', CONTENT);

function secret(
  namespace: string,
  name: string,
  type: string,
  data: Record<string, string> = {},
): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { namespace, name }, type, data };
}

/** Records the options of every list, to see what the store was asked to filter. */
class ListSpy extends FaultyStore {
  readonly lists: ListOptions[] = [];
  override list(resource: string, options?: ListOptions): ReturnType<Store['list']> {
    this.lists.push(options ?? {});
    return super.list(resource, options);
  }
}

describe('Informer with a filter', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  after(async () => {
    await store.close();
  });

  const names = (informer: Informer): string[] => informer.list().map((o) => o.metadata.name ?? '');
  async function edit(name: string, namespace: string, change: Partial<KubeObject>): Promise<void> {
    const current = (await store.get(SECRETS, namespace, name))!;
    await store.update(SECRETS, { ...current, ...change });
  }

  it('caches only matching objects; the store filters the list', async () => {
    await store.create(SECRETS, secret('f1', 'content', CONTENT));
    await store.create(SECRETS, secret('f1', 'opaque', 'Opaque'));
    await store.create(SECRETS, secret('f1', 'untyped', ''));
    const spy = new ListSpy(store);
    const informer = new Informer({ store: spy, resource: SECRETS, namespace: 'f1', filter: CONTENT_ONLY });
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(rec.events, ['add f1/content']);
    assert.deepEqual(names(informer), ['content']);
    assert.equal(informer.get('f1', 'opaque'), undefined);
    assert.ok(spy.lists[0]?.predicate, 'the list carries the filter to the store');

    rec.events.length = 0;
    await store.create(SECRETS, secret('f1', 'opaque-2', 'Opaque'));
    await edit('opaque', 'f1', { data: { changed: 'eA==' } });
    await store.delete(SECRETS, 'f1', 'untyped');
    await store.create(SECRETS, secret('f1', 'content-2', CONTENT));
    await waitFor(() => rec.events.length > 0, 'the matching add');
    await sleep(20);
    assert.deepEqual(rec.events, ['add f1/content-2'], 'no event for objects outside the filter');
    assert.deepEqual(names(informer), ['content', 'content-2']);
    informer.stop();
  });

  it('an object entering the filter is an add, leaving it a delete (with its new state)', async () => {
    await store.create(SECRETS, secret('f2', 'mover', 'Opaque', { v: 'MQ==' }));
    const informer = new Informer({ store, resource: SECRETS, namespace: 'f2', filter: CONTENT_ONLY });
    const deleted: KubeObject[] = [];
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    informer.addEventHandler({ onDelete: (o) => deleted.push(o) });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(rec.events, []);

    await edit('mover', 'f2', { type: CONTENT });
    await waitFor(() => rec.events.length === 1, 'entering');
    await edit('mover', 'f2', { data: { v: 'Mg==' } });
    await waitFor(() => rec.events.length === 2, 'changing inside');
    await edit('mover', 'f2', { type: 'Opaque' });
    await waitFor(() => rec.events.length === 3, 'leaving');
    await edit('mover', 'f2', { data: { v: 'Mw==' } }); // outside: nothing
    await store.delete(SECRETS, 'f2', 'mover'); // deleted while outside: nothing
    await sleep(30);
    assert.deepEqual(rec.events, [
      'add f2/mover',
      'update f2/mover {"v":"MQ=="}->{"v":"Mg=="}',
      'delete f2/mover',
    ]);
    assert.equal(deleted[0]?.['type'], 'Opaque', 'the delete carries the state that left the filter');
    assert.equal(informer.get('f2', 'mover'), undefined);

    // Deleted while inside: a delete.
    await store.create(SECRETS, secret('f2', 'gone', CONTENT));
    await waitFor(() => rec.events.length === 4, 'add');
    await store.delete(SECRETS, 'f2', 'gone');
    await waitFor(() => rec.events.length === 5, 'delete');
    assert.deepEqual(rec.events.slice(3), ['add f2/gone', 'delete f2/gone']);
    assert.deepEqual(informer.list(), []);
    informer.stop();
  });

  it('a relist after 410 brings the cache back to what matches, telling only the differences', async () => {
    await store.create(SECRETS, secret('f3', 'stays', CONTENT, { v: 'MQ==' }));
    await store.create(SECRETS, secret('f3', 'leaves', CONTENT));
    await store.create(SECRETS, secret('f3', 'enters', 'Opaque'));
    await store.create(SECRETS, secret('f3', 'changes', CONTENT, { v: 'MQ==' }));
    const faulty = new ListSpy(store);
    const informer = new Informer({
      store: faulty,
      resource: SECRETS,
      namespace: 'f3',
      filter: CONTENT_ONLY,
      backoffBaseMs: 10,
    });
    const rec = recorder();
    informer.addEventHandler(rec.handlers);
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(names(informer), ['changes', 'leaves', 'stays']);
    rec.events.length = 0;

    faulty.cut('fail');
    faulty.breakWatches(errors.gone('too old resource version'));
    await edit('leaves', 'f3', { type: 'Opaque' });
    await edit('enters', 'f3', { type: CONTENT });
    await edit('changes', 'f3', { data: { v: 'Mg==' } });
    await store.create(SECRETS, secret('f3', 'new-opaque', 'Opaque'));
    await sleep(30);
    assert.deepEqual(rec.events, []);
    const lists = faulty.lists.length;
    faulty.heal();

    await waitFor(() => rec.events.length >= 3, 'relist diff');
    await sleep(20);
    assert.deepEqual(rec.events.sort(), [
      'add f3/enters',
      'delete f3/leaves',
      'update f3/changes {"v":"MQ=="}->{"v":"Mg=="}',
    ]);
    assert.ok(faulty.lists.length > lists && faulty.lists.slice(lists).every((o) => o.predicate));
    assert.deepEqual(names(informer), ['changes', 'enters', 'stays']);
    const matching = await store.list(SECRETS, { namespace: 'f3', predicate: CONTENT_ONLY.matches });
    assert.deepEqual(
      informer.list().map((o) => o.metadata.resourceVersion),
      matching.items.map((o) => o.metadata.resourceVersion),
    );
    informer.stop();
  });

  it('a throwing filter leaves the object out and the informer running', async () => {
    await store.create(SECRETS, secret('f4', 'fine', CONTENT));
    await store.create(SECRETS, secret('f4', 'bad', CONTENT));
    const informer = new Informer({
      store,
      resource: SECRETS,
      namespace: 'f4',
      filter: {
        name: 'throws-on-bad',
        matches: (o) => {
          if (o.metadata.name === 'bad') throw new Error('cannot tell');
          return true;
        },
      },
    });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(names(informer), ['fine']);
    await store.create(SECRETS, secret('f4', 'later', CONTENT));
    await waitFor(() => informer.get('f4', 'later'), 'later event');
    informer.stop();
  });

  it('fieldEquals reads dotted paths; a missing field reads as empty', () => {
    const phase = fieldEquals('status.phase', 'Running');
    assert.equal(phase.name, 'status.phase=Running');
    assert.equal(phase.matches({ metadata: {}, status: { phase: 'Running' } }), true);
    assert.equal(phase.matches({ metadata: {}, status: { phase: 'Pending' } }), false);
    assert.equal(phase.matches({ metadata: {} }), false);
    assert.equal(fieldEquals('status.phase', '').matches({ metadata: {} }), true);
    assert.equal(fieldEquals('spec.replicas', '3').matches({ metadata: {}, spec: { replicas: 3 } }), true);
  });

  it('InformerSet keeps filtered informers apart from the whole resource, shared by filter name', async () => {
    const set = new InformerSet(store);
    const filtered = set.informer(SECRETS, { filter: CONTENT_ONLY });
    assert.equal(set.informer(SECRETS, { filter: fieldEquals('type', CONTENT) }), filtered);
    assert.notEqual(set.informer(SECRETS, { filter: fieldEquals('type', 'Opaque') }), filtered);
    assert.deepEqual(set.resources(), [`${SECRETS}?type=${CONTENT}`, `${SECRETS}?type=Opaque`]);
    set.start();
    assert.equal(await set.waitForSync(), true);
    assert.ok(filtered.get('f1', 'content'));
    // A filtered informer holds part of the resource: cache reads of the resource do not answer from it.
    assert.throws(() => set.list(SECRETS), /cached only filtered by type=example.com\/content, type=Opaque/);
    const whole = set.informer(SECRETS);
    assert.notEqual(whole, filtered);
    await whole.waitForSync();
    assert.ok(set.get(SECRETS, 'f1', 'opaque'));
    set.stop();
  });
});
