// For the security tests only: the real memory store with a view of the values it keeps at rest, and a
// minimal fake store that also offers the RawRowRewriter contract the real store does not have yet.
import { randomUUID } from 'node:crypto';
import type {
  DeleteResult,
  KubeObject,
  ListResult,
  ListOptions,
  Store,
  ValueCodec,
  Watcher,
} from '../store/types.js';
import { openStore, type ObjectStore } from '../store/index.js';
import { jsonCodec } from '../store/codec.js';
import { errors } from '../util/errors.js';

/** `openStore({ url: 'memory:' })`, plus every value the store encoded for storage (what lands at rest). */
export async function memoryStore(
  codec: ValueCodec = jsonCodec,
): Promise<{ store: ObjectStore; atRest: string[] }> {
  const atRest: string[] = [];
  const recording: ValueCodec = {
    encode(resource, obj) {
      const value = codec.encode(resource, obj);
      atRest.push(value);
      return value;
    },
    decode: (resource, value) => codec.decode(resource, value),
  };
  return { store: await openStore({ url: 'memory:', codec: recording, compactionIntervalMs: 0 }), atRest };
}

/** Stands in for the store where the tests need `rewriteAll` (key rotation). */
export class FakeStore implements Store {
  readonly backend = 'memory' as const;
  /** resource → `namespace/name` → stored (encoded) value. Tests inspect it. */
  readonly rows = new Map<string, Map<string, string>>();
  private rv = 0;

  constructor(private readonly codec: ValueCodec = jsonCodec) {}

  private table(resource: string): Map<string, string> {
    let t = this.rows.get(resource);
    if (!t) this.rows.set(resource, (t = new Map()));
    return t;
  }

  async get(resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const v = this.table(resource).get(`${namespace}/${name}`);
    return v === undefined ? undefined : this.codec.decode(resource, v);
  }

  async list(resource: string, options: ListOptions = {}): Promise<ListResult> {
    const items = [...this.table(resource).entries()]
      .filter(([k]) => options.namespace === undefined || k.startsWith(`${options.namespace}/`))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, v]) => this.codec.decode(resource, v))
      .filter((o) => !options.predicate || options.predicate(o));
    return { items, resourceVersion: String(this.rv) };
  }

  async create(resource: string, obj: KubeObject): Promise<KubeObject> {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const key = `${ns}/${name}`;
    if (this.table(resource).has(key)) throw errors.alreadyExists(resource, '', name);
    const stored: KubeObject = structuredClone(obj);
    stored.metadata.uid = randomUUID();
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.creationTimestamp = new Date().toISOString();
    this.table(resource).set(key, this.codec.encode(resource, stored));
    return stored;
  }

  async update(resource: string, obj: KubeObject): Promise<KubeObject> {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const current = await this.get(resource, ns, name);
    if (!current) throw errors.notFound(resource, '', name);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(resource, '', name);
    }
    const stored: KubeObject = structuredClone(obj);
    stored.metadata.uid = current.metadata.uid;
    stored.metadata.resourceVersion = String(++this.rv);
    this.table(resource).set(`${ns}/${name}`, this.codec.encode(resource, stored));
    return stored;
  }

  async delete(resource: string, namespace: string, name: string): Promise<DeleteResult> {
    const current = await this.get(resource, namespace, name);
    if (!current) throw errors.notFound(resource, '', name);
    this.table(resource).delete(`${namespace}/${name}`);
    return { object: current, deleted: true };
  }

  watch(): Watcher {
    throw new Error('FakeStore does not watch');
  }

  async currentResourceVersion(): Promise<string> {
    return String(this.rv);
  }

  async close(): Promise<void> {}

  /** The RawRowRewriter contract the real store must offer for key rotation. */
  async rewriteAll(resource: string, fn: (stored: string) => string): Promise<number> {
    let n = 0;
    const t = this.table(resource);
    for (const [k, v] of t) {
      const next = fn(v);
      if (next !== v) {
        t.set(k, next);
        n++;
      }
    }
    return n;
  }
}
