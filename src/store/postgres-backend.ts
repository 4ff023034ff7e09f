// PostgreSQL backend (pg): shared by several hub processes. Each write locks the one-row counter
// first, so resourceVersion order is commit order; NOTIFY after commit wakes every process's log reader.
import pg from 'pg';
import type {
  Backend,
  Decide,
  LogPage,
  LogRecord,
  ObjectKey,
  Retention,
  ScanQuery,
  ScanResult,
  StoredRow,
} from './backend.js';
import { scanStart } from './backend.js';
import type { StoreLogger } from './logger.js';
import type { WatchEventType } from './types.js';

const NOTIFY_CHANNEL = 'fleethub_store';
/** pg_advisory_xact_lock keys: any constant distinct from other users of the database. */
const MIGRATION_LOCK = 7_462_019_001;
const COMPACTION_LOCK = 7_462_019_002;

/** Numbered schema steps; applied in order, each once, recorded in store_migrations. Never edit one: add. */
export const postgresMigrations: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'objects, change log, counters',
    // COLLATE "C": byte order for keys, the same order as SQLite and the memory backend.
    sql: `
      CREATE TABLE store_objects (
        resource text COLLATE "C" NOT NULL,
        namespace text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        rv bigint NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (resource, namespace, name)
      );
      CREATE TABLE store_log (
        rv bigint PRIMARY KEY,
        type text NOT NULL,
        resource text NOT NULL,
        namespace text NOT NULL,
        name text NOT NULL,
        value text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE store_state (id int PRIMARY KEY CHECK (id = 1), rv bigint NOT NULL);
      INSERT INTO store_state (id, rv) VALUES (1, 0);
      CREATE TABLE store_compaction (id int PRIMARY KEY CHECK (id = 1), rv bigint NOT NULL);
      INSERT INTO store_compaction (id, rv) VALUES (1, 0);
    `,
  },
];

const SQL = {
  // Simple-protocol text (no parameters), so BEGIN and the lock travel in one round trip.
  beginAndLock: 'BEGIN; SELECT rv FROM store_state WHERE id = 1 FOR UPDATE',
  // A statement of its own: its snapshot starts after the lock is held, so it sees every earlier
  // write. (Joined into the locking statement, READ COMMITTED would return a stale object row.)
  get: 'SELECT value FROM store_objects WHERE resource = $1 AND namespace = $2 AND name = $3',
  put: `WITH st AS (UPDATE store_state SET rv = $4 WHERE id = 1),
    obj AS (INSERT INTO store_objects (resource, namespace, name, rv, value) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = EXCLUDED.rv, value = EXCLUDED.value),
    lg AS (INSERT INTO store_log (rv, type, resource, namespace, name, value) VALUES ($4, $6, $1, $2, $3, $5))
    SELECT pg_notify('${NOTIFY_CHANNEL}', $4::bigint::text)`,
  remove: `WITH st AS (UPDATE store_state SET rv = $4 WHERE id = 1),
    obj AS (DELETE FROM store_objects WHERE resource = $1 AND namespace = $2 AND name = $3),
    lg AS (INSERT INTO store_log (rv, type, resource, namespace, name, value) VALUES ($4, 'DELETED', $1, $2, $3, $5))
    SELECT pg_notify('${NOTIFY_CHANNEL}', $4::bigint::text)`,
  state: 'SELECT rv FROM store_state WHERE id = 1',
  beginSnapshot: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT rv FROM store_state WHERE id = 1',
  compacted: 'SELECT rv FROM store_compaction WHERE id = 1',
  scanAll: `SELECT namespace, name, value FROM store_objects
    WHERE resource = $1 AND (namespace, name) > ($2, $3) ORDER BY namespace, name LIMIT $4`,
  scanNs: `SELECT namespace, name, value FROM store_objects
    WHERE resource = $1 AND namespace = $2 AND name > $3 ORDER BY name LIMIT $4`,
  countAll: 'SELECT count(*) AS n FROM store_objects WHERE resource = $1 AND (namespace, name) > ($2, $3)',
  countNs: 'SELECT count(*) AS n FROM store_objects WHERE resource = $1 AND namespace = $2 AND name > $3',
  // One statement, so the compaction mark and the entries come from one snapshot.
  readLog: `SELECT c.rv AS compacted_rv, l.rv, l.type, l.resource, l.namespace, l.name, l.value
    FROM store_compaction c
    LEFT JOIN LATERAL (SELECT rv, type, resource, namespace, name, value FROM store_log
      WHERE rv > $1 ORDER BY rv LIMIT $2) l ON true
    WHERE c.id = 1 ORDER BY l.rv`,
  compactFloor: `SELECT rv FROM store_log
    WHERE rv <= (SELECT rv FROM store_state WHERE id = 1) - $1 AND at <= now() - make_interval(secs => $2)
    ORDER BY rv DESC LIMIT 1`,
};

