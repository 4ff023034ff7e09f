import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { FaultyStore } from '../testing/store.js';
import { sleep, waitFor } from '../testing/wait.js';
import { Informer, InformerSet } from './informer.js';

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
