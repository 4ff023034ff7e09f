// A small simulated cluster for the controllers' tests and the idle-cost measurement: a memory store
// configured like SimCluster's, seeded namespaces and nodes, and SimControllers on it.
import { MemoryBackend } from '../../store/memory-backend.js';
import { ObjectStore, type ObjectStoreOptions } from '../../store/object-store.js';
import type { KubeObject, Store } from '../../store/types.js';
import type { SimClock } from './clock.js';
import type { SimControllerOptions } from './context.js';
import { SimControllers } from './sim-controllers.js';

export const FAST: SimControllerOptions = {
  podStartDelayMs: 0,
  podStartJitterMs: 0,
  runOnceDurationMs: 20,
  maxGracePeriodMs: 0,
  retryBaseDelayMs: 10,
  podFanoutDelayMs: 0,
};

/** SimCluster's store settings: a short event history and slow timers. */
import { SIM_STORE_OPTIONS } from '../store-options.js';
export { SIM_STORE_OPTIONS };

export function nodeObject(name: string, i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
    },
    spec: { podCIDR: `10.42.${i}.0/24`, podCIDRs: [`10.42.${i}.0/24`] },
    status: {
      addresses: [
        { type: 'InternalIP', address: `172.18.0.${i + 2}` },
        { type: 'Hostname', address: name },
      ],
    },
  };
}

export async function seedCluster(store: Store, nodes: number): Promise<void> {
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    await store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  for (let i = 0; i < nodes; i++) await store.create('nodes', nodeObject(`node-${i + 1}`, i));
}

export interface TestCluster {
  store: ObjectStore;
  controllers: SimControllers;
  close(): Promise<void>;
}

export async function startTestCluster(
  options: {
    nodes?: number;
    clock?: SimClock;
    controllers?: SimControllerOptions;
    store?: ObjectStoreOptions;
  } = {},
): Promise<TestCluster> {
  const store = await ObjectStore.open(new MemoryBackend(), options.store ?? SIM_STORE_OPTIONS);
  await seedCluster(store, options.nodes ?? 3);
  const controllers = new SimControllers({
    store,
    ...(options.clock ? { clock: options.clock } : {}),
    options: { ...FAST, ...options.controllers },
  });
  await controllers.start();
  return {
    store,
    controllers,
    close: async () => {
      controllers.stop();
      await store.close();
    },
  };
}
