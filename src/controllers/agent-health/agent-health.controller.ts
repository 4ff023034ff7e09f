// Agent health from Leases: a Cluster (or Host) whose agent has not renewed its Lease for `graceFactor` ×
// leaseDurationSeconds gets Available=Unknown (LeaseExpired; AgentNotConnected when it never renewed).
// While the lease is fresh the agent itself reports Available=True; this controller requeues at the exact
// moment the lease would run out, so the change lands within the grace. Missing agent Leases are created
// (agents may not create them; see security/agent-authorizer.ts).
import { fillClusterNetwork } from '../cluster-network/fill.js';
import {
  RESOURCES,
  SYSTEM_NAMESPACE,
  clusterLeaseName,
  hostLeaseName,
  type AgentIdentity,
} from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { conditionsOf, findCondition, setCondition, type Condition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import type {
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';
import { DEFAULT_AGENT_LEASE_SECONDS, agentLeaseKey, ensureAgentLease } from '../csr/csr.controller.js';

export const AVAILABLE = 'Available';
export const DEFAULT_GRACE_FACTOR = 5;
const CLUSTER_LEASE_PREFIX = clusterLeaseName('');
const HOST_LEASE_PREFIX = hostLeaseName('');

/** The Cluster (namespaced request) or Host (cluster-scoped request) an agent Lease belongs to. */
export function leaseOwner(lease: KubeObject): { namespace?: string; name: string }[] {
  const name = lease.metadata.name ?? '';
  const ns = lease.metadata.namespace ?? '';
  const out: { namespace?: string; name: string }[] = [];
  if (name.startsWith(CLUSTER_LEASE_PREFIX) && name.length > CLUSTER_LEASE_PREFIX.length)
    out.push({ namespace: ns, name: name.slice(CLUSTER_LEASE_PREFIX.length) });
  if (ns === SYSTEM_NAMESPACE && name.startsWith(HOST_LEASE_PREFIX) && name.length > HOST_LEASE_PREFIX.length)
    out.push({ name: name.slice(HOST_LEASE_PREFIX.length) });
  return out;
}

export interface AgentHealthReconcilerOptions {
  store: Store;
  /** Lease durations without renewal before Available turns Unknown. Default 5. */
  graceFactor?: number;
  now?: () => Date;
}

interface LeaseSpec {
  renewTime?: string;
  acquireTime?: string;
  leaseDurationSeconds?: number;
}

export class AgentHealthReconciler implements Reconciler {
  private readonly store: Store;
  private readonly graceFactor: number;
  private readonly now: () => Date;

  constructor(options: AgentHealthReconcilerOptions) {
    this.store = options.store;
    this.graceFactor = options.graceFactor ?? DEFAULT_GRACE_FACTOR;
    this.now = options.now ?? (() => new Date());
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const identity: AgentIdentity = req.namespace
      ? { role: 'cluster', namespace: req.namespace, name: req.name }
      : { role: 'host', name: req.name };
    const resource = identity.role === 'cluster' ? RESOURCES.clusters : RESOURCES.hosts;
    const obj = await this.store.get(resource, req.namespace ?? '', req.name);
    if (!obj || obj.metadata.deletionTimestamp) return {};
    // The facts the agent reported complete the spec where the user left the networks unset.
    if (identity.role === 'cluster' && (await fillClusterNetwork(this.store, obj))) return {};
    const key = agentLeaseKey(identity);
    const lease = await this.store.get(RESOURCES.leases, key.namespace, key.name);
    if (!lease) {
      await ensureAgentLease(this.store, identity);
      return {}; // the new lease's event brings us back
    }
    const spec = (lease['spec'] ?? {}) as LeaseSpec;
    const renewed = spec.renewTime ?? spec.acquireTime;
    const since = Date.parse(renewed ?? lease.metadata.creationTimestamp ?? '');
    const duration =
      typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds > 0
        ? spec.leaseDurationSeconds
        : DEFAULT_AGENT_LEASE_SECONDS;
    const now = this.now().getTime();
    const deadline = (Number.isFinite(since) ? since : 0) + this.graceFactor * duration * 1000;
    if (now < deadline) return { requeueAfterMs: deadline - now + 1 };

    const reason = renewed ? 'LeaseExpired' : 'AgentNotConnected';
    const current = findCondition(conditionsOf(structuredClone(obj)), AVAILABLE);
    if (current?.status === 'Unknown' && current.reason === reason) return {};
    const seconds = Math.round((now - since) / 1000);
    const message = renewed
      ? `agent has not renewed its lease for ${seconds}s`
      : `agent has not connected: its lease was never renewed (${seconds}s)`;
    await retryOnConflict(async () => {
      const fresh = await this.store.get(resource, req.namespace ?? '', req.name);
      if (!fresh || fresh.metadata.uid !== obj.metadata.uid) return;
      const next = structuredClone(fresh);
      const conditions: Condition[] = conditionsOf(next);
      const existing = findCondition(conditions, AVAILABLE);
      if (existing?.status === 'Unknown' && existing.reason === reason) return;
      setCondition(conditions, { type: AVAILABLE, status: 'Unknown', reason, message }, this.now());
      await this.store.update(resource, next, { subresource: 'status' });
    });
    ctx.logger.info({ reason, seconds }, 'agent lease expired: availability unknown');
    return {};
  }
}

export type AgentHealthControllerOptions = AgentHealthReconcilerOptions &
  Omit<ControllerOptions, 'name' | 'reconciler'>;

/** Watches Clusters, Hosts and agent Leases. */
export function agentHealthController(options: AgentHealthControllerOptions): Controller {
  const reconciler = new AgentHealthReconciler(options);
  return new Controller({ ...options, name: 'agent-health', reconciler })
    .for(RESOURCES.clusters)
    .for(RESOURCES.hosts)
    .watches(RESOURCES.leases, leaseOwner);
}
