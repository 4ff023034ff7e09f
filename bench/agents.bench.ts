// Agents at fleet scale (on demand: node dist/bench/agents.bench.js [clusters]): a hub process, a `sim fleet`
// process and one in-process agent per cluster over real HTTPS. Times the joins, one new ManifestWork per
// cluster until every one is Applied (goal < 10 s), and the hub's memory and CPU while 1,000 Leases renew.
import { availableParallelism } from 'node:os';
import { cpuMs, rssBytes } from '../test/support/sim-fleet.js';
import {
  CONCURRENCY,
  NS,
  WORKS,
  AGENTS_PROCESS_NODE_FLAGS,
  conditionTrue,
  createOnce,
  listAll,
  mib,
  relaunchWithNodeFlags,
  signalPhase,
  startBenchFleet,
  until,
} from './support/fleet.js';
import { forEachConcurrently } from '../src/util/concurrency.js';

const CLUSTERS = Number(process.argv[2] ?? process.env.BENCH_AGENTS ?? 1000);
const IDLE_MS = Number(process.env.BENCH_AGENTS_IDLE_MS ?? 30_000);
const GOAL_WORKS_MS = 10_000;

relaunchWithNodeFlags(AGENTS_PROCESS_NODE_FLAGS);

async function main(): Promise<void> {
  const { hub, fleet, admin, names, hubRssBefore, joinedMs, availableMs, stop } = await startBenchFleet(
    CLUSTERS,
    'agents-bench',
  );
  try {
    // One new ManifestWork per cluster, until every one reports Applied.
    signalPhase(hub.child.pid!, fleet.child.pid!, process.pid);
    const cpuBefore = {
      hub: cpuMs(hub.child.pid!),
      fleet: cpuMs(fleet.child.pid!),
      agents: process.cpuUsage(),
    };
    const workStart = performance.now();
    await forEachConcurrently(names, CONCURRENCY, async (name) => {
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
    await stop();
  }
}

await main();
