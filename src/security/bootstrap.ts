// Bootstrap identities of agents joining the fleet: the user a join's one-time token stands for, and the
// naming rule for CertificateSigningRequests that lets the agent authorizer confine a requester to its own.
//
// CSR naming rule (sound, checked by the agent authorizer for reads and by the CSR controller for approval):
//   bootstrap user of FleetClusterJoin <ns>/<join>  → `fleethub-join.<ns>.<join>.<suffix>`
//   bootstrap user of FleetHostJoin <join>          → `fleethub-hostjoin.<join>.<suffix>`
//   cluster agent <ns>/<name> (renewal)             → `fleethub-cluster.<ns>.<name>.<suffix>`
//   host agent <name> (renewal)                     → `fleethub-host.<name>.<suffix>`
// `<suffix>` is non-empty and has no dot (`[a-z0-9-]`, e.g. random hex). A namespace is a DNS label (no dot)
// and the suffix has no dot, so the owner is the text between the first dot after the namespace and the last
// dot: no name can belong to two requesters, and nobody can read another requester's CSR by picking names.
import { randomBytes } from 'node:crypto';
import {
  GROUP_BOOTSTRAPPERS,
  GROUP_CLUSTER_AGENTS,
  GROUP_HOST_AGENTS,
  parseAgentUser,
  type AgentIdentity,
} from '../fleet/names.js';

export const BOOTSTRAP_USER_PREFIX = 'fleethub:bootstrap:';
/** The extra key on a join token's user naming its join: `FleetClusterJoin/<ns>/<name>` or `FleetHostJoin/<name>`. */
export const JOIN_EXTRA = 'fleethub.io/join';
/** The extra key on a join token's user naming the agent identity it may request (`fleethub:cluster:<ns>:<c>`). */
export const AGENT_IDENTITY_EXTRA = 'fleethub.io/agent-identity';

export type JoinRef = { role: 'cluster'; namespace: string; name: string } | { role: 'host'; name: string };

/** `fleethub:bootstrap:cluster:<ns>:<join>` or `fleethub:bootstrap:host:<join>`. */
export function bootstrapUser(join: JoinRef): string {
  return join.role === 'cluster'
    ? `${BOOTSTRAP_USER_PREFIX}cluster:${join.namespace}:${join.name}`
    : `${BOOTSTRAP_USER_PREFIX}host:${join.name}`;
}

/** The join a bootstrap user name stands for; undefined for any other user. */
export function parseBootstrapUser(username: string): JoinRef | undefined {
  if (!username.startsWith(BOOTSTRAP_USER_PREFIX)) return undefined;
  const parts = username.slice(BOOTSTRAP_USER_PREFIX.length).split(':');
  if (parts[0] === 'cluster' && parts.length === 3 && parts[1] && parts[2])
    return { role: 'cluster', namespace: parts[1], name: parts[2] };
  if (parts[0] === 'host' && parts.length === 2 && parts[1]) return { role: 'host', name: parts[1] };
  return undefined;
}

/** The value of the `fleethub.io/join` extra. */
export function joinExtraValue(join: JoinRef): string {
  return join.role === 'cluster'
    ? `FleetClusterJoin/${join.namespace}/${join.name}`
    : `FleetHostJoin/${join.name}`;
}

/** Whether a user claims to be a bootstrapper (by name or group): such users are confined by the agent authorizer. */
export function isBootstrapSubject(user: { username: string; groups: readonly string[] }): boolean {
  return user.username.startsWith(BOOTSTRAP_USER_PREFIX) || user.groups.includes(GROUP_BOOTSTRAPPERS);
}

/** Whether a user claims to be an agent (by name or group): such users are confined by the agent authorizer. */
export function isAgentSubject(user: { username: string; groups: readonly string[] }): boolean {
  return (
    parseAgentUser(user.username) !== undefined ||
    user.groups.includes(GROUP_CLUSTER_AGENTS) ||
    user.groups.includes(GROUP_HOST_AGENTS)
  );
}

/** The group an agent identity's certificate must carry (its only O). */
export function agentGroup(identity: AgentIdentity): string {
  return identity.role === 'cluster' ? GROUP_CLUSTER_AGENTS : GROUP_HOST_AGENTS;
}

const SUFFIX_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function dotFree(...parts: string[]): boolean {
  return parts.every((p) => p.length > 0 && !p.includes('.'));
}

/**
 * The prefix of every CSR name `username` may read (see the naming rule above); undefined for users that
 * are neither bootstrap users nor agents, or whose namespace is not a DNS label.
 */
export function csrNamePrefix(username: string): string | undefined {
  const join = parseBootstrapUser(username);
  if (join) {
    if (join.role === 'host') return `fleethub-hostjoin.${join.name}.`;
    return dotFree(join.namespace) ? `fleethub-join.${join.namespace}.${join.name}.` : undefined;
  }
  const agent = parseAgentUser(username);
  if (agent) {
    if (agent.role === 'host') return `fleethub-host.${agent.name}.`;
    return dotFree(agent.namespace) ? `fleethub-cluster.${agent.namespace}.${agent.name}.` : undefined;
  }
  return undefined;
}

/** Whether the CSR `name` belongs to `username` under the naming rule. */
export function csrNameOwnedBy(name: string, username: string): boolean {
  const prefix = csrNamePrefix(username);
  return prefix !== undefined && name.startsWith(prefix) && SUFFIX_RE.test(name.slice(prefix.length));
}

/** A fresh CSR name for `username` (what the agent POSTs); throws for users without a CSR prefix. */
export function csrNameFor(username: string, suffix = randomBytes(5).toString('hex')): string {
  const prefix = csrNamePrefix(username);
  if (prefix === undefined) throw new Error(`no CSR name for user ${username}`);
  if (!SUFFIX_RE.test(suffix)) throw new Error(`invalid CSR name suffix ${JSON.stringify(suffix)}`);
  return prefix + suffix;
}
