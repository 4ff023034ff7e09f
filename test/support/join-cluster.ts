// Joining a sim cluster to a hub process end to end: a FleetClusterJoin applied with kubectl, its token
// handed to a new `fleethub agent` process for that cluster, and the wait until the Cluster is Available.
import { join } from 'node:path';
import { type AgentProcess, conditionOf, eventually, joinTokenOf, spawnAgentProcess } from './agents.js';
import { type HubProcess, scratchDir } from './hub.js';
import type { SimFleetProcess } from './sim-fleet.js';
import { kubectlOk } from './tools.js';

export interface JoinClusterOptions {
  /** The Cluster's name and namespace on the hub. */
  name: string;
  namespace: string;
  /** The sim cluster the agent manages. */
  sim: string;
  /** More of the join's spec (labels, clusterNetwork…); clusterName and site are set here. */
  spec?: Record<string, unknown>;
  leaseSeconds?: number;
}

/** Joins `sim` as Cluster `namespace/name` through its own agent process; resolves once it is Available. */
export async function joinSimCluster(
  hub: HubProcess,
  fleet: SimFleetProcess,
  options: JoinClusterOptions,
): Promise<AgentProcess> {
  const { name, namespace } = options;
  await kubectlOk('v35', hub.kubeconfig, ['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'fleet.fleethub.io/v1alpha1',
      kind: 'FleetClusterJoin',
      metadata: { name, namespace },
      spec: { clusterName: name, site: 'berlin', ...options.spec },
    }),
  });
  const token = await joinTokenOf(hub.kubeconfig, namespace, name);
  const agent = spawnAgentProcess({
    hubUrl: hub.url,
    caFile: join(hub.dataDir, 'pki', 'ca.crt'),
    stateDir: scratchDir(`agent-${name}-`),
    kubeconfig: fleet.kubeconfig(options.sim),
    leaseSeconds: options.leaseSeconds ?? 2,
    token: { env: token },
  });
  try {
    await eventually(`Cluster ${namespace}/${name} Available`, async () => {
      const out = await kubectlOk('v35', hub.kubeconfig, [
        '-n',
        namespace,
        'get',
        'cluster',
        name,
        '-o',
        'json',
      ]);
      const cluster = JSON.parse(out) as Record<string, unknown>;
      return conditionOf(cluster, 'Available')?.status === 'True' ? true : undefined;
    });
  } catch (e) {
    // The caller never gets the process to stop: stop it here.
    await agent.stop();
    throw e;
  }
  return agent;
}
