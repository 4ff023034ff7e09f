// The kinds a simulated cluster serves: everything a real cluster's API has that kubectl, helm and
// client-node use, with a per-cluster Service address allocator and graceful pod deletion.
import { clusterKindsWith, createServiceAllocator } from '../kinds/builtin/index.js';
import type { KindDefinition } from '../kinds/types.js';

const gracefulPods = new WeakMap<KindDefinition, KindDefinition>();

/**
 * One cluster's kinds: shared definitions (schemas are built once per process) except Service, whose
 * cluster IPs come from this cluster's pool. `reservedIp` is taken first (the `kubernetes` Service's).
 */
export function simulatorKinds(serviceCidr: string, reservedIp: string): KindDefinition[] {
  const allocator = createServiceAllocator({ serviceCIDR: serviceCidr });
  allocator.allocateClusterIP(reservedIp);
  return clusterKindsWith({ serviceAllocator: allocator })
    .filter((k) => k.kind !== 'AuditEvent')
    .map((k) => {
      if (k.group !== '' || k.kind !== 'Pod') return k;
      let pod = gracefulPods.get(k);
      if (!pod) gracefulPods.set(k, (pod = { ...k, gracefulDeletion: true }));
      return pod;
    });
}
