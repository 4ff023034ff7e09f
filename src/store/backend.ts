// The narrow storage interface the memory, SQLite and PostgreSQL backends implement: rows of codec
// output, one version counter, a change log. All Kubernetes semantics live in ObjectStore instead.
import type { ResourceName, WatchEventType } from './types.js';

export interface ObjectKey {
  resource: ResourceName;
  namespace: string;
  name: string;
}

/** One stored object as the backend holds it: the value is codec output, opaque to the backend. */
export interface StoredRow {
  namespace: string;
  name: string;
  value: string;
}

/** One change-log entry; `value` is codec output of the object after the change (last state for DELETED). */
export interface LogRecord {
  rv: number;
  type: WatchEventType;
  resource: ResourceName;
  namespace: string;
  name: string;
  value: string;
}

/** What a write decided to do with the key it locked. */
export type Mutation =
  { op: 'put'; type: 'ADDED' | 'MODIFIED'; value: string } | { op: 'delete'; value: string } | { op: 'none' };

/**
 * Runs under the store-wide write lock. `current` is the stored value (undefined when absent) and
 * `nextRv` the version this write gets if it changes anything. Throws to abort (e.g. 409).
 */
export type Decide = (current: string | undefined, nextRv: number) => Mutation;

export interface ScanQuery {
  resource: ResourceName;
  /** Only this namespace; undefined = all. */
  namespace?: string;
  /** Start strictly after this key (namespace, name order). */
  after?: { namespace: string; name: string };
  /** Wanted number of picked items; 0 = all. */
  limit: number;
  /** Also count the rows after the last returned item (only used when nothing is filtered out). */
  countRemaining: boolean;
}

export interface ScanResult<T> {
  /** The store's version in the snapshot the scan read (equal to the newest committed write it saw). */
  rv: number;
  items: T[];
  /** Key of the last returned item. */
  lastKey?: { namespace: string; name: string };
  /** Rows (matching or not) exist after the last returned item. */
  more: boolean;
  /** Number of rows after the last returned item, when `countRemaining` was asked and `more` is true. */
  remaining?: number;
}

export interface LogPage {
  records: LogRecord[];
  /** Every event with a version <= compactedRv is gone; read in the same snapshot as `records`. */
  compactedRv: number;
}

export interface Retention {
  /** Always keep at least this many newest events. */
  minEvents: number;
  /** Always keep events younger than this. */
  minAgeMs: number;
}

export interface Backend {
  readonly kind: 'memory' | 'sqlite' | 'postgres';
  /**
   * True when other processes may write to the same data (PostgreSQL): the watch hub must then read
   * the change log to see their writes, woken by `onWake`.
   */
  readonly shared: boolean;
  /**
   * Locks, lets `decide` choose, applies its mutation together with the counter bump and the log
   * entry, commits, then calls `afterCommit` with the log entry. Memory and SQLite call `afterCommit`
   * synchronously inside the call, so commit order equals notification order.
   */
  write(key: ObjectKey, decide: Decide, afterCommit: (record: LogRecord) => void): Promise<void>;
  get(key: ObjectKey): Promise<string | undefined>;
  /** Reads rows in (namespace, name) order; `pick` returns undefined to skip a row (predicate). */
  scan<T>(query: ScanQuery, pick: (row: StoredRow) => T | undefined): Promise<ScanResult<T>>;
  currentRv(): Promise<number>;
  compactedRv(): Promise<number>;
  /** Log entries with version > afterRv, ascending, at most `limit`. */
  readLog(afterRv: number, limit: number): Promise<LogPage>;
  /** Drops log entries outside the retention; returns the new compacted version. */
  compact(retention: Retention): Promise<number>;
  /**
   * Rewrites the stored values (objects and change log) of one resource in place — same versions, no
   * events — where `fn` returns something new. Key rotation re-encrypts at rest through it.
   */
  rewriteValues(resource: ResourceName, fn: (stored: string) => string): Promise<number>;
  /** Called when the change log may have grown through another process. */
  onWake(listener: () => void): void;
  close(): Promise<void>;
}

/** Sort order of keys: namespace, then name (code-unit order; Kubernetes names are ASCII). */
export function compareKeys(
  a: { namespace: string; name: string },
  b: { namespace: string; name: string },
): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

/** Where a scan starts: strictly after `after`, or from the first key of the namespace. */
export function scanStart(query: ScanQuery): { namespace: string; name: string } {
  if (query.after) {
    if (query.namespace !== undefined && query.after.namespace !== query.namespace) {
      // A key from another namespace: start at the beginning or past the end of this namespace.
      return query.after.namespace < query.namespace
        ? { namespace: query.namespace, name: '' }
        : { namespace: query.namespace, name: '\uffff' };
    }
    return query.after;
  }
  return { namespace: query.namespace ?? '', name: '' };
}
