// The add-on controllers on a memory store for controller tests: one before/after pair that starts the
// profile and summary controllers (and any others a test needs), and Clusters whose agent is present.
import { after, before } from 'node:test';
import { FLEET_API_VERSION, RESOURCES } from '../../fleet/names.js';
import { builtinKinds } from '../../kinds/builtin/index.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { addonProfileController } from '../addon-profile/addon-profile.controller.js';
import { addonSummaryController } from '../addon-summary/addon-summary.controller.js';
import type { Controller } from '../runtime/controller.js';
import { ControllerManager } from '../runtime/manager.js';
import { AGENT_PRESENT } from './agent.js';

export interface AddonControllers {
  store: Store;
  manager: ControllerManager;
}

/** Registers before/after hooks; the returned object is filled in once `before` has run. */
export function useAddonControllers(extra: (store: Store) => Controller[] = () => []): AddonControllers {
  const harness = {} as AddonControllers;
  before(async () => {
    harness.store = await openStore({ url: 'memory:' });
    harness.manager = new ControllerManager({ store: harness.store, leaderElection: false });
    harness.manager.add(addonProfileController({ store: harness.store }));
    harness.manager.add(addonSummaryController({ store: harness.store, kinds: builtinKinds }));
    for (const c of extra(harness.store)) harness.manager.add(c);
    harness.manager.start();
  });
  after(async () => {
    await harness.manager.stop();
    await harness.store.close();
  });
  return harness;
}

/** A fleethub Cluster whose agent renews its Lease (Available True). */
export function createCluster(
  store: Store,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  spec: Record<string, unknown> = {},
): Promise<KubeObject> {
  return store.create(RESOURCES.clusters, {
    apiVersion: FLEET_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace, labels },
    spec,
    status: AGENT_PRESENT,
  });
}
