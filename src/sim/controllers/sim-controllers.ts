// The fake controller-manager, scheduler and kubelet of one simulated cluster: one store watch feeds one
// serial queue of level-triggered sync keys; state is read from the store, delays ride the shared clock.
import type { KubeObject, Store, WatchEvent, Watcher } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { systemClock, type Cancel, type SimClock } from './clock.js';
import type { ResolvedOptions, SimContext, SimControllerOptions } from './context.js';
import { DAEMONSETS, syncDaemonSet } from './daemonset.js';
import { DEPLOYMENTS, syncDeployment } from './deployment.js';
import { PDBS, syncDisruptionBudgets } from './disruption.js';
import { ENDPOINTSLICES, syncService } from './endpoints.js';
import {
  collectDependent,
  DEFAULT_GC_RESOURCES,
  finalizeOwner,
  FOREGROUND,
  ORPHAN,
  ownerGone,
  resolveKind,
} from './gc.js';
import { JOBS, syncJob } from './job.js';
import { deletePodsOfNode, podKey, syncPod } from './kubelet.js';
import { heartbeat, LEASES, NODE_LEASE_NAMESPACE, nodeSignature, syncNode } from './nodes.js';
import { REPLICASETS, syncReplicaSet } from './replicaset.js';
import { schedulePending } from './scheduler.js';
import { STATEFULSETS, syncStatefulSet } from './statefulset.js';
import { controllerRef, isTerminal, nameOf, nsOf, spec, str } from './util.js';

export interface SimControllersConfig {
  store: Store;
  /** Default: the process-wide timeline shared by every cluster. */
  clock?: SimClock;
  options?: SimControllerOptions;
}

export interface SimControllersStats {
  /** Sync keys run since start, and how many failed. */
  syncs: number;
  failures: number;
  /** Keys waiting now, ready and delayed. */
  ready: number;
  delayed: number;
}

const OWNER_KEYS: Record<string, string> = {
  ReplicaSet: 'rs',
  DaemonSet: 'ds',
  StatefulSet: 'sts',
  Job: 'job',
};

export function resolveOptions(o: SimControllerOptions = {}): ResolvedOptions {
  return {
    podStartDelayMs: o.podStartDelayMs ?? 0,
    podStartJitterMs: o.podStartJitterMs ?? 1000,
    runOnceDurationMs: o.runOnceDurationMs ?? 1000,
    maxGracePeriodMs: o.maxGracePeriodMs ?? 1000,
    leaseRenewIntervalMs: o.leaseRenewIntervalMs ?? 40_000,
    nodeStatusIntervalMs: o.nodeStatusIntervalMs ?? 5 * 60_000,
    leaseDurationSeconds: o.leaseDurationSeconds ?? 40,
    clusterCidr: o.clusterCidr ?? '10.42.0.0/16',
    retryBaseDelayMs: o.retryBaseDelayMs ?? 100,
    podFanoutDelayMs: o.podFanoutDelayMs ?? 50,
    gracefulPodDeletion: o.gracefulPodDeletion ?? true,
    endpointSlices: o.endpointSlices ?? true,
    gcResources: o.gcResources ?? DEFAULT_GC_RESOURCES,
    prepare: o.prepare,
    resolveKind: o.resolveKind,
    onError: o.onError,
  };
}

/**
 * Runs every fake controller of one cluster. Idle cost: one watch subscription, a few small maps and at
 * most one entry on the clock (the next heartbeat or delayed key).
 */
export class SimControllers {
  private readonly ctx: SimContext;
  private readonly store: Store;
  private readonly clock: SimClock;
  private readonly options: ResolvedOptions;
  private watcher: Watcher | undefined;
  private stopped = true;
  /** Keys to sync, in arrival order; a key queued twice runs once. */
  private ready = new Set<string>();
  /** Keys waiting for their time. */
  private readonly delayed = new Map<string, number>();
  private wake: Cancel | undefined;
  private wakeAt = Infinity;
  private running = false;
  private readonly failures = new Map<string, number>();
  /** Uids that some object names as owner: only their deletion needs a dependents search. */
  private readonly ownerUids = new Set<string>();
  /** Placement-relevant state per node, to tell heartbeats from changes that matter. */
  private readonly nodeSignatures = new Map<string, string>();
  private idleWaiters: (() => void)[] = [];
  private syncs = 0;
  private failed = 0;

