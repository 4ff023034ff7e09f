// Leader election over a coordination.k8s.io Lease in the store: one replica holds the lease and
// renews it; writes carry the resourceVersion read, so two replicas can never both win a round.
import type { KubeObject, Store, Watcher } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { noopLogger, type Logger } from './logger.js';
import { formatMicroTime as microTime } from '../../util/json-text.js';

export const LEASE_RESOURCE = 'leases.coordination.k8s.io';

/** Waiting this much past the lease's expiry absorbs timer rounding between replicas. */
const EXPIRY_SLACK_MS = 20;

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface LeaderElectionOptions {
  store: Store;
  /** Namespace of the Lease, e.g. `fleethub-system`. */
  namespace: string;
  /** Name of the Lease, e.g. `fleethub-controller-manager`. */
  name: string;
  /** Unique per process (hostname plus a random suffix): a restarted replica is a new candidate. */
  identity: string;
  /**
   * How long a lease stays valid after its last renewal; a killed leader is replaced this long after
   * its last renewal. Whole seconds (the Lease field). Default 10, so take-over stays under 15 s.
   */
  leaseDurationSeconds?: number;
  /** A leader that has not renewed for this long steps down. Default 7000; must be below the lease duration. */
  renewDeadlineMs?: number;
  /** Pause between renewals, and between attempts of a candidate. Default 2000. */
  retryPeriodMs?: number;
  /**
   * Runs when this replica becomes leader; `signal` aborts when it stops being leader. Not awaited
   * while leading; a returned promise should settle once the guarded work has stopped.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Runs when leadership ends (lost or stopping), after `signal` aborted and the promise returned by
   * onStartedLeading settled (or the renew deadline passed). On a clean stop the lease is released
   * only after this settles.
   */
  onStoppedLeading(): void | Promise<void>;
  /** Runs when the observed holder changes (including to this replica). */
  onNewLeader?(identity: string): void;
  /** Give up the lease on `stop()` so another replica takes over at once. Default true. */
  releaseOnStop?: boolean;
  logger?: Logger;
}

function leaseSpec(lease: KubeObject): LeaseSpec {
  const spec = lease['spec'];
  return typeof spec === 'object' && spec !== null ? (spec as LeaseSpec) : {};
}

/** When the lease stops protecting its holder (ms since epoch); -Infinity when it never did. */
function expiryOf(spec: LeaseSpec): number {
  const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
  if (!Number.isFinite(renewed) || !spec.leaseDurationSeconds) return -Infinity;
  return renewed + spec.leaseDurationSeconds * 1000;
}

function isCode(e: unknown, code: number): boolean {
  return isApiError(e) && e.code === code;
}

