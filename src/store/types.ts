// The store contract shared by the memory, SQLite and PostgreSQL implementations: Kubernetes object
// semantics (resourceVersion, generation, finalizers, watch from a version) over one interface.

/** A Kubernetes object as JSON. `metadata` is typed; the rest is kind-specific. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

/**
 * Storage identity of a resource: `configmaps`, `leases.coordination.k8s.io`. One name per served
 * resource, independent of version. Cluster-scoped objects are stored with namespace ''.
 */
export type ResourceName = string;

export interface ListOptions {
  /** Only objects in this namespace; undefined = every namespace (and cluster-scoped objects). */
  namespace?: string;
  /** Applied before `limit` counts, so a page holds `limit` matching objects. */
  predicate?: (obj: KubeObject) => boolean;
  /** Page size; 0 or undefined = everything. */
  limit?: number;
  /** Opaque token from a previous page's `continue`. Bad token → 400; compacted → 410 Expired. */
  continue?: string;
}

export interface ListResult {
  /** Sorted by namespace, then name. */
  items: KubeObject[];
  /** The store's resourceVersion at the time of the list (first page's, for continued lists). */
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  /** Validate and compute the result, store nothing, emit no event. */
  dryRun?: boolean;
  /**
   * Create only: keep the uid the API server assigned before defaulting (a Job's selector names it).
   * Everyone else's uid is replaced, so clients can never choose one.
   */
  serverUid?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /**
   * 'status': only `.status` of the given object is taken, the rest of the stored object is kept,
   * and generation never changes. Undefined: `.status` of the given object is ignored when the kind
   * has a status subresource (`statusSubresource` true), taken otherwise.
   */
  subresource?: 'status';
  statusSubresource?: boolean;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * Mark for deletion (set deletionTimestamp, keep the object) even without metadata finalizers:
   * a Namespace is kept by its spec.finalizers until its content is gone. The object is then removed
   * by a later delete once nothing holds it.
   */
  markOnly?: boolean;
  /** With markOnly: a graceful deletion (pods) — deletionTimestamp this many seconds ahead. */
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  /** The object as deleted (deleted: true) or as marked for deletion (deleted: false). */
  object: KubeObject;
  /** false when finalizers keep the object: it now carries `deletionTimestamp`. */
  deleted: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  resource: ResourceName;
  object: KubeObject;
  /** Equal to object.metadata.resourceVersion, as a number for ordering. */
  resourceVersion: number;
  /**
   * `object` as JSON text, when the store has it at hand (a write of this process to a resource stored
   * as plain JSON): a watch sends it as it is instead of serialising the object again.
   */
  json?: string;
}

export interface WatchOptions {
  /** Only this resource; undefined = every resource (controllers, audit). */
  resource?: ResourceName;
  namespace?: string;
  /**
   * Deliver every event with a version greater than this, in order, then live events.
   * Undefined or '0' = live events only (callers list first). Compacted → onError(410 Expired).
   */
  resourceVersion?: string;
  /**
   * A hint that the watcher selects objects whose label `key` equals `value` (it still filters itself):
   * the store may skip events that cannot concern it, those whose object neither has nor had that value.
   * Fleets of agents each watch their own slice of one namespace; this keeps fan-out proportional.
   */
  labelEquals?: { key: string; value: string };
}

export interface Watcher {
  stop(): void;
}

export interface WatchHandlers {
  onEvent(event: WatchEvent): void;
  /** A fatal watch error (e.g. 410 Expired); the watch is stopped. */
  onError(error: Error): void;
  /** Progress notification: the store has seen everything up to `resourceVersion` (for bookmarks). */
  onProgress?(resourceVersion: string): void;
}

export interface Store {
  readonly backend: 'memory' | 'sqlite' | 'postgres';
  get(resource: ResourceName, namespace: string, name: string): Promise<KubeObject | undefined>;
  list(resource: ResourceName, options?: ListOptions): Promise<ListResult>;
  /**
   * Stores a new object: sets uid, creationTimestamp, generation 1, resourceVersion. Fails with
   * 409 AlreadyExists. The caller has already set name, namespace, defaults and validated.
   */
  create(resource: ResourceName, obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /**
   * Replaces an object. `metadata.resourceVersion`, when set, is a precondition (409 Conflict).
   * uid and creationTimestamp are kept; generation bumps only when anything outside metadata and
   * status changed. An object with deletionTimestamp whose finalizers become empty is deleted.
   */
  update(resource: ResourceName, obj: KubeObject, options?: UpdateOptions): Promise<KubeObject>;
  /** Deletes, or with finalizers sets deletionTimestamp. 404 when absent; 409 on failed preconditions. */
  delete(
    resource: ResourceName,
    namespace: string,
    name: string,
    options?: DeleteOptions,
  ): Promise<DeleteResult>;
  watch(options: WatchOptions, handlers: WatchHandlers): Watcher;
  /** The newest resourceVersion this store has committed. */
  currentResourceVersion(): Promise<string>;
  close(): Promise<void>;
}

/** Turns stored objects into the bytes at rest and back: encryption of Secrets plugs in here. */
export interface ValueCodec {
  encode(resource: ResourceName, obj: KubeObject): string;
  decode(resource: ResourceName, stored: string): KubeObject;
  /**
   * Whether `encode` stores this resource as its plain JSON text. The watch fan-out then parses the
   * stored text for its own copy of a written object, which costs half what a structured clone does.
   */
  storesPlainJson?(resource: ResourceName): boolean;
}
