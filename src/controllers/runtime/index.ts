// The controller runtime's public surface: the reconcile contract, queue, informers, controller,
// manager, leader election, metrics, and the condition, finalizer, owner and retry helpers.
export * from './conditions.js';
export * from './controller.js';
export * from './finalizers.js';
export * from './informer.js';
export * from './leader-election.js';
export * from './logger.js';
export * from './manager.js';
export * from './metrics.js';
export * from './owners.js';
export * from './reconcile.js';
export * from './retry.js';
export * from './workqueue.js';
