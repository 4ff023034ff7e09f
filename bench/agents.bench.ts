// Agents at fleet scale (on demand: node dist/bench/agents.bench.js [clusters]): a hub process, a `sim fleet`
// process and one in-process agent per cluster over real HTTPS. Times the joins, one new ManifestWork per
// cluster until every one is Applied (goal < 10 s), and the hub's memory and CPU while 1,000 Leases renew.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startAgent, type AgentHandle } from '../src/agent/agent.js';
import { workLoop } from '../src/agent/works.js';
import { FLEET_API_VERSION, joinTokenSecretName } from '../src/fleet/names.js';
import { KubeClient } from '../src/kube/client.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../src/kube/types.js';
import type { KubeObject } from '../src/store/types.js';
import { scratchDir, startHubProcess } from '../test/support/hub.js';
import { cpuMs, rssBytes, simClusterName, spawnSimFleet } from '../test/support/sim-fleet.js';

const CLUSTERS = Number(process.argv[2] ?? process.env.BENCH_AGENTS ?? 1000);
const IDLE_MS = Number(process.env.BENCH_AGENTS_IDLE_MS ?? 30_000);
const CONCURRENCY = 50;
const GOAL_WORKS_MS = 10_000;
const NS = 'bench';

const ref = (
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
const NAMESPACES = ref('', 'v1', 'namespaces', 'Namespace', false);
const SECRETS = ref('', 'v1', 'secrets', 'Secret');
const JOINS = ref('fleet.fleethub.io', 'v1alpha1', 'fleetclusterjoins', 'FleetClusterJoin');
const CLUSTERS_REF = ref('fleet.fleethub.io', 'v1alpha1', 'clusters', 'Cluster');
const WORKS = ref('work.open-cluster-management.io', 'v1', 'manifestworks', 'ManifestWork');

/** A create that survives a dropped connection: a retry finding the object already there is success. */
async function createOnce(client: KubeClientApi, r: ResourceRef, obj: KubeObject): Promise<void> {
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

async function pool<T>(items: T[], n: number, f: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await f(items[i]!, i);
      }
    }),
  );
}

async function listAll(client: KubeClientApi, r: ResourceRef): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let cont: string | undefined;
  do {
    const page = await client.list(r, { namespace: NS, limit: 500, ...(cont ? { continue: cont } : {}) });
    items.push(...page.items);
    cont = page.continue;
  } while (cont);
  return items;
}

