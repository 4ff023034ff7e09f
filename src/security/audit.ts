// The audit log: one AuditEvent object per mutating request and per Secret read, queued in memory and
// written to the store in the background, so a request never waits for (or fails because of) auditing.
import { randomBytes } from 'node:crypto';
import type { KubeObject, Store } from '../store/types.js';
import { isApiError } from '../util/errors.js';
import type { UserInfo } from './user.js';

export const AUDIT_RESOURCE = 'auditevents.fleet.fleethub.io';
export const AUDIT_API_VERSION = 'fleet.fleethub.io/v1alpha1';
export const AUDIT_KIND = 'AuditEvent';

/** `spec` of an AuditEvent (cluster-scoped, read-only). Never holds request or response bodies. */
export interface AuditEventSpec {
  /** RFC 3339 with milliseconds, UTC. */
  time: string;
  user: { username: string; uid?: string; groups: string[] };
  verb: string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  responseCode: number;
  /** Path plus only the well-known query parameters (see `sanitizeRequestURI`). */
  requestURI: string;
  sourceIP?: string;
  userAgent?: string;
  /** Decisions made outside a request (CSR approval): `authorization.k8s.io/decision`, `…/reason`. */
  annotations?: Record<string, string>;
}

export interface AuditEventObject extends KubeObject {
  spec: AuditEventSpec;
}

export interface AuditInput {
  /** When the request arrived; default now. */
  time?: Date;
  user: UserInfo;
  verb: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  responseCode: number;
  requestURI: string;
  sourceIP?: string;
  userAgent?: string;
  /** Key/value notes on the event, as in Kubernetes audit events (decision and reason of a CSR). */
  annotations?: Record<string, string>;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** Creates that change nothing: answering "may I?" / "who am I?" would otherwise flood the log. */
const REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
]);

/**
 * Heartbeats: a Lease renewal moves a time stamp, every few seconds per agent and controller replica. At
 * fleet scale they would be most of the log (1,000 agents: 5.8 million a day), as Kubernetes' own audit
 * policies recognise by dropping them. Creating or deleting a Lease is still recorded.
 */
function isHeartbeat(verb: string, group: string, resource: string): boolean {
  return group === 'coordination.k8s.io' && resource === 'leases' && (verb === 'update' || verb === 'patch');
}

/**
 * Whether a request is audited: every mutating request (review APIs and Lease renewals aside) and every
 * read of a Secret.
 */
export function shouldAudit(attrs: {
  verb: string;
  apiGroup?: string;
  resource?: string;
  resourceRequest?: boolean;
}): boolean {
  if (attrs.resourceRequest === false) return false;
  const group = attrs.apiGroup ?? '';
  const resource = attrs.resource ?? '';
  if (group === '' && resource === 'secrets') return true;
  return (
    MUTATING.has(attrs.verb) &&
    !REVIEWS.has(`${group}/${resource}`) &&
    !isHeartbeat(attrs.verb, group, resource)
  );
}

/** Query parameters kept in requestURI; anything else (a value that could carry a secret) is removed. */
const KEPT_PARAMS = new Set([
  'allowWatchBookmarks',
  'continue',
  'dryRun',
  'fieldManager',
  'fieldSelector',
  'fieldValidation',
  'force',
  'gracePeriodSeconds',
  'labelSelector',
  'limit',
  'orphanDependents',
  'pretty',
  'propagationPolicy',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
]);
const MAX_URI = 2048;
const MAX_USER_AGENT = 256;

/** The request URI with unknown query parameters dropped and its length bounded. */
export function sanitizeRequestURI(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri, 'http://hub.invalid');
  } catch {
    return '';
  }
  const kept = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (KEPT_PARAMS.has(k)) kept.append(k, v);
  const query = kept.toString();
  const out = query ? `${url.pathname}?${query}` : url.pathname;
  return out.length > MAX_URI ? out.slice(0, MAX_URI) : out;
}

export interface AuditLogOptions {
  /** Events waiting to be written; beyond it new events are dropped (and counted). Default 10000. */
  maxQueue?: number;
  /** Events written per pass before yielding. Default 100. */
  batchSize?: number;
  /** Delay before writing a partial batch. Default 200 ms. */
  flushIntervalMs?: number;
  /** Writes to try per event before dropping it. Default 3. */
  maxAttempts?: number;
  /** Told about failed writes and drops (log them); never throws into the request path. */
  onError?: (error: unknown, event: AuditEventObject | undefined) => void;
}

interface Pending {
  obj: AuditEventObject;
  attempts: number;
}

