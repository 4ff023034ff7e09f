// An in-memory Store for controller tests while the real store is being written: Kubernetes object
// semantics (versions, preconditions, finalizers, ordered watch with replay and 410) in one small file.
import { randomUUID } from 'node:crypto';
import type {
  DeleteOptions,
  DeleteResult,
  KubeObject,
  ListOptions,
  ListResult,
  ResourceName,
  Store,
  UpdateOptions,
  WatchEvent,
  WatchHandlers,
  WatchOptions,
  Watcher,
  WriteOptions,
} from '../../store/types.js';
import { errors } from '../../util/errors.js';

interface FakeWatch {
  options: WatchOptions;
  handlers: WatchHandlers;
  stopped: boolean;
}

function split(resource: ResourceName): [string, string] {
  const dot = resource.indexOf('.');
  return dot < 0 ? [resource, ''] : [resource.slice(0, dot), resource.slice(dot + 1)];
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function withoutMeta(obj: KubeObject): string {
  return JSON.stringify(Object.entries(obj).filter(([k]) => k !== 'metadata' && k !== 'status'));
}

function seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class FakeStore implements Store {
  readonly backend = 'memory' as const;
  private rv = 0;
  private compactedThrough = 0;
  private readonly data = new Map<ResourceName, Map<string, KubeObject>>();
  private log: WatchEvent[] = [];
  private readonly watches = new Set<FakeWatch>();

  async get(resource: ResourceName, namespace: string, name: string): Promise<KubeObject | undefined> {
    const obj = this.table(resource).get(key(namespace, name));
    return obj && structuredClone(obj);
  }

  async list(resource: ResourceName, options: ListOptions = {}): Promise<ListResult> {
    let items = [...this.table(resource).values()]
      .filter((o) => options.namespace === undefined || (o.metadata.namespace ?? '') === options.namespace)
      .sort((a, b) => {
        const ka = key(a.metadata.namespace ?? '', a.metadata.name ?? '');
        const kb = key(b.metadata.namespace ?? '', b.metadata.name ?? '');
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      })
      .map((o) => structuredClone(o));
    if (options.predicate) items = items.filter(options.predicate);
    return { items, resourceVersion: String(this.rv) };
  }

  async create(resource: ResourceName, obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const table = this.table(resource);
    if (table.has(key(namespace, name))) throw errors.alreadyExists(...split(resource), name);
    const next = structuredClone(obj);
    const rv = options.dryRun ? this.rv : ++this.rv;
    next.metadata = {
      ...next.metadata,
      uid: randomUUID(),
      creationTimestamp: seconds(new Date()),
      generation: 1,
      resourceVersion: String(rv),
    };
    if (options.dryRun) return next;
    table.set(key(namespace, name), next);
    this.emit('ADDED', resource, next);
    return structuredClone(next);
  }

  async update(resource: ResourceName, obj: KubeObject, options: UpdateOptions = {}): Promise<KubeObject> {
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const table = this.table(resource);
    const current = table.get(key(namespace, name));
    if (!current) throw errors.notFound(...split(resource), name);
    const precondition = obj.metadata.resourceVersion;
    if (precondition && precondition !== current.metadata.resourceVersion) {
      throw errors.conflict(...split(resource), name);
    }
    let next: KubeObject;
    if (options.subresource === 'status') {
      next = { ...structuredClone(current), status: structuredClone(obj['status']) };
    } else {
      next = structuredClone(obj);
      if (options.statusSubresource) next['status'] = structuredClone(current['status']);
      next.metadata.uid = current.metadata.uid;
      next.metadata.creationTimestamp = current.metadata.creationTimestamp;
      next.metadata.generation = current.metadata.generation;
      if (current.metadata.deletionTimestamp)
        next.metadata.deletionTimestamp = current.metadata.deletionTimestamp;
      if (withoutMeta(next) !== withoutMeta(current))
        next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (JSON.stringify(next) === JSON.stringify(current)) return structuredClone(current);
    if (options.dryRun) return next;
    next.metadata.resourceVersion = String(++this.rv);
    // Removing the last finalizer of a marked object deletes it; other updates of a marked object keep it.
    if (
      next.metadata.deletionTimestamp &&
      current.metadata.finalizers?.length &&
      !next.metadata.finalizers?.length
    ) {
      table.delete(key(namespace, name));
      this.emit('DELETED', resource, next);
    } else {
      table.set(key(namespace, name), next);
      this.emit('MODIFIED', resource, next);
    }
    return structuredClone(next);
  }

  async delete(
    resource: ResourceName,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): Promise<DeleteResult> {
    const table = this.table(resource);
    const current = table.get(key(namespace, name));
    if (!current) throw errors.notFound(...split(resource), name);
    const pre = options.preconditions;
    if (
      (pre?.uid && pre.uid !== current.metadata.uid) ||
      (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion)
    ) {
      throw errors.conflict(...split(resource), name, 'precondition failed');
    }
    const keep =
      Boolean(current.metadata.finalizers?.length) ||
      (options.markOnly && !current.metadata.deletionTimestamp);
    if (keep) {
      if (current.metadata.deletionTimestamp || options.dryRun)
        return { object: structuredClone(current), deleted: false };
      const next = structuredClone(current);
      next.metadata.deletionTimestamp = seconds(new Date());
      next.metadata.deletionGracePeriodSeconds = 0;
      next.metadata.generation = (next.metadata.generation ?? 0) + 1;
      next.metadata.resourceVersion = String(++this.rv);
      table.set(key(namespace, name), next);
      this.emit('MODIFIED', resource, next);
      return { object: structuredClone(next), deleted: false };
    }
    if (options.dryRun) return { object: structuredClone(current), deleted: true };
    const gone = structuredClone(current);
    gone.metadata.resourceVersion = String(++this.rv);
    table.delete(key(namespace, name));
    this.emit('DELETED', resource, gone);
    return { object: structuredClone(gone), deleted: true };
  }

  watch(options: WatchOptions, handlers: WatchHandlers): Watcher {
    const watch: FakeWatch = { options, handlers, stopped: false };
    const from = Number(options.resourceVersion ?? 0);
    if (from > 0 && from < this.compactedThrough) {
      queueMicrotask(() =>
        handlers.onError(errors.gone(`too old resource version: ${from} (${this.compactedThrough})`)),
      );
      return { stop: () => undefined };
    }
    this.watches.add(watch);
    if (from > 0) {
      for (const event of this.log) {
        if (event.resourceVersion > from) this.deliver(watch, event);
      }
    }
    return {
      stop: () => {
        watch.stopped = true;
        this.watches.delete(watch);
      },
    };
  }

  async currentResourceVersion(): Promise<string> {
    return String(this.rv);
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.stopped = true;
    this.watches.clear();
  }

  /** Forgets the change log: a watch from any older version now gets 410 Expired. */
  compact(): void {
    this.compactedThrough = this.rv;
    this.log = [];
  }

  /** Ends every open watch with 410 Expired, as a store does when it drops a lagging watcher. */
  expireWatches(): void {
    for (const watch of [...this.watches]) {
      watch.stopped = true;
      this.watches.delete(watch);
      queueMicrotask(() => watch.handlers.onError(errors.gone('watch expired')));
    }
  }

  private table(resource: ResourceName): Map<string, KubeObject> {
    let table = this.data.get(resource);
    if (!table) this.data.set(resource, (table = new Map()));
    return table;
  }

  private emit(type: WatchEvent['type'], resource: ResourceName, obj: KubeObject): void {
    const event: WatchEvent = { type, resource, object: structuredClone(obj), resourceVersion: this.rv };
    this.log.push(event);
    for (const watch of this.watches) this.deliver(watch, event);
  }

  /** Asynchronously and in order, like a backend that publishes after commit. */
  private deliver(watch: FakeWatch, event: WatchEvent): void {
    const { resource, namespace } = watch.options;
    if (resource !== undefined && resource !== event.resource) return;
    if (namespace !== undefined && namespace !== (event.object.metadata.namespace ?? '')) return;
    queueMicrotask(() => {
      if (!watch.stopped) watch.handlers.onEvent({ ...event, object: structuredClone(event.object) });
    });
  }
}