async function migrate(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    // Replicas starting together take turns; the second finds everything applied.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS store_migrations (
      version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM store_migrations');
    const applied = new Set(rows.map((r) => r.version));
    for (const m of postgresMigrations) {
      if (applied.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO store_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

export interface PostgresBackendOptions {
  url: string;
  poolSize?: number;
  logger: StoreLogger;
}

export class PostgresBackend implements Backend {
  readonly kind = 'postgres';
  readonly shared = true;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private wake: () => void = () => undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Local writers queue here, so one pooled connection at a time waits for the database-wide lock. */
  private writeChain: Promise<unknown> = Promise.resolve();

  private constructor(private readonly options: PostgresBackendOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      application_name: 'fleethub-store',
    });
    this.pool.on('error', (err) => {
      // After close() the pool's sockets are still shutting down; a server stop then is no news.
      if (!this.closed) options.logger.warn({ err }, 'store: idle PostgreSQL connection failed');
    });
  }

  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    const backend = new PostgresBackend(options);
    try {
      const client = await backend.pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
      await backend.listen();
    } catch (err) {
      await backend.close();
      throw err;
    }
    return backend;
  }

  /** A dedicated connection LISTENs; on loss it reconnects and wakes the reader to catch up. */
  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: 'fleethub-store-listen',
    });
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.logger.warn({ err }, 'store: PostgreSQL LISTEN connection lost; reconnecting');
      this.scheduleReconnect(500);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.wake());
    await client.connect();
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.listener = client;
  }

  private scheduleReconnect(delayMs: number): void {
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen().then(
        () => this.wake(),
        (err: unknown) => {
          this.options.logger.warn({ err }, 'store: PostgreSQL LISTEN reconnect failed');
          if (!this.closed) this.scheduleReconnect(Math.min(delayMs * 2, 10_000));
        },
      );
    }, delayMs);
    this.reconnectTimer.unref();
  }

  write(key: ObjectKey, decide: Decide, afterCommit: (record: LogRecord) => void): Promise<void> {
    const run = this.writeChain.then(() => this.writeNow(key, decide, afterCommit));
    this.writeChain = run.catch(() => undefined);
    return run;
  }

  private async writeNow(
    key: ObjectKey,
    decide: Decide,
    afterCommit: (record: LogRecord) => void,
  ): Promise<void> {
    const record = await this.transaction(async (client): Promise<LogRecord | undefined> => {
      // pg returns one result per statement of a multi-statement text: [BEGIN, SELECT].
      const locked = (await client.query(SQL.beginAndLock)) as unknown as pg.QueryResult<{ rv: string }>[];
      const { rows } = await client.query<{ value: string }>({
        name: 'fh_store_get',
        text: SQL.get,
        values: [key.resource, key.namespace, key.name],
      });
      const nextRv = Number(locked[1]!.rows[0]!.rv) + 1;
      const mutation = decide(rows[0]?.value, nextRv);
      if (mutation.op === 'none') {
        await client.query('ROLLBACK');
        return undefined;
      }
      const type: WatchEventType = mutation.op === 'put' ? mutation.type : 'DELETED';
      await client.query(
        mutation.op === 'put'
          ? {
              name: 'fh_store_put',
              text: SQL.put,
              values: [key.resource, key.namespace, key.name, nextRv, mutation.value, type],
            }
          : {
              name: 'fh_store_remove',
              text: SQL.remove,
              values: [key.resource, key.namespace, key.name, nextRv, mutation.value],
            },
      );
      await client.query('COMMIT');
      return { rv: nextRv, type, ...key, value: mutation.value };
    });
    if (record) afterCommit(record);
  }

  /**
   * Runs `fn` on one pooled connection; `fn` begins and commits its transaction. A throw rolls back,
   * and a connection whose rollback fails too is discarded rather than returned to the pool.
   */
  private async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      return await fn(client);
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async get(key: ObjectKey): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ value: string }>({
      name: 'fh_store_get',
      text: SQL.get,
      values: [key.resource, key.namespace, key.name],
    });
    return rows[0]?.value;
  }

  async scan<T>(query: ScanQuery, pick: (row: StoredRow) => T | undefined): Promise<ScanResult<T>> {
    return this.transaction(async (client) => {
      // REPEATABLE READ: the counter and every batch come from one snapshot.
      const begun = (await client.query(SQL.beginSnapshot)) as unknown as pg.QueryResult<{ rv: string }>[];
      const rv = Number(begun[1]!.rows[0]!.rv);
      const items: T[] = [];
      let lastKey: { namespace: string; name: string } | undefined;
      let more = false;
      let cursor = scanStart(query);
      // Without a limit one query reads everything; with one, batches stop as soon as the page is full.
      const batch = query.limit > 0 ? Math.max(query.limit + 1, 200) : null;
      for (;;) {
        const { rows } = await client.query<StoredRow>(
          query.namespace !== undefined
            ? {
                name: 'fh_store_scan_ns',
                text: SQL.scanNs,
                values: [query.resource, query.namespace, cursor.name, batch],
              }
            : {
                name: 'fh_store_scan_all',
                text: SQL.scanAll,
                values: [query.resource, cursor.namespace, cursor.name, batch],
              },
        );
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
        const last = rows[rows.length - 1];
        if (more || batch === null || rows.length < batch || !last) break;
        cursor = { namespace: last.namespace, name: last.name };
      }
      const result: ScanResult<T> = { rv, items, more };
      if (lastKey) result.lastKey = lastKey;
      if (more && query.countRemaining && lastKey) {
        const { rows } = await client.query<{ n: string }>(
          query.namespace !== undefined
            ? {
                name: 'fh_store_count_ns',
                text: SQL.countNs,
                values: [query.resource, query.namespace, lastKey.name],
              }
            : {
                name: 'fh_store_count_all',
                text: SQL.countAll,
                values: [query.resource, lastKey.namespace, lastKey.name],
              },
        );
        result.remaining = Number(rows[0]!.n);
      }
      await client.query('COMMIT');
      return result;
    });
  }

  async currentRv(): Promise<number> {
    const { rows } = await this.pool.query<{ rv: string }>({ name: 'fh_store_state', text: SQL.state });
    return Number(rows[0]!.rv);
  }

  async rewriteValues(resource: string, fn: (stored: string) => string): Promise<number> {
    return this.transaction(async (client) => {
      // Writers lock the counter row first; holding it keeps the rewrite from racing them.
      await client.query(SQL.beginAndLock);
      let changed = 0;
      const objects = await client.query<{ namespace: string; name: string; value: string }>(
        'SELECT namespace, name, value FROM store_objects WHERE resource = $1',
        [resource],
      );
      for (const row of objects.rows) {
        const next = fn(row.value);
        if (next === row.value) continue;
        await client.query(
          'UPDATE store_objects SET value = $1 WHERE resource = $2 AND namespace = $3 AND name = $4',
          [next, resource, row.namespace, row.name],
        );
        changed++;
      }
      const log = await client.query<{ rv: string; value: string }>(
        'SELECT rv, value FROM store_log WHERE resource = $1',
        [resource],
      );
      for (const record of log.rows) {
        const next = fn(record.value);
        if (next !== record.value)
          await client.query('UPDATE store_log SET value = $1 WHERE rv = $2', [next, record.rv]);
      }
      await client.query('COMMIT');
      return changed;
    });
  }

  async compactedRv(): Promise<number> {
    const { rows } = await this.pool.query<{ rv: string }>({
      name: 'fh_store_compacted',
      text: SQL.compacted,
    });
    return Number(rows[0]!.rv);
  }

  async readLog(afterRv: number, limit: number): Promise<LogPage> {
    const { rows } = await this.pool.query<{
      compacted_rv: string;
      rv: string | null;
      type: WatchEventType;
      resource: string;
      namespace: string;
      name: string;
      value: string;
    }>({ name: 'fh_store_read_log', text: SQL.readLog, values: [afterRv, limit] });
    const records: LogRecord[] = [];
    for (const row of rows) {
      if (row.rv === null) continue;
      records.push({
        rv: Number(row.rv),
        type: row.type,
        resource: row.resource,
        namespace: row.namespace,
        name: row.name,
        value: row.value,
      });
    }
    return { records, compactedRv: Number(rows[0]?.compacted_rv ?? 0) };
  }

  async compact(retention: Retention): Promise<number> {
    return this.transaction(async (client) => {
      await client.query('BEGIN');
      // One replica compacts at a time; the others skip this round.
      const { rows: locked } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1) AS ok',
        [COMPACTION_LOCK],
      );
      const current = await client.query<{ rv: string }>(SQL.compacted);
      let compacted = Number(current.rows[0]!.rv);
      if (locked[0]!.ok) {
        const floor = await client.query<{ rv: string }>(SQL.compactFloor, [
          retention.minEvents,
          retention.minAgeMs / 1000,
        ]);
        const floorRv = floor.rows[0] ? Number(floor.rows[0].rv) : 0;
        if (floorRv > compacted) {
          await client.query('DELETE FROM store_log WHERE rv <= $1', [floorRv]);
          await client.query('UPDATE store_compaction SET rv = greatest(rv, $1) WHERE id = 1', [floorRv]);
          compacted = floorRv;
        }
      }
      await client.query('COMMIT');
      return compacted;
    });
  }

  onWake(listener: () => void): void {
    this.wake = listener;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.writeChain;
    await this.pool.end();
  }
}
