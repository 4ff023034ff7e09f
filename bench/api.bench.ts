// API benchmark (on demand: node dist/bench/api.bench.js): the same figures as the store benchmark,
// but as clients see them — through a real hub over HTTPS with authentication, RBAC and audit on.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startHubProcess } from '../test/support/hub.js';
import { createDatabase, startPostgres } from '../src/testing/postgres.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1_000);
const FANOUT_WRITES = Number(process.env.BENCH_FANOUT_WRITES ?? 30);
const CONCURRENCY = 16;

interface Client {
  url: string;
  token: string;
  ca: string;
  agent: Agent;
}

function call(
  client: Client,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, client.url),
      {
        method,
        agent: client.agent,
        ca: client.ca,
        headers: {
          Authorization: `Bearer ${client.token}`,
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

async function benchHub(label: string, database: string | undefined): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleethub-bench-'));
  // The hub runs in its own process (its own core), as in production; this process is only the clients.
  const hub = await startHubProcess({
    dataDir,
    extraArgs: ['--log-level', 'warn'],
    ...(database ? { database } : {}),
  });
  const client: Client = {
    url: hub.url,
    token: hub.token,
    ca: hub.caPem,
    agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
  };
  try {
    await call(client, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    let next = 0;
    const createStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < OBJECTS; i = next++) {
          const res = await call(client, 'POST', '/api/v1/namespaces/bench/configmaps', {
            metadata: { name: `cm-${i}`, labels: { app: `app-${i % 17}` } },
            data: { value: 'x'.repeat(512), index: String(i) },
          });
          if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.text}`);
        }
      }),
    );
    const createsPerSec = OBJECTS / ((performance.now() - createStart) / 1000);
    const fullList = await timed(5, () => call(client, 'GET', '/api/v1/namespaces/bench/configmaps'));
    const firstPage = await timed(5, () =>
      call(client, 'GET', '/api/v1/namespaces/bench/configmaps?limit=500'),
    );
    const selector = await timed(5, () =>
      call(client, 'GET', '/api/v1/namespaces/bench/configmaps?labelSelector=app%3Dapp-3'),
    );

    // Fan-out: WATCHERS open watches, then each write's delay until the last watcher has it.
    const watchAgent = new Agent({ keepAlive: true, maxSockets: WATCHERS + 10 });
    const pending = new Map<string, { start: number; remaining: number; done: () => void }>();
    const openWatcher = (): Promise<() => void> =>
      new Promise<() => void>((resolve, reject) => {
        const path =
          '/api/v1/namespaces/bench/configmaps?watch=true&fieldSelector=metadata.name%3Dprobe&resourceVersion=1';
        const req = request(
          new URL(path, client.url),
          { agent: watchAgent, ca: client.ca, headers: { Authorization: `Bearer ${client.token}` } },
          (res) => {
            let buffer = '';
            res.on('data', (d: Buffer) => {
              buffer += d.toString();
              let nl: number;
              while ((nl = buffer.indexOf('\n')) >= 0) {
                const line = buffer.slice(0, nl);
                buffer = buffer.slice(nl + 1);
                const marker = /"marker":"([^"]+)"/.exec(line)?.[1];
                const entry = marker ? pending.get(marker) : undefined;
                if (entry && --entry.remaining === 0) entry.done();
              }
            });
            resolve(() => req.destroy());
          },
        );
        req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
        req.end();
      });
    // Watchers connect in waves of 100, as agents would, not in one burst of TLS handshakes.
    const watchers: (() => void)[] = [];
    while (watchers.length < WATCHERS)
      watchers.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, WATCHERS - watchers.length) }, openWatcher),
        )),
      );
    await call(client, 'POST', '/api/v1/namespaces/bench/configmaps', {
      metadata: { name: 'probe' },
      data: { marker: 'initial' },
    });
    await new Promise((r) => setTimeout(r, 500));
    const fanout: number[] = [];
    for (let i = 0; i < FANOUT_WRITES; i++) {
      const marker = `m${i}`;
      const delivered = new Promise<number>((resolve) => {
        const start = performance.now();
        pending.set(marker, { start, remaining: WATCHERS, done: () => resolve(performance.now() - start) });
      });
      await call(client, 'PUT', '/api/v1/namespaces/bench/configmaps/probe', {
        metadata: { name: 'probe' },
        data: { marker },
      });
      fanout.push(await delivered);
    }
    for (const stop of watchers) stop();
    watchAgent.destroy();
    fanout.sort((a, b) => a - b);
    return {
      backend: label,
      'creates/s': createsPerSec.toFixed(0),
      [`list ${OBJECTS} ms`]: fullList.toFixed(1),
      'page 500 ms': firstPage.toFixed(1),
      'selector ms': selector.toFixed(1),
      [`fan-out ${WATCHERS} p50 ms`]: quantile(fanout, 0.5).toFixed(1),
      'fan-out p99 ms': quantile(fanout, 0.99).toFixed(1),
    };
  } finally {
    client.agent.destroy();
    await hub.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const backends = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',');
  const rows: Record<string, string>[] = [];
  if (backends.includes('sqlite')) rows.push(await benchHub('sqlite', undefined));
  if (backends.includes('postgres')) {
    const pg = await startPostgres();
    try {
      rows.push(await benchHub('postgres', await createDatabase(pg.url, 'bench_api')));
    } finally {
      await pg.stop();
    }
  }
  console.log(
    `\nfleethub API benchmark (HTTPS, authn + RBAC + audit; ${OBJECTS} ConfigMaps, ${WATCHERS} watchers)`,
  );
  console.table(rows);
  const sqlite = rows.find((r) => r.backend === 'sqlite');
  const postgres = rows.find((r) => r.backend === 'postgres');
  if (sqlite && postgres)
    console.log(
      `postgres/sqlite ratios: creates/s ${(Number(postgres['creates/s']) / Number(sqlite['creates/s'])).toFixed(2)}, ` +
        `list ${(Number(postgres[`list ${OBJECTS} ms`]) / Number(sqlite[`list ${OBJECTS} ms`])).toFixed(2)}`,
    );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
