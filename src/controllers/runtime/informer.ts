// An informer keeps an in-memory copy of one resource, fed by the store's list-then-watch, and tells
// handlers what changed; on 410 Expired or a broken watch it relists, with backoff, and catches up.
import type { KubeObject, ListOptions, ListResult, Store, WatchEvent, Watcher } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { noopLogger, type Logger } from './logger.js';
import type { CacheReader } from './reconcile.js';

/** Handlers see shared cache objects: they must not mutate them. */
export interface InformerHandlers {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  /** Receives the last known state of the deleted object. */
  onDelete?(obj: KubeObject): void;
}

/** Values under which an object is found through `byIndex`. */
export type IndexFunc = (obj: KubeObject) => string[];

/**
 * Restricts an informer to the objects `matches` accepts, as a field selector restricts a Kubernetes
 * watch: the list is filtered in the store (non-matching objects are never cached), and watch events are
 * checked on arrival, so an object that stops matching leaves the cache as a delete and one that starts
 * matching enters it as an add. Informers are shared by resource and filter `name`: filters of one name
 * must select the same objects.
 */
export interface InformerFilter {
  /** Identifies the selection, field-selector style: `type=addons.projectsveltos.io/cluster-profile`. */
  name: string;
  matches(obj: KubeObject): boolean;
}

/**
 * A filter on one field's value, like the field selector `path=value` (a dotted path; a missing field
 * reads as '', as in field selectors).
 */
export function fieldEquals(path: string, value: string): InformerFilter {
  const steps = path.split('.');
  return {
    name: `${path}=${value}`,
    matches: (obj) => {
      let at: unknown = obj;
      for (const step of steps) {
        if (typeof at !== 'object' || at === null) return value === '';
        at = (at as Record<string, unknown>)[step];
      }
      return (typeof at === 'string' ? at : at === undefined || at === null ? '' : String(at)) === value;
    },
  };
}

export interface InformerOptions {
  store: Store;
  /** Store resource name: `namespaces`, `leases.coordination.k8s.io`. */
  resource: string;
  /** Only this namespace; undefined = all. */
  namespace?: string;
  /** Only the objects this filter selects; undefined = all. */
  filter?: InformerFilter;
  logger?: Logger;
  indexers?: Record<string, IndexFunc>;
  /** First retry delay after a failed list or watch; doubles per failure. Default 200 ms. */
  backoffBaseMs?: number;
  /** Cap of that delay. Default 30 s. */
  backoffMaxMs?: number;
  /** Every this often, handlers get onUpdate(obj, obj) for every cached object. Default 0 (never). */
  resyncPeriodMs?: number;
}

const NAMESPACE_INDEX = 'namespace';
const ALL = Symbol('all namespaces');
/** byLabel's indices are named after the label they file by. */
const LABEL_INDEX_PREFIX = 'label:';
const HEALTHY_WATCH_MS = 5_000;

function cacheKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

function keyOf(obj: KubeObject): string {
  return cacheKey(obj.metadata.namespace, obj.metadata.name);
}

function versionOf(obj: KubeObject): number {
  const v = Number(obj.metadata.resourceVersion);
  return Number.isFinite(v) ? v : NaN;
}

export class Informer {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly filter: InformerFilter | undefined;
  private readonly store: Store;
  private readonly logger: Logger;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly resyncPeriodMs: number;
  private readonly items = new Map<string, KubeObject>();
  private readonly indexers: Map<string, IndexFunc>;
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** list()'s sorted keys, for every object (ALL) and by namespace; dropped when an object comes or goes. */
  private readonly sortedKeys = new Map<string | typeof ALL, string[]>();
  private readonly handlers = new Set<InformerHandlers>();
  private syncWaiters: (() => void)[] = [];
  private watcher: Watcher | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  /** Bumped on every (re)list and stop, so callbacks of an abandoned watch are ignored. */
  private epoch = 0;
  private failures = 0;
  private started = false;
  private stopped = false;
  private synced = false;
  private lastRV = '';
  private watchStartedAt = 0;

