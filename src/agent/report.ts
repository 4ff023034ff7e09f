// The agent's report on its own object on the hub: the Cluster's or Host's status carries the facts,
// the agent's version, its last contact, and the Joined and Available conditions it can vouch for.
import { conditionsOf, formatTime, setCondition } from '../controllers/runtime/conditions.js';
import { FLEET_GROUP, FLEET_VERSION, SYSTEM_NAMESPACE, type AgentIdentity } from '../fleet/names.js';
import type { KubeObject } from '../store/types.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../kube/types.js';
import type { ClusterFacts, HostFacts } from './facts.js';
import { stableStringify as stableJson } from '../util/json-text.js';

export const CLUSTER_REF: ResourceRef = {
  group: FLEET_GROUP,
  version: FLEET_VERSION,
  resource: 'clusters',
  kind: 'Cluster',
  namespaced: true,
};

export const HOST_REF: ResourceRef = {
  group: FLEET_GROUP,
  version: FLEET_VERSION,
  resource: 'hosts',
  kind: 'Host',
  namespaced: false,
};

export const AGENT_VERSION = '0.1.0';

/** Where the agent's own object is on the hub. */
export function ownObject(identity: AgentIdentity): {
  ref: ResourceRef;
  namespace: string | undefined;
  name: string;
} {
  return identity.role === 'cluster'
    ? { ref: CLUSTER_REF, namespace: identity.namespace, name: identity.name }
    : { ref: HOST_REF, namespace: undefined, name: identity.name };
}

export function leaseNamespace(identity: AgentIdentity): string {
  return identity.role === 'cluster' ? identity.namespace : SYSTEM_NAMESPACE;
}

/**
 * Writes facts and conditions into the object's status (a status-subresource PUT with the live
 * resourceVersion: a conflict is retried by the caller's next report). Returns false when the object is
 * gone (the Cluster was deleted on the hub: the agent has nothing to report to).
 */
export async function reportStatus(
  hub: KubeClientApi,
  identity: AgentIdentity,
  facts: ClusterFacts | HostFacts,
  problem: string | undefined,
  options: { now?: Date; heartbeatMs?: number } = {},
): Promise<boolean> {
  const now = options.now ?? new Date();
  const { ref, namespace, name } = ownObject(identity);
  const live = await hub.get(ref, namespace, name);
  if (!live) return false;
  const status = { ...((live['status'] as Record<string, unknown> | undefined) ?? {}) };
  const conditions = conditionsOf(structuredClone(live)); // a copy: `previous` is compared below
  setCondition(
    conditions,
    { type: 'Joined', status: 'True', reason: 'AgentJoined', message: 'the agent holds a hub certificate' },
    now,
  );
  setCondition(
    conditions,
    problem === undefined
      ? {
          type: 'Available',
          status: 'True',
          reason: 'AgentReporting',
          message: 'the agent renews its lease and reports',
        }
      : { type: 'Available', status: 'False', reason: 'AgentCannotReachTarget', message: problem },
    now,
  );
  Object.assign(status, facts, {
    conditions,
    agentVersion: AGENT_VERSION,
    lastContactTime: formatTime(now),
  });
  // Unchanged apart from the contact time, which is recent enough: nothing to write.
  const previous = (live['status'] as Record<string, unknown> | undefined) ?? {};
  const lastContact = Date.parse(String(previous['lastContactTime'] ?? ''));
  if (
    options.heartbeatMs !== undefined &&
    Number.isFinite(lastContact) &&
    now.getTime() - lastContact < options.heartbeatMs &&
    stableJson({ ...previous, lastContactTime: '' }) === stableJson({ ...status, lastContactTime: '' })
  )
    return true;
  const next: KubeObject = { ...live, status };
  try {
    await hub.update(ref, next, { subresource: 'status' });
  } catch (e) {
    if (e instanceof KubeApiError && e.code === 404) return false;
    throw e;
  }
  return true;
}
