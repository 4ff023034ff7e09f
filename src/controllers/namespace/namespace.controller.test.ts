import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { KubeObject, ListOptions, Store } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { findCondition, type Condition } from '../runtime/conditions.js';
import { ControllerManager } from '../runtime/manager.js';
import { FaultyStore } from '../testing/store.js';
import { sleep, waitFor } from '../testing/wait.js';
import { namespaceController } from './namespace.controller.js';

const NS = 'namespaces';
const CM = 'configmaps';
const SECRETS = 'secrets';

function namespace(name: string, specFinalizers = ['kubernetes']): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
    spec: { finalizers: specFinalizers },
    status: { phase: 'Active' },
  };
}

function object(kind: string, namespace: string, name: string, finalizers?: string[]): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { namespace, name, ...(finalizers ? { finalizers } : {}) } };
}

/** What the API server does on DELETE of a Namespace with spec finalizers (handlers/crud.ts). */
async function markDeleted(store: Store, name: string): Promise<void> {
  const ns = (await store.get(NS, '', name))!;
  await store.update(NS, { ...ns, status: { phase: 'Terminating' } }, { subresource: 'status' });
  await store.delete(NS, '', name, { markOnly: true });
}

function conditions(ns: KubeObject | undefined): Condition[] {
  return (ns?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];
}

/** Fails every list of one resource, as a broken backend table would. */
class BrokenListStore extends FaultyStore {
  constructor(
    inner: Store,
    private readonly broken: string,
  ) {
    super(inner);
  }

  override list(resource: string, options?: ListOptions): ReturnType<Store['list']> {
    if (resource === this.broken) return Promise.reject(errors.internal(`table ${resource} is unreadable`));
    return super.list(resource, options);
  }
}

describe('namespace controller', () => {
  let store: Store;
  let manager: ControllerManager | undefined;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
  });
  after(async () => {
    await store.close();
  });

  function startController(onStore: Store = store, resources = [CM, SECRETS]): void {
    manager = new ControllerManager({ store: onStore, leaderElection: false });
    manager.add(
      namespaceController({ store: onStore, namespacedResources: () => resources, recheckAfterMs: 50 }),
    );
    manager.start();
  }

  it('empties a deleted namespace, waits for finalizers of its content, then removes it', async () => {
    await store.create(NS, namespace('team-a'));
    await store.create(NS, namespace('team-b'));
    await store.create(CM, object('ConfigMap', 'team-a', 'c1'));
    await store.create(CM, object('ConfigMap', 'team-a', 'c2'));
    await store.create(SECRETS, object('Secret', 'team-a', 's1'));
    await store.create(CM, object('ConfigMap', 'team-a', 'held', ['example.com/hold']));
    await store.create(CM, object('ConfigMap', 'team-b', 'other'));
    startController();
    await sleep(100);
    assert.equal(
      (await store.list(CM, { namespace: 'team-a' })).items.length,
      3,
      'a live namespace is left alone',
    );

    await markDeleted(store, 'team-a');
    await waitFor(
      async () => (await store.list(CM, { namespace: 'team-a' })).items.length === 1,
      'content deleted',
    );
    assert.deepEqual((await store.list(SECRETS, { namespace: 'team-a' })).items, []);
    const held = (await store.get(CM, 'team-a', 'held'))!;
    assert.ok(held.metadata.deletionTimestamp, 'the held object is being deleted');

    const terminating = await waitFor(async () => {
      const ns = await store.get(NS, '', 'team-a');
      return findCondition(conditions(ns), 'NamespaceFinalizersRemaining') ? ns : undefined;
    }, 'deletion conditions');
    assert.equal((terminating['status'] as { phase: string }).phase, 'Terminating');
    const c = conditions(terminating);
    assert.deepEqual(
      c.map((x) => [x.type, x.status, x.reason]),
      [
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
      ],
    );
    assert.match(
      findCondition(c, 'NamespaceContentRemaining')!.message,
      /configmaps has 1 resource instances/,
    );
    assert.match(
      findCondition(c, 'NamespaceFinalizersRemaining')!.message,
      /example\.com\/hold in 1 resource instances/,
    );
    await sleep(200);
    assert.ok(await store.get(NS, '', 'team-a'), 'the namespace waits for its content');

    await store.update(CM, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await waitFor(async () => !(await store.get(NS, '', 'team-a')), 'namespace removed');
    assert.ok(await store.get(NS, '', 'team-b'));
    assert.ok(await store.get(CM, 'team-b', 'other'), 'other namespaces keep their content');
  });

  it('removes only its own spec finalizer and leaves the namespace to another finalizer', async () => {
    await store.create(NS, namespace('guarded', ['kubernetes', 'example.com/guard']));
    await store.create(CM, object('ConfigMap', 'guarded', 'c'));
    startController();
    await markDeleted(store, 'guarded');
    await waitFor(async () => {
      const ns = await store.get(NS, '', 'guarded');
      return (
        JSON.stringify((ns?.['spec'] as { finalizers: string[] }).finalizers) === '["example.com/guard"]'
      );
    }, 'kubernetes finalizer removed');
    assert.equal(await store.get(CM, 'guarded', 'c'), undefined);
    await sleep(150);
    const ns = (await store.get(NS, '', 'guarded'))!;
    await store.update(NS, { ...ns, spec: { finalizers: [] } });
    await waitFor(
      async () => !(await store.get(NS, '', 'guarded')),
      'deleted once the other finalizer is gone',
    );
  });

  it('reports content it cannot delete and keeps the namespace', async () => {
    const broken = new BrokenListStore(store, 'widgets.example.com');
    await store.create(NS, namespace('stuck'));
    await store.create(CM, object('ConfigMap', 'stuck', 'c'));
    startController(broken, [CM, 'widgets.example.com']);
    await markDeleted(store, 'stuck');
    const ns = await waitFor(async () => {
      const cur = await store.get(NS, '', 'stuck');
      return findCondition(conditions(cur), 'NamespaceDeletionContentFailure')?.status === 'True'
        ? cur
        : undefined;
    }, 'failure condition');
    const failure = findCondition(conditions(ns), 'NamespaceDeletionContentFailure')!;
    assert.equal(failure.reason, 'ContentDeletionFailed');
    assert.match(failure.message, /widgets\.example\.com is unreadable/);
    assert.equal(await store.get(CM, 'stuck', 'c'), undefined, 'what can be deleted is deleted');
    await sleep(200);
    assert.ok(await store.get(NS, '', 'stuck'), 'not finalized while content may remain');
  });
});
