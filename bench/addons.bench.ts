// Add-on delivery at fleet scale (on demand: node dist/bench/addons.bench.js [clusters]): a hub process, a
// `sim fleet` process and one in-process agent per cluster (bench/support/fleet.ts). A ClusterProfile that
// selects every cluster delivers a templated ConfigMap from a hub ConfigMap; the bench times the first
// delivery until every ClusterSummary is Provisioned, then a change of the ConfigMap's content and a change of
// the profile itself (goal for each: < 5 s at 1,000 clusters, < 60 s at 10,000), each until every summary is
// Provisioned with a new hash, BENCH_ROUNDS times (default 3, alternating), and prints each phase's time, the
// median and worst of each kind, the hub's memory and each process's CPU per phase.
//
// BENCH_SIGNAL=SIGUSR2 signals the hub, the simulated fleet and this process at the start and end of the
// ConfigMap change phase (see signalPhase; BENCH_SIGNAL_PHASE=first or profile picks another), to profile
// it alone. BENCH_SYNC_MODE sets the profile's
// syncMode (default Continuous).
import { availableParallelism } from 'node:os';
import { KubeClient } from '../src/kube/client.js';
import type { KubeClientApi, WatchHandle } from '../src/kube/types.js';
import type { KubeObject } from '../src/store/types.js';
import { cpuMs, rssBytes } from '../test/support/sim-fleet.js';
import {
  AGENTS_PROCESS_NODE_FLAGS,
  CONFIGMAPS,
  NS,
  mib,
  ref,
  relaunchWithNodeFlags,
  signalPhase,
  startBenchFleet,
} from './support/fleet.js';

const CLUSTERS = Number(process.argv[2] ?? process.env.BENCH_ADDONS ?? 1000);
const SYNC_MODE = process.env['BENCH_SYNC_MODE'] ?? 'Continuous';
/** Rounds of (ConfigMap change, profile change): one machine's figures vary run to run. */
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
/** The phase BENCH_SIGNAL marks: `first`, `configmap` (default) or `profile`. */
const SIGNAL_PHASE =
  { first: 'profile created', configmap: 'ConfigMap', profile: 'profile changed' }[
    process.env['BENCH_SIGNAL_PHASE'] ?? 'configmap'
  ] ?? 'ConfigMap';
/** The goals for a change to reach Provisioned everywhere. */
const GOAL_CHANGE_MS = CLUSTERS <= 1000 ? 5_000 : 60_000;
const PHASE_TIMEOUT_MS = 120_000 + CLUSTERS * 60;

const CLUSTER_PROFILES = ref(
  'config.projectsveltos.io',
  'v1beta1',
  'clusterprofiles',
  'ClusterProfile',
  false,
);
const CLUSTER_SUMMARIES = ref('config.projectsveltos.io', 'v1beta1', 'clustersummaries', 'ClusterSummary');
const PROFILE = 'bench-settings';
const CONTENT = 'bench-settings';
/** What each cluster gets: its own name through the template, and the content's revision. */
const DELIVERED = { namespace: 'default', name: 'fleet-settings' };

