// Template benchmark (on demand: node dist/bench/template.bench.js): the seed's flannel patch rendered
// for 10,000 clusters by our engine (parsed once), against `helm template` on the same input, as a ratio.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseTemplate } from '../src/gotemplate/template.js';
import type { GoMap } from '../src/gotemplate/value.js';
import { helmFunctions } from '../src/helm/functions.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const HELM_RUNS = Number(process.env.BENCH_HELM_RUNS ?? 20);
const root = fileURLToPath(new URL('../..', import.meta.url));

const FLANNEL = `- op: replace
  path: /data/net-conf.json
  value: |
    {
      "Backend": {"Type": "host-gw"},
      "EnableNFTables": false,
      "Network": "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 }}"
    }
`;

function cluster(i: number): GoMap {
  return {
    Cluster: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: `tenant-${i}`, namespace: `env-${i % 50}` },
      spec: { clusterNetwork: { pods: { cidrBlocks: [`10.${(i >> 8) & 255}.${i & 255}.0/24`] } } },
    },
  };
}

function engine(): { seconds: number; perSecond: number } {
  const set = parseTemplate('flannel', FLANNEL, { funcs: helmFunctions(), missingKey: 'error' });
  const data = Array.from({ length: CLUSTERS }, (_, i) => cluster(i));
  set.execute('flannel', data[0]!); // warm-up
  const start = performance.now();
  let bytes = 0;
  for (const d of data) bytes += set.execute('flannel', d).length;
  const seconds = (performance.now() - start) / 1000;
  if (bytes === 0) throw new Error('nothing rendered');
  return { seconds, perSecond: CLUSTERS / seconds };
}

function helm(): { perRunMs: number; perSecond: number } {
  const dir = mkdtempSync(join(tmpdir(), 'fleethub-template-bench-'));
  try {
    mkdirSync(join(dir, 'templates'));
    writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: flannel\nversion: 0.1.0\n');
    // The same template through helm: the cluster arrives as values, and since helm accepts only YAML
    // mappings as chart output, the patch is carried in a ConfigMap (the work per render is the same).
    const patch = FLANNEL.replace('.Cluster.', '.Values.Cluster.')
      .split('\n')
      .map((line) => (line ? `    ${line}` : line))
      .join('\n');
    writeFileSync(
      join(dir, 'templates', 'patch.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flannel\ndata:\n  patch: |\n${patch}`,
    );
    const helmBin = join(root, '.tools', 'v35', 'helm');
    const start = performance.now();
    for (let i = 0; i < HELM_RUNS; i++) {
      const values = join(dir, 'values.yaml');
      writeFileSync(values, JSON.stringify(cluster(i)));
      const r = spawnSync(helmBin, ['template', 'r', dir, '-f', values], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
    }
    const perRunMs = (performance.now() - start) / HELM_RUNS;
    return { perRunMs, perSecond: 1000 / perRunMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ours = engine();
const theirs = helm();
console.log(`\nflannel patch (seed 001), ${CLUSTERS} clusters`);
console.table([
  {
    renderer: 'fleethub engine (parsed once)',
    'total s': ours.seconds.toFixed(3),
    'templates/s': ours.perSecond.toFixed(0),
  },
  {
    renderer: `helm template (binary, ${HELM_RUNS} runs)`,
    'total s': ((theirs.perRunMs * CLUSTERS) / 1000).toFixed(1) + ' (projected)',
    'templates/s': theirs.perSecond.toFixed(1),
  },
]);
console.log(
  `ratio: ${(ours.perSecond / theirs.perSecond).toFixed(0)}× faster than helm template; goal < 0.5 s: ${ours.seconds < 0.5 ? 'met' : 'missed'}`,
);
