// Chart benchmark (on demand: node dist/bench/chart.bench.js): the `helm create` chart rendered whole for
// 1,000 clusters, each with its own values, in-process against `helm template` on the same values.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { GoMap } from '../src/gotemplate/value.js';
import { loadChart, loadValues } from '../src/helm/chart.js';
import { renderChart } from '../src/helm/render.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1_000);
const HELM_RUNS = Number(process.env.BENCH_HELM_RUNS ?? 20);
const root = fileURLToPath(new URL('../..', import.meta.url));
const CHART = join(root, 'test', 'gotemplate', 'charts', 'demo');

/** What a fleet's per-cluster values look like: image, scale, ingress host, resources, labels. */
function clusterValues(i: number): GoMap {
  const values: GoMap = {
    replicaCount: BigInt(1 + (i % 5)),
    image: { tag: `1.${25 + (i % 3)}.${i % 10}` },
    podLabels: { cluster: `edge-${i}`, site: `site-${i % 40}` },
    resources: { limits: { cpu: `${100 + (i % 4) * 100}m`, memory: '128Mi' } },
  };
  if (i % 2 === 0)
    values.ingress = {
      enabled: true,
      hosts: [{ host: `app.edge-${i}.example.com`, paths: [{ path: '/', pathType: 'Prefix' }] }],
    };
  if (i % 3 === 0) values.autoscaling = { enabled: true, minReplicas: 2n, maxReplicas: 6n };
  return values;
}

/** The values file each cluster gets; both renderers read the same text. */
function valuesText(i: number): string {
  return JSON.stringify(clusterValues(i), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

function inProcess(): { seconds: number; perSecond: number; bytes: number } {
  const chart = loadChart(CHART);
  const values = Array.from({ length: CLUSTERS }, (_, i) => loadValues(valuesText(i)));
  renderChart(chart, { releaseName: 'r', namespace: 'ns', values: values[0]! }); // warm-up
  const start = performance.now();
  let bytes = 0;
  for (const [i, v] of values.entries()) {
    bytes += renderChart(chart, { releaseName: 'r', namespace: `edge-${i}`, values: v }).length;
  }
  const seconds = (performance.now() - start) / 1000;
  return { seconds, perSecond: CLUSTERS / seconds, bytes };
}

function helm(): { perRunMs: number; perSecond: number } {
  const dir = mkdtempSync(join(tmpdir(), 'fleethub-chart-bench-'));
  try {
    const helmBin = join(root, '.tools', 'v35', 'helm');
    const start = performance.now();
    for (let i = 0; i < HELM_RUNS; i++) {
      const file = join(dir, `values-${i}.json`);
      writeFileSync(file, valuesText(i));
      const r = spawnSync(helmBin, ['template', 'r', CHART, '-n', `edge-${i}`, '-f', file], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(r.stderr);
    }
    const perRunMs = (performance.now() - start) / HELM_RUNS;
    return { perRunMs, perSecond: 1000 / perRunMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ours = inProcess();
const theirs = helm();
console.log(`\nhelm create chart, ${CLUSTERS} clusters with their own values`);
console.table([
  {
    renderer: 'fleethub (in-process)',
    'total s': ours.seconds.toFixed(3),
    'charts/s': ours.perSecond.toFixed(0),
    'ms/chart': ((ours.seconds * 1000) / CLUSTERS).toFixed(2),
  },
  {
    renderer: `helm template (binary, ${HELM_RUNS} runs)`,
    'total s': ((theirs.perRunMs * CLUSTERS) / 1000).toFixed(1) + ' (projected)',
    'charts/s': theirs.perSecond.toFixed(1),
    'ms/chart': theirs.perRunMs.toFixed(1),
  },
]);
const ratio = ours.perSecond / theirs.perSecond;
console.log(
  `ratio: ${ratio.toFixed(0)}× faster than helm template; goal 50×: ${ratio >= 50 ? 'met' : 'missed'}`,
);