export class AuditLog {
  private readonly queue: Pending[] = [];
  private readonly maxQueue: number;
  private readonly batchSize: number;
  private readonly interval: number;
  private readonly maxAttempts: number;
  private readonly onError: (error: unknown, event: AuditEventObject | undefined) => void;
  private timer: NodeJS.Timeout | undefined;
  private timerIsSoon = false;
  private running: Promise<void> | undefined;
  private closed = false;
  private droppedCount = 0;
  private seq = 0;

  constructor(
    private readonly store: Store,
    options: AuditLogOptions = {},
  ) {
    this.maxQueue = options.maxQueue ?? 10_000;
    this.batchSize = options.batchSize ?? 100;
    this.interval = options.flushIntervalMs ?? 200;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.onError = options.onError ?? (() => {});
  }

  /** Events lost because the queue was full, the log was closed, or writes kept failing. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Events waiting to be written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues one event and returns at once. */
  record(input: AuditInput): void {
    if (this.closed || this.queue.length >= this.maxQueue) {
      this.droppedCount++;
      this.onError(new Error(this.closed ? 'audit log is closed' : 'audit queue is full'), undefined);
      return;
    }
    this.queue.push({ obj: this.toObject(input), attempts: 0 });
    this.schedule();
  }

  /** Resolves once everything queued so far is written (or dropped after failing). */
  async flush(): Promise<void> {
    this.clearTimer();
    while (this.queue.length > 0 || this.running) await this.drainNow();
  }

  /** Stops accepting events and writes what is queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    this.clearTimer();
  }

  private toObject(input: AuditInput): AuditEventObject {
    const time = input.time ?? new Date();
    const user: AuditEventSpec['user'] = { username: input.user.username, groups: [...input.user.groups] };
    if (input.user.uid) user.uid = input.user.uid;
    const spec: AuditEventSpec = {
      time: time.toISOString(),
      user,
      verb: input.verb,
      apiGroup: input.apiGroup ?? '',
      resource: input.resource ?? '',
      responseCode: input.responseCode,
      requestURI: sanitizeRequestURI(input.requestURI),
    };
    if (input.subresource) spec.subresource = input.subresource;
    if (input.namespace) spec.namespace = input.namespace;
    if (input.name) spec.name = input.name;
    if (input.sourceIP) spec.sourceIP = input.sourceIP;
    if (input.userAgent) spec.userAgent = input.userAgent.slice(0, MAX_USER_AGENT);
    if (input.annotations && Object.keys(input.annotations).length > 0)
      spec.annotations = { ...input.annotations };
    return {
      apiVersion: AUDIT_API_VERSION,
      kind: AUDIT_KIND,
      metadata: { name: this.eventName(time) },
      spec,
    };
  }

  /** `<ms since epoch, 13 digits>-<6-digit sequence>-<random>`: sorts by time, unique across replicas. */
  private eventName(time: Date): string {
    this.seq = (this.seq + 1) % 1_000_000;
    const ms = String(time.getTime()).padStart(13, '0');
    return `${ms}-${String(this.seq).padStart(6, '0')}-${randomBytes(3).toString('hex')}`;
  }

  /** Starts a pass soon: right after the current request's work when a batch is full, else after the interval. */
  private schedule(): void {
    if (this.running) return; // the running pass picks new events up
    const soon = this.queue.length >= this.batchSize;
    if (this.timer && (this.timerIsSoon || !soon)) return;
    this.clearTimer();
    this.timerIsSoon = soon;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.drainNow();
      },
      soon ? 0 : this.interval,
    );
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private drainNow(): Promise<void> {
    if (!this.running) {
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (this.queue.length > 0 && !this.closed) this.schedule();
      });
    }
    return this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      // The batch's writes at once: a store that commits in groups (SQLite) writes them in one commit.
      const results = await Promise.allSettled(
        batch.map((item) => this.store.create(AUDIT_RESOURCE, item.obj)),
      );
      const retry: Pending[] = [];
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        const item = batch[i]!;
        const e: unknown = result.reason;
        item.attempts++;
        if (isApiError(e) && e.code === 409)
          item.obj.metadata.name = this.eventName(new Date(item.obj.spec.time));
        if (item.attempts < this.maxAttempts) retry.push(item);
        else this.droppedCount++;
        this.onError(e, item.obj);
      });
      if (retry.length > 0) {
        // Failed events go back to the front, in order; the next pass (scheduled by drainNow) retries them.
        this.queue.unshift(...retry);
        return;
      }
      // Let requests run between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
