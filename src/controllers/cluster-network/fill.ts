// Fills a Cluster's spec.clusterNetwork from what its agent observed, for the parts the user left unset,
// so CAPI-style templates (`.Cluster.spec.clusterNetwork.pods.cidrBlocks`) work for joined clusters.
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { retryOnConflict } from '../runtime/retry.js';

type Network = { pods?: { cidrBlocks?: string[] }; services?: { cidrBlocks?: string[] } };

function networkOf(obj: KubeObject, part: 'spec' | 'status'): Network {
  const holder = obj[part] as { clusterNetwork?: Network } | undefined;
  return holder?.clusterNetwork ?? {};
}

function missing(spec: Network, observed: Network): ('pods' | 'services')[] {
  return (['pods', 'services'] as const).filter(
    (k) => !(spec[k]?.cidrBlocks?.length ?? 0) && (observed[k]?.cidrBlocks?.length ?? 0) > 0,
  );
}

/** True when it wrote the spec. A user's own value is never replaced, only an absent one filled. */
export async function fillClusterNetwork(store: Store, cluster: KubeObject): Promise<boolean> {
  if (missing(networkOf(cluster, 'spec'), networkOf(cluster, 'status')).length === 0) return false;
  let wrote = false;
  await retryOnConflict(async () => {
    const fresh = await store.get(
      RESOURCES.clusters,
      cluster.metadata.namespace ?? '',
      cluster.metadata.name ?? '',
    );
    if (!fresh || fresh.metadata.uid !== cluster.metadata.uid || fresh.metadata.deletionTimestamp) return;
    const spec = networkOf(fresh, 'spec');
    const observed = networkOf(fresh, 'status');
    const parts = missing(spec, observed);
    if (parts.length === 0) return;
    const next = structuredClone(fresh);
    const nextSpec = ((next['spec'] as Record<string, unknown> | undefined) ?? {}) as {
      clusterNetwork?: Network;
    };
    const network: Network = { ...(nextSpec.clusterNetwork ?? {}) };
    for (const p of parts) network[p] = { cidrBlocks: [...(observed[p]?.cidrBlocks ?? [])] };
    nextSpec.clusterNetwork = network;
    next['spec'] = nextSpec;
    await store.update(RESOURCES.clusters, next);
    wrote = true;
  });
  return wrote;
}
