// What every fake controller is handed: the store, the clock, resolved options and the per-cluster
// work queue, plus the create/update/delete helpers that keep defaults, preconditions and 404s uniform.
import type { KubeObject, Store } from '../../store/types.js';
import { jsonEqual } from '../../store/json.js';
import { isApiError } from '../../util/errors.js';
import type { SimClock } from './clock.js';
import { formatTime, isTerminal, nameOf, nsOf, spec, type Json } from './util.js';

/** Where a kind is stored, for following owner references. */
export interface KindInfo {
  resource: string;
  namespaced: boolean;
}

export interface SimControllerOptions {
  /**
   * Applies the API server's create-time defaults to an object a controller creates (the kind
   * registry's defaulting); uid, creationTimestamp and resourceVersion still come from the store.
   */
  prepare?: (resource: string, obj: KubeObject) => KubeObject | Promise<KubeObject>;
  /** Bound pod → Running: a fixed part plus a random part (KWOK's "fast" stage). Defaults 0 and 1000 ms. */
  podStartDelayMs?: number;
  podStartJitterMs?: number;
  /**
   * How long a run-once pod (restartPolicy Never or OnFailure: Jobs, helm test hooks) runs before it
   * exits 0. Default 1000 ms; the pod annotation `sim.fleethub.io/run-seconds` overrides it (negative:
   * runs forever) and `sim.fleethub.io/exit-code` makes it fail.
   */
  runOnceDurationMs?: number;
  /** Cap on a deleted pod's grace period before the fake kubelet removes it. Default 1000 ms. */
  maxGracePeriodMs?: number;
  /** Node Lease renewal (kube-node-lease). Default 40 s. */
  leaseRenewIntervalMs?: number;
  /** Node status heartbeat (conditions' lastHeartbeatTime). Default 5 min, the kubelet's own report period. */
  nodeStatusIntervalMs?: number;
  /** Node lease duration written to Lease.spec.leaseDurationSeconds. Default 40. */
  leaseDurationSeconds?: number;
  /** Pod CIDR carved into /24s for nodes that come without spec.podCIDR. Default 10.42.0.0/16 (k3s). */
  clusterCidr?: string;
  /** First retry delay of a failed sync; doubles up to 10 s. Default 100 ms. */
  retryBaseDelayMs?: number;
  /** Controller-deleted pods on a node are marked (Terminating) and removed by the kubelet. Default true. */
  gracefulPodDeletion?: boolean;
  /** Also maintain discovery.k8s.io EndpointSlices next to Endpoints. Default true. */
  endpointSlices?: boolean;
  /** Resources the garbage collector searches for dependents. Default: the built-ins that carry owners. */
  gcResources?: readonly string[];
  /** Maps an owner reference's apiVersion/kind to its resource (CRDs); built-ins are known. */
  resolveKind?: (apiVersion: string, kind: string) => KindInfo | undefined;
  /**
   * How long a pod's change waits before its owner, PDBs and Services are synced: a burst of pod events
   * (a 500-replica rollout) then costs one owner sync, not one per pod. Default 50 ms.
   */
  podFanoutDelayMs?: number;
  /** Sync failures (other than conflicts) are reported here. Default: silent. */
  onError?: (key: string, error: unknown) => void;
}

export type ResolvedOptions = Required<Omit<SimControllerOptions, 'prepare' | 'resolveKind' | 'onError'>> &
  Pick<SimControllerOptions, 'prepare' | 'resolveKind' | 'onError'>;

export interface SimContext {
  readonly store: Store;
  readonly clock: SimClock;
  readonly options: ResolvedOptions;
  /** Marks a key for a sync now, or after `delayMs`. */
  enqueue(key: string, delayMs?: number): void;
  /** Owners the GC waits on for foreground deletion: dependents' events re-queue them. */
  readonly foregroundOwners: Set<string>;
  /** When the kubelet first saw each terminating pod (by uid), for its grace period. */
  readonly terminatingSince: Map<string, number>;
  /** Per-cluster state of the node heartbeat. */
  nodeStatusAt: number;
}

export function nowMs(ctx: SimContext): number {
  return ctx.clock.now();
}

export function nowText(ctx: SimContext): string {
  return formatTime(ctx.clock.now());
}

export function isCode(e: unknown, ...codes: number[]): boolean {
  return isApiError(e) && codes.includes(e.code);
}

/**
 * Creates with the API server's defaults; a random-suffixed name that collides is retried. Nothing is
 * created in a terminating namespace (the API server would refuse it): undefined then.
 */
export async function createObject(
  ctx: SimContext,
  resource: string,
  obj: KubeObject,
  rename?: () => string,
): Promise<KubeObject | undefined> {
  const ns = obj.metadata.namespace;
  if (ns && (await ctx.store.get('namespaces', '', ns))?.metadata.deletionTimestamp) return undefined;
  for (let attempt = 0; ; attempt++) {
    const prepared = ctx.options.prepare ? await ctx.options.prepare(resource, obj) : obj;
    try {
      return await ctx.store.create(resource, prepared);
    } catch (e) {
      if (!isCode(e, 409) || !rename || attempt > 2) throw e;
      obj = { ...obj, metadata: { ...obj.metadata, name: rename() } };
    }
  }
}

/** Writes `next` as the object's status unless it is already that; a stale object fails with 409. */
export async function writeStatus(
  ctx: SimContext,
  resource: string,
  obj: KubeObject,
  next: Json,
): Promise<KubeObject> {
  if (jsonEqual(obj['status'], next)) return obj;
  return ctx.store.update(resource, { ...obj, status: next }, { subresource: 'status' });
}

/** Deletes by uid precondition; gone already (404) or replaced (409) counts as done. */
export async function deleteObject(ctx: SimContext, resource: string, obj: KubeObject): Promise<void> {
  const uid = obj.metadata.uid;
  try {
    await ctx.store.delete(resource, nsOf(obj), nameOf(obj), uid ? { preconditions: { uid } } : {});
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }
}

/**
 * Deletes a pod the way a controller's DELETE does: a running pod on a node is only marked
 * (Terminating) and the fake kubelet removes it; an unbound or finished pod goes at once.
 */
export async function deletePod(ctx: SimContext, pod: KubeObject): Promise<void> {
  if (pod.metadata.deletionTimestamp !== undefined) return;
  const bound = typeof spec(pod)['nodeName'] === 'string';
  if (!ctx.options.gracefulPodDeletion || !bound || isTerminal(pod)) {
    await deleteObject(ctx, 'pods', pod);
    return;
  }
  const uid = pod.metadata.uid;
  try {
    const grace = spec(pod)['terminationGracePeriodSeconds'];
    await ctx.store.delete('pods', nsOf(pod), nameOf(pod), {
      markOnly: true,
      gracePeriodSeconds: typeof grace === 'number' ? grace : 30,
      ...(uid ? { preconditions: { uid } } : {}),
    });
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }
}

/** Label maps merged left to right (undefined entries skipped). */
export function mergeLabels(...maps: (Record<string, string> | undefined)[]): Record<string, string> {
  return Object.assign({}, ...maps.filter((m) => m !== undefined)) as Record<string, string>;
}