  constructor(options: InformerOptions) {
    this.store = options.store;
    this.resource = options.resource;
    this.namespace = options.namespace;
    this.filter = options.filter;
    this.logger = (options.logger ?? noopLogger).child({
      informer: options.resource,
      ...(options.filter ? { filter: options.filter.name } : {}),
    });
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.backoffMaxMs = options.backoffMaxMs ?? 30_000;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.indexers = new Map(Object.entries(options.indexers ?? {}));
    this.indexers.set(NAMESPACE_INDEX, (obj) => [obj.metadata.namespace ?? '']);
    for (const name of this.indexers.keys()) this.indices.set(name, new Map());
  }

  /**
   * Registers handlers; returns a function that removes them. Added after the first sync, they get
   * onAdd for every cached object at once, so late subscribers miss nothing.
   */
  addEventHandler(handlers: InformerHandlers): () => void {
    this.handlers.add(handlers);
    if (this.synced) for (const obj of this.items.values()) this.call(handlers, 'onAdd', obj);
    return () => this.handlers.delete(handlers);
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    if (this.resyncPeriodMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), this.resyncPeriodMs);
    }
    void this.relist();
  }

  /** Stops watching; the cache keeps its last contents, and sync waiters are released. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.epoch++;
    this.watcher?.stop();
    this.watcher = undefined;
    clearTimeout(this.retryTimer);
    clearInterval(this.resyncTimer);
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  /** True once the first list is in the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, false if the informer stops or `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        this.syncWaiters = this.syncWaiters.filter((w) => w !== done);
        resolve(this.synced);
      };
      signal?.addEventListener('abort', done, { once: true });
      this.syncWaiters.push(done);
    });
  }

  /** The resourceVersion the cache is known to be current at. */
  lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  /** Cluster-scoped objects: namespace ''. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.items.get(cacheKey(namespace, name));
  }

  /** Every cached object, or those of one namespace; sorted by namespace then name like the store. */
  list(namespace?: string): KubeObject[] {
    // The keys (`namespace/name`) sort as the objects do. Sorted once per change of membership, not per
    // call: controllers list whole kinds in map functions and reconciles, once per event in a storm.
    const sortKey = namespace ?? ALL;
    let keys = this.sortedKeys.get(sortKey);
    if (!keys) {
      keys =
        namespace === undefined
          ? [...this.items.keys()]
          : [...(this.indices.get(NAMESPACE_INDEX)!.get(namespace) ?? [])];
      keys.sort();
      this.sortedKeys.set(sortKey, keys);
    }
    return keys.map((k) => this.items.get(k)!);
  }

  /**
   * Objects whose label `key` is `value` (of one namespace when given), sorted like list(). The label's
   * index is built on first use and kept up to date from then on: a controller finding a cluster's few
   * objects among a fleet's thousands reads a handful, not the whole kind.
   */
  byLabel(key: string, value: string, namespace?: string): KubeObject[] {
    const name = `${LABEL_INDEX_PREFIX}${key}`;
    if (!this.indices.has(name))
      this.addIndexer(name, (obj) => {
        const v = obj.metadata.labels?.[key];
        return v === undefined ? [] : [v];
      });
    const keys = [...(this.indices.get(name)!.get(value) ?? [])].sort();
    const objs = keys.map((k) => this.items.get(k)!);
    return namespace === undefined ? objs : objs.filter((o) => (o.metadata.namespace ?? '') === namespace);
  }

  /** Adds an index and files every cached object in it. */
  private addIndexer(name: string, fn: IndexFunc): void {
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.items)
      for (const value of fn(obj)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
  }

  /** Objects an indexer filed under `value`. */
  byIndex(indexName: string, value: string): KubeObject[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`informer ${this.resource} has no index ${JSON.stringify(indexName)}`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!);
  }

  private async relist(): Promise<void> {
    const epoch = ++this.epoch;
    this.watcher?.stop();
    this.watcher = undefined;
    let listed: ListResult;
    try {
      const options: ListOptions = this.namespace === undefined ? {} : { namespace: this.namespace };
      // In the store: what does not match is dropped as it is read, never held in a list result.
      if (this.filter) options.predicate = (obj) => this.matches(obj);
      listed = await this.store.list(this.resource, options);
    } catch (e) {
      if (epoch !== this.epoch) return;
      this.logger.warn({ err: e }, 'list failed');
      this.retry(() => void this.relist());
      return;
    }
    if (epoch !== this.epoch) return;
    this.replace(listed.items);
    this.lastRV = listed.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
    this.watchFrom(listed.resourceVersion, epoch);
    if (listed.resourceVersion === '0') void this.closeEmptyListGap(epoch);
  }

  /**
   * A store never written to lists at version 0, and a watch from 0 starts at "now": a write landing
   * between the list and the watch would be missed. With the watch live, look once more: a version past 0
   * means something was written meanwhile, and a relist from that version closes the gap.
   */
  private async closeEmptyListGap(epoch: number): Promise<void> {
    try {
      const again = await this.store.list(this.resource, {
        limit: 1,
        ...(this.namespace === undefined ? {} : { namespace: this.namespace }),
      });
      if (epoch === this.epoch && again.resourceVersion !== '0') await this.relist();
    } catch {
      // The watch reports a broken store itself; this check has nothing to add.
    }
  }

  private watchFrom(resourceVersion: string, epoch: number): void {
    this.watchStartedAt = Date.now();
    try {
      this.watcher = this.store.watch(
        { resource: this.resource, namespace: this.namespace, resourceVersion },
        {
          onEvent: (event) => {
            if (epoch === this.epoch) this.apply(event);
          },
          onError: (error) => {
            if (epoch === this.epoch) this.watchFailed(error, epoch);
          },
          onProgress: (rv) => {
            if (epoch === this.epoch) this.lastRV = rv;
          },
        },
      );
    } catch (e) {
      this.watchFailed(e, epoch);
    }
  }

  /** 410: the store no longer has our version, so only a relist can catch up. Else: resume the watch. */
  private watchFailed(error: unknown, epoch: number): void {
    this.watcher = undefined;
    if (this.stopped) return;
    // A watch that ran for a while was healthy: this failure starts a fresh backoff sequence.
    if (Date.now() - this.watchStartedAt > HEALTHY_WATCH_MS) this.failures = 0;
    if (isApiError(error) && error.code === 410) {
      this.logger.info({ resourceVersion: this.lastRV }, 'watch expired; relisting');
      this.retry(() => void this.relist(), this.failures === 0);
      return;
    }
    this.logger.warn({ err: error }, 'watch failed; resuming');
    this.retry(() => {
      if (epoch === this.epoch) this.watchFrom(this.lastRV, epoch);
    });
  }

  /** Runs `fn` after the current backoff (at once if `immediate`), growing the backoff. */
  private retry(fn: () => void, immediate = false): void {
    if (this.stopped) return;
    const delay = immediate ? 0 : Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** this.failures);
    this.failures++;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(fn, delay);
  }

  private apply(event: WatchEvent): void {
    this.lastRV = String(event.resourceVersion);
    const obj = event.object;
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (event.type === 'DELETED') {
      if (!old) return;
      this.remove(key, old);
      this.notify('onDelete', obj);
      return;
    }
    // An event older than what the cache holds is a replay of something the list already showed.
    if (old && versionOf(old) >= event.resourceVersion) return;
    if (!this.matches(obj)) {
      // Filtered out: an object that left the selection is a deletion (with its new state, as a
      // field-selector watch reports it); one that was never in it is none of this informer's business.
      if (old) {
        this.remove(key, old);
        this.notify('onDelete', obj);
      }
      return;
    }
    this.put(key, obj, old);
    if (old) this.notify('onUpdate', old, obj);
    else this.notify('onAdd', obj);
  }

  /** Makes the cache equal the listed items, telling handlers only what differs. */
  private replace(items: KubeObject[]): void {
    const fresh = new Map(items.map((obj) => [keyOf(obj), obj]));
    for (const [key, old] of [...this.items]) {
      if (!fresh.has(key)) {
        this.remove(key, old);
        this.notify('onDelete', old);
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.items.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.put(key, obj, old);
      if (old) this.notify('onUpdate', old, obj);
      else this.notify('onAdd', obj);
    }
  }

  private put(key: string, obj: KubeObject, old: KubeObject | undefined): void {
    if (old) this.unindex(key, old);
    else this.membershipChanged(obj);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private remove(key: string, old: KubeObject): void {
    this.unindex(key, old);
    this.items.delete(key);
    this.membershipChanged(old);
  }

  /** An object came or went: the sorted keys of all objects and of its namespace are stale. */
  private membershipChanged(obj: KubeObject): void {
    this.sortedKeys.delete(ALL);
    this.sortedKeys.delete(obj.metadata.namespace ?? '');
  }

  private unindex(key: string, obj: KubeObject): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  /** Whether the filter (if any) selects `obj`; a throwing filter selects nothing, loudly. */
  private matches(obj: KubeObject): boolean {
    if (!this.filter) return true;
    try {
      return this.filter.matches(obj);
    } catch (e) {
      this.logger.error({ err: e, name: obj.metadata.name }, 'informer filter threw; object left out');
      return false;
    }
  }

  private resync(): void {
    if (!this.synced) return;
    for (const obj of this.items.values()) this.notify('onUpdate', obj, obj);
  }

  private notify(kind: 'onAdd' | 'onDelete', obj: KubeObject): void;
  private notify(kind: 'onUpdate', old: KubeObject, obj: KubeObject): void;
  private notify(kind: keyof InformerHandlers, a: KubeObject, b?: KubeObject): void {
    for (const handlers of this.handlers) this.call(handlers, kind, a, b);
  }

  /** A throwing handler is logged and must not stop the others or the informer. */
  private call(
    handlers: InformerHandlers,
    kind: keyof InformerHandlers,
    a: KubeObject,
    b?: KubeObject,
  ): void {
    try {
      if (kind === 'onUpdate') handlers.onUpdate?.(a, b!);
      else handlers[kind]?.(a);
    } catch (e) {
      this.logger.error({ err: e, handler: kind }, 'event handler threw');
    }
  }
}

export type InformerSetOptions = Omit<
  InformerOptions,
  'store' | 'resource' | 'namespace' | 'indexers' | 'filter'
>;

/** Which of a set's informers to use: a filtered one caches only what its filter selects. */
export interface InformerSelection {
  filter?: InformerFilter;
}

/** `configmaps`, or `secrets?type=addons.projectsveltos.io/cluster-profile` for a filtered informer. */
function informerKey(resource: string, filter: InformerFilter | undefined): string {
  return filter ? `${resource}?${filter.name}` : resource;
}

/**
 * One informer per resource (and per filter of it), shared by every controller the manager runs, and
 * a CacheReader over the unfiltered ones: a filtered informer holds only part of its resource, so
 * reads of the resource never answer from it. Informers asked for after `start()` start at once.
 */
export class InformerSet implements CacheReader {
  private readonly informers = new Map<string, Informer>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: InformerSetOptions = {},
  ) {}

  informer(resource: string, selection: InformerSelection = {}): Informer {
    const { filter } = selection;
    const key = informerKey(resource, filter);
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer({
        ...this.options,
        store: this.store,
        resource,
        ...(filter ? { filter } : {}),
      });
      this.informers.set(key, informer);
      if (this.started && !this.stopped) informer.start();
    }
    return informer;
  }

  /** The informers' keys: a resource, or `resource?filter-name` for a filtered informer. */
  resources(): string[] {
    return [...this.informers.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
  }

  /** True once every informer has synced; false if any stops or `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    return results.every(Boolean);
  }

  get(resource: string, namespace: string, name: string): KubeObject | undefined {
    return this.known(resource).get(namespace, name);
  }

  list(resource: string, namespace?: string): KubeObject[] {
    return this.known(resource).list(namespace);
  }

  byLabel(resource: string, key: string, value: string, namespace?: string): KubeObject[] {
    return this.known(resource).byLabel(key, value, namespace);
  }

  private known(resource: string): Informer {
    const informer = this.informers.get(resource);
    if (informer) return informer;
    const filtered = [...this.informers.values()].filter((i) => i.resource === resource && i.filter);
    const only =
      filtered.length > 0
        ? ` (${resource} is cached only filtered by ${filtered.map((i) => i.filter!.name).join(', ')})`
        : '';
    throw new Error(`no informer for ${resource}: only watched resources are cached${only}`);
  }
}
