import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { FaultyStore } from '../testing/store.js';
import { sleep, waitFor } from '../testing/wait.js';
import { Controller } from './controller.js';
import { ControllerManager } from './manager.js';

const CM = 'configmaps';

describe('ControllerManager', () => {
  let store: Store;
  const managers: ControllerManager[] = [];
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  afterEach(async () => {
    for (const m of managers.splice(0)) await m.stop();
  });
  after(async () => {
    await store.close();
  });

  /** A manager whose one controller records `<replica>:<name>` for every configmap in `namespace`. */
  function replica(
    id: string,
    replicaStore: Store,
    namespace: string,
    seen: string[],
    lease: string | false,
  ): ControllerManager {
    const controller = new Controller({
      name: 'recorder',
      reconciler: {
        reconcile: async (_ctx, req) => {
          if (req.namespace === namespace) seen.push(`${id}:${req.name}`);
        },
      },
    }).for(CM);
    const manager = new ControllerManager({
      store: replicaStore,
      leaderElection:
        lease === false
          ? false
          : {
              namespace: 'fleethub-system',
              name: lease,
              identity: id,
              leaseDurationSeconds: 1,
              renewDeadlineMs: 600,
              retryPeriodMs: 100,
            },
    }).add(controller);
    managers.push(manager);
    return manager;
  }

  it('runs controllers on the leader only, and on the other replica once the leader is cut off', async () => {
    const seen: string[] = [];
    const storeA = new FaultyStore(store);
    const a = replica('a', storeA, 'ha', seen, 'ha-lease');
    const b = replica('b', new FaultyStore(store), 'ha', seen, 'ha-lease');
    a.start();
    await waitFor(() => a.isRunning(), 'a runs controllers');
    b.start();
    await store.create(CM, { metadata: { namespace: 'ha', name: 'one' } });
    await waitFor(() => seen.includes('a:one'), 'a reconciles one');
    await sleep(300);
    assert.equal(b.isRunning(), false);
    assert.deepEqual(
      seen.filter((s) => s.startsWith('b:')),
      [],
    );

    storeA.cut('hang');
    await waitFor(() => b.isRunning(), 'b runs controllers', 3000);
    await waitFor(() => !a.isRunning(), 'a stopped its controllers', 3000);
    // b starts from a full list, so it reconciles what existed, then follows new changes.
    await waitFor(() => seen.includes('b:one'), 'b reconciles existing objects');
    await store.create(CM, { metadata: { namespace: 'ha', name: 'two' } });
    await waitFor(() => seen.includes('b:two'), 'b reconciles new objects');
    assert.ok(!seen.includes('a:two'));
    assert.match(b.metrics.render(), /fleethub_controller_manager_running 1/);
    // The controller had no registry of its own: it reports to the manager's.
    assert.match(
      b.metrics.render(),
      /fleethub_reconcile_total\{controller="recorder",result="success"\} [1-9]/,
    );
    assert.match(a.metrics.render(), /fleethub_controller_manager_running 0/);
    storeA.heal();
  });

  it('without leader election runs at start and stops on stop', async () => {
    const seen: string[] = [];
    const m = replica('solo', store, 'solo', seen, false);
    m.start();
    await store.create(CM, { metadata: { namespace: 'solo', name: 'x' } });
    await waitFor(() => seen.includes('solo:x'), 'reconciled');
    await m.stop();
    assert.equal(m.isRunning(), false);
    await store.create(CM, { metadata: { namespace: 'solo', name: 'y' } });
    await sleep(100);
    assert.ok(!seen.includes('solo:y'), 'nothing runs after stop');
  });

  it('refuses controllers added after start', () => {
    const m = replica('late', store, 'late', [], false);
    m.start();
    assert.throws(() =>
      m.add(new Controller({ name: 'x', reconciler: { reconcile: async () => undefined } })),
    );
  });
});
