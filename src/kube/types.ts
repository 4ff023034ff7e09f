// The contract of fleethub's Kubernetes API client (src/kube/client.ts): what the agent uses to talk to
// the hub and to its managed cluster. Real HTTP(S) to a real API server; errors carry the Status.
import type { KubeObject } from '../store/types.js';

/** A served resource, as discovery names it. */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural, e.g. `deployments`. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; the server answers 410 Gone (as an ERROR event or status) when too old. */
  resourceVersion: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout; the watch then ends with reason 'closed'. */
  timeoutSeconds?: number;
}

/** How a watch ended. `expired`: the version is too old (410), relist. `closed`: ended normally. */
export interface WatchEnd {
  reason: 'closed' | 'expired' | 'error';
  error?: Error;
}

export interface WatchHandle {
  stop(): void;
  /** Resolves once when the stream ends for any reason (including stop()). */
  readonly done: Promise<WatchEnd>;
}

export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic';

/** An API answer that is not 2xx: the Status the server sent (or one made from the response). */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly status?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

/** What a connection is made from: a kubeconfig's current context, or the parts. */
export interface KubeConnection {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  /** Skip server certificate verification (only for `insecure-skip-tls-verify` kubeconfigs). */
  insecureSkipTlsVerify?: boolean;
  /** Per-request timeout for non-watch requests, default 30 s. */
  timeoutMs?: number;
}

export interface KubeClientApi {
  /** The resource serving `apiVersion`/`kind`, from discovery (cached; refreshed once on a miss). */
  resourceFor(apiVersion: string, kind: string): Promise<ResourceRef>;
  /** Every group/version and group/version/Kind served, as helm's --api-versions takes them. */
  apiVersions(): Promise<string[]>;
  /** /version's gitVersion. */
  serverVersion(): Promise<string>;
  get(ref: ResourceRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined>;
  list(ref: ResourceRef, options?: ListOptions): Promise<ListResult>;
  watch(
    ref: ResourceRef,
    options: WatchOptions,
    onEvent: (type: WatchEventType, obj: KubeObject) => void,
  ): WatchHandle;
  create(ref: ResourceRef, obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** PUT; the object's resourceVersion, when set, is a precondition. `subresource: 'status'` for status. */
  update(
    ref: ResourceRef,
    obj: KubeObject,
    options?: WriteOptions & { subresource?: string },
  ): Promise<KubeObject>;
  patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions & { subresource?: string },
  ): Promise<KubeObject>;
  /** Server-side apply (PATCH application/apply-patch+yaml) of a full object. */
  apply(ref: ResourceRef, obj: KubeObject, options: ApplyOptions): Promise<KubeObject>;
  /** true if deleted (or deletion started), false if it was not there. */
  delete(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): Promise<boolean>;
  /** Ends keep-alive connections and running watches. */
  close(): void;
}
