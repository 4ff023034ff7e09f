// `fleethub template render` as a user runs it: the seed's Sveltos templates with a data document as the
// root object and missingkey=error, helm-style values files, and Go's error texts on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from '../support/hub.js';
import { runFleethub, type CliResult } from '../support/cli.js';
import { loadCorpusFile } from '../gotemplate/corpus.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = scratchDir('fleethub-template-');

function fleethub(...args: string[]): CliResult {
  return runFleethub(['template', 'render', ...args], dir);
}

function file(name: string, text: string): string {
  const path = join(dir, name.replaceAll('/', '-'));
  writeFileSync(path, text);
  return path;
}

const seeds = loadCorpusFile('seeds.yaml').cases;

test('the seed templates render per cluster with --data and --missing-key error, as helm renders them', () => {
  // data-root-missing-key records helm's lenient mode; under missingkey=error it must fail instead.
  const lenientOnly = (name: string) => name.endsWith('data-root-missing-key');
  for (const c of seeds.filter(
    (s) => s.data !== undefined && s.expect && 'output' in s.expect && !lenientOnly(s.name),
  )) {
    const out = fleethub(
      file(`${c.name}.tpl`, c.template),
      '--data',
      file(`${c.name}.data.yaml`, c.data!),
      '--missing-key',
      'error',
    );
    assert.equal(out.code, 0, `${c.name}: ${out.stderr}`);
    assert.equal(out.stdout, (c.expect as { output: string }).output, c.name);
  }
  const lenient = seeds.find((s) => lenientOnly(s.name))!;
  const strict = fleethub(
    file('lenient.tpl', lenient.template),
    '--data',
    file('lenient.yaml', lenient.data!),
    '--missing-key',
    'error',
  );
  assert.equal(strict.code, 1);
  assert.match(strict.stderr, /map has no entry for key/);
  const helmMode = fleethub(
    file('lenient.tpl', lenient.template),
    '--data',
    file('lenient.yaml', lenient.data!),
  );
  assert.equal(helmMode.stdout, (lenient.expect as { output: string }).output);
  const flannel = seeds.find((s) => s.name.endsWith('flannel-patch'))!;
  const tenants = ['10.1.0.0/16', '10.2.0.0/16'].map((cidr, i) =>
    fleethub(
      file('flannel.tpl', flannel.template),
      '--data',
      file(
        `cluster-${i}.yaml`,
        `Cluster:\n  spec:\n    clusterNetwork:\n      pods:\n        cidrBlocks: ["${cidr}"]\n`,
      ),
      '--missing-key',
      'error',
    ),
  );
  assert.match(tenants[0]!.stdout, /"Network": "10\.1\.0\.0\/16"/);
  assert.match(tenants[1]!.stdout, /"Network": "10\.2\.0\.0\/16"/);
});

test('missingkey=error names the missing key; helm mode prints nothing for it', () => {
  const tpl = file('missing.tpl', 'net: {{ .Cluster.spec.network }}\n');
  const data = file('nospec.yaml', 'Cluster:\n  spec: {}\n');
  const strict = fleethub(tpl, '--data', data, '--missing-key', 'error');
  assert.equal(strict.code, 1);
  assert.match(
    strict.stderr,
    /template: .*missing\.tpl:1:\d+: executing ".*missing\.tpl" at <\.Cluster\.spec\.network>: map has no entry for key "network"/,
  );
  const lenient = fleethub(tpl, '--data', data);
  assert.equal(lenient.code, 0);
  assert.equal(lenient.stdout, 'net: \n');
});

test('values files merge in order as .Values, with helpers from _ files', () => {
  const helpers = file(
    '_helpers.tpl',
    '{{- define "name" -}}{{ .Values.app | default "app" }}-{{ .Values.tier }}{{- end -}}',
  );
  const main = file(
    'main.yaml',
    'name: {{ include "name" . }}\nreplicas: {{ .Values.replicas }}\nbig: {{ .Values.big }}\n',
  );
  const base = file('base.yaml', 'app: shop\ntier: web\nreplicas: 2\nbig: 1000000\n');
  const prod = file('prod.yaml', 'tier: prod\nreplicas: 5\n');
  const out = fleethub(helpers, main, '-f', base, '--values', prod);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, 'name: shop-prod\nreplicas: 5\nbig: 1e+06\n');
});

test('--set and --set-string override values as helm parses them', () => {
  const main = file(
    'set.yaml',
    '{{ .Values.a.b }} {{ kindIs "string" .Values.n }} {{ kindIs "string" .Values.s }} {{ .Values.list }}\n',
  );
  const base = file('set-base.yaml', 'a: {b: from-file}\n');
  const out = fleethub(main, '-f', base, '--set', 'a.b=from-set,n=5,list={x,y}', '--set-string', 's=5');
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, 'from-set false true [x y]\n');
});

test('parse errors point at the file, line and problem; bad flags are usage errors', () => {
  const broken = fleethub(file('broken.tpl', 'a\n{{ if .x }}\nb\n'));
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /template: .*broken\.tpl:\d+: unexpected EOF/);
  const usage = fleethub('--missing-key', 'sometimes', file('x.tpl', 'x'));
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--missing-key must be default, zero or error/);
});

test('fleethub template chart prints what helm template prints for the helm create chart', () => {
  const charts = join(root, 'test', 'gotemplate', 'charts');
  const chartCmd = (...args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin', 'fleethub.js'), 'template', 'chart', ...args], {
      encoding: 'utf8',
    });
  const helm = (...args: string[]) =>
    spawnSync(join(root, '.tools', 'v35', 'helm'), ['template', ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
  const stored = chartCmd('r', join(charts, 'demo'), '-n', 'ns');
  assert.equal(stored.status, 0, stored.stderr);
  assert.equal(stored.stdout, readFileSync(join(charts, 'demo.expected.yaml'), 'utf8'));
  // Live against the binary, with values files and --set overrides it has not seen before.
  const args = [
    'shop',
    join(charts, 'demo'),
    '-n',
    'team-a',
    '-f',
    join(charts, 'demo-values-full.yaml'),
    '--set',
    'replicaCount=3,image.tag=1.2.3',
    '--set-string',
    'podLabels.tier=web',
  ];
  const ours = chartCmd(...args);
  const theirs = helm(...args);
  assert.equal(theirs.status, 0, theirs.stderr);
  assert.equal(ours.status, 0, ours.stderr);
  assert.equal(ours.stdout, theirs.stdout);
});
