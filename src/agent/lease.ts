// The agent's heartbeat: a coordination.k8s.io Lease on the hub renewed every half of its duration;
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

/**
 * Renews one Lease. The Lease last written is kept, so a renewal is a single update; a conflict or a
 * missing Lease (someone else wrote or deleted it) falls back to reading it first, next time.
 */
export class LeaseRenewer {
  private last: KubeObject | undefined;

  constructor(
    private readonly hub: () => KubeClientApi,
    private readonly target: LeaseTarget,
  ) {}

  async renew(now = new Date()): Promise<void> {
    const hub = this.hub();
    const spec = {
      holderIdentity: this.target.holderIdentity,
      leaseDurationSeconds: this.target.durationSeconds,
      renewTime: microTime(now),
    };
    let live = this.last;
    this.last = undefined;
    live ??= await hub.get(LEASE_REF, this.target.namespace, this.target.name);
    if (!live) {
      const lease: KubeObject = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.target.name, namespace: this.target.namespace },
        spec: { ...spec, acquireTime: microTime(now) },
      };
      try {
        this.last = await hub.create(LEASE_REF, lease);
      } catch (e) {
        // Created by an earlier attempt whose answer was lost: the next renewal reads and updates it.
        if (!(e instanceof KubeApiError && e.code === 409)) throw e;
      }
      return;
    }
    const next: KubeObject = {
      ...live,
      spec: { ...((live['spec'] as Record<string, unknown> | undefined) ?? {}), ...spec },
    };
    // On any error `last` stays unset: the next renewal starts from a fresh read.
    this.last = await hub.update(LEASE_REF, next);
  }
}

/**
 * How often to renew: every half of the duration. The hub allows 5 × the duration before it marks the
 * agent Unknown, so four renewals may fail in a row; OCM's agents renew once per duration, the kubelet
 * every quarter of a much shorter grace.
 */
export function renewIntervalMs(durationSeconds: number): number {
  return Math.max(250, (durationSeconds * 1000) / 2);
}
