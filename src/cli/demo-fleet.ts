// `npm start`'s demo fleet: simulated clusters beside the hub, each joined through the real flow (a
// FleetClusterJoin, its one-time token, a CSR) by an in-process agent talking HTTPS to the hub.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { startAgent, type AgentHandle } from '../agent/agent.js';
import { workLoop } from '../agent/works.js';
import { FLEET_API_VERSION, joinTokenSecretName } from '../fleet/names.js';
import { KubeClient } from '../kube/client.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../kube/types.js';
import { sleep } from '../agent/backoff.js';
import { parseSimArgs, startSim } from './sim.js';

export const DEMO_NAMESPACE = 'demo';
const SITES = ['berlin', 'paris', 'madrid'];

const NAMESPACE_REF: ResourceRef = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
const SECRET_REF: ResourceRef = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
};
const JOIN_REF: ResourceRef = {
  group: 'fleet.fleethub.io',
  version: 'v1alpha1',
  resource: 'fleetclusterjoins',
  kind: 'FleetClusterJoin',
  namespaced: true,
};

export interface DemoFleet {
  url: string;
  kubeconfigDir: string;
  close(): Promise<void>;
}

async function createIfAbsent(
  client: KubeClientApi,
  ref: ResourceRef,
  obj: Parameters<KubeClientApi['create']>[1],
) {
  try {
    await client.create(ref, obj);
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 409)) throw e;
  }
}

async function waitForToken(admin: KubeClientApi, joinName: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const secret = await admin.get(SECRET_REF, DEMO_NAMESPACE, joinTokenSecretName(joinName));
    const token = (secret?.['data'] as Record<string, string> | undefined)?.['token'];
    if (token) return Buffer.from(token, 'base64').toString('utf8');
    await sleep(100);
  }
  throw new Error(`no join token for ${joinName} after 30 s: is the hub's join controller running?`);
}

/**
 * Starts `clusters` simulated clusters and one agent per cluster. Agents keep their certificates under
 * `<data-dir>/demo-fleet/agents/<name>`, so a restarted demo re-attaches without new joins.
 */
export async function startDemoFleet(options: {
  clusters: number;
  dataDir: string;
  hubUrl: string;
  caFile: string;
  adminKubeconfig: string;
  logger: Logger;
}): Promise<DemoFleet> {
  const dir = join(options.dataDir, 'demo-fleet');
  const sim = await startSim(
    parseSimArgs([
      'fleet',
      '--clusters',
      String(options.clusters),
      '--kubeconfig-dir',
      dir,
      '--name-prefix',
      'demo-',
    ]),
  );
  const admin = KubeClient.fromKubeconfig(options.adminKubeconfig);
  const agents: AgentHandle[] = [];
  try {
    await createIfAbsent(admin, NAMESPACE_REF, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: DEMO_NAMESPACE },
    });
    const names = Array.from(
      { length: options.clusters },
      (_, i) => `demo-${String(i + 1).padStart(4, '0')}`,
    );
    await Promise.all(
      names.map(async (name, i) => {
        const stateDir = join(dir, 'agents', name);
        let joinToken: string | undefined;
        if (!existsSync(join(stateDir, 'client.crt'))) {
          mkdirSync(stateDir, { recursive: true, mode: 0o700 });
          await createIfAbsent(admin, JOIN_REF, {
            apiVersion: FLEET_API_VERSION,
            kind: 'FleetClusterJoin',
            metadata: { name, namespace: DEMO_NAMESPACE },
            spec: { clusterName: name, site: SITES[i % SITES.length], labels: { demo: 'true' } },
          });
          joinToken = await waitForToken(admin, name);
        }
        const agent = await startAgent(
          {
            hubUrl: options.hubUrl,
            caFile: options.caFile,
            stateDir,
            role: 'cluster',
            kubeconfig: join(dir, `${name}.kubeconfig`),
            leaseDurationSeconds: 60,
            k3sEnabled: false,
            logLevel: 'info',
            ...(joinToken ? { joinToken } : {}),
          },
          {
            connect: (c) => new KubeClient(c),
            target: KubeClient.fromKubeconfig(join(dir, `${name}.kubeconfig`)),
            logger: options.logger.child({ component: 'demo-agent', cluster: name }),
            workLoop,
          },
        );
        agents.push(agent);
      }),
    );
  } catch (e) {
    await Promise.all(agents.map((a) => a.stop()));
    await sim.close();
    throw e;
  } finally {
    admin.close();
  }
  return {
    url: sim.server.url,
    kubeconfigDir: dir,
    close: async () => {
      await Promise.all(agents.map((a) => a.stop()));
      await sim.close();
    },
  };
}
