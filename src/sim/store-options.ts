// How a simulated cluster's memory store is sized: a short event history (a watcher further behind
// relists) and slow timers, so an idle cluster stays within its memory budget after hours of heartbeats.
import type { ObjectStoreOptions } from '../store/object-store.js';

export const SIM_STORE_OPTIONS: ObjectStoreOptions = {
  retention: { minEvents: 100, minAgeMs: 2 * 60_000 },
  compactionIntervalMs: 60_000,
  progressIntervalMs: 10_000,
  watchCacheSize: 16,
};
