// The differential corpus for the Go template engine: loading the case files, their integrity rules,
// and the comparison of an engine's output against the outputs helm 4.1.4 produced for each case.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CORPUS_DIR = join(ROOT, 'test', 'gotemplate', 'corpus');
export const CHARTS_DIR = join(ROOT, 'test', 'gotemplate', 'charts');
export const HELM_VERSION = 'v4.1.4';

/**
 * One `helm template` run over a stored chart. `args` is exactly what follows `helm template` (release
 * name, chart, flags); the chart and every `-f` file are paths relative to CHARTS_DIR, see chartArgs.
 * `expected` (relative to CHARTS_DIR) holds helm's stdout byte for byte, or for a render helm refuses
 * a `*.error.json` file: {"error": true, "exitCode": …, "message": "<stderr without Error: >"}.
 */
export interface ChartRender {
  name: string;
  args: string[];
  expected: string;
  /** For failures: the part of helm's message an engine must reproduce (the whole message may differ). */
  messageIncludes?: string;
}

/** What helm did for a ChartRender: printed `output`, or failed with `message`. */
export type ChartExpectation = { output: string } | { error: true; exitCode: number; message: string };

/** Charts packaged into a parent's charts/ as .tgz; the oracle rebuilds them from their sources. */
export interface PackagedChart {
  /** The chart's source directory, relative to CHARTS_DIR (kept outside every chart). */
  source: string;
  /** The charts/ directory the .tgz goes into, relative to CHARTS_DIR. */
  into: string;
}

export const PACKAGED_CHARTS: readonly PackagedChart[] = [{ source: '_src/metrics', into: 'webapp/charts' }];

const ERROR_SUFFIX = '.error.json';

function render(name: string, args: string[], messageIncludes?: string): ChartRender {
  const failing = messageIncludes !== undefined;
  const expected = `expected/${name}${failing ? ERROR_SUFFIX : '.yaml'}`;
  return failing ? { name, args, expected, messageIncludes } : { name, args, expected };
}

const NS = ['-n', 'ns'];

