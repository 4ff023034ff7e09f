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

/** Whole charts rendered by `helm template r <chart> -n ns [-f values…]`, output stored in `expected`. */
export interface ChartRender {
  chart: string;
  values: string[];
  expected: string;
}

/** Paths relative to CHARTS_DIR. */
export const CHART_RENDERS: readonly ChartRender[] = [
  { chart: 'demo', values: [], expected: 'demo.expected.yaml' },
  { chart: 'demo', values: ['demo-values-full.yaml'], expected: 'demo-values-full.expected.yaml' },
];

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