function conditionTrue(obj: KubeObject, type: string): boolean {
  const conditions = ((obj['status'] as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions ?? []) as { type: string; status: string }[];
  return conditions.some((c) => c.type === type && c.status === 'True');
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * BENCH_SIGNAL=SIGUSR2 sends that signal to the hub, the simulated fleet and this process when the works
 * phase starts and when it ends, so a preload (node --import, FLEETHUB_HUB_NODE_ARGS, BENCH_SIM_NODE_ARGS)
 * that starts and stops node:inspector's profiler on it can profile that phase alone.
 */
function signalPhase(...pids: number[]): void {
  const sig = process.env['BENCH_SIGNAL'];
  if (sig) for (const pid of pids) process.kill(pid, sig as NodeJS.Signals);
}

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const hub = await startHubProcess({ extraArgs: ['--log-level', 'warn'] });
  const fleet = await spawnSimFleet(CLUSTERS, scratchDir('agents-bench-fleet-'), {
    extraArgs: ['--nodes', '1', '--name-prefix', 'sim-'],
    // e.g. BENCH_SIM_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the simulated fleet.
    nodeArgs: (process.env['BENCH_SIM_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
  });
  const admin = KubeClient.fromKubeconfig(hub.kubeconfig);
  const logger = pino({ level: 'warn' });
  const agents: AgentHandle[] = [];
  const names = Array.from({ length: CLUSTERS }, (_, i) => simClusterName(i + 1));
  try {
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const hubRssBefore = rssBytes(hub.child.pid!);

    // Join: create the join, read its token, start the agent (which trades the token for a certificate).
    const joinStart = performance.now();
    await pool(names, CONCURRENCY, async (name) => {
      await createOnce(admin, JOINS, {
        apiVersion: FLEET_API_VERSION,
        kind: 'FleetClusterJoin',
        metadata: { name, namespace: NS },
        spec: { clusterName: name, site: `site-${name.slice(-1)}` },
      });
      let token: string | undefined;
      while (!token) {
        const secret = await admin.get(SECRETS, NS, joinTokenSecretName(name));
        const data = (secret?.['data'] as Record<string, string> | undefined)?.['token'];
        if (data) token = Buffer.from(data, 'base64').toString('utf8');
        else await new Promise((r) => setTimeout(r, 50));
      }
      agents.push(
        await startAgent(
          {
            hubUrl: hub.url,
            caFile: join(hub.dataDir, 'pki', 'ca.crt'),
            stateDir: scratchDir('agents-bench-state-'),
            joinToken: token,
            role: 'cluster',
            kubeconfig: fleet.kubeconfig(name),
            leaseDurationSeconds: 60,
            k3sEnabled: false,
            logLevel: 'warn',
          },
          {
            connect: (c) => new KubeClient(c),
            target: KubeClient.fromKubeconfig(fleet.kubeconfig(name)),
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
        (await listAll(admin, CLUSTERS_REF)).filter((c) => conditionTrue(c, 'Available')).length === CLUSTERS,
      300_000,
    );
    const availableMs = performance.now() - joinStart;

    // One new ManifestWork per cluster, until every one reports Applied.
    signalPhase(hub.child.pid!, fleet.child.pid!, process.pid);
    const cpuBefore = {
      hub: cpuMs(hub.child.pid!),
      fleet: cpuMs(fleet.child.pid!),
      agents: process.cpuUsage(),
    };
    const workStart = performance.now();
    await pool(names, CONCURRENCY, async (name) => {
      await createOnce(admin, WORKS, {
        apiVersion: 'work.open-cluster-management.io/v1',
        kind: 'ManifestWork',
        metadata: { name: `cfg-${name}`, namespace: NS, labels: { 'fleethub.io/cluster': name } },
        spec: {
          workload: {
            manifests: [
              {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: 'fleet-settings', namespace: 'default' },
                data: { cluster: name },
              },
            ],
          },
        },
      });
    });
    const createdMs = performance.now() - workStart;
    await until(
      'every ManifestWork Applied',
      async () =>
        (await listAll(admin, WORKS)).filter((w) => conditionTrue(w, 'Applied')).length === CLUSTERS,
      300_000,
    );
    const appliedMs = performance.now() - workStart;
    signalPhase(hub.child.pid!, fleet.child.pid!, process.pid);
    const agentsCpu = process.cpuUsage(cpuBefore.agents);
    const worksCpu = {
      hub: cpuMs(hub.child.pid!) - cpuBefore.hub,
      fleet: cpuMs(fleet.child.pid!) - cpuBefore.fleet,
      agents: (agentsCpu.user + agentsCpu.system) / 1000,
    };

    // Idle: leases renew every 15 s, statuses refresh; what does the hub spend?
    await new Promise((r) => setTimeout(r, 5_000));
    const cpu0 = cpuMs(hub.child.pid!);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const cpuPct = ((cpuMs(hub.child.pid!) - cpu0) / (performance.now() - t0)) * 100;
    const hubRss = rssBytes(hub.child.pid!);
    const benchRss = process.memoryUsage().rss;

    console.log(`agents benchmark: ${CLUSTERS} simulated clusters, ${CLUSTERS} in-process agents over HTTPS`);
    console.table([
      { phase: 'join (token → CSR → certificate), all agents', seconds: (joinedMs / 1000).toFixed(1) },
      { phase: 'until every Cluster is Available', seconds: (availableMs / 1000).toFixed(1) },
      { phase: `create ${CLUSTERS} ManifestWorks`, seconds: (createdMs / 1000).toFixed(1) },
      { phase: 'until every ManifestWork is Applied', seconds: (appliedMs / 1000).toFixed(1) },
    ]);
    console.table([
      {
        process: 'hub',
        'RSS idle': mib(hubRss),
        'RSS before joins': mib(hubRssBefore),
        'CPU idle': `${cpuPct.toFixed(1)} % of a core`,
      },
      { process: 'bench (agents)', 'RSS idle': mib(benchRss), 'RSS before joins': '', 'CPU idle': '' },
    ]);
    console.log(
      `CPU while the works were created and applied: hub ${(worksCpu.hub / 1000).toFixed(1)} s, ` +
        `simulated fleet ${(worksCpu.fleet / 1000).toFixed(1)} s, agents ${(worksCpu.agents / 1000).toFixed(1)} s ` +
        `(${(appliedMs / 1000).toFixed(1)} s wall, ${availableParallelism()} cores)`,
    );
    console.log(
      `works applied on all clusters in ${(appliedMs / 1000).toFixed(1)} s; goal < ${GOAL_WORKS_MS / 1000} s: ${appliedMs < GOAL_WORKS_MS ? 'met' : 'NOT met'}`,
    );
    console.log(`bench process per agent: ${(benchRss / CLUSTERS / 1024).toFixed(0)} KiB (RSS / agents)`);
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
    admin.close();
    await fleet.stop();
    await hub.stop();
  }
}

await main();