export const CHART_RENDERS: readonly ChartRender[] = [
  // The `helm create` chart.
  { name: 'demo', args: ['r', 'demo', ...NS], expected: 'demo.expected.yaml' },
  {
    name: 'demo-values-full',
    args: ['r', 'demo', ...NS, '-f', 'demo-values-full.yaml'],
    expected: 'demo-values-full.expected.yaml',
  },
  // Nested directory subcharts (backend → cache), a packaged .tgz subchart, globals, nulls, -f and --set.
  render('webapp-default', ['r', 'webapp', ...NS]),
  render('webapp-overrides', [
    'prod',
    'webapp',
    '-n',
    'apps',
    '-f',
    'values/webapp-prod.yaml',
    '-f',
    'values/webapp-extra.yaml',
    '--set',
    'backend.replicas=5',
    '--set-string',
    'backend.cache.port=6380',
    '--set',
    'service.port=8443',
  ]),
  render('webapp-set-globals', [
    'r',
    'webapp',
    ...NS,
    '--set',
    'global.environment=qa,metrics.interval=15s',
    '--set',
    'backend.cache.global.cacheTier=large',
    '--set',
    'backend.global.imageRegistry=mirror.example.com',
  ]),
  // Dependency conditions and tags.
  render('toggles-default', ['r', 'toggles', ...NS]),
  render('toggles-flipped', [
    'r',
    'toggles',
    ...NS,
    '-f',
    'values/toggles-flipped.yaml',
    '--set-string',
    'gamma.missing.enabled=false',
    '--set',
    'delta.enabled=null',
  ]),
  // Only enabled subcharts contribute their crds/.
  render('toggles-include-crds', ['r', 'toggles', ...NS, '--include-crds']),
  // One chart under two aliases, import-values in both forms.
  render('pipeline-default', ['r', 'pipeline', ...NS]),
  render('pipeline-overrides', [
    'r',
    'pipeline',
    ...NS,
    '--set',
    'export.enabled=false,ingest.enabled=false',
    '--set',
    'settings.shared.database.host=pg.override',
    '--set',
    'ingest.concurrency=8',
  ]),
  // Defines from a library chart.
  render('libuser-default', ['r', 'libuser', ...NS]),
  // .Files, .helmignore, subchart file scope.
  render('filesdemo-default', ['r', 'filesdemo', ...NS]),
  // crds/ in the chart and in a subchart.
  render('operator-default', ['r', 'operator', ...NS]),
  render('operator-include-crds', ['r', 'operator', ...NS, '--include-crds']),
  // tpl over values, in the parent and in a subchart.
  render('tplvalues-default', ['r', 'tplvalues', ...NS]),
  render('tplvalues-overrides', [
    'r',
    'tplvalues',
    ...NS,
    '--set',
    'debug=true',
    '--set-string',
    'child.greeting=hi {{ .Values.who | default "nobody" }}',
    '--set',
    'port=9090',
  ]),
  // Hooks, weights, unknown events, tests.
  render('hooks-default', ['r', 'hooks', ...NS]),
  render('hooks-skip-tests', ['r', 'hooks', ...NS, '--skip-tests']),
  // .Capabilities, .Release, .Chart, .Subcharts.
  render('caps-default', ['r', 'caps', ...NS]),
  render('caps-old-cluster', [
    'rel',
    'caps',
    '-n',
    'kube-system',
    '--kube-version',
    '1.27.3',
    '--api-versions',
    'monitoring.coreos.com/v1',
    '--api-versions',
    'networking.istio.io/v1beta1/VirtualService',
  ]),
  render('caps-api-list', [
    'r',
    'caps',
    ...NS,
    '--kube-version',
    'v1.31.0',
    '-a',
    'policy/v1/PodDisruptionBudget,monitoring.coreos.com/v1',
  ]),
  render('caps-no-release-name', ['caps']),
  render(
    'caps-kube-too-old',
    ['r', 'caps', ...NS, '--kube-version', '1.19.0'],
    'chart requires kubeVersion: >=1.20.0-0 which is incompatible with Kubernetes v1.19.0',
  ),
  // Install order across parent and subchart, multi-document files, empty documents, nested dirs.
  render('ordering-default', ['r', 'ordering', ...NS]),
  render('ordering-quota', ['r', 'ordering', ...NS, '--set', 'withQuota=true']),
  // required / fail, in the parent, a subchart and a subchart's NOTES.txt.
  render('guards-default', ['r', 'guards', ...NS], 'A database password is required: set db.password'),
  render(
    'guards-missing-password',
    ['r', 'guards', ...NS, '--set', 'db.adminEmail=dba@example.com'],
    'A database password is required: set db.password',
  ),
  render(
    'guards-bad-mode',
    [
      'r',
      'guards',
      ...NS,
      '--set',
      'db.password=s3cr3t,db.adminEmail=dba@example.com',
      '--set',
      'mode=bogus',
    ],
    'mode must be standalone or replicated, got "bogus"',
  ),
  render(
    'guards-subchart-notes',
    ['r', 'guards', ...NS, '--set', 'db.password=s3cr3t'],
    'db.adminEmail is needed for the notes',
  ),
  render('guards-ok', ['r', 'guards', ...NS, '--set', 'db.password=s3cr3t,db.adminEmail=dba@example.com']),
  // Integers from --set are int64 (typeOf, typed parameters), from values files float64.
  render('setints-default', ['r', 'setints', ...NS]),
  render('setints-set', ['r', 'setints', ...NS, '--set', 'replicas=3,ports[0]=8080']),
  render('setints-set-string', ['r', 'setints', ...NS, '--set-string', 'replicas=3']),
  render(
    'setints-set-loop',
    ['r', 'setints', ...NS, '--set', 'replicas=3,loop=true'],
    'wrong type for value; expected int; got int64',
  ),
  render(
    'setints-file-loop',
    ['r', 'setints', ...NS, '--set', 'loop=true'],
    'wrong type for value; expected int; got float64',
  ),
  // A rendered manifest that is not YAML.
  render('badyaml-default', ['r', 'badyaml', ...NS], 'YAML parse error on badyaml/templates/configmap.yaml'),
  render('badyaml-fixed', ['r', 'badyaml', ...NS, '--set-string', 'banner=ok']),
  // A dependency in Chart.yaml that is not in charts/.
  render('missingdep-default', ['r', 'missingdep', ...NS], 'missing in charts/ directory: absent'),
  // values.schema.json in the chart (2020-12) and a subchart (draft-07); one error per chart, since helm
  // orders several errors of one object at random.
  render('schema-default', ['r', 'schema', ...NS]),
  render('schema-invalid', ['r', 'schema', ...NS, '--set', 'replicaCount=0'], 'minimum: got 0, want 1'),
  render(
    'schema-subchart-invalid',
    ['r', 'schema', ...NS, '--set', 'store.size=lots', '--set', 'image.extra=1'],
    "at '/size': 'lots' does not match pattern",
  ),
  // Chart.yaml and manifest heads with numbers and booleans where helm expects strings.
  render('scalars-default', ['r', 'scalars', ...NS]),
];