  constructor(config: SimControllersConfig) {
    this.store = config.store;
    this.clock = config.clock ?? systemClock;
    this.options = resolveOptions(config.options);
    this.ctx = {
      store: this.store,
      clock: this.clock,
      options: this.options,
      foregroundOwners: new Set(),
      terminatingSince: new Map(),
      nodeStatusAt: this.clock.now(),
      enqueue: (key, delayMs) => this.enqueue(key, delayMs),
    };
  }

  /** Watches the store and queues a full resync; resolves once the watch is open. */
  start(): Promise<void> {
    if (!this.stopped) return Promise.resolve();
    this.stopped = false;
    this.openWatch();
    this.enqueue('resync');
    // Clusters started together heartbeat at different moments.
    this.enqueue('heartbeat', Math.floor(Math.random() * this.options.leaseRenewIntervalMs) + 1);
    return Promise.resolve();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watcher?.stop();
    this.watcher = undefined;
    this.wake?.();
    this.wake = undefined;
    this.wakeAt = Infinity;
    this.delayed.clear();
    this.ready.clear();
    this.release();
  }

  /** Resolves when no key is ready or running (delayed keys may remain): for tests and benchmarks. */
  idle(): Promise<void> {
    if (!this.running && this.ready.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stats(): SimControllersStats {
    return { syncs: this.syncs, failures: this.failed, ready: this.ready.size, delayed: this.delayed.size };
  }

  /** Queues a sync key now or after `delayMs`; an earlier pending time wins. */
  enqueue(key: string, delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      this.ready.add(key);
      this.kick();
      return;
    }
    const at = this.clock.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined && pending <= at) return;
    this.delayed.set(key, at);
    if (at < this.wakeAt) this.arm(at);
  }

  private arm(at: number): void {
    this.wake?.();
    this.wakeAt = at;
    this.wake = this.clock.schedule(at, () => this.onWake());
  }

