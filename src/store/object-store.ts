// Kubernetes object semantics written once over any Backend: uid, generation, resourceVersion,
// preconditions, finalizers and deletion, status subresource, dry run, paginated lists and watches.
import { randomUUID } from 'node:crypto';
import { errors } from '../util/errors.js';
import type { Backend, Mutation, ObjectKey, Retention, ScanQuery } from './backend.js';
import { jsonCodec } from './codec.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { jsonEqual, toJsonValue } from './json.js';
import { consoleLogger, type StoreLogger } from './logger.js';
import type {
  DeleteOptions,
  DeleteResult,
  KubeObject,
  ListOptions,
  ListResult,
  ResourceName,
  Store,
  UpdateOptions,
  ValueCodec,
  WatchHandlers,
  WatchOptions,
  Watcher,
  WriteOptions,
} from './types.js';
import { WatchHub } from './watch-hub.js';

export interface ObjectStoreOptions {
  /** Turns objects into values at rest (object table and change log). Default: JSON. */
  codec?: ValueCodec;
  logger?: StoreLogger;
  /** Change-log retention: an event is dropped only when it is both older and outside the newest count. */
  retention?: Partial<Retention>;
  /** How often this process compacts the change log; 0 = only when compact() is called. Default 60 s. */
  compactionIntervalMs?: number;
  /** How often watchers get onProgress (and a shared backend's log is polled). Default 2 s. */
  progressIntervalMs?: number;
  /** Recent events kept in memory to start watches without reading the log. Default 4096. */
  watchCacheSize?: number;
}

export const defaultRetention: Retention = { minEvents: 50_000, minAgeMs: 10 * 60_000 };

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** What a write computed; `object` is the result returned to the caller and stored/logged. */
type Plan =
  | { op: 'none'; object: KubeObject }
  | { op: 'put'; type: 'ADDED' | 'MODIFIED'; object: KubeObject }
  | { op: 'delete'; object: KubeObject };

/** `leases.coordination.k8s.io` → ['leases', 'coordination.k8s.io'], as error messages want them. */
function splitResource(resource: ResourceName): [string, string] {
  const dot = resource.indexOf('.');
  return dot < 0 ? [resource, ''] : [resource.slice(0, dot), resource.slice(dot + 1)];
}

/** RFC 3339 with second precision, like Kubernetes' metav1.Time. */
function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Anything outside metadata and status differs: the change that bumps generation. */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'metadata' || key === 'status') continue;
    if (!jsonEqual(a[key], b[key])) return true;
  }
  return false;
}

/**
 * What a status write reads of its input — name, resourceVersion, managedFields and status — normalised
 * as toJsonValue would, without copying the rest (a ManifestWork's manifests, a summary's spec).
 */
function statusPart(obj: KubeObject): KubeObject {
  const meta = obj.metadata;
  return toJsonValue({
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      resourceVersion: meta.resourceVersion,
      managedFields: meta.managedFields,
    },
    status: obj['status'],
  });
}

/** Fields a client can never change through update. */
const KEPT_ON_UPDATE = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'namespace',
];