/** Flags of `helm template` that take a value (the next argument, unless written --flag=value). */
const VALUE_FLAGS = new Set([
  '-n',
  '--namespace',
  '-f',
  '--values',
  '--set',
  '--set-string',
  '--set-json',
  '--set-literal',
  '--set-file',
  '--kube-version',
  '-a',
  '--api-versions',
  '-s',
  '--show-only',
  '--version',
]);

/** Where a render's chart is (the last positional argument) and which arguments are values files. */
function argRoles(args: readonly string[]): { chart: number; files: Set<number> } {
  let chart = -1;
  const files = new Set<number>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const isFile = flag === '-f' || flag === '--values';
    if (eq >= 0) {
      if (isFile) files.add(i);
    } else if (VALUE_FLAGS.has(flag)) {
      if (isFile) files.add(i + 1);
      i++;
    } else if (!arg.startsWith('-')) chart = i;
  }
  if (chart < 0) throw new Error(`no chart in ${args.join(' ')}`);
  return { chart, files };
}

/**
 * A render's args with its chart and values files made absolute, for helm and for an engine alike
 * (`-f` takes comma-separated files, as helm's does).
 */
export function chartArgs(args: readonly string[], dir: string = CHARTS_DIR): string[] {
  const { chart, files } = argRoles(args);
  const absolute = (list: string): string =>
    list
      .split(',')
      .map((f) => join(dir, f))
      .join(',');
  return args.map((arg, i) => {
    if (i === chart) return join(dir, arg);
    if (!files.has(i)) return arg;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    return eq >= 0 ? `${arg.slice(0, eq + 1)}${absolute(arg.slice(eq + 1))}` : absolute(arg);
  });
}

/** The chart directory a render uses, relative to CHARTS_DIR. */
export function renderChartDir(r: ChartRender): string {
  return r.args[argRoles(r.args).chart]!;
}

/** The values files a render reads, relative to CHARTS_DIR. */
export function renderValuesFiles(r: ChartRender): string[] {
  const { files } = argRoles(r.args);
  return [...files].flatMap((i) => {
    const arg = r.args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    return (eq >= 0 ? arg.slice(eq + 1) : arg).split(',');
  });
}

export function isFailingRender(r: ChartRender): boolean {
  return r.expected.endsWith(ERROR_SUFFIX);
}

export function loadChartExpectation(r: ChartRender): ChartExpectation {
  const text = readFileSync(join(CHARTS_DIR, r.expected), 'utf8');
  if (!isFailingRender(r)) return { output: text };
  const e = JSON.parse(text) as { error?: unknown; exitCode?: unknown; message?: unknown };
  if (e.error !== true || typeof e.exitCode !== 'number' || typeof e.message !== 'string')
    throw new Error(`${r.expected}: want {"error": true, "exitCode": n, "message": "…"}`);
  return { error: true, exitCode: e.exitCode, message: e.message };
}

/** What helm produced for a case: the rendered file, or a failed render with helm's message. */
export type Expectation = { output: string } | { error: true; message?: string };

export interface CorpusCase {
  /** Unique across the corpus: `<file>/<case>`. */
  name: string;
  /** The template text exactly as the engine must receive it. */
  template: string;
  /** values.yaml text (the template sees it as .Values); defaults to the file's `values`. */
  values: string;
  /**
   * Root data as YAML (the template sees it as `.`, the way Sveltos passes .Cluster/.MatchingResources).
   * helm gets it through `{{ tpl .Values.template .Values.data }}`, see oracle.ts.
   */
  data?: string;
  /** Anchored regex the output must match, for random or time-dependent functions. */
  random?: string;
  expect?: Expectation;
  /** The corpus file the case comes from. */
  file: string;
}