  private onWake(): void {
    this.wake = undefined;
    this.wakeAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [key, at] of this.delayed) {
      if (at <= now) {
        this.delayed.delete(key);
        this.ready.add(key);
      } else if (at < next) next = at;
    }
    if (next < Infinity) this.arm(next);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.ready.size === 0) return;
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.ready.size > 0) {
        const key = this.ready.values().next().value as string;
        this.ready.delete(key);
        this.syncs++;
        try {
          await this.sync(key);
          if (this.failures.size) this.failures.delete(key);
        } catch (e) {
          this.failed++;
          const n = (this.failures.get(key) ?? 0) + 1;
          this.failures.set(key, n);
          if (!(isApiError(e) && e.code === 409)) this.options.onError?.(key, e);
          this.enqueue(key, Math.min(10_000, this.options.retryBaseDelayMs * 2 ** (n - 1)));
        }
      }
    } finally {
      this.running = false;
      if (this.ready.size === 0) this.release();
      else this.kick();
    }
  }

  private release(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private openWatch(): void {
    this.watcher = this.store.watch(
      {},
      {
        onEvent: (event) => this.onEvent(event),
        onError: () => {
          // A broken watch (410, store trouble): watch again from now and resync to cover the gap.
          if (this.stopped) return;
          this.watcher = undefined;
          this.enqueue('rewatch', this.options.retryBaseDelayMs);
        },
      },
    );
  }

  /** Maps one change to the sync keys it may affect. */
  private onEvent(event: WatchEvent): void {
    const obj = event.object;
    const ns = nsOf(obj);
    const name = nameOf(obj);
    const deleted = event.type === 'DELETED';
    const refs = obj.metadata.ownerReferences;
    if (refs) {
      for (const ref of refs) {
        this.ownerUids.add(ref.uid);
        if (this.ctx.foregroundOwners.has(ref.uid)) {
          const info = resolveKind(this.ctx, ref.apiVersion, ref.kind);
          if (info) this.enqueue(`gcfin|${info.resource}|${info.namespaced ? ns : ''}|${ref.name}`);
        }
      }
      if (event.type === 'ADDED') this.enqueue(`gcdep|${event.resource}|${ns}|${name}`);
    }
    const uid = obj.metadata.uid;
    if (deleted && uid && this.ownerUids.has(uid)) {
      this.ownerUids.delete(uid);
      this.enqueue(`gcdel|${ns}|${uid}`);
    }
    if (!deleted && obj.metadata.deletionTimestamp) {
      const f = obj.metadata.finalizers ?? [];
      if (f.includes(FOREGROUND) || f.includes(ORPHAN)) this.enqueue(`gcfin|${event.resource}|${ns}|${name}`);
    }
    switch (event.resource) {
      case 'pods':
        this.onPod(obj, deleted);
        break;
      case 'nodes': {
        const signature = deleted ? undefined : nodeSignature(obj);
        if (!deleted) this.enqueue(`node|${name}`);
        if (signature !== this.nodeSignatures.get(name)) {
          if (signature === undefined) this.nodeSignatures.delete(name);
          else this.nodeSignatures.set(name, signature);
          this.enqueue('sched');
          this.enqueue('dsall');
          if (!deleted) this.enqueue(`nodepods|${name}`);
        }
        if (deleted) this.enqueue(`nodegone|${name}`);
        break;
      }
      case LEASES:
        if (deleted && ns === NODE_LEASE_NAMESPACE) this.enqueue(`node|${name}`);
        break;
      case DEPLOYMENTS:
        this.enqueue(`deploy|${ns}|${name}`);
        this.enqueue(`pdb|${ns}`);
        break;
      case REPLICASETS: {
        this.enqueue(`rs|${ns}|${name}`);
        const owner = controllerRef(obj);
        if (owner?.kind === 'Deployment') this.enqueue(`deploy|${ns}|${owner.name}`);
        this.enqueue(`pdb|${ns}`);
        break;
      }
      case DAEMONSETS:
        this.enqueue(`ds|${ns}|${name}`);
        break;
      case STATEFULSETS:
        this.enqueue(`sts|${ns}|${name}`);
        this.enqueue(`pdb|${ns}`);
        break;
      case JOBS:
        this.enqueue(`job|${ns}|${name}`);
        break;
      case PDBS:
        this.enqueue(`pdb|${ns}`);
        break;
      case 'services':
        this.enqueue(`svc|${ns}|${name}`);
        break;
      case 'endpoints':
        if (deleted) this.enqueue(`svc|${ns}|${name}`);
        break;
      case ENDPOINTSLICES: {
        const svc = obj.metadata.labels?.['kubernetes.io/service-name'];
        if (deleted && svc) this.enqueue(`svc|${ns}|${svc}`);
        break;
      }
    }
  }

  private onPod(pod: KubeObject, deleted: boolean): void {
    const ns = nsOf(pod);
    if (deleted) this.ctx.terminatingSince.delete(pod.metadata.uid ?? '');
    else {
      const bound = str(spec(pod)['nodeName']) !== undefined;
      if (pod.metadata.deletionTimestamp || (bound && !isTerminal(pod))) this.enqueue(podKey(pod));
      else if (!bound && !isTerminal(pod)) this.enqueue('sched');
    }
    const owner = controllerRef(pod);
    const kind = owner ? OWNER_KEYS[owner.kind] : undefined;
    const delay = this.options.podFanoutDelayMs;
    if (owner && kind) this.enqueue(`${kind}|${ns}|${owner.name}`, delay);
    this.enqueue(`pdb|${ns}`, delay);
    this.enqueue(`svcns|${ns}`, delay);
  }

  private async sync(key: string): Promise<void> {
    const parts = key.split('|');
    const [kind, a = '', b = '', c = ''] = parts;
    const ctx = this.ctx;
    switch (kind) {
      case 'resync':
        return this.resync();
      case 'rewatch':
        if (!this.watcher) this.openWatch();
        return this.resync();
      case 'heartbeat':
        return heartbeat(ctx);
      case 'node':
        return syncNode(ctx, a);
      case 'nodegone':
        return deletePodsOfNode(ctx, a);
      case 'nodepods': {
        const onNode = await this.store.list('pods', { predicate: (p) => spec(p)['nodeName'] === a });
        for (const p of onNode.items) if (!isTerminal(p)) this.enqueue(podKey(p));
        return;
      }
      case 'sched':
        return schedulePending(ctx);
      case 'pod':
        return syncPod(ctx, a, b);
      case 'deploy':
        return syncDeployment(ctx, a, b);
      case 'rs':
        return syncReplicaSet(ctx, a, b);
      case 'ds':
        return syncDaemonSet(ctx, a, b);
      case 'dsall': {
        for (const ds of (await this.store.list(DAEMONSETS)).items)
          this.enqueue(`ds|${nsOf(ds)}|${nameOf(ds)}`);
        return;
      }
      case 'sts':
        return syncStatefulSet(ctx, a, b);
      case 'job':
        return syncJob(ctx, a, b);
      case 'pdb':
        return syncDisruptionBudgets(ctx, a);
      case 'svc':
        return syncService(ctx, a, b);
      case 'svcns': {
        for (const svc of (await this.store.list('services', { namespace: a })).items)
          await syncService(ctx, a, nameOf(svc));
        return;
      }
      case 'gcdep':
        return collectDependent(ctx, a, b, c);
      case 'gcdel':
        return ownerGone(ctx, a, b);
      case 'gcfin':
        return finalizeOwner(ctx, a, b, c);
      default:
        return;
    }
  }

  /** Level-triggered start (and recovery after a broken watch): every object gets its sync key. */
  private async resync(): Promise<void> {
    const each = async (resource: string, keyOf: (o: KubeObject) => string | undefined) => {
      for (const o of (await this.store.list(resource)).items) {
        const key = keyOf(o);
        if (key) this.enqueue(key);
      }
    };
    await each('nodes', (n) => {
      this.nodeSignatures.set(nameOf(n), nodeSignature(n));
      return `node|${nameOf(n)}`;
    });
    this.enqueue('sched');
    await each('pods', (p) =>
      str(spec(p)['nodeName']) || p.metadata.deletionTimestamp ? podKey(p) : undefined,
    );
    await each(DEPLOYMENTS, (o) => `deploy|${nsOf(o)}|${nameOf(o)}`);
    await each(REPLICASETS, (o) => `rs|${nsOf(o)}|${nameOf(o)}`);
    await each(DAEMONSETS, (o) => `ds|${nsOf(o)}|${nameOf(o)}`);
    await each(STATEFULSETS, (o) => `sts|${nsOf(o)}|${nameOf(o)}`);
    await each(JOBS, (o) => `job|${nsOf(o)}|${nameOf(o)}`);
    await each(PDBS, (o) => `pdb|${nsOf(o)}`);
    await each('services', (o) => `svc|${nsOf(o)}|${nameOf(o)}`);
    for (const resource of this.options.gcResources) {
      await each(resource, (o) => {
        for (const ref of o.metadata.ownerReferences ?? []) this.ownerUids.add(ref.uid);
        const f = o.metadata.finalizers ?? [];
        if (o.metadata.deletionTimestamp && (f.includes(FOREGROUND) || f.includes(ORPHAN)))
          return `gcfin|${resource}|${nsOf(o)}|${nameOf(o)}`;
        return o.metadata.ownerReferences?.length ? `gcdep|${resource}|${nsOf(o)}|${nameOf(o)}` : undefined;
      });
    }
  }
}
