// What the fleet-scale benchmarks share: a hub process, a `sim fleet` process and one in-process agent per
// simulated cluster over real HTTPS, joined and Available; plus the small helpers they time phases with.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pino } from 'pino';
import { startAgent, type AgentHandle } from '../../src/agent/agent.js';
import { workLoop } from '../../src/agent/works.js';
import { FLEET_API_VERSION, joinTokenSecretName } from '../../src/fleet/names.js';
import { KubeClient } from '../../src/kube/client.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../../src/kube/types.js';
import type { KubeObject } from '../../src/store/types.js';
import { forEachConcurrently } from '../../src/util/concurrency.js';
import { scratchDir, startHubProcess, type HubProcess } from '../../test/support/hub.js';
import {
  rssBytes,
  simClusterName,
  spawnSimFleet,
  type SimFleetProcess,
} from '../../test/support/sim-fleet.js';

/**
 * The node flags of a process hosting a fleet's agents: a thousand agents in one process allocate as fast
 * as the hub does (each alone would not), so it gets a young generation as large as that load wants.
 */
export const AGENTS_PROCESS_NODE_FLAGS = ['--max-semi-space-size=64'];

/**
 * Runs this benchmark again as a child with `flags` (and this process's own node arguments, a profiler
 * preload among them) unless it already has them, then exits with the child's status. Call it first.
 */
export function relaunchWithNodeFlags(flags: readonly string[]): void {
  if (flags.every((f) => process.execArgv.includes(f))) return;
  const child = spawnSync(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(child.status ?? 1);
}

/** The namespace the benchmarks' joins, Clusters and works live in. */
export const NS = 'bench';
/** Requests in flight at once when the bench creates one object per cluster. */
export const CONCURRENCY = 50;

export const ref = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced = true,
): ResourceRef => ({
  group,
  version,
  resource,
  kind,
  namespaced,
});
export const NAMESPACES = ref('', 'v1', 'namespaces', 'Namespace', false);
export const SECRETS = ref('', 'v1', 'secrets', 'Secret');
export const CONFIGMAPS = ref('', 'v1', 'configmaps', 'ConfigMap');
export const JOINS = ref('fleet.fleethub.io', 'v1alpha1', 'fleetclusterjoins', 'FleetClusterJoin');
export const CLUSTERS_REF = ref('fleet.fleethub.io', 'v1alpha1', 'clusters', 'Cluster');
export const WORKS = ref('work.open-cluster-management.io', 'v1', 'manifestworks', 'ManifestWork');

/** A create that survives a dropped connection: a retry finding the object already there is success. */
export async function createOnce(client: KubeClientApi, r: ResourceRef, obj: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.create(r, obj);
      return;
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 409 && attempt > 1) return;
      if (e instanceof KubeApiError || attempt >= 5) throw e;
      await new Promise((res) => setTimeout(res, 200 * attempt));
    }
  }
}

/** Every object of `r` in the bench namespace, 500 a page. */
export async function listAll(client: KubeClientApi, r: ResourceRef): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let cont: string | undefined;
  do {
    const page = await client.list(r, { namespace: NS, limit: 500, ...(cont ? { continue: cont } : {}) });
    items.push(...page.items);
    cont = page.continue;
  } while (cont);
  return items;
}

