// A work queue of string keys in the client-go mould: a key waits at most once (dirty set), is handed
// to one worker at a time (processing set), and retries back off per key under a global token bucket.

/** Decides how long a failed key waits before its next attempt. */
export interface RateLimiter {
  /** The delay for this key's next retry; counts a failure. */
  when(key: string): number;
  /** Clears the key's failure history (after a success). */
  forget(key: string): void;
  /** Failures counted for the key since the last `forget`. */
  numRequeues(key: string): number;
}

export interface BackoffOptions {
  /** First retry delay; doubles with each failure. Default 5 ms. */
  baseDelayMs?: number;
  /** Upper bound of the per-key delay. Default 5 minutes. */
  maxDelayMs?: number;
}

/** Per-key exponential backoff: base, 2·base, 4·base … capped. */
export class ExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;

  constructor(options: BackoffOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
    if (!(this.baseDelayMs > 0) || !(this.maxDelayMs >= this.baseDelayMs)) {
      throw new Error('backoff needs 0 < baseDelayMs <= maxDelayMs');
    }
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2 ** n reaches Infinity for large n; min() still yields the cap.
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

export interface TokenBucketOptions {
  /** Sustained retries per second across all keys. Default 10; Infinity disables the bucket. */
  qps?: number;
  /** Retries allowed at once before the rate applies. Default 100. */
  burst?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/**
 * A token bucket that hands out reservations: every call takes a token, and when the bucket is
 * empty the caller is told how long until its token exists, so delays queue up fairly.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly now: () => number;
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.now = options.now ?? Date.now;
    if (!(this.qps > 0) || !(this.burst >= 1)) throw new Error('token bucket needs qps > 0 and burst >= 1');
    this.tokens = this.burst;
    this.last = this.now();
  }

  /** Takes one token; returns the ms to wait before using it (0 when one was available). */
  reserve(): number {
    if (this.qps === Infinity) return 0;
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
}

export type DefaultRateLimiterOptions = BackoffOptions & TokenBucketOptions;

/** The larger of the per-key backoff and the global bucket's delay (client-go's default pairing). */
export class DefaultRateLimiter implements RateLimiter {
  private readonly backoff: ExponentialBackoff;
  private readonly bucket: TokenBucket;

  constructor(options: DefaultRateLimiterOptions = {}) {
    this.backoff = new ExponentialBackoff(options);
    this.bucket = new TokenBucket(options);
  }

  when(key: string): number {
    return Math.max(this.backoff.when(key), this.bucket.reserve());
  }

  forget(key: string): void {
    this.backoff.forget(key);
  }

  numRequeues(key: string): number {
    return this.backoff.numRequeues(key);
  }
}

/** Hooks the queue calls so a controller can export queue metrics. */
export interface WorkQueueMetrics {
  /** A key entered the queue (not counted when it was already waiting). */
  add(): void;
  /** A key was re-added through `addRateLimited`. */
  retry(): void;
  /** The number of keys ready for a worker changed. */
  depth(n: number): void;
}

export interface WorkQueueOptions extends DefaultRateLimiterOptions {
  /** Replaces the default limiter built from the backoff and bucket options. */
  rateLimiter?: RateLimiter;
  metrics?: WorkQueueMetrics;
}

export interface WorkQueueStats {
  /** Keys ready for a worker. */
  depth: number;
  /** Keys a worker holds. */
  processing: number;
  /** Keys waiting for an `addAfter` timer. */
  delayed: number;
  adds: number;
  retries: number;
}

/** FIFO of keys; an array with a moving head so shift() stays O(1). */
class Fifo {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/**
 * Keys in, keys out, each key handled by one worker at a time. A key added while it waits is
 * dropped (it is already queued); a key added while a worker holds it is queued again once the worker
 * calls `done`, however many times it was added meanwhile.
 */
export class WorkQueue {
  private readonly queue = new Fifo();
  /** Keys that need processing: queued, or re-added while processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { readyAt: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly limiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics | undefined;
  private stopped = false;
  private adds = 0;
  private retries = 0;

  constructor(options: WorkQueueOptions = {}) {
    this.limiter = options.rateLimiter ?? new DefaultRateLimiter(options);
    this.metrics = options.metrics;
  }

  /** Marks the key as needing processing. */
  add(key: string): void {
    if (this.stopped || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.adds++;
    this.metrics?.add();
    if (this.processing.has(key)) return; // queued again by done()
    this.queue.push(key);
    this.dispatch();
  }

  /** Adds the key after `delayMs`; an earlier pending time for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const readyAt = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending) {
      if (pending.readyAt <= readyAt) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { readyAt, timer });
  }

  /** Re-adds a failed key after its backoff (and the global bucket) allow. */
  addRateLimited(key: string): void {
    if (this.stopped) return;
    this.retries++;
    this.metrics?.retry();
    this.addAfter(key, this.limiter.when(key));
  }

  /** Ends the key's backoff: its next failure starts again from the base delay. */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /**
   * The next key, held for the caller until `done(key)`. Resolves undefined once the queue is shut
   * down (queued keys are dropped: the next leader relists anyway).
   */
  get(): Promise<string | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Releases a key from `get`; a key re-added meanwhile is queued again now. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.stopped) {
      this.queue.push(key);
      this.dispatch();
    }
  }

  /** Keys ready for a worker. */
  len(): number {
    return this.queue.length;
  }

  get shuttingDown(): boolean {
    return this.stopped;
  }

  /** Stops handing out keys, cancels delayed adds and releases waiting workers with undefined. */
  shutdown(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue.clear();
    this.dirty.clear();
    this.metrics?.depth(0);
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  stats(): WorkQueueStats {
    return {
      depth: this.queue.length,
      processing: this.processing.size,
      delayed: this.delayed.size,
      adds: this.adds,
      retries: this.retries,
    };
  }

  private take(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    this.metrics?.depth(this.queue.length);
    return key;
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.queue.length > 0) {
      const waiter = this.waiters.shift()!;
      waiter(this.take());
    }
    this.metrics?.depth(this.queue.length);
  }
}
