// Runs a set of controllers on shared informers, only while this replica holds the leader lease;
// losing the lease stops them (and their caches), winning it again starts them from a fresh list.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Store } from '../../store/types.js';
import type { Controller } from './controller.js';
import { InformerSet, type InformerSetOptions } from './informer.js';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.js';
import { noopLogger, type Logger } from './logger.js';
import { MetricsRegistry } from './metrics.js';

export type ManagerLeaderElection = Omit<
  LeaderElectionOptions,
  'store' | 'logger' | 'onStartedLeading' | 'onStoppedLeading' | 'identity'
> & { identity?: string };

export interface ControllerManagerOptions {
  store: Store;
  logger?: Logger;
  /** Where controllers report; the hub renders it on /metrics. Default: a registry of its own. */
  metrics?: MetricsRegistry;
  /** Lease to hold before running controllers; false runs them at start (single replica, tests). */
  leaderElection: ManagerLeaderElection | false;
  informers?: InformerSetOptions;
}

/** `host_uuid`: unique per process, readable in the Lease. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

export class ControllerManager {
  readonly metrics: MetricsRegistry;
  private readonly store: Store;
  private readonly logger: Logger;
  private readonly baseLogger: Logger | undefined;
  private readonly informerOptions: InformerSetOptions;
  private readonly controllers: Controller[] = [];
  private readonly elector: LeaderElector | undefined;
  private standalone: { abort: AbortController; term: Promise<void> } | undefined;
  private running = false;
  private started = false;

  constructor(options: ControllerManagerOptions) {
    this.store = options.store;
    this.baseLogger = options.logger;
    this.logger = (options.logger ?? noopLogger).child({ component: 'controller-manager' });
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.informerOptions = { ...options.informers, logger: options.informers?.logger ?? this.logger };
    if (options.leaderElection) {
      this.elector = new LeaderElector({
        ...options.leaderElection,
        identity: options.leaderElection.identity ?? defaultIdentity(),
        store: options.store,
        logger: this.logger,
        onStartedLeading: (signal) => this.runTerm(signal),
        onStoppedLeading: () => undefined, // runTerm has returned by now: the elector awaits it first
      });
    }
    this.metrics.gauge({
      name: 'fleethub_controller_manager_running',
      help: '1 while this replica runs controllers (it holds the leader lease), else 0.',
      collect: (g) => g.set({}, this.running ? 1 : 0),
    });
  }

  /** Adds a controller; only before start. One without its own logger or metrics uses the manager's. */
  add(controller: Controller): this {
    if (this.started) throw new Error('controllers must be added before the manager starts');
    controller.useDefaults({ logger: this.baseLogger, metrics: this.metrics });
    this.controllers.push(controller);
    return this;
  }

  /** Campaigns for the lease (or, without leader election, runs the controllers now). */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.elector) {
      this.elector.start();
      return;
    }
    const abort = new AbortController();
    this.standalone = { abort, term: this.runTerm(abort.signal) };
  }

  /** Stops controllers, waits for running reconciles, then releases the lease. */
  async stop(): Promise<void> {
    if (this.elector) await this.elector.stop();
    if (this.standalone) {
      this.standalone.abort.abort();
      await this.standalone.term;
      this.standalone = undefined;
    }
  }

  /** Whether controllers are running here (this replica leads, or runs without election). */
  isRunning(): boolean {
    return this.running;
  }

  /** This replica's lease identity (undefined without leader election). */
  get identity(): string | undefined {
    return this.elector?.identity;
  }

  /** One leadership term: fresh informers and queues, until `signal` aborts. */
  private async runTerm(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    // Every controller (and its workers) listens on the term's signal: more than node's default of 10.
    setMaxListeners(0, signal);
    this.running = true;
    this.logger.info({ controllers: this.controllers.map((c) => c.name) }, 'starting controllers');
    const informers = new InformerSet(this.store, this.informerOptions);
    const runs = this.controllers.map((c) => c.run(informers, signal));
    informers.start();
    try {
      const results = await Promise.allSettled(runs);
      results.forEach((r, i) => {
        if (r.status === 'rejected')
          this.logger.error({ err: r.reason, controller: this.controllers[i]?.name }, 'controller failed');
      });
    } finally {
      informers.stop();
      this.running = false;
      this.logger.info('controllers stopped');
    }
  }
}
