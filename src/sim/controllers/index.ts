// The simulator's fake controllers as one API: SimControllers per cluster, the shared clock, and the
// eviction decision the pods/eviction subresource calls.
export { ManualClock, systemClock, Timeline, type Cancel, type SimClock } from './clock.js';
export type { KindInfo, SimControllerOptions } from './context.js';
export { evictionDecision, type EvictionDecision } from './disruption.js';
export { EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION } from './kubelet.js';
export { NODE_READY_ANNOTATION } from './nodes.js';
export { SimControllers, type SimControllersConfig, type SimControllersStats } from './sim-controllers.js';
export { templateHash } from './util.js';
