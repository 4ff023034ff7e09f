// A controller: watches that turn store events into keys, a work queue, and workers that run the
// reconciler and translate its outcome (done, requeue after, error, terminal error) into queue calls.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../store/types.js';
import type { Informer, InformerFilter, InformerSet } from './informer.js';
import { noopLogger, type Logger } from './logger.js';
import { MetricsRegistry, type Counter, type Gauge, type Histogram } from './metrics.js';
import { ownerRequests, type OwnerKind } from './owners.js';
import { isConflict } from './retry.js';
import {
  isTerminalError,
  parseRequestKey,
  requestKey,
  type CacheReader,
  type ReconcileContext,
  type ReconcileRequest,
  type Reconciler,
} from './reconcile.js';
import { WorkQueue, type DefaultRateLimiterOptions } from './workqueue.js';

/**
 * Which objects to reconcile when `obj` changes. `cache` reads the informer caches (as controller-runtime's
 * map functions get a client): a Cluster's change maps to the profiles that may select it.
 */
export type MapFunc = (obj: KubeObject, cache: CacheReader) => ReconcileRequest[];

/** Whether an event is worth a reconcile; `old` is set for updates. */
export type EventPredicate = (obj: KubeObject, old?: KubeObject) => boolean;

export interface ControllerWatchOptions {
  predicate?: EventPredicate;
  /**
   * Watch (and cache) only the objects this filter selects, through an informer of its own shared by
   * filter name: objects entering or leaving the selection arrive as adds and deletes. Map functions
   * and reconciles still cannot read the resource from the cache (it is not cached whole).
   */
  filter?: InformerFilter;
}

interface WatchSpec {
  resource: string;
  map: MapFunc;
  predicate: EventPredicate | undefined;
  filter: InformerFilter | undefined;
}

export interface ControllerOptions {
  /** Used in logs and metric labels: `namespace`, `clusterdeployment`. */
  name: string;
  reconciler: Reconciler;
  /** Workers, each reconciling a different key. Default 1. */
  maxConcurrentReconciles?: number;
  logger?: Logger;
  metrics?: MetricsRegistry;
  /** Retry backoff (default 5 ms doubling to 5 min) and global bucket (default 10 qps, burst 100). */
  rateLimit?: DefaultRateLimiterOptions;
  /** Aborts `ctx.signal` of a reconcile running longer than this. Default: no timeout. */
  reconcileTimeoutMs?: number;
}

/** The metrics every controller reports, shared through the registry by name. */
export interface ControllerMetrics {
  reconcileTotal: Counter;
  reconcileErrors: Counter;
  terminalErrors: Counter;
  reconcileDuration: Histogram;
  activeWorkers: Gauge;
  queueDepth: Gauge;
  queueAdds: Counter;
  queueRetries: Counter;
}

export function controllerMetrics(registry: MetricsRegistry): ControllerMetrics {
  const controller = ['controller'];
  return {
    reconcileTotal: registry.counter({
      name: 'fleethub_reconcile_total',
      help: 'Reconciles per controller by result (success, requeue_after, error).',
      labelNames: ['controller', 'result'],
    }),
    reconcileErrors: registry.counter({
      name: 'fleethub_reconcile_errors_total',
      help: 'Reconciles that failed and were retried with backoff.',
      labelNames: controller,
    }),
    terminalErrors: registry.counter({
      name: 'fleethub_terminal_reconcile_errors_total',
      help: 'Reconciles that failed with a terminal error (not retried).',
      labelNames: controller,
    }),
    reconcileDuration: registry.histogram({
      name: 'fleethub_reconcile_duration_seconds',
      help: 'Time per reconcile.',
      labelNames: controller,
    }),
    activeWorkers: registry.gauge({
      name: 'fleethub_reconcile_active_workers',
      help: 'Reconciles running now.',
      labelNames: controller,
    }),
    queueDepth: registry.gauge({
      name: 'fleethub_workqueue_depth',
      help: 'Keys waiting for a worker.',
      labelNames: ['name'],
    }),
    queueAdds: registry.counter({
      name: 'fleethub_workqueue_adds_total',
      help: 'Keys added to the work queue.',
      labelNames: ['name'],
    }),
    queueRetries: registry.counter({
      name: 'fleethub_workqueue_retries_total',
      help: 'Keys re-added after a failed reconcile.',
      labelNames: ['name'],
    }),
  };
}

