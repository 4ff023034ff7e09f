// The cluster agent, simulated for controller tests: it reports a ManifestWork applied by writing the work's
// Applied condition for the work's current generation (what featureSummaries read as Provisioned).
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';

/** Whether the agent has applied the work's current generation. */
export function appliedNow(work: KubeObject): boolean {
  const conditions = (work['status'] as { conditions?: Record<string, unknown>[] } | undefined)?.conditions;
  return (conditions ?? []).some(
    (c) =>
      c['type'] === 'Applied' &&
      c['status'] === 'True' &&
      c['observedGeneration'] === work.metadata.generation,
  );
}

/** Writes the Applied condition for the work's current generation, as the agent does after applying it. */
export async function markApplied(
  store: Store,
  work: KubeObject,
  lastTransitionTime = '2026-11-30T00:00:00Z',
): Promise<KubeObject> {
  return store.update(
    RESOURCES.manifestWorks,
    {
      ...work,
      status: {
        conditions: [
          {
            type: 'Applied',
            status: 'True',
            reason: 'AppliedManifestWorkComplete',
            message: 'applied',
            observedGeneration: work.metadata.generation,
            lastTransitionTime,
          },
        ],
      },
    },
    { subresource: 'status' },
  );
}

/** A Cluster's status while its agent is there (Lease renewed): Available True. */
export const AGENT_PRESENT = {
  conditions: [
    {
      type: 'Available',
      status: 'True',
      reason: 'AgentLeaseRenewed',
      message: 'the agent renews its Lease',
      lastTransitionTime: '2026-11-30T00:00:00Z',
    },
  ],
};
