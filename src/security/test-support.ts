// For the security tests only: the real memory store with views of what it keeps at rest, for tests
// that prove Secrets and tokens never reach storage in plaintext.
import type { ValueCodec } from '../store/types.js';
import { jsonCodec } from '../store/codec.js';
import { MemoryBackend } from '../store/memory-backend.js';
import { ObjectStore } from '../store/object-store.js';

export interface MemoryStoreAtRest {
  /** The store `openStore({ url: 'memory:', codec })` opens: an ObjectStore over a MemoryBackend. */
  store: ObjectStore;
  /** Every value the store encoded for storage (object rows and change log), in order. */
  atRest: string[];
  /** The value stored now for one object (after any `rewriteAll`), undefined when absent. */
  stored(resource: string, namespace: string, name: string): Promise<string | undefined>;
}

export async function memoryStore(codec: ValueCodec = jsonCodec): Promise<MemoryStoreAtRest> {
  const atRest: string[] = [];
  const recording: ValueCodec = {
    encode(resource, obj) {
      const value = codec.encode(resource, obj);
      atRest.push(value);
      return value;
    },
    decode: (resource, value) => codec.decode(resource, value),
  };
  // Built as openStore does for `memory:`, keeping the backend to read raw rows from.
  const backend = new MemoryBackend();
  const store = await ObjectStore.open(backend, { codec: recording, compactionIntervalMs: 0 });
  return {
    store,
    atRest,
    stored: (resource, namespace, name) => backend.get({ resource, namespace, name }),
  };
}
