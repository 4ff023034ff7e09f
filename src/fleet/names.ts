// The fleet API's fixed names: groups, store resources, labels and annotations, and the identities of
// agents and join tokens. Hub controllers, the authorizer and the agent all read them from here.

export const FLEET_GROUP = 'fleet.fleethub.io';
export const FLEET_VERSION = 'v1alpha1';
export const FLEET_API_VERSION = `${FLEET_GROUP}/${FLEET_VERSION}`;
export const WORK_GROUP = 'work.open-cluster-management.io';
export const WORK_API_VERSION = `${WORK_GROUP}/v1`;
export const CERTIFICATES_GROUP = 'certificates.k8s.io';

/** Store resource names (`plural.group`). */
export const RESOURCES = {
  clusters: `clusters.${FLEET_GROUP}`,
  clusterJoins: `fleetclusterjoins.${FLEET_GROUP}`,
  hosts: `hosts.${FLEET_GROUP}`,
  hostJoins: `fleethostjoins.${FLEET_GROUP}`,
  manifestWorks: `manifestworks.${WORK_GROUP}`,
  csrs: `certificatesigningrequests.${CERTIFICATES_GROUP}`,
  leases: 'leases.coordination.k8s.io',
  secrets: 'secrets',
} as const;

/** Names a ManifestWork's cluster (required, immutable); the work lives in that cluster's namespace. */
export const LABEL_CLUSTER = 'fleethub.io/cluster';
/**
 * On every ManifestWork from its creation (the hub adds it): a deleted work waits until its cluster's
 * agent has removed what it applied — or until the hub finds no agent will (controllers/work-release).
 */
export const WORK_CLEANUP_FINALIZER = 'fleethub.io/agent-cleanup';
/**
 * Names the ClusterSummary a ManifestWork was generated for. Such works are the add-on controllers' alone:
 * through the API only their cluster's agent may write them (status, cleanup finalizer).
 */
export const LABEL_CLUSTER_SUMMARY = 'fleethub.io/cluster-summary';
/**
 * A ManifestWork the hub applies to itself (a ClusterProfile's `deploymentType: Local` content). Only the
 * hub's controllers write such works; the API refuses them to everyone.
 */
export const LABEL_LOCAL = 'fleethub.io/local';
/** Stamped by the hub on every Cluster write. */
export const LABEL_TENANT = 'fleethub.io/tenant';
export const LABEL_CAPI_CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';
export const LABEL_SITE = 'fleet.site';
/** `"false"`: apply when the work changes only, no watch-based correction of drift. */
export const ANNOTATION_DRIFT_CORRECTION = 'fleethub.io/drift-correction';
/** `"true"`: server-side dry-run; report what applying would change, change nothing. */
export const ANNOTATION_DRY_RUN = 'fleethub.io/dry-run';

/** Where host join token Secrets and host agent Leases live. */
export const SYSTEM_NAMESPACE = 'fleethub-system';
/** The signer a join CSR names; the hub's CSR controller approves and signs only these. */
export const AGENT_SIGNER = 'fleethub.io/agent-client';
/** The field manager the agent applies with, in the managed cluster. */
export const AGENT_FIELD_MANAGER = 'fleethub-agent';

export const GROUP_CLUSTER_AGENTS = 'fleethub:cluster-agents';
export const GROUP_HOST_AGENTS = 'fleethub:host-agents';
export const GROUP_BOOTSTRAPPERS = 'fleethub:bootstrappers';

const CLUSTER_USER_PREFIX = 'fleethub:cluster:';
const HOST_USER_PREFIX = 'fleethub:host:';

/** The user name in a cluster agent's certificate (its CN). */
export function clusterAgentUser(namespace: string, name: string): string {
  return `${CLUSTER_USER_PREFIX}${namespace}:${name}`;
}

/** The user name in a host agent's certificate (its CN). */
export function hostAgentUser(name: string): string {
  return `${HOST_USER_PREFIX}${name}`;
}

export type AgentIdentity =
  { role: 'cluster'; namespace: string; name: string } | { role: 'host'; name: string };

/** Who an agent user name says it is; undefined for any other user. */
export function parseAgentUser(username: string): AgentIdentity | undefined {
  if (username.startsWith(CLUSTER_USER_PREFIX)) {
    const parts = username.slice(CLUSTER_USER_PREFIX.length).split(':');
    if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
    return { role: 'cluster', namespace: parts[0], name: parts[1] };
  }
  if (username.startsWith(HOST_USER_PREFIX)) {
    const name = username.slice(HOST_USER_PREFIX.length);
    if (!name || name.includes(':')) return undefined;
    return { role: 'host', name };
  }
  return undefined;
}

/** The Lease a cluster agent renews, in its Cluster's namespace. */
export function clusterLeaseName(clusterName: string): string {
  return `fleethub-agent-${clusterName}`;
}

/** The Lease a host agent renews, in `fleethub-system`. */
export function hostLeaseName(hostName: string): string {
  return `fleethub-host-${hostName}`;
}

/** The Secret holding a join's one-time token (key `token`). */
export function joinTokenSecretName(joinName: string): string {
  return `${joinName}-token`;
}