function ownRequest(obj: KubeObject): ReconcileRequest[] {
  const { namespace, name } = obj.metadata;
  if (!name) return [];
  return [namespace ? { namespace, name } : { name }];
}

/**
 * Declare what to watch with `for` (own kind), `owns` (owned kinds, mapped to the controller owner)
 * and `watches` (any kind, with a mapping function); then a manager calls `run`. A controller can
 * run again after a run ended (a new leadership term), with a fresh queue.
 */
export class Controller {
  readonly name: string;
  private readonly reconciler: Reconciler;
  private readonly workers: number;
  private logger: Logger;
  private metrics: ControllerMetrics;
  private readonly ownLogger: boolean;
  private readonly ownMetrics: boolean;
  private readonly rateLimit: DefaultRateLimiterOptions;
  private readonly timeoutMs: number | undefined;
  private readonly specs: WatchSpec[] = [];
  private queue: WorkQueue | undefined;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconciler = options.reconciler;
    this.workers = Math.max(1, options.maxConcurrentReconciles ?? 1);
    this.logger = (options.logger ?? noopLogger).child({ controller: options.name });
    this.metrics = controllerMetrics(options.metrics ?? new MetricsRegistry());
    this.ownLogger = options.logger !== undefined;
    this.ownMetrics = options.metrics !== undefined;
    this.rateLimit = options.rateLimit ?? {};
    this.timeoutMs = options.reconcileTimeoutMs;
  }

  /**
   * Called by the manager on `add`: a controller built without a logger or metrics registry uses the
   * manager's, so its metrics reach the hub's /metrics without extra wiring.
   */
  useDefaults(defaults: { logger?: Logger; metrics?: MetricsRegistry }): void {
    if (!this.ownLogger && defaults.logger) this.logger = defaults.logger.child({ controller: this.name });
    if (!this.ownMetrics && defaults.metrics) this.metrics = controllerMetrics(defaults.metrics);
  }

  /** Reconcile objects of this resource by their own key. */
  for(resource: string, options: ControllerWatchOptions = {}): this {
    return this.watches(resource, ownRequest, options);
  }

  /** Reconcile the controller owner (of kind `owner`) of objects of this resource. */
  owns(resource: string, owner: OwnerKind, options: ControllerWatchOptions = {}): this {
    return this.watches(resource, (obj) => ownerRequests(obj, owner), options);
  }

  /** Reconcile whatever `map` returns for changed objects of this resource (old and new state on update). */
  watches(resource: string, map: MapFunc, options: ControllerWatchOptions = {}): this {
    this.specs.push({ resource, map, predicate: options.predicate, filter: options.filter });
    return this;
  }

  /** Resources this controller needs informers for (filtered or not). */
  watchedResources(): string[] {
    return [...new Set(this.specs.map((s) => s.resource))];
  }

  /** The informers of `informers` this controller's watches use, each once. */
  private informersOf(informers: InformerSet): Informer[] {
    return [...new Set(this.specs.map((s) => this.informerOf(informers, s)))];
  }

  private informerOf(informers: InformerSet, spec: WatchSpec): Informer {
    return informers.informer(spec.resource, spec.filter ? { filter: spec.filter } : {});
  }

  /** Queues a reconcile by hand (ignored while not running). */
  enqueue(req: ReconcileRequest, afterMs = 0): void {
    this.queue?.addAfter(requestKey(req), afterMs);
  }

  /** Whether a run is in progress. */
  get running(): boolean {
    return this.queue !== undefined;
  }

  /**
   * Registers handlers on `informers` (synchronously, before the first await, so the caller may
   * start the informers right after calling), waits for their sync, then runs the workers until
   * `signal` aborts. Resolves once every in-flight reconcile has returned.
   */
  async run(informers: InformerSet, signal: AbortSignal): Promise<void> {
    if (this.queue) throw new Error(`controller ${this.name} is already running`);
    const queueLabels = { name: this.name };
    const queue = new WorkQueue({
      ...this.rateLimit,
      metrics: {
        add: () => this.metrics.queueAdds.inc(queueLabels),
        retry: () => this.metrics.queueRetries.inc(queueLabels),
        depth: (n) => this.metrics.queueDepth.set(queueLabels, n),
      },
    });
    this.queue = queue;
    const removers = this.specs.map((spec) => this.subscribe(informers, spec, queue));
    const stop = (): void => queue.shutdown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (signal.aborted) return;
      const syncs = this.informersOf(informers).map((i) => i.waitForSync(signal));
      const synced = (await Promise.all(syncs)).every(Boolean);
      if (!synced || signal.aborted) return;
      this.logger.info({ workers: this.workers }, 'starting workers');
      await Promise.all(Array.from({ length: this.workers }, () => this.work(queue, informers, signal)));
      this.logger.info('workers stopped');
    } finally {
      signal.removeEventListener('abort', stop);
      queue.shutdown();
      for (const remove of removers) remove();
      this.queue = undefined;
    }
  }

  private subscribe(informers: InformerSet, spec: WatchSpec, queue: WorkQueue): () => void {
    const enqueue = (objs: KubeObject[]): void => {
      // Each key once per event: an idle worker takes a key the moment it is added, so adding it again
      // for the old state would mark it dirty and reconcile it twice.
      const keys = new Set<string>();
      for (const obj of objs) for (const req of spec.map(obj, informers)) keys.add(requestKey(req));
      for (const key of keys) queue.add(key);
    };
    const passes = (obj: KubeObject, old?: KubeObject): boolean =>
      !spec.predicate || spec.predicate(obj, old);
    return this.informerOf(informers, spec).addEventHandler({
      onAdd: (obj) => {
        if (passes(obj)) enqueue([obj]);
      },
      // Both states: an owner reference or label removed by the update still points at the old target.
      onUpdate: (old, obj) => {
        if (passes(obj, old)) enqueue([old, obj]);
      },
      onDelete: (obj) => {
        if (passes(obj)) enqueue([obj]);
      },
    });
  }

  private async work(queue: WorkQueue, informers: InformerSet, signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileKey(queue, key, informers, signal);
      } finally {
        queue.done(key);
      }
    }
  }

  private async reconcileKey(
    queue: WorkQueue,
    key: string,
    cache: InformerSet,
    stopSignal: AbortSignal,
  ): Promise<void> {
    const req = parseRequestKey(key);
    const reconcileId = randomUUID();
    const logger = this.logger.child({ namespace: req.namespace, name: req.name, reconcileId });
    const signal = this.timeoutMs
      ? AbortSignal.any([stopSignal, AbortSignal.timeout(this.timeoutMs)])
      : stopSignal;
    const ctx: ReconcileContext = { signal, logger, controller: this.name, reconcileId, cache };
    const labels = { controller: this.name };
    const started = performance.now();
    let result: 'success' | 'requeue_after' | 'error';
    this.metrics.activeWorkers.inc(labels);
    try {
      const outcome = await this.reconciler.reconcile(ctx, req);
      const after = outcome?.requeueAfterMs ?? 0;
      queue.forget(key);
      if (after > 0) {
        queue.addAfter(key, after);
        result = 'requeue_after';
      } else {
        result = 'success';
      }
    } catch (e) {
      result = 'error';
      if (isTerminalError(e)) {
        queue.forget(key);
        this.metrics.terminalErrors.inc(labels);
        logger.error({ err: e }, 'reconcile failed with a terminal error; not retrying');
      } else {
        queue.addRateLimited(key);
        this.metrics.reconcileErrors.inc(labels);
        // A conflict is the normal outcome of racing another writer: the retry re-reads.
        if (isConflict(e)) logger.debug({ err: e }, 'conflict; retrying');
        else logger.error({ err: e, retries: queue.numRequeues(key) }, 'reconcile failed; retrying');
      }
    } finally {
      this.metrics.activeWorkers.dec(labels);
    }
    this.metrics.reconcileTotal.inc({ controller: this.name, result });
    this.metrics.reconcileDuration.observe(labels, (performance.now() - started) / 1000);
  }
}