export interface CorpusFile {
  file: string;
  helm?: string;
  cases: CorpusCase[];
}

interface RawCase {
  name?: unknown;
  template?: unknown;
  values?: unknown;
  data?: unknown;
  random?: unknown;
  expect?: unknown;
}

function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} must be a string`);
  return value;
}

function expectation(value: unknown, what: string): Expectation | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') throw new Error(`${what}: expect must be a map`);
  const e = value as { output?: unknown; error?: unknown; message?: unknown };
  if (e.error === true)
    return typeof e.message === 'string' ? { error: true, message: e.message } : { error: true };
  return { output: str(e.output, `${what}: expect.output`) };
}

export function loadCorpusFile(file: string): CorpusFile {
  const doc = parse(readFileSync(join(CORPUS_DIR, file), 'utf8')) as {
    helm?: unknown;
    values?: unknown;
    cases?: unknown;
  };
  const prefix = file.replace(/\.yaml$/, '');
  const defaultValues =
    doc.values === undefined || doc.values === null ? '' : str(doc.values, `${file}: values`);
  if (!Array.isArray(doc.cases)) throw new Error(`${file}: cases must be a list`);
  const cases = (doc.cases as RawCase[]).map((raw, i): CorpusCase => {
    const what = `${file}: case ${i}`;
    const c: CorpusCase = {
      name: `${prefix}/${str(raw.name, `${what}: name`)}`,
      template: str(raw.template, `${what}: template`),
      values: raw.values === undefined ? defaultValues : str(raw.values, `${what}: values`),
      file,
    };
    if (raw.data !== undefined) c.data = str(raw.data, `${what}: data`);
    if (raw.random !== undefined) c.random = str(raw.random, `${what}: random`);
    const e = expectation(raw.expect, what);
    if (e) c.expect = e;
    return c;
  });
  return typeof doc.helm === 'string' ? { file, helm: doc.helm, cases } : { file, cases };
}

export function corpusFiles(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

export function loadCorpus(): CorpusFile[] {
  return corpusFiles().map(loadCorpusFile);
}

export function allCases(): CorpusCase[] {
  return loadCorpus().flatMap((f) => f.cases);
}

/** Whether an output satisfies a case's expectation (exact, or by shape for random cases). */
export function outputMatches(c: CorpusCase, output: string): boolean {
  if (!c.expect || 'error' in c.expect) return false;
  if (c.random !== undefined) return new RegExp(`^(?:${c.random})$`, 's').test(output);
  return output === c.expect.output;
}

/** What the engine is given for one case. */
export interface RenderContext {
  /** The template's name in helm's messages (the oracle renders error cases as templates/t.yaml). */
  templateName: string;
  /** When set, the root object `.` is this YAML document and .Values is not provided. */
  data?: string;
}

/**
 * Renders one case. `values` is values.yaml text, to be read the way helm reads it (YAML 1.1,
 * numbers as float64) and provided as .Values (with .Release.Name "r", .Release.Namespace "ns",
 * .Chart.Name "t"). Must return the rendered file after helm's `<no value>` blanking, and throw
 * when helm would fail the render.
 */
export type EngineRender = (template: string, values: string, context: RenderContext) => string;

export interface Mismatch {
  name: string;
  problem: string;
}

/** Runs every case with an expectation through `render` and lists where it disagrees with helm. */
export function compareWithEngine(render: EngineRender, cases: CorpusCase[] = allCases()): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const c of cases) {
    if (!c.expect) continue;
    const context: RenderContext = { templateName: 't/templates/t.yaml' };
    if (c.data !== undefined) context.data = c.data;
    let output: string;
    try {
      output = render(c.template, c.values, context);
    } catch (err) {
      if (!('error' in c.expect))
        mismatches.push({ name: c.name, problem: `engine failed: ${(err as Error).message}` });
      continue;
    }
    if ('error' in c.expect) {
      mismatches.push({
        name: c.name,
        problem: `helm fails (${c.expect.message ?? ''}), engine gave ${JSON.stringify(output)}`,
      });
    } else if (!outputMatches(c, output)) {
      const want = c.random !== undefined ? `shape /${c.random}/` : JSON.stringify(c.expect.output);
      mismatches.push({ name: c.name, problem: `want ${want}, got ${JSON.stringify(output)}` });
    }
  }
  return mismatches;
}
