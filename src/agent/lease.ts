// The agent's heartbeat: a coordination.k8s.io Lease on the hub renewed every quarter of its duration;
// the hub marks the Cluster or Host Available=Unknown when renewals stop.
import type { KubeObject } from '../store/types.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../kube/types.js';
import { formatMicroTime as microTime } from '../util/json-text.js';

export const LEASE_REF: ResourceRef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
};

export interface LeaseTarget {
  namespace: string;
  name: string;
  holderIdentity: string;
  durationSeconds: number;
}

/** One renewal: creates the Lease when it is missing, else moves renewTime (a conflict means retry later). */
export async function renewLease(hub: KubeClientApi, target: LeaseTarget, now = new Date()): Promise<void> {
  const live = await hub.get(LEASE_REF, target.namespace, target.name);
  const spec = {
    holderIdentity: target.holderIdentity,
    leaseDurationSeconds: target.durationSeconds,
    renewTime: microTime(now),
  };
  if (!live) {
    const lease: KubeObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: target.name, namespace: target.namespace },
      spec: { ...spec, acquireTime: microTime(now) },
    };
    try {
      await hub.create(LEASE_REF, lease);
    } catch (e) {
      // Created by an earlier attempt whose answer was lost: the next renewal updates it.
      if (!(e instanceof KubeApiError && e.code === 409)) throw e;
    }
    return;
  }
  const next: KubeObject = {
    ...live,
    spec: { ...((live['spec'] as Record<string, unknown> | undefined) ?? {}), ...spec },
  };
  await hub.update(LEASE_REF, next);
}

/** How often to renew: a quarter of the duration, as the kubelet does (40 s lease, 10 s renewals). */
export function renewIntervalMs(durationSeconds: number): number {
  return Math.max(250, (durationSeconds * 1000) / 4);
}