export class ObjectStore implements Store {
  readonly backend: Backend['kind'];
  private readonly codec: ValueCodec;
  private readonly retention: Retention;
  private readonly compactionTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly storage: Backend,
    private readonly hub: WatchHub,
    private readonly logger: StoreLogger,
    options: ObjectStoreOptions,
  ) {
    this.backend = storage.kind;
    this.codec = options.codec ?? jsonCodec;
    this.retention = { ...defaultRetention, ...options.retention };
    const every = options.compactionIntervalMs ?? 60_000;
    if (every > 0) {
      this.compactionTimer = setInterval(() => {
        this.compact().catch((err: unknown) => this.logger.warn({ err }, 'store: compaction failed'));
      }, every);
      this.compactionTimer.unref();
    }
  }

  /** Wraps an opened backend; takes ownership (close() closes it). */
  static async open(storage: Backend, options: ObjectStoreOptions = {}): Promise<ObjectStore> {
    const codec = options.codec ?? jsonCodec;
    const logger = options.logger ?? consoleLogger;
    const [head, compactedRv] = await Promise.all([storage.currentRv(), storage.compactedRv()]);
    const hub = new WatchHub({
      head,
      compactedRv,
      backend: storage,
      decode: (resource, value) => codec.decode(resource, value),
      ringSize: options.watchCacheSize ?? 4096,
      progressIntervalMs: options.progressIntervalMs ?? 2000,
      logger,
    });
    storage.onWake(() => void hub.requestFetch());
    // Writes that landed between reading the head and subscribing to wake-ups.
    if (storage.shared) void hub.requestFetch();
    return new ObjectStore(storage, hub, logger, options);
  }

  private keyOf(resource: ResourceName, obj: KubeObject): ObjectKey {
    const name = (obj as Partial<KubeObject>).metadata?.name;
    if (typeof name !== 'string' || name === '') throw errors.badRequest('metadata.name is required');
    return { resource, namespace: obj.metadata.namespace ?? '', name };
  }

  private decode(resource: ResourceName, value: string): KubeObject {
    return this.codec.decode(resource, value);
  }

  private notFound(key: ObjectKey) {
    const [resource, group] = splitResource(key.resource);
    return errors.notFound(resource, group, key.name);
  }

  private conflict(key: ObjectKey, why?: string) {
    const [resource, group] = splitResource(key.resource);
    return errors.conflict(resource, group, key.name, why);
  }

  /**
   * Runs `plan` on the current object under the write lock and stores its outcome; with dryRun it
   * reads without locking and stores nothing. `rv` is the version the write gets (undefined on dry run).
   */
  private async execute(
    key: ObjectKey,
    plan: (current: KubeObject | undefined, rv: string | undefined) => Plan,
    dryRun: boolean | undefined,
  ): Promise<Plan> {
    if (this.closed) throw errors.serviceUnavailable('the store is closed');
    if (dryRun) {
      const value = await this.storage.get(key);
      return plan(value === undefined ? undefined : this.decode(key.resource, value), undefined);
    }
    let result!: Plan;
    await this.storage.write(
      key,
      (value, nextRv): Mutation => {
        result = plan(value === undefined ? undefined : this.decode(key.resource, value), String(nextRv));
        if (result.op === 'none') return { op: 'none' };
        const encoded = this.codec.encode(key.resource, result.object);
        return result.op === 'put'
          ? { op: 'put', type: result.type, value: encoded }
          : { op: 'delete', value: encoded };
      },
      (record) => this.hub.committed(record, result.object, this.codec.storesPlainJson?.(key.resource)),
    );
    return result;
  }

  async get(resource: ResourceName, namespace: string, name: string): Promise<KubeObject | undefined> {
    const value = await this.storage.get({ resource, namespace, name });
    return value === undefined ? undefined : this.decode(resource, value);
  }

  async list(resource: ResourceName, options: ListOptions = {}): Promise<ListResult> {
    const token = options.continue ? decodeContinue(options.continue) : undefined;
    if (token && token.rv < (await this.storage.compactedRv())) throw errors.gone(EXPIRED_CONTINUE);
    const predicate = options.predicate;
    const query: ScanQuery = {
      resource,
      limit: options.limit && options.limit > 0 ? Math.floor(options.limit) : 0,
      // Kubernetes counts the remainder only when no selector filters the list.
      countRemaining: predicate === undefined,
    };
    if (options.namespace !== undefined) query.namespace = options.namespace;
    if (token) query.after = { namespace: token.namespace, name: token.name };
    const scanned = await this.storage.scan(query, (row) => {
      const obj = this.decode(resource, row.value);
      return predicate === undefined || predicate(obj) ? obj : undefined;
    });
    const rv = token ? token.rv : scanned.rv;
    const result: ListResult = { items: scanned.items, resourceVersion: String(rv) };
    if (scanned.more && scanned.lastKey) {
      result.continue = encodeContinue({ rv, ...scanned.lastKey });
      if (scanned.remaining !== undefined) result.remainingItemCount = scanned.remaining;
    }
    return result;
  }

  async create(resource: ResourceName, obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const key = this.keyOf(resource, obj);
    const input = toJsonValue(obj);
    const meta = input.metadata;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    meta.uid = options.serverUid && typeof meta.uid === 'string' && meta.uid !== '' ? meta.uid : randomUUID();
    meta.creationTimestamp = now();
    meta.generation = 1;
    const plan = await this.execute(
      key,
      (current, rv) => {
        if (current) {
          const [res, group] = splitResource(resource);
          throw errors.alreadyExists(res, group, key.name);
        }
        if (rv !== undefined) meta.resourceVersion = rv;
        return { op: 'put', type: 'ADDED', object: input };
      },
      options.dryRun,
    );
    return plan.object;
  }

  async update(resource: ResourceName, obj: KubeObject, options: UpdateOptions = {}): Promise<KubeObject> {
    const key = this.keyOf(resource, obj);
    const statusWrite = options.subresource === 'status';
    const normalise = (): KubeObject => (statusWrite ? statusPart(obj) : toJsonValue(obj));
    // Normalised before the write starts; should a backend run the plan again, that run gets a fresh copy.
    let unused: KubeObject | undefined = normalise();
    const plan = await this.execute(
      key,
      (current, rv): Plan => {
        // This run's own copy of the input: the result is built in it, not in a clone of it.
        const input = unused ?? normalise();
        unused = undefined;
        if (!current) throw this.notFound(key);
        const stored = current.metadata;
        const precondition = input.metadata.resourceVersion;
        if (precondition !== undefined && precondition !== '' && precondition !== stored.resourceVersion) {
          throw this.conflict(key);
        }
        let next: KubeObject;
        let unchanged = false;
        if (statusWrite) {
          unchanged =
            jsonEqual(input.status, current.status) &&
            (input.metadata.managedFields === undefined ||
              jsonEqual(input.metadata.managedFields, current.metadata.managedFields));
          // `current` was decoded for this call alone: edited in place rather than copied.
          next = current;
          if (input.status !== undefined) next.status = input.status;
          else delete next.status;
          // Like Kubernetes: managedFields of a status write track the status fields it set.
          if (input.metadata.managedFields !== undefined)
            next.metadata.managedFields = input.metadata.managedFields;
        } else {
          next = input;
          const meta = next.metadata;
          for (const field of KEPT_ON_UPDATE) {
            if (stored[field] === undefined) Reflect.deleteProperty(meta, field);
            else meta[field] = stored[field];
          }
          if (options.statusSubresource) {
            if (current.status !== undefined) next.status = current.status;
            else delete next.status;
          }
          meta.generation = (stored.generation ?? 1) + (specChanged(current, next) ? 1 : 0);
        }
        next.metadata.resourceVersion = stored.resourceVersion;
        if (
          next.metadata.deletionTimestamp !== undefined &&
          (next.metadata.finalizers ?? []).length === 0 &&
          (current.metadata.finalizers ?? []).length > 0
        ) {
          // The last finalizer is gone from an object being deleted: the deletion completes now. (An
          // object marked without finalizers — a Namespace held by spec.finalizers — is removed by delete.)
          if (rv !== undefined) next.metadata.resourceVersion = rv;
          return { op: 'delete', object: next };
        }
        // Nothing changed: no write, no event, the stored resourceVersion stays.
        if (statusWrite ? unchanged : jsonEqual(next, current)) return { op: 'none', object: current };
        if (rv !== undefined) next.metadata.resourceVersion = rv;
        return { op: 'put', type: 'MODIFIED', object: next };
      },
      options.dryRun,
    );
    return plan.object;
  }

  async delete(
    resource: ResourceName,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): Promise<DeleteResult> {
    const key: ObjectKey = { resource, namespace, name };
    const preconditions = options.preconditions;
    const plan = await this.execute(
      key,
      (current, rv): Plan => {
        if (!current) throw this.notFound(key);
        const meta = current.metadata;
        if (preconditions?.uid !== undefined && preconditions.uid !== meta.uid) {
          throw this.conflict(
            key,
            `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid ?? ''}`,
          );
        }
        if (
          preconditions?.resourceVersion !== undefined &&
          preconditions.resourceVersion !== meta.resourceVersion
        ) {
          throw this.conflict(
            key,
            `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ` +
              `ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
          );
        }
        if (
          (meta.finalizers ?? []).length > 0 ||
          (options.markOnly && meta.deletionTimestamp === undefined)
        ) {
          // Already being deleted: finalizers still hold it, nothing to write.
          if (meta.deletionTimestamp !== undefined) return { op: 'none', object: current };
          const grace = options.markOnly ? (options.gracePeriodSeconds ?? 0) : 0;
          meta.deletionTimestamp =
            grace > 0 ? new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d+Z$/, 'Z') : now();
          meta.deletionGracePeriodSeconds = grace;
          // Kubernetes bumps generation when it marks an object for deletion.
          meta.generation = (meta.generation ?? 0) + 1;
          if (rv !== undefined) meta.resourceVersion = rv;
          return { op: 'put', type: 'MODIFIED', object: current };
        }
        if (rv !== undefined) meta.resourceVersion = rv;
        return { op: 'delete', object: current };
      },
      options.dryRun,
    );
    return { object: plan.object, deleted: plan.op === 'delete' };
  }

  watch(options: WatchOptions, handlers: WatchHandlers): Watcher {
    return this.hub.watch(options, handlers);
  }

  async currentResourceVersion(): Promise<string> {
    return String(await this.storage.currentRv());
  }

  /**
   * Rewrites one resource's values at rest (objects and change log) without new versions or events:
   * `fleethub hub rotate-encryption-key` re-encrypts Secrets under the new key through it.
   */
  async rewriteAll(resource: ResourceName, fn: (stored: string) => string): Promise<number> {
    return this.storage.rewriteValues(resource, fn);
  }

  /** Drops change-log entries outside the retention; returns the newest dropped version. */
  async compact(): Promise<number> {
    const compacted = await this.storage.compact(this.retention);
    this.hub.noteCompacted(compacted);
    return compacted;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer) clearInterval(this.compactionTimer);
    this.hub.close();
    await this.storage.close();
  }
}
