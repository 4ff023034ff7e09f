// In-process backend for the simulator and tests: per-resource sorted rows and an array change log.
// Writes are synchronous, so the JavaScript thread itself is the write lock.
import {
  compareKeys,
  scanStart,
  type Backend,
  type Decide,
  type LogPage,
  type LogRecord,
  type ObjectKey,
  type Retention,
  type ScanQuery,
  type ScanResult,
  type StoredRow,
} from './backend.js';

interface Table {
  byKey: Map<string, StoredRow>;
  /** Rows sorted by (namespace, name); kept sorted on insert and delete. */
  sorted: StoredRow[];
}

interface TimedRecord extends LogRecord {
  at: number;
}

const keyString = (namespace: string, name: string) => `${namespace}\u0000${name}`;

/** First index in `rows` whose key is greater than `key`. */
function upperBound(rows: StoredRow[], key: { namespace: string; name: string }): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(rows[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MemoryBackend implements Backend {
  readonly kind = 'memory';
  readonly shared = false;
  private readonly tables = new Map<string, Table>();
  private log: TimedRecord[] = [];
  private rv = 0;
  private compacted = 0;

  private table(resource: string): Table {
    let table = this.tables.get(resource);
    if (!table) {
      table = { byKey: new Map(), sorted: [] };
      this.tables.set(resource, table);
    }
    return table;
  }

  rewriteValues(resource: string, fn: (stored: string) => string): Promise<number> {
    let changed = 0;
    // byKey and sorted share the row objects, so one pass over the map covers both.
    for (const row of this.table(resource).byKey.values()) {
      const next = fn(row.value);
      if (next !== row.value) {
        row.value = next;
        changed++;
      }
    }
    for (const record of this.log) if (record.resource === resource) record.value = fn(record.value);
    return Promise.resolve(changed);
  }

  write(key: ObjectKey, decide: Decide, afterCommit: (record: LogRecord) => void): Promise<void> {
    try {
      const table = this.table(key.resource);
      const k = keyString(key.namespace, key.name);
      const row = table.byKey.get(k);
      const nextRv = this.rv + 1;
      const mutation = decide(row?.value, nextRv);
      if (mutation.op === 'none') return Promise.resolve();
      if (mutation.op === 'put') {
        if (row) row.value = mutation.value;
        else {
          const added = { namespace: key.namespace, name: key.name, value: mutation.value };
          table.byKey.set(k, added);
          table.sorted.splice(upperBound(table.sorted, added), 0, added);
        }
      } else if (row) {
        table.byKey.delete(k);
        table.sorted.splice(upperBound(table.sorted, row) - 1, 1);
      }
      this.rv = nextRv;
      const record: TimedRecord = {
        rv: nextRv,
        type: mutation.op === 'put' ? mutation.type : 'DELETED',
        resource: key.resource,
        namespace: key.namespace,
        name: key.name,
        value: mutation.value,
        at: Date.now(),
      };
      this.log.push(record);
      afterCommit(record);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  get(key: ObjectKey): Promise<string | undefined> {
    return Promise.resolve(
      this.tables.get(key.resource)?.byKey.get(keyString(key.namespace, key.name))?.value,
    );
  }

  scan<T>(query: ScanQuery, pick: (row: StoredRow) => T | undefined): Promise<ScanResult<T>> {
    try {
      const rows = this.tables.get(query.resource)?.sorted ?? [];
      const items: T[] = [];
      let lastKey: { namespace: string; name: string } | undefined;
      let i = upperBound(rows, scanStart(query));
      for (; i < rows.length; i++) {
        const row = rows[i]!;
        if (query.namespace !== undefined && row.namespace !== query.namespace) break;
        if (query.limit > 0 && items.length === query.limit) break;
        const item = pick(row);
        if (item === undefined) continue;
        items.push(item);
        lastKey = { namespace: row.namespace, name: row.name };
      }
      const end =
        query.namespace === undefined
          ? rows.length
          : upperBound(rows, { namespace: query.namespace, name: '\uffff\uffff' });
      const result: ScanResult<T> = { rv: this.rv, items, more: i < end };
      if (lastKey) result.lastKey = lastKey;
      if (result.more && query.countRemaining) result.remaining = end - i;
      return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  currentRv(): Promise<number> {
    return Promise.resolve(this.rv);
  }

  compactedRv(): Promise<number> {
    return Promise.resolve(this.compacted);
  }

  readLog(afterRv: number, limit: number): Promise<LogPage> {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.rv <= afterRv) lo = mid + 1;
      else hi = mid;
    }
    const records = this.log.slice(lo, lo + limit).map(({ at: _at, ...record }) => record);
    return Promise.resolve({ records, compactedRv: this.compacted });
  }

  compact(retention: Retention): Promise<number> {
    const keepFrom = this.log.length - retention.minEvents;
    const cutoff = Date.now() - retention.minAgeMs;
    let drop = 0;
    while (drop < keepFrom && this.log[drop]!.at <= cutoff) drop++;
    if (drop > 0) {
      this.compacted = this.log[drop - 1]!.rv;
      this.log = this.log.slice(drop);
    }
    return Promise.resolve(this.compacted);
  }

  onWake(): void {
    // Nobody else writes to this memory.
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
