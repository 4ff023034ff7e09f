// SQLite backend (better-sqlite3, WAL): one file, one process. Each write updates the object row, appends
// to the change log and bumps the counter; the writes of one event-loop turn commit together (group commit).
import { closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
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
import type { WatchEventType } from './types.js';

/** Numbered schema steps; applied in order, each once, recorded in store_migrations. Never edit one: add. */
export const sqliteMigrations: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'objects, change log, counters',
    sql: `
      CREATE TABLE store_objects (
        resource TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        rv INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (resource, namespace, name)
      );
      CREATE TABLE store_log (
        rv INTEGER PRIMARY KEY,
        type TEXT NOT NULL,
        resource TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE TABLE store_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        rv INTEGER NOT NULL,
        compacted_rv INTEGER NOT NULL
      );
      INSERT INTO store_state (id, rv, compacted_rv) VALUES (1, 0, 0);
    `,
  },
];

function migrate(db: Database.Database): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS store_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const applied = new Set(
      (db.prepare('SELECT version FROM store_migrations').all() as { version: number }[]).map(
        (r) => r.version,
      ),
    );
    const record = db.prepare('INSERT INTO store_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of sqliteMigrations) {
      if (applied.has(m.version)) continue;
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }
  }).immediate();
}

/** A write done in the open transaction, answered once that transaction commits. */
interface PendingWrite {
  record: LogRecord;
  afterCommit: (record: LogRecord) => void;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface LogRow {
  rv: number;
  type: WatchEventType;
  resource: string;
  namespace: string;
  name: string;
  value: string;
}

export class SqliteBackend implements Backend {
  readonly kind = 'sqlite';
  readonly shared = false;
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly inTransaction: (fn: () => void) => void;
  /**
   * Writes in the transaction that is open now (undefined: none is). A commit writes the pages each write
   * touched (the counter, the log's last page, index pages) once for the whole group rather than once per
   * write, which halves the cost of a write when many arrive together — a fleet's agents reporting.
   */
  private batch: PendingWrite[] | undefined;

