// The kinds the hub serves, in discovery order, and the larger set a simulated cluster serves.
import type { KindDefinition } from '../types.js';
import { fleetKinds } from '../fleet/index.js';
import { sveltosKinds } from '../sveltos/index.js';
import { ConfigMap, Event, Namespace, Secret, ServiceAccount } from './core.js';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './rbac.js';
import { Lease } from './coordination.js';
import { SelfSubjectAccessReview, SelfSubjectReview, SelfSubjectRulesReview } from './reviews.js';
import { AuditEvent } from './audit.js';
import { coreWorkloadKinds, Service, serviceKind, type ServiceAllocator } from './core-workloads.js';
import { appsKinds } from './apps.js';
import { batchKinds } from './batch.js';
import { policyKinds } from './policy.js';
import { autoscalingKinds } from './autoscaling.js';
import { networkingKinds } from './networking.js';
import { storageKinds } from './storage.js';
import { discoveryKinds } from './discovery.js';
import { schedulingKinds } from './scheduling.js';
import { eventsKinds } from './events.js';

/** The kinds every API server of the project serves: the hub's core and a simulated cluster's base. */
export const coreHubKinds: readonly KindDefinition[] = [
  Namespace,
  ConfigMap,
  Secret,
  ServiceAccount,
  Event,
  Lease,
  Role,
  ClusterRole,
  RoleBinding,
  ClusterRoleBinding,
  SelfSubjectAccessReview,
  SelfSubjectRulesReview,
  SelfSubjectReview,
  AuditEvent,
];

/**
 * What the hub serves: the core kinds, the fleet API (clusters, hosts, joins, ManifestWork, CSRs) and
 * Sveltos's add-on API (profiles, cluster summaries and reports).
 */
export const builtinKinds: readonly KindDefinition[] = [...coreHubKinds, ...fleetKinds, ...sveltosKinds];

/**
 * What a simulated cluster serves: the hub's core kinds (not the fleet API: real clusters do not have
 * it) plus the workload, networking, storage and policy groups of a real cluster. Services here get
 * random cluster IPs; use `clusterKindsWith` to give each cluster its own allocator.
 */
export const clusterKinds: readonly KindDefinition[] = [
  ...coreHubKinds,
  ...coreWorkloadKinds,
  ...appsKinds,
  ...batchKinds,
  ...policyKinds,
  ...autoscalingKinds,
  ...networkingKinds,
  ...storageKinds,
  ...discoveryKinds,
  ...schedulingKinds,
  ...eventsKinds,
];

export interface ClusterKindOptions {
  /** Allocates Service cluster IPs and node ports for this cluster (see `createServiceAllocator`). */
  serviceAllocator?: ServiceAllocator;
}

/**
 * `clusterKinds` for one simulated cluster: the same shared definitions (and so the same compiled
 * schemas), except for the kinds whose defaulting needs that cluster's state.
 */
export function clusterKindsWith(options: ClusterKindOptions): KindDefinition[] {
  const service = options.serviceAllocator ? serviceKind(options.serviceAllocator) : Service;
  return clusterKinds.map((k) => (k === Service ? service : k));
}

export { createServiceAllocator, type ServiceAllocator } from './core-workloads.js';
