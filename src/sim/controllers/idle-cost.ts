// Measures what idle simulated clusters cost: heap bytes per cluster for the store alone and with the
// controllers, start time for N clusters, and the steady state after an hour of heartbeats. Run with --expose-gc.
import { pathToFileURL } from 'node:url';
import { MemoryBackend } from '../../store/memory-backend.js';
import { ObjectStore } from '../../store/object-store.js';
import { ManualClock, type SimClock } from './clock.js';
import { SimControllers } from './sim-controllers.js';
import { seedCluster, SIM_STORE_OPTIONS } from './testing.js';

export interface IdleCost {
  clusters: number;
  /** Heap per cluster: memory store with seeded namespaces and 3 nodes, no controllers. */
  storeBytesPerCluster: number;
  /** Heap per cluster added by starting the controllers and letting them settle (Leases, node status). */
  controllerBytesPerCluster: number;
  totalBytesPerCluster: number;
  /** After one simulated hour of heartbeats and a compaction of the event log. */
  steadyBytesPerCluster: number;
  /** Wall time to start the controllers of every cluster and settle them. */
  startMs: number;
  syncsPerCluster: number;
}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run node with --expose-gc');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

export async function measureIdleCost(n: number, clock: SimClock = new ManualClock()): Promise<IdleCost> {
  const base = heap();
  const stores: ObjectStore[] = [];
  // Compaction and progress timers are the lead's concern; off here so the numbers are only memory.
  for (let i = 0; i < n; i++) {
    const store = await ObjectStore.open(new MemoryBackend(), {
      ...SIM_STORE_OPTIONS,
      // Simulated time: the manual clock's hour is not wall time, so only the event count limits history.
      retention: { minEvents: SIM_STORE_OPTIONS.retention?.minEvents ?? 100, minAgeMs: 0 },
      compactionIntervalMs: 0,
    });
    await seedCluster(store, 3);
    stores.push(store);
  }
  const withStores = heap();
  const t0 = performance.now();
  const controllers = stores.map((store) => new SimControllers({ store, clock }));
  await Promise.all(controllers.map((c) => c.start()));
  await Promise.all(controllers.map((c) => c.idle()));
  const startMs = performance.now() - t0;
  const withControllers = heap();
  let syncs = controllers.reduce((s, c) => s + c.stats().syncs, 0);
  if (clock instanceof ManualClock) {
    // An hour of heartbeats: 90 lease renewals and 12 node status posts per node.
    for (let t = 0; t < 3600_000; t += 40_000) {
      clock.advance(40_000);
      await Promise.all(controllers.map((c) => c.idle()));
    }
    for (const s of stores) await s.compact();
    syncs = controllers.reduce((s, c) => s + c.stats().syncs, 0);
  }
  const steady = heap();
  for (const c of controllers) c.stop();
  await Promise.all(stores.map((s) => s.close()));
  return {
    clusters: n,
    storeBytesPerCluster: Math.round((withStores - base) / n),
    controllerBytesPerCluster: Math.round((withControllers - withStores) / n),
    totalBytesPerCluster: Math.round((withControllers - base) / n),
    steadyBytesPerCluster: Math.round((steady - base) / n),
    startMs: Math.round(startMs),
    syncsPerCluster: Math.round(syncs / n),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 200);
  const result = await measureIdleCost(n);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