  constructor(path: string) {
    // Owner-only from the first byte: SQLite gives its -wal and -shm files the database file's mode.
    if (path !== ':memory:' && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a crash may lose the last transactions before a checkpoint, never corrupt.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
    const db = this.db;
    this.stmt = {
      get: db.prepare<[string, string, string], { value: string }>(
        'SELECT value FROM store_objects WHERE resource = ? AND namespace = ? AND name = ?',
      ),
      state: db.prepare<[], { rv: number; compacted_rv: number }>(
        'SELECT rv, compacted_rv FROM store_state WHERE id = 1',
      ),
      setRv: db.prepare<[number]>('UPDATE store_state SET rv = ? WHERE id = 1'),
      upsert: db.prepare<[string, string, string, number, string]>(
        `INSERT INTO store_objects (resource, namespace, name, rv, value) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = excluded.rv, value = excluded.value`,
      ),
      remove: db.prepare<[string, string, string]>(
        'DELETE FROM store_objects WHERE resource = ? AND namespace = ? AND name = ?',
      ),
      append: db.prepare<[number, string, string, string, string, string, number]>(
        'INSERT INTO store_log (rv, type, resource, namespace, name, value, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      scanAll: db.prepare<[string, string, string], StoredRow>(
        `SELECT namespace, name, value FROM store_objects
         WHERE resource = ? AND (namespace, name) > (?, ?) ORDER BY namespace, name`,
      ),
      scanNs: db.prepare<[string, string, string], StoredRow>(
        `SELECT namespace, name, value FROM store_objects
         WHERE resource = ? AND namespace = ? AND name > ? ORDER BY name`,
      ),
      countAll: db.prepare<[string, string, string], { n: number }>(
        'SELECT count(*) AS n FROM store_objects WHERE resource = ? AND (namespace, name) > (?, ?)',
      ),
      countNs: db.prepare<[string, string, string], { n: number }>(
        'SELECT count(*) AS n FROM store_objects WHERE resource = ? AND namespace = ? AND name > ?',
      ),
      readLog: db.prepare<[number, number], LogRow>(
        'SELECT rv, type, resource, namespace, name, value FROM store_log WHERE rv > ? ORDER BY rv LIMIT ?',
      ),
      compactFloor: db.prepare<[number, number], { rv: number }>(
        'SELECT rv FROM store_log WHERE rv <= ? AND at <= ? ORDER BY rv DESC LIMIT 1',
      ),
      dropLog: db.prepare<[number]>('DELETE FROM store_log WHERE rv <= ?'),
      setCompacted: db.prepare<[number]>(
        'UPDATE store_state SET compacted_rv = max(compacted_rv, ?) WHERE id = 1',
      ),
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    };
    const tx = this.db.transaction((fn: () => void) => fn());
    this.inTransaction = (fn) => tx.immediate(fn);
  }

  /**
   * Runs the write in the open transaction (opening one, committed at the end of this event-loop turn)
   * inside a savepoint of its own, so a failing write leaves the others of its group alone. The promise
   * settles, and `afterCommit` runs, once the group has committed: no caller or watcher sees a write
   * before it is durable. Reads on this connection meanwhile see the group's writes, as later writes must.
   */
  write(key: ObjectKey, decide: Decide, afterCommit: (record: LogRecord) => void): Promise<void> {
    try {
      if (!this.batch) {
        this.stmt.begin.run();
        this.batch = [];
        setImmediate(() => this.commitBatch());
      }
      let record: LogRecord | undefined;
      this.inTransaction(() => {
        const current = this.stmt.get.get(key.resource, key.namespace, key.name)?.value;
        const nextRv = this.stmt.state.get()!.rv + 1;
        const mutation = decide(current, nextRv);
        if (mutation.op === 'none') return;
        if (mutation.op === 'put') {
          this.stmt.upsert.run(key.resource, key.namespace, key.name, nextRv, mutation.value);
        } else {
          this.stmt.remove.run(key.resource, key.namespace, key.name);
        }
        const type = mutation.op === 'put' ? mutation.type : 'DELETED';
        this.stmt.append.run(nextRv, type, key.resource, key.namespace, key.name, mutation.value, Date.now());
        this.stmt.setRv.run(nextRv);
        record = { rv: nextRv, type, ...key, value: mutation.value };
      });
      if (!record) return Promise.resolve();
      const written = record;
      return new Promise((resolve, reject) =>
        this.batch!.push({ record: written, afterCommit, resolve, reject }),
      );
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** Commits the open group, then publishes and answers its writes in order; a failed commit fails them all. */
  private commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.stmt.commit.run();
    } catch (err) {
      if (this.db.inTransaction) this.stmt.rollback.run();
      for (const w of batch) w.reject(err as Error);
      return;
    }
    for (const w of batch) {
      try {
        w.afterCommit(w.record);
        w.resolve();
      } catch (err) {
        w.reject(err as Error);
      }
    }
  }

  get(key: ObjectKey): Promise<string | undefined> {
    try {
      return Promise.resolve(this.stmt.get.get(key.resource, key.namespace, key.name)?.value);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  scan<T>(query: ScanQuery, pick: (row: StoredRow) => T | undefined): Promise<ScanResult<T>> {
    try {
      // Synchronous on the only connection: no write can land between the counter and the rows.
      const start = scanStart(query);
      const rv = this.stmt.state.get()!.rv;
      const statement = query.namespace !== undefined ? this.stmt.scanNs : this.stmt.scanAll;
      const args: [string, string, string] =
        query.namespace !== undefined
          ? [query.resource, query.namespace, start.name]
          : [query.resource, start.namespace, start.name];
      // A page stops early, so rows stream; a full list is cheaper fetched in one call.
      const rows = query.limit > 0 ? statement.iterate(...args) : statement.all(...args);
      const items: T[] = [];
      let lastKey: { namespace: string; name: string } | undefined;
      let more = false;
      for (const row of rows) {
        if (query.limit > 0 && items.length === query.limit) {
          more = true;
          break;
        }
        const item = pick(row);
        if (item === undefined) continue;
        items.push(item);
        lastKey = { namespace: row.namespace, name: row.name };
      }
      const result: ScanResult<T> = { rv, items, more };
      if (lastKey) result.lastKey = lastKey;
      if (more && query.countRemaining && lastKey) {
        result.remaining =
          query.namespace !== undefined
            ? this.stmt.countNs.get(query.resource, query.namespace, lastKey.name)!.n
            : this.stmt.countAll.get(query.resource, lastKey.namespace, lastKey.name)!.n;
      }
      return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  currentRv(): Promise<number> {
    return Promise.resolve(this.stmt.state.get()!.rv);
  }

  compactedRv(): Promise<number> {
    return Promise.resolve(this.stmt.state.get()!.compacted_rv);
  }

  readLog(afterRv: number, limit: number): Promise<LogPage> {
    try {
      const records = this.stmt.readLog.all(afterRv, limit);
      return Promise.resolve({ records, compactedRv: this.stmt.state.get()!.compacted_rv });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  rewriteValues(resource: string, fn: (stored: string) => string): Promise<number> {
    const rewrite = this.db.transaction(() => {
      let changed = 0;
      const objects = this.db
        .prepare('SELECT namespace, name, value FROM store_objects WHERE resource = ?')
        .all(resource) as { namespace: string; name: string; value: string }[];
      const updateObject = this.db.prepare(
        'UPDATE store_objects SET value = ? WHERE resource = ? AND namespace = ? AND name = ?',
      );
      for (const row of objects) {
        const next = fn(row.value);
        if (next === row.value) continue;
        updateObject.run(next, resource, row.namespace, row.name);
        changed++;
      }
      const log = this.db.prepare('SELECT rv, value FROM store_log WHERE resource = ?').all(resource) as {
        rv: number;
        value: string;
      }[];
      const updateLog = this.db.prepare('UPDATE store_log SET value = ? WHERE rv = ?');
      for (const record of log) {
        const next = fn(record.value);
        if (next !== record.value) updateLog.run(next, record.rv);
      }
      return changed;
    });
    return Promise.resolve(rewrite.immediate());
  }

  compact(retention: Retention): Promise<number> {
    try {
      let compacted = 0;
      this.inTransaction(() => {
        const state = this.stmt.state.get()!;
        compacted = state.compacted_rv;
        const floor = this.stmt.compactFloor.get(
          state.rv - retention.minEvents,
          Date.now() - retention.minAgeMs,
        );
        if (floor && floor.rv > compacted) {
          this.stmt.dropLog.run(floor.rv);
          this.stmt.setCompacted.run(floor.rv);
          compacted = floor.rv;
        }
      });
      return Promise.resolve(compacted);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  onWake(): void {
    // One process owns the file: every write goes through write() above.
  }

  close(): Promise<void> {
    this.commitBatch();
    this.db.close();
    return Promise.resolve();
  }
}
