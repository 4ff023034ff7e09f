// The informer's read paths at fleet scale: list()'s sorted order kept across adds, updates and deletes,
// and byLabel's index built on first use and kept current by the watch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { waitFor } from '../testing/wait.js';
import { Informer, InformerSet } from './informer.js';

const CM = 'configmaps';

function cm(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels } };
}

const names = (objs: KubeObject[]): string[] => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

describe('Informer reads', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  after(async () => {
    await store.close();
  });

  it('list() stays sorted by namespace then name through adds, updates and deletes', async () => {
    await store.create(CM, cm('b', 'two'));
    await store.create(CM, cm('a', 'one'));
    const informer = new Informer({ store, resource: CM });
    informer.start();
    await informer.waitForSync();
    assert.deepEqual(names(informer.list()), ['a/one', 'b/two']);
    await store.create(CM, cm('a', 'zero'));
    await store.create(CM, cm('a', 'b-one'));
    await waitFor(() => informer.list().length === 4, 'two adds');
    assert.deepEqual(names(informer.list()), ['a/b-one', 'a/one', 'a/zero', 'b/two']);
    assert.deepEqual(names(informer.list('a')), ['a/b-one', 'a/one', 'a/zero']);
    const one = (await store.get(CM, 'a', 'one'))!;
    await store.update(CM, { ...one, data: { v: '2' } });
    await waitFor(() => informer.get('a', 'one')?.['data'] !== undefined, 'the update');
    // An update is seen through the kept order: the list holds the new state.
    assert.deepEqual(informer.list('a')[1]!['data'], { v: '2' });
    await store.delete(CM, 'a', 'zero');
    await waitFor(() => informer.list().length === 3, 'the delete');
    assert.deepEqual(names(informer.list()), ['a/b-one', 'a/one', 'b/two']);
    assert.deepEqual(names(informer.list('a')), ['a/b-one', 'a/one']);
    assert.deepEqual(informer.list('none'), []);
    informer.stop();
  });

  it('byLabel finds objects by a label value, in one namespace or all, and follows relabelling', async () => {
    await store.create(CM, cm('x', 'w1', { 'fleethub.io/cluster': 'c1' }));
    await store.create(CM, cm('y', 'w2', { 'fleethub.io/cluster': 'c1' }));
    await store.create(CM, cm('x', 'w3', { 'fleethub.io/cluster': 'c2' }));
    const set = new InformerSet(store);
    set.informer(CM);
    set.start();
    await set.waitForSync();
    assert.deepEqual(names(set.byLabel(CM, 'fleethub.io/cluster', 'c1')), ['x/w1', 'y/w2']);
    assert.deepEqual(names(set.byLabel(CM, 'fleethub.io/cluster', 'c1', 'x')), ['x/w1']);
    assert.deepEqual(set.byLabel(CM, 'fleethub.io/cluster', 'nope'), []);
    // Kept current after it was built: a new object, a relabelled one, a deleted one.
    await store.create(CM, cm('x', 'w4', { 'fleethub.io/cluster': 'c1' }));
    const w3 = (await store.get(CM, 'x', 'w3'))!;
    await store.update(CM, { ...w3, metadata: { ...w3.metadata, labels: { 'fleethub.io/cluster': 'c1' } } });
    await store.delete(CM, 'y', 'w2');
    await waitFor(
      () => names(set.byLabel(CM, 'fleethub.io/cluster', 'c1')).join() === 'x/w1,x/w3,x/w4',
      'the index following the watch',
    );
    assert.deepEqual(set.byLabel(CM, 'fleethub.io/cluster', 'c2'), []);
    assert.throws(() => set.byLabel('secrets', 'a', 'b'), /only watched resources/);
    set.stop();
  });
});