export function conditionTrue(obj: KubeObject, type: string): boolean {
  const conditions = ((obj['status'] as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions ?? []) as { type: string; status: string }[];
  return conditions.some((c) => c.type === type && c.status === 'True');
}

/** Polls `probe` every 200 ms until it holds; throws after `timeoutMs`. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * BENCH_SIGNAL=SIGUSR2 sends that signal to the hub, the simulated fleet and this process when a timed
 * phase starts and when it ends, so a preload (node --import, FLEETHUB_HUB_NODE_ARGS, BENCH_SIM_NODE_ARGS)
 * that starts and stops node:inspector's profiler on it can profile that phase alone.
 */
export function signalPhase(...pids: number[]): void {
  const sig = process.env['BENCH_SIGNAL'];
  if (sig) for (const pid of pids) process.kill(pid, sig as NodeJS.Signals);
}

export const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;

export interface BenchFleet {
  hub: HubProcess;
  fleet: SimFleetProcess;
  /** The hub's admin client. */
  admin: KubeClient;
  agents: AgentHandle[];
  /** The simulated clusters' names, which are also the Clusters' names on the hub. */
  names: string[];
  /** Hub RSS once started, before any join. */
  hubRssBefore: number;
  /** From the first join created until every agent has its certificate. */
  joinedMs: number;
  /** From the first join created until every Cluster is Available. */
  availableMs: number;
  /** Stops the agents, the simulated fleet and the hub. */
  stop(): Promise<void>;
}

/**
 * Starts the hub (`--log-level warn`) and a simulated fleet of `clusters` one-node clusters (`sim-0001`…),
 * creates the bench namespace, and joins one in-process agent per cluster (join → token → agent), then waits
 * until every Cluster is Available. BENCH_SIM_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes
 * to the simulated fleet's node, FLEETHUB_HUB_NODE_ARGS to the hub's.
 */
export async function startBenchFleet(clusters: number, prefix: string): Promise<BenchFleet> {
  const hub = await startHubProcess({ extraArgs: ['--log-level', 'warn'] });
  let fleet: SimFleetProcess | undefined;
  let admin: KubeClient | undefined;
  const agents: AgentHandle[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(agents.map((a) => a.stop()));
    admin?.close();
    await fleet?.stop();
    await hub.stop();
  };
  try {
    fleet = await spawnSimFleet(clusters, scratchDir(`${prefix}-fleet-`), {
      extraArgs: ['--nodes', '1', '--name-prefix', 'sim-'],
      nodeArgs: (process.env['BENCH_SIM_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
    });
    const sim = fleet;
    const hubAdmin = KubeClient.fromKubeconfig(hub.kubeconfig);
    admin = hubAdmin;
    const logger = pino({ level: 'warn' });
    const names = Array.from({ length: clusters }, (_, i) => simClusterName(i + 1));
    await hubAdmin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const hubRssBefore = rssBytes(hub.child.pid!);

    // Join: create the join, read its token, start the agent (which trades the token for a certificate).
    const joinStart = performance.now();
    await forEachConcurrently(names, CONCURRENCY, async (name) => {
      await createOnce(hubAdmin, JOINS, {
        apiVersion: FLEET_API_VERSION,
        kind: 'FleetClusterJoin',
        metadata: { name, namespace: NS },
        spec: { clusterName: name, site: `site-${name.slice(-1)}` },
      });
      let token: string | undefined;
      while (!token) {
        const secret = await hubAdmin.get(SECRETS, NS, joinTokenSecretName(name));
        const data = (secret?.['data'] as Record<string, string> | undefined)?.['token'];
        if (data) token = Buffer.from(data, 'base64').toString('utf8');
        else await new Promise((r) => setTimeout(r, 50));
      }
      agents.push(
        await startAgent(
          {
            hubUrl: hub.url,
            caFile: join(hub.dataDir, 'pki', 'ca.crt'),
            stateDir: scratchDir(`${prefix}-state-`),
            joinToken: token,
            role: 'cluster',
            kubeconfig: sim.kubeconfig(name),
            leaseDurationSeconds: 60,
            k3sEnabled: false,
            logLevel: 'warn',
          },
          {
            connect: (c) => new KubeClient(c),
            target: KubeClient.fromKubeconfig(sim.kubeconfig(name)),
            logger,
            workLoop: (ctx) => workLoop(ctx, { statusSyncMs: 30_000 }),
          },
        ),
      );
    });
    const joinedMs = performance.now() - joinStart;
    await until(
      'every Cluster Available',
      async () =>
        (await listAll(hubAdmin, CLUSTERS_REF)).filter((c) => conditionTrue(c, 'Available')).length ===
        clusters,
      300_000 + clusters * 100,
    );
    const availableMs = performance.now() - joinStart;
    return { hub, fleet, admin: hubAdmin, agents, names, hubRssBefore, joinedMs, availableMs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