function contentConfigMap(revision: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONTENT, namespace: NS, annotations: { 'projectsveltos.io/template': 'ok' } },
    data: {
      'settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${DELIVERED.name}
  namespace: ${DELIVERED.namespace}
data:
  cluster: "{{ .Cluster.metadata.name }}"
  revision: "${revision}"
`,
    },
  };
}

/** The profile; with `patchValue`, a patch that adds `data.profile: <patchValue>` to the delivered ConfigMap. */
function clusterProfile(patchValue?: string): KubeObject {
  return {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name: PROFILE },
    spec: {
      clusterSelector: {
        matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists', values: [] }],
      },
      syncMode: SYNC_MODE,
      policyRefs: [{ kind: 'ConfigMap', namespace: NS, name: CONTENT }],
      ...(patchValue !== undefined
        ? {
            patches: [
              {
                patch: `- op: add\n  path: /data/profile\n  value: ${patchValue}`,
                target: {
                  kind: 'ConfigMap',
                  name: DELIVERED.name,
                  namespace: DELIVERED.namespace,
                  version: 'v1',
                },
              },
            ],
          }
        : {}),
    },
  };
}

interface Feature {
  status?: string;
  hash?: string;
}

function resourcesFeature(summary: KubeObject): Feature {
  const features = (
    summary['status'] as { featureSummaries?: (Feature & { featureID?: string })[] } | undefined
  )?.featureSummaries;
  const f = features?.find((x) => x.featureID === 'Resources');
  return f ? { status: f.status, hash: f.hash } : {};
}

/**
 * Every ClusterSummary's Resources feature in the bench namespace, kept by a list and a watch (re-listed
 * if the watch ends), so a phase's end is seen the moment its last event arrives without polling the hub.
 */
class SummaryWatch {
  readonly features = new Map<string, Feature>();
  private handle: WatchHandle | undefined;
  private stopped = false;
  private check: (() => void) | undefined;

  private constructor(private readonly client: KubeClientApi) {}

  static async start(client: KubeClientApi): Promise<SummaryWatch> {
    const w = new SummaryWatch(client);
    await w.relist();
    return w;
  }

  private async relist(): Promise<void> {
    const list = await this.client.list(CLUSTER_SUMMARIES, { namespace: NS });
    this.features.clear();
    for (const s of list.items) this.features.set(s.metadata.name ?? '', resourcesFeature(s));
    this.check?.();
    const handle = this.client.watch(
      CLUSTER_SUMMARIES,
      { namespace: NS, resourceVersion: list.resourceVersion },
      (type, obj) => {
        const name = obj.metadata.name ?? '';
        if (type === 'DELETED') this.features.delete(name);
        else if (type !== 'BOOKMARK') this.features.set(name, resourcesFeature(obj));
        this.check?.();
      },
    );
    this.handle = handle;
    void handle.done.then(() => {
      if (!this.stopped) void this.relist();
    });
  }

  /** Hashes by summary, as they are now. */
  hashes(): Map<string, string | undefined> {
    return new Map([...this.features].map(([name, f]) => [name, f.hash]));
  }

  /** Resolves with performance.now() at the event after which `count` summaries all satisfy `done`. */
  until(what: string, count: number, done: (name: string, f: Feature) => boolean): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.check = undefined;
        const sample = [...this.features].filter(([n, f]) => !done(n, f)).slice(0, 3);
        reject(new Error(`timed out: ${what}; e.g. ${JSON.stringify(sample)}`));
      }, PHASE_TIMEOUT_MS);
      this.check = () => {
        if (this.features.size < count) return;
        for (const [name, f] of this.features) if (!done(name, f)) return;
        const at = performance.now();
        clearTimeout(timer);
        this.check = undefined;
        resolve(at);
      };
      this.check();
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }
}

interface PhaseFigures {
  phase: string;
  /** Which change: the goal applies to `configmap` and `profile`. */
  kind: 'first' | 'configmap' | 'profile';
  ms: number;
  hubCpuMs: number;
  fleetCpuMs: number;
  agentsCpuMs: number;
  hubRss: number;
  fleetRss: number;
  /** This process: the agents (and the bench's own summary watch). */
  agentsRss: number;
}

relaunchWithNodeFlags(AGENTS_PROCESS_NODE_FLAGS);

async function main(): Promise<void> {
  const bench = await startBenchFleet(CLUSTERS, 'addons-bench');
  const { hub, fleet, admin } = bench;
  const pids = [hub.child.pid!, fleet.child.pid!];
  const phases: PhaseFigures[] = [];
  let watch: SummaryWatch | undefined;

  /** Runs `change`, then waits until every summary is Provisioned with a hash `fresh` accepts. */
  async function phase(
    kind: PhaseFigures['kind'],
    name: string,
    change: () => Promise<void>,
    fresh: (summary: string, hash: string) => boolean,
  ): Promise<void> {
    // Only the first phase of the kind BENCH_SIGNAL_PHASE names is profiled.
    const profile = name.startsWith(SIGNAL_PHASE) && !phases.some((p) => p.kind === kind);
    if (profile) signalPhase(...pids, process.pid);
    const cpu = { hub: cpuMs(pids[0]!), fleet: cpuMs(pids[1]!), agents: process.cpuUsage() };
    const start = performance.now();
    await change();
    const end = await watch!.until(
      name,
      CLUSTERS,
      (summary, f) => f.status === 'Provisioned' && f.hash !== undefined && fresh(summary, f.hash),
    );
    if (profile) signalPhase(...pids, process.pid);
    const agents = process.cpuUsage(cpu.agents);
    phases.push({
      phase: name,
      kind,
      ms: end - start,
      hubCpuMs: cpuMs(pids[0]!) - cpu.hub,
      fleetCpuMs: cpuMs(pids[1]!) - cpu.fleet,
      agentsCpuMs: (agents.user + agents.system) / 1000,
      hubRss: rssBytes(pids[0]!),
      fleetRss: rssBytes(pids[1]!),
      agentsRss: process.memoryUsage.rss(),
    });
  }

  /** A hash unlike the one each summary had when this was called. */
  const changedFrom = (before: Map<string, string | undefined>) => (summary: string, hash: string) =>
    before.get(summary) !== hash;

  try {
    await admin.create(CONFIGMAPS, contentConfigMap(1));
    watch = await SummaryWatch.start(admin);
    await phase(
      'first',
      'profile created → all Provisioned (first delivery)',
      async () => void (await admin.create(CLUSTER_PROFILES, clusterProfile())),
      () => true,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      await phase(
        'configmap',
        `ConfigMap content changed → all Provisioned (round ${round})`,
        async () => void (await admin.update(CONFIGMAPS, contentConfigMap(round + 1))),
        changedFrom(watch.hashes()),
      );
      await phase(
        'profile',
        `profile changed (its patch) → all Provisioned (round ${round})`,
        async () => {
          const stored = await admin.get(CLUSTER_PROFILES, undefined, PROFILE);
          await admin.update(CLUSTER_PROFILES, {
            ...stored!,
            spec: clusterProfile(`patched-${round}`)['spec'],
          });
        },
        changedFrom(watch.hashes()),
      );
    }

    // What the clusters hold: a few of them, read from the simulated clusters themselves.
    const sample = [...new Set([0, Math.floor(CLUSTERS / 2), CLUSTERS - 1])].map((i) => bench.names[i]!);
    for (const name of sample) {
      const cluster = KubeClient.fromKubeconfig(fleet.kubeconfig(name));
      try {
        const cm = await cluster.get(CONFIGMAPS, DELIVERED.namespace, DELIVERED.name);
        const data = (cm?.['data'] ?? {}) as Record<string, string>;
        if (
          data['cluster'] !== name ||
          data['revision'] !== String(ROUNDS + 1) ||
          data['profile'] !== `patched-${ROUNDS}`
        )
          throw new Error(`${name} holds ${JSON.stringify(data)}`);
      } finally {
        cluster.close();
      }
    }

    console.log(
      `add-ons benchmark: ${CLUSTERS} simulated clusters, ${CLUSTERS} in-process agents over HTTPS, ` +
        `one ClusterProfile (syncMode ${SYNC_MODE}) with a templated ConfigMap; ${availableParallelism()} cores`,
    );
    console.log(
      `joined in ${(bench.joinedMs / 1000).toFixed(1)} s, all Available in ${(bench.availableMs / 1000).toFixed(1)} s; ` +
        `hub RSS before joins ${mib(bench.hubRssBefore)}`,
    );
    console.table(
      phases.map((p) => ({
        phase: p.phase,
        seconds: (p.ms / 1000).toFixed(2),
        'hub CPU s': (p.hubCpuMs / 1000).toFixed(1),
        'fleet CPU s': (p.fleetCpuMs / 1000).toFixed(1),
        'agents CPU s': (p.agentsCpuMs / 1000).toFixed(1),
        'hub RSS after': mib(p.hubRss),
        'fleet RSS': mib(p.fleetRss),
        'agents RSS': mib(p.agentsRss),
      })),
    );
    const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
    for (const [kind, what] of [
      ['configmap', 'ConfigMap'],
      ['profile', 'profile'],
    ] as const) {
      const times = phases
        .filter((p) => p.kind === kind)
        .map((p) => p.ms)
        .sort((a, b) => a - b);
      const median = times[Math.floor((times.length - 1) / 2)]!;
      const worst = times.at(-1)!;
      console.log(
        `change → Provisioned on all ${CLUSTERS} clusters (${what}, ${times.length} rounds): median ` +
          `${seconds(median)}, worst ${seconds(worst)}; ${(worst / GOAL_CHANGE_MS).toFixed(2)}× the goal of ` +
          `${GOAL_CHANGE_MS / 1000} s: ${worst < GOAL_CHANGE_MS ? 'met' : median < GOAL_CHANGE_MS ? 'met at the median, not every round' : 'NOT met'}`,
      );
    }
    console.log(`hub RSS at the end: ${mib(rssBytes(pids[0]!))}`);
  } finally {
    watch?.stop();
    await bench.stop();
  }
}

await main();
