// The work-release controller on a real store: deleted works of missing, deleting or never-joined
// Clusters are let go; those of a joined Cluster wait for its agent until the Cluster goes; local works
// (no Cluster at all) are never let go here: the hub cleans them up itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  FLEET_API_VERSION,
  LABEL_CLUSTER,
  LABEL_LOCAL,
  RESOURCES,
  WORK_API_VERSION,
  WORK_CLEANUP_FINALIZER,
} from '../../fleet/names.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { ControllerManager } from '../runtime/manager.js';
import { sleep, waitFor } from '../testing/wait.js';
import { workReleaseController } from './work-release.controller.js';

const NS = 'team';

async function createCluster(store: Store, name: string, joined: boolean): Promise<void> {
  await store.create(RESOURCES.clusters, {
    apiVersion: FLEET_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace: NS, finalizers: ['test/hold'] },
    spec: {},
    ...(joined
      ? { status: { conditions: [{ type: 'Joined', status: 'True', reason: 'AgentJoined', message: '' }] } }
      : {}),
  });
}

async function createWork(
  store: Store,
  name: string,
  cluster: string,
  labels: Record<string, string> = { [LABEL_CLUSTER]: cluster },
): Promise<void> {
  await store.create(RESOURCES.manifestWorks, {
    apiVersion: WORK_API_VERSION,
    kind: 'ManifestWork',
    metadata: {
      name,
      namespace: NS,
      labels,
      finalizers: [WORK_CLEANUP_FINALIZER],
    },
    spec: { workload: { manifests: [] } },
  });
}

const gone = (store: Store, name: string) => async () =>
  (await store.get(RESOURCES.manifestWorks, NS, name)) === undefined;

describe('work-release controller', () => {
  let store: Store;
  let manager: ControllerManager;
  before(async () => {
    store = await openStore({ url: 'memory:' });
    manager = new ControllerManager({ store, leaderElection: false });
    manager.add(workReleaseController({ store, recheckMs: 100 }));
    manager.start();
  });
  after(async () => {
    await manager.stop();
    await store.close();
  });

  it('lets go of a deleted work whose Cluster does not exist or never joined', async () => {
    await createCluster(store, 'pending', false);
    await createWork(store, 'orphan', 'nowhere');
    await createWork(store, 'early', 'pending');
    await store.delete(RESOURCES.manifestWorks, NS, 'orphan');
    await store.delete(RESOURCES.manifestWorks, NS, 'early');
    await waitFor(gone(store, 'orphan'), 'the work of a missing Cluster to go');
    await waitFor(gone(store, 'early'), 'the work of a never-joined Cluster to go');
  });

  it('a joined Cluster’s deleted work waits for its agent, and goes once the Cluster is deleted', async () => {
    await createCluster(store, 'edge', true);
    await createWork(store, 'app', 'edge');
    await createWork(store, 'live', 'edge');
    await store.delete(RESOURCES.manifestWorks, NS, 'app');
    await sleep(400);
    const waiting = await store.get(RESOURCES.manifestWorks, NS, 'app');
    assert.ok(waiting?.metadata.deletionTimestamp, 'still there, deleting');
    assert.deepEqual(waiting.metadata.finalizers, [WORK_CLEANUP_FINALIZER]);
    await store.delete(RESOURCES.clusters, NS, 'edge');
    await waitFor(gone(store, 'app'), 'the work to go after its Cluster began deleting', 3000);
    // Works that are not being deleted are left alone.
    assert.deepEqual((await store.get(RESOURCES.manifestWorks, NS, 'live'))?.metadata.finalizers, [
      WORK_CLEANUP_FINALIZER,
    ]);
  });

  it('leaves a deleted local work (no Cluster label) to the hub’s own cleanup', async () => {
    await createWork(store, 'on-hub', '', { [LABEL_LOCAL]: 'true' });
    await store.delete(RESOURCES.manifestWorks, NS, 'on-hub');
    // Long enough for a release to have happened (the first test's works go within a few ms).
    await sleep(400);
    const waiting = await store.get(RESOURCES.manifestWorks, NS, 'on-hub');
    assert.ok(waiting?.metadata.deletionTimestamp, 'still there, deleting');
    assert.deepEqual(waiting.metadata.finalizers, [WORK_CLEANUP_FINALIZER]);
  });
});
