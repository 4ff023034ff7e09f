// The store's label-trigger hint: a watcher that selects label key=value is offered only the events of
// objects that have, or had, that value — and never misses one leaving its selection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from './index.js';
import type { KubeObject, Store, WatchEvent } from './types.js';

const R = 'configmaps';
let store: Store;

before(async () => {
  store = await openStore({ url: 'memory:' });
});
after(async () => {
  await store.close();
});

function cm(name: string, app: string | undefined): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', ...(app ? { labels: { app } } : {}) },
  };
}

function record(value: string): { events: string[]; stop(): void } {
  const events: string[] = [];
  const w = store.watch(
    { resource: R, namespace: 'ns', labelEquals: { key: 'app', value } },
    {
      onEvent: (e: WatchEvent) =>
        events.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.labels?.['app'] ?? '-'}`),
      onError: (e) => assert.fail(e),
    },
  );
  return { events, stop: () => w.stop() };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('watch triggers', () => {
  test('each watcher sees its own slice, including objects leaving it', async () => {
    const early = await store.create(R, cm('early', 'a'));
    const a = record('a');
    const b = record('b');
    await store.create(R, cm('x', 'a'));
    await store.create(R, cm('y', 'c'));
    const x = (await store.get(R, 'ns', 'x'))!;
    await store.update(R, { ...x, metadata: { ...x.metadata, labels: { app: 'b' } } });
    // Seen before the watchers existed: its previous label is not known, so it is offered to both.
    await store.update(R, { ...early, metadata: { ...early.metadata, labels: { app: 'c' } } });
    await store.delete(R, 'ns', 'x');
    await settle();
    assert.deepEqual(a.events, ['ADDED x a', 'MODIFIED x b', 'MODIFIED early c']);
    assert.deepEqual(b.events, [
      'ADDED x a'.replace('ADDED x a', 'MODIFIED x b'),
      'MODIFIED early c',
      'DELETED x b',
    ]);
    a.stop();
    b.stop();
  });
});
