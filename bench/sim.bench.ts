// Simulator benchmark (on demand: node dist/bench/sim.bench.js [clusters]): start-up time, memory per idle
// cluster and GET throughput for a fleet in-process and as a `sim fleet` child, against 30 s / 300 KiB goals.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'yaml';
import { parseSimArgs, startSim } from '../src/cli/sim.js';
import { cpuMs, rssBytes, simClusterName, spawnSimFleet } from '../test/support/sim-fleet.js';

const CLUSTERS = Number(process.argv[2] ?? process.env.BENCH_SIM_CLUSTERS ?? 1000);
/** How long the fleet idles (controllers renew leases, stores compact) before memory is read. */
const SETTLE_MS = Number(process.env.BENCH_SIM_SETTLE_MS ?? 30_000);
/** How long each throughput run lasts. */
const LOAD_MS = Number(process.env.BENCH_SIM_LOAD_MS ?? 5_000);
const CONCURRENCY = 32;
const GOAL_START_MS = 30_000;
const GOAL_BYTES = 300 * 1024;

// Memory figures need a full collection first; expose gc at run time when node was not started with it.
const gc: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();

function collect(): void {
  for (let i = 0; i < 3; i++) gc();
}

interface Target {
  url: string;
  token: string;
}

/** Each cluster's URL and token from its kubeconfig, and the fleet's CA. */
function readTargets(kubeconfigDir: string, n: number): { targets: Target[]; ca: string } {
  let ca = '';
  const targets = Array.from({ length: n }, (_, i) => {
    const kc = parse(readFileSync(join(kubeconfigDir, `${simClusterName(i + 1)}.kubeconfig`), 'utf8')) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
      users: { user: { token: string } }[];
    };
    ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
    return { url: kc.clusters[0]!.cluster.server, token: kc.users[0]!.user.token };
  });
  return { targets, ca };
}

function get(target: Target, ca: string, agent: Agent | false): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.url}/api/v1/namespaces/default`,
      { ca, agent, headers: { Authorization: `Bearer ${target.token}`, Accept: 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`GET ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * GETs of one namespace from random clusters, CONCURRENCY at a time, for LOAD_MS: requests/s, and the
 * simulator's CPU milliseconds per request when it runs in process `pid`.
 */
async function throughput(
  targets: Target[],
  ca: string,
  keepAlive: boolean,
  pid?: number,
): Promise<{ rps: number; cpuPerRequest: number }> {
  const cpu0 = pid === undefined ? NaN : cpuMs(pid);
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) : false;
  const deadline = performance.now() + LOAD_MS;
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await get(targets[Math.floor(Math.random() * targets.length)]!, ca, agent);
        done++;
      }
    }),
  );
  if (agent) agent.destroy();
  const cpu = pid === undefined ? NaN : cpuMs(pid) - cpu0;
  return { rps: (done * 1000) / (performance.now() - started), cpuPerRequest: cpu / done };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  mode: string;
  clusters: number;
  startMs: number;
  rssPerCluster: number;
  heapPerCluster: number;
  idleCpuPercent: number;
  keepAlive: { rps: number; cpuPerRequest: number };
  newConnection: { rps: number; cpuPerRequest: number };
}

const notMeasured = { rps: NaN, cpuPerRequest: NaN };

async function inProcess(n: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'fleethub-sim-bench-'));
  try {
    collect();
    const heap0 = process.memoryUsage().heapUsed;
    const rss0 = process.memoryUsage().rss;
    const started = performance.now();
    const sim = await startSim(
      parseSimArgs(['fleet', '--clusters', String(n), '--listen', '127.0.0.1:0', '--kubeconfig-dir', dir]),
    );
    const startMs = performance.now() - started;
    const cpu0 = process.cpuUsage();
    await sleep(SETTLE_MS);
    const cpu = process.cpuUsage(cpu0);
    collect();
    const heap = process.memoryUsage().heapUsed - heap0;
    const rss = process.memoryUsage().rss - rss0;
    const { targets, ca } = readTargets(dir, n);
    const keepAlive = await throughput(targets, ca, true);
    const newConnection = await throughput(targets, ca, false);
    await sim.close();
    return {
      mode: 'in-process',
      clusters: n,
      startMs,
      rssPerCluster: rss / n,
      heapPerCluster: heap / n,
      idleCpuPercent: ((cpu.user + cpu.system) / 1000 / SETTLE_MS) * 100,
      keepAlive,
      newConnection,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** RSS of a settled `sim fleet` child; with `baseline`, less that of a one-cluster child. */
async function child(n: number, baseline?: number): Promise<Row & { rss: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleethub-sim-bench-'));
  const fleet = await spawnSimFleet(n, dir);
  try {
    const pid = fleet.child.pid!;
    const cpu0 = cpuMs(pid);
    await sleep(SETTLE_MS);
    const idleCpuPercent = ((cpuMs(pid) - cpu0) / SETTLE_MS) * 100;
    const rss = rssBytes(pid);
    const { targets, ca } = readTargets(dir, n);
    const measureLoad = baseline !== undefined;
    return {
      mode: 'sim fleet child',
      clusters: n,
      startMs: fleet.wallStartMs,
      rss,
      rssPerCluster: (rss - (baseline ?? 0)) / Math.max(1, n - 1),
      heapPerCluster: NaN,
      idleCpuPercent,
      keepAlive: measureLoad ? await throughput(targets, ca, true, pid) : notMeasured,
      newConnection: measureLoad ? await throughput(targets, ca, false, pid) : notMeasured,
    };
  } finally {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => (Number.isNaN(bytes) ? 'n/a' : `${(bytes / 1024).toFixed(0)} KiB`);
const num = (v: number, digits = 0) => (Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

process.stdout.write(
  `sim benchmark: ${CLUSTERS} clusters (3 nodes each), idle ${SETTLE_MS / 1000} s before memory is read, ` +
    `GET /api/v1/namespaces/default of random clusters ${CONCURRENCY} at a time for ${LOAD_MS / 1000} s\n`,
);
const single = await child(1);
const rows: Row[] = [await inProcess(CLUSTERS), await child(CLUSTERS, single.rss)];
console.table(
  rows.map((r) => ({
    mode: r.mode,
    clusters: r.clusters,
    'start-up s': num(r.startMs / 1000, 1),
    'RSS / cluster': kib(r.rssPerCluster),
    'heap / cluster': kib(r.heapPerCluster),
    'idle CPU %': num(r.idleCpuPercent, 1),
    'GET/s keep-alive': num(r.keepAlive.rps),
    'GET/s new TLS conn': num(r.newConnection.rps),
    'sim CPU ms/GET': `${num(r.keepAlive.cpuPerRequest, 2)} / ${num(r.newConnection.cpuPerRequest, 2)}`,
  })),
);
process.stdout.write(
  `one-cluster child (node + simulator baseline): RSS ${kib(single.rss)}; ` +
    `sim CPU ms/GET: the child's CPU per request, keep-alive / new TLS connection each\n`,
);
for (const r of rows) {
  const memory = Math.max(r.rssPerCluster, Number.isNaN(r.heapPerCluster) ? 0 : r.heapPerCluster);
  const fast = r.startMs <= GOAL_START_MS;
  const small = memory <= GOAL_BYTES;
  process.stdout.write(
    `${r.mode}: start-up ${num(r.startMs / 1000, 1)} s ${fast ? '≤' : '>'} 30 s goal ` +
      `(${fast ? 'met' : 'MISSED'}); ` +
      `${kib(memory)} per cluster ${small ? '≤' : '>'} 300 KiB goal (${small ? 'met' : 'MISSED'})\n`,
  );
}
