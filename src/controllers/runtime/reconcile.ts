// The reconcile contract: a request names one object by key only, and the result says when to look
// again. Throwing retries with backoff; a TerminalError is recorded and not retried.
import type { KubeObject } from '../../store/types.js';
import type { Logger } from './logger.js';

/** Which object to reconcile. `namespace` is undefined (or '') for cluster-scoped kinds. */
export interface ReconcileRequest {
  namespace?: string;
  name: string;
}

/** `{}` or nothing: done until something changes. `requeueAfterMs`: look again after that long. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** Read access to the informer caches the manager runs (only resources some controller watches). */
export interface CacheReader {
  get(resource: string, namespace: string, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string): KubeObject[];
  /**
   * Objects whose label `key` is `value` (of one namespace when given), sorted like list(), from an index
   * built on first use: a cluster's objects without scanning the fleet's.
   */
  byLabel(resource: string, key: string, value: string, namespace?: string): KubeObject[];
}

export interface ReconcileContext {
  /** Aborted when the controller stops (leadership lost, shutdown) or the reconcile times out. */
  signal: AbortSignal;
  /** Bound to controller, request and reconcileId. */
  logger: Logger;
  controller: string;
  /** Unique per run, for correlating log lines. */
  reconcileId: string;
  /** Possibly stale reads; write with resourceVersion preconditions. */
  cache: CacheReader;
}

export interface Reconciler {
  // void: a reconcile that is simply done may end without a return statement.
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type
  reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult | void>;
}

/** A failure retrying cannot fix (bad spec, conflicting ownership): logged and counted, not requeued. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(e: unknown): e is TerminalError {
  return e instanceof TerminalError;
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's key format). */
export function requestKey(req: ReconcileRequest): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function parseRequestKey(key: string): ReconcileRequest {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
