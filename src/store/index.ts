// Opens a store from a URL: `memory:`, `sqlite:/path/file.db` or `postgres://…`. The one entry point
// the rest of fleethub uses; everything behind it shares ObjectStore's semantics.
import type { Backend } from './backend.js';
import { MemoryBackend } from './memory-backend.js';
import { consoleLogger } from './logger.js';
import { ObjectStore, type ObjectStoreOptions } from './object-store.js';
import { PostgresBackend, type PostgresBackendOptions } from './postgres-backend.js';
import { SqliteBackend } from './sqlite-backend.js';

export { jsonCodec } from './codec.js';
export type { StoreLogger } from './logger.js';
export { defaultRetention, ObjectStore, type ObjectStoreOptions } from './object-store.js';
export type * from './types.js';

export interface OpenStoreOptions extends ObjectStoreOptions {
  /** `memory:` | `sqlite:/path/file.db` | `postgres://user:pass@host:port/db` (also `postgresql://`). */
  url: string;
  /** PostgreSQL connections per process (default 10), plus one for LISTEN. */
  poolSize?: number;
}

export async function openStore(options: OpenStoreOptions): Promise<ObjectStore> {
  const { url } = options;
  let backend: Backend;
  if (url === 'memory:') {
    backend = new MemoryBackend();
  } else if (url.startsWith('sqlite:')) {
    // `sqlite:/abs/file.db`, `sqlite:///abs/file.db` and `sqlite:relative.db` all name a file.
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '') throw new Error(`store url "${url}" names no file`);
    backend = new SqliteBackend(path);
  } else if (/^postgres(ql)?:\/\//.test(url)) {
    const pgOptions: PostgresBackendOptions = {
      url,
      logger: options.logger ?? consoleLogger,
    };
    if (options.poolSize !== undefined) pgOptions.poolSize = options.poolSize;
    backend = await PostgresBackend.open(pgOptions);
  } else {
    throw new Error(`unsupported store url "${url}": use memory:, sqlite:<path> or postgres://…`);
  }
  try {
    return await ObjectStore.open(backend, options);
  } catch (err) {
    await backend.close();
    throw err;
  }
}
