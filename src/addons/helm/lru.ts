// A bounded least-recently-used map with hit and miss counters: the render cache of the Helm feature
// (identical inputs render once), sized so a fleet's distinct renders fit and a runaway cannot grow it.

export interface CacheStats {
  hits: number;
  misses: number;
  size: number;
}

export class LruCache<V> {
  private readonly entries = new Map<string, V>();
  private hitCount = 0;
  private missCount = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LRU capacity ${capacity}`);
  }

  /** The value for `key`, counted as a hit (and made most recent) or a miss. */
  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    // Map keeps insertion order: re-inserting makes the entry the most recent.
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get stats(): CacheStats {
    return { hits: this.hitCount, misses: this.missCount, size: this.entries.size };
  }
}
