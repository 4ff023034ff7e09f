// Time for the fake controllers: a clock that reads the time and runs callbacks at a given time, one
// process-wide timer for all simulated clusters (no timer per object or per cluster), and a manual clock for tests.

/** Cancels a scheduled callback; calling it after the callback ran is harmless. */
export type Cancel = () => void;

export interface SimClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once at (or soon after) `at`. */
  schedule(at: number, fn: () => void): Cancel;
}

interface Entry {
  at: number;
  seq: number;
  fn: (() => void) | undefined;
}

/** A binary min-heap of entries by (at, seq); cancelled entries stay until they surface. */
class EntryHeap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Entry | undefined {
    return this.items[0];
  }

  push(e: Entry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): Entry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function less(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * Callbacks by due time behind one Node.js timer armed for the earliest entry. Shared by every cluster of
 * the process, so a thousand idle clusters cost a thousand heap entries, not a thousand timers.
 */
export class Timeline implements SimClock {
  private readonly heap = new EntryHeap();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  now(): number {
    return Date.now();
  }

  /** Entries waiting, cancelled ones included until their time comes (for tests and metrics). */
  get pending(): number {
    return this.heap.size;
  }

  schedule(at: number, fn: () => void): Cancel {
    const entry: Entry = { at, seq: this.seq++, fn };
    this.heap.push(entry);
    if (at < this.armedAt) this.arm();
    return () => {
      entry.fn = undefined;
    };
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    // Cancelled entries at the top would only arm a useless wake-up.
    while (this.heap.peek()?.fn === undefined && this.heap.size > 0) this.heap.pop();
    const next = this.heap.peek();
    if (!next) return;
    this.armedAt = next.at;
    // Timers beyond 2^31-1 ms fire at once; anything that far is re-armed when it fires early.
    const delay = Math.min(Math.max(0, next.at - Date.now()), 0x7fffffff);
    this.timer = setTimeout(() => this.fire(), delay);
    // Idle clusters must not keep a process alive on their own.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = Date.now();
    for (let e = this.heap.peek(); e && e.at <= now; e = this.heap.peek()) {
      this.heap.pop();
      const fn = e.fn;
      e.fn = undefined;
      fn?.();
    }
    this.arm();
  }
}

/** The process-wide timeline every SimControllers uses unless given another clock. */
export const systemClock: SimClock = new Timeline();

/** A clock that moves only when told: `advance(ms)` runs what fell due, in order. */
export class ManualClock implements SimClock {
  private readonly heap = new EntryHeap();
  private seq = 0;

  constructor(private time = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.time;
  }

  schedule(at: number, fn: () => void): Cancel {
    const entry: Entry = { at, seq: this.seq++, fn };
    this.heap.push(entry);
    return () => {
      entry.fn = undefined;
    };
  }

  /** Moves time forward by `ms`, running every callback that falls due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (let e = this.heap.peek(); e && e.at <= end; e = this.heap.peek()) {
      this.heap.pop();
      this.time = Math.max(this.time, e.at);
      const fn = e.fn;
      e.fn = undefined;
      fn?.();
    }
    this.time = end;
  }
}