/**
 * Campaigns for the lease from `start()` until `stop()`. While leading it renews every retry
 * period; if renewals fail for `renewDeadlineMs` (or another replica took the lease) it stops leading
 * and campaigns again. A candidate takes an expired or released lease.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly store: Store;
  private readonly namespace: string;
  private readonly name: string;
  private readonly leaseSeconds: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly releaseOnStop: boolean;
  private readonly options: LeaderElectionOptions;
  private readonly logger: Logger;
  private leading = false;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeSleeper: (() => void) | undefined;
  private observedHolder: string | undefined;
  private observedExpiry = Infinity;
  private watcher: Watcher | undefined;

  constructor(options: LeaderElectionOptions) {
    this.options = options;
    this.store = options.store;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.leaseSeconds = options.leaseDurationSeconds ?? 10;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 7_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.releaseOnStop = options.releaseOnStop ?? true;
    this.logger = (options.logger ?? noopLogger).child({
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
    if (!Number.isInteger(this.leaseSeconds) || this.leaseSeconds < 1) {
      throw new Error('leaseDurationSeconds must be a whole number of seconds >= 1');
    }
    if (!(this.renewDeadlineMs < this.leaseSeconds * 1000))
      throw new Error('renewDeadlineMs must be below the lease duration');
    if (!(this.retryPeriodMs > 0 && this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new Error('retryPeriodMs must be positive and below renewDeadlineMs');
    }
    if (!options.identity) throw new Error('leader election needs an identity');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder seen at the last read of the lease ('' or undefined when free). */
  leaderIdentity(): string | undefined {
    return this.observedHolder;
  }

  start(): void {
    if (this.loop || this.stopping) return;
    this.loop = this.campaign();
  }

  /** Stops campaigning; a leader stops leading, waits for onStoppedLeading, then releases the lease. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeSleeper?.();
    await this.loop;
    this.watcher?.stop();
    this.watcher = undefined;
  }

  private async campaign(): Promise<void> {
    while (!this.stopping) {
      this.watchLease();
      const attemptAt = Date.now();
      const acquired = await this.round(attemptAt);
      if (this.stopping) {
        // Won a round while stopping: hand the lease straight back.
        if (acquired && this.releaseOnStop) await this.bounded(this.release(), undefined);
        break;
      }
      if (acquired) {
        await this.lead(attemptAt);
        continue;
      }
      await this.sleep(this.candidateDelay());
    }
  }

  /**
   * Holds leadership until renewals fail for the renew deadline, another replica holds the lease, or
   * stop. `renewedAt` is when the winning round started: the deadline counts from there, since the
   * write may have landed at any point after it.
   */
  private async lead(renewedAt: number): Promise<void> {
    this.leading = true;
    this.logger.info('became leader');
    const term = new AbortController();
    let lost = false;
    let signalLost!: () => void;
    const lostNow = new Promise<false>((resolve) => (signalLost = () => resolve(false)));
    let deadline: NodeJS.Timeout | undefined;
    const armDeadline = (from: number): void => {
      clearTimeout(deadline);
      // A timer, not a check after each round: a hung store call must not keep us leading.
      deadline = setTimeout(
        () => {
          lost = true;
          this.leading = false;
          term.abort();
          this.logger.warn(
            { renewDeadlineMs: this.renewDeadlineMs },
            'could not renew the lease in time; stopping leading',
          );
          signalLost();
          this.wakeSleeper?.();
        },
        Math.max(0, from + this.renewDeadlineMs - Date.now()),
      );
    };
    armDeadline(renewedAt);
    // Not awaited: a callback that runs until the term ends must not block renewals.
    const started = Promise.resolve()
      .then(() => this.options.onStartedLeading(term.signal))
      .catch((e: unknown) => this.logger.error({ err: e }, 'onStartedLeading failed'));
    while (!lost && !this.stopping) {
      await this.sleep(this.retryPeriodMs);
      if (lost || this.stopping) break;
      const attemptAt = Date.now();
      const renewed = await this.round(attemptAt, lostNow);
      if (lost) break;
      if (renewed) {
        armDeadline(attemptAt);
      } else if (this.observedHolder !== this.identity) {
        this.logger.warn(
          { holder: this.observedHolder },
          'the lease was taken or released by someone else; stopping leading',
        );
        lost = true;
      }
    }
    clearTimeout(deadline);
    this.leading = false;
    term.abort();
    // Guarded work gets the renew deadline to wind down; a call hung on a dead store must not keep
    // this replica from campaigning again or from shutting down.
    const settled = await this.bounded(
      started.then(() => true),
      false,
    );
    if (!settled)
      this.logger.warn('work started as leader is still running after the renew deadline; going on');
    try {
      await this.options.onStoppedLeading();
    } catch (e) {
      this.logger.error({ err: e }, 'onStoppedLeading failed');
    }
    if (this.stopping && !lost && this.releaseOnStop) await this.bounded(this.release(), undefined);
    this.logger.info('stopped leading');
  }

  /** One round, given up after the renew deadline so a hung store cannot stall the loop. */
  private round(now: number, lostNow?: Promise<false>): Promise<boolean> {
    const attempt = this.tryAcquireOrRenew(now);
    return this.bounded(lostNow ? Promise.race([attempt, lostNow]) : attempt, false);
  }

  private async bounded<T>(work: Promise<T>, fallback: T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback), this.renewDeadlineMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One round: create, renew or take over the lease. False when held by another replica or on any error. */
  private async tryAcquireOrRenew(now: number): Promise<boolean> {
    this.observedExpiry = Infinity;
    try {
      const lease = await this.store.get(LEASE_RESOURCE, this.namespace, this.name);
      if (!lease) {
        await this.store.create(
          LEASE_RESOURCE,
          this.leaseObject({
            holderIdentity: this.identity,
            leaseDurationSeconds: this.leaseSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          }),
        );
        this.observe(this.identity);
        return true;
      }
      const spec = leaseSpec(lease);
      const holder = spec.holderIdentity ?? '';
      this.observe(holder);
      if (holder && holder !== this.identity && expiryOf(spec) > now) {
        this.observedExpiry = expiryOf(spec);
        return false;
      }
      const next: LeaseSpec =
        holder === this.identity
          ? { ...spec, leaseDurationSeconds: this.leaseSeconds, renewTime: microTime(now) }
          : {
              holderIdentity: this.identity,
              leaseDurationSeconds: this.leaseSeconds,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
            };
      // metadata.resourceVersion from the read is the precondition: a concurrent writer makes this 409.
      await this.store.update(LEASE_RESOURCE, { ...lease, spec: next });
      if (holder !== this.identity)
        this.logger.info({ previous: holder || undefined }, 'took over the lease');
      this.observe(this.identity);
      return true;
    } catch (e) {
      if (isCode(e, 409)) this.logger.debug('lost a lease race');
      else this.logger.warn({ err: e }, 'lease read or write failed');
      return false;
    }
  }

  /** Marks the lease free (holder '', 1 s duration) so the next candidate takes it without waiting. */
  private async release(): Promise<void> {
    try {
      const lease = await this.store.get(LEASE_RESOURCE, this.namespace, this.name);
      if (!lease || leaseSpec(lease).holderIdentity !== this.identity) return;
      const now = microTime(Date.now());
      const spec: LeaseSpec = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: leaseSpec(lease).leaseTransitions ?? 0,
      };
      await this.store.update(LEASE_RESOURCE, { ...lease, spec });
      this.observe('');
      this.logger.info('released the lease');
    } catch (e) {
      this.logger.warn({ err: e }, 'could not release the lease; it will expire');
    }
  }

  /** A candidate wakes at the retry period, or right when the observed lease expires if that is sooner. */
  private candidateDelay(): number {
    const poll = this.retryPeriodMs * (1 + Math.random() * 0.2);
    const untilExpiry = this.observedExpiry - Date.now() + EXPIRY_SLACK_MS;
    return Math.max(0, Math.min(poll, untilExpiry));
  }

  private leaseObject(spec: LeaseSpec): KubeObject {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec,
    };
  }

  private observe(holder: string): void {
    if (holder === this.observedHolder) return;
    this.observedHolder = holder;
    if (holder) this.options.onNewLeader?.(holder);
  }

  /** Wakes a waiting candidate as soon as the lease is released or deleted, instead of at its next poll. */
  private watchLease(): void {
    if (this.watcher) return;
    try {
      this.watcher = this.store.watch(
        { resource: LEASE_RESOURCE, namespace: this.namespace },
        {
          onEvent: (event) => {
            if (event.object.metadata.name !== this.name || this.leading) return;
            const holder = leaseSpec(event.object).holderIdentity;
            if (event.type === 'DELETED' || !holder) this.wakeSleeper?.();
          },
          onError: () => {
            this.watcher = undefined; // polling still works; the next round re-watches
          },
        },
      );
    } catch {
      this.watcher = undefined;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = (): void => {
        this.wakeSleeper = undefined;
        done();
      };
    });
  }
}
