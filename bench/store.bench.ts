// Store benchmark (run on demand: node dist/bench/store.bench.js): write rate, list latency over
// 10,000 objects and watch fan-out latency to 1,000 watchers, for SQLite and PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore, type ObjectStore } from '../src/store/index.js';
import type { KubeObject } from '../src/store/types.js';
import { createDatabase, startPostgres } from '../src/testing/postgres.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 2_000);
/** Writes waiting at once in the concurrent update run. */
const IN_FLIGHT = 100;
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1_000);
const FANOUT_WRITES = Number(process.env.BENCH_FANOUT_WRITES ?? 50);
const LIST_RUNS = 5;
const NAMESPACES = 100;

interface Result {
  backend: string;
  createsPerSec: number;
  updatesPerSec: number;
  /** Updates with IN_FLIGHT writes waiting at once, as when a fleet's agents report together. */
  concurrentUpdatesPerSec: number;
  fullListMs: number;
  pagedListMs: number;
  pageMs: number;
  namespaceListMs: number;
  fanout: { median: number; p99: number };
  remoteFanout?: { median: number; p99: number };
}

/** A ConfigMap of about 1 KB, spread over NAMESPACES namespaces. */
function object(i: number, revision = 0): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${String(i).padStart(6, '0')}`,
      namespace: `ns-${String(i % NAMESPACES).padStart(3, '0')}`,
      labels: { app: `app-${i % 17}`, tier: i % 2 ? 'web' : 'db', 'fleethub.io/tenant': `t-${i % 7}` },
      annotations: { 'example.com/revision': String(revision) },
    },
    data: {
      'config.yaml': `replicas: ${i % 5}\nimage: registry.example.com/app:${revision}\n`.repeat(10),
      note: 'x'.repeat(200),
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

function median(samples: number[]): number {
  return percentile(
    [...samples].sort((a, b) => a - b),
    0.5,
  );
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

let fanoutRuns = 0;

/** Time from starting a write on `writer` until the last of WATCHERS watchers on `reader` has it. */
async function fanout(writer: ObjectStore, reader: ObjectStore): Promise<{ median: number; p99: number }> {
  // Matched by a revision marker, not the version: on one process delivery may finish before update() returns.
  let expected = '';
  let received = 0;
  const watchers = Array.from({ length: WATCHERS }, () =>
    reader.watch(
      { resource: 'configmaps' },
      {
        onEvent: (event) => {
          if (event.object.metadata.annotations?.['example.com/revision'] === expected) received++;
        },
        onError: (err) => {
          failure = err;
        },
      },
    ),
  );
  let failure: Error | undefined;
  const samples: number[] = [];
  try {
    for (let i = 0; i < FANOUT_WRITES; i++) {
      received = 0;
      // Unique per run: writing the same marker twice would be a no-op update, with no event.
      expected = `fanout-${++fanoutRuns}-${i}`;
      const obj = object(i);
      obj.metadata.annotations = { 'example.com/revision': expected };
      const start = performance.now();
      await writer.update('configmaps', obj);
      await waitFor(() => received >= WATCHERS || failure !== undefined, 10_000);
      if (failure) throw failure;
      samples.push(performance.now() - start);
    }
  } finally {
    for (const w of watchers) w.stop();
  }
  const sorted = samples.sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`fan-out timed out`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function run(backend: string, url: string, secondUrl?: string): Promise<Result> {
  const store = await openStore({ url, compactionIntervalMs: 0 });
  try {
    const createMs = await time(async () => {
      for (let i = 0; i < OBJECTS; i++) await store.create('configmaps', object(i));
    });
    const updateMs = await time(async () => {
      for (let i = 0; i < UPDATES; i++) await store.update('configmaps', object(i, 1));
    });
    const concurrentMs = await time(async () => {
      for (let i = 0; i < UPDATES; i += IN_FLIGHT) {
        const group = Array.from({ length: Math.min(IN_FLIGHT, UPDATES - i) }, (_, j) => i + j);
        await Promise.all(group.map((k) => store.update('configmaps', object(k, 2))));
      }
    });

    const full: number[] = [];
    const paged: number[] = [];
    const pages: number[] = [];
    const namespace: number[] = [];
    for (let run = 0; run < LIST_RUNS; run++) {
      full.push(
        await time(async () => {
          const list = await store.list('configmaps');
          if (list.items.length !== OBJECTS) throw new Error(`listed ${list.items.length}`);
        }),
      );
      paged.push(
        await time(async () => {
          let token: string | undefined;
          let count = 0;
          do {
            const started = performance.now();
            const page = await store.list(
              'configmaps',
              token ? { limit: 500, continue: token } : { limit: 500 },
            );
            pages.push(performance.now() - started);
            count += page.items.length;
            token = page.continue;
          } while (token);
          if (count !== OBJECTS) throw new Error(`paged ${count}`);
        }),
      );
      namespace.push(
        await time(async () => {
          const list = await store.list('configmaps', { namespace: `ns-0${String(run).padStart(2, '0')}` });
          if (list.items.length !== OBJECTS / NAMESPACES)
            throw new Error(`namespace list ${list.items.length}`);
        }),
      );
    }

    const result: Result = {
      backend,
      createsPerSec: OBJECTS / (createMs / 1000),
      updatesPerSec: UPDATES / (updateMs / 1000),
      concurrentUpdatesPerSec: UPDATES / (concurrentMs / 1000),
      fullListMs: median(full),
      pagedListMs: median(paged),
      pageMs: median(pages),
      namespaceListMs: median(namespace),
      fanout: await fanout(store, store),
    };
    if (secondUrl) {
      const replica = await openStore({ url: secondUrl, compactionIntervalMs: 0 });
      try {
        result.remoteFanout = await fanout(store, replica);
      } finally {
        await replica.close();
      }
    }
    return result;
  } finally {
    await store.close();
  }
}

function printTable(results: Result[]): void {
  const f = (n: number, digits = 1) => n.toFixed(digits);
  const rows = [
    ['', ...results.map((r) => r.backend)],
    [`creates/s (sequential)`, ...results.map((r) => f(r.createsPerSec, 0))],
    [`updates/s (sequential)`, ...results.map((r) => f(r.updatesPerSec, 0))],
    [`updates/s (${IN_FLIGHT} in flight)`, ...results.map((r) => f(r.concurrentUpdatesPerSec, 0))],
    [`list ${OBJECTS} objects, ms`, ...results.map((r) => f(r.fullListMs))],
    [`list in pages of 500, total ms`, ...results.map((r) => f(r.pagedListMs))],
    [`  one page of 500, ms`, ...results.map((r) => f(r.pageMs))],
    [`list one namespace (${OBJECTS / NAMESPACES}), ms`, ...results.map((r) => f(r.namespaceListMs, 2))],
    [`fan-out to ${WATCHERS} watchers, median ms`, ...results.map((r) => f(r.fanout.median, 2))],
    [`fan-out to ${WATCHERS} watchers, p99 ms`, ...results.map((r) => f(r.fanout.p99, 2))],
    [
      `  via another replica, median ms`,
      ...results.map((r) => (r.remoteFanout ? f(r.remoteFanout.median, 2) : '-')),
    ],
    [
      `  via another replica, p99 ms`,
      ...results.map((r) => (r.remoteFanout ? f(r.remoteFanout.p99, 2) : '-')),
    ],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  for (const row of rows) {
    console.log(
      row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    );
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fleethub-store-bench-'));
const results: Result[] = [];
try {
  results.push(await run('sqlite', `sqlite:${join(dir, 'bench.db')}`));
  const server = await startPostgres();
  try {
    const url = await createDatabase(server.url, 'bench');
    results.push(await run('postgres', url, url));
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printTable(results);
