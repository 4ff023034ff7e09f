// Regenerates the corpus expectations from the real helm 4.1.4: every case is placed in a throwaway
// chart and `helm template` renders it. Usage: oracle.js [name-substring…] | --charts [render-substring…]
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { isMap, isSeq, parseDocument } from 'yaml';
import {
  CHARTS_DIR,
  CHART_RENDERS,
  CORPUS_DIR,
  HELM_VERSION,
  PACKAGED_CHARTS,
  ROOT,
  chartArgs,
  corpusFiles,
  isFailingRender,
  loadCorpusFile,
  outputMatches,
} from './corpus.js';
import type { CorpusCase, Expectation } from './corpus.js';

export const HELM = join(ROOT, '.tools', 'v35', 'helm');
export const RELEASE = 'r';
export const NAMESPACE = 'ns';
/** Appended right after each template so helm's whitespace trimming of files cannot touch the output. */
const SENTINEL = '@@END-OF-CASE@@';
/** A file that is never valid YAML: it forces helm onto the path that prints every file untouched. */
const INVALID_FILE = 'zzz-invalid.yaml';
const BATCH = 40;
const PARALLEL = 2;
const MAX_MESSAGE = 2000;

interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
}

let home: string | undefined;

function helm(args: string[]): Promise<HelmRun> {
  home ??= mkdtempSync(join(tmpdir(), 'gotemplate-oracle-home-'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
  return new Promise((resolve) => {
    execFile(HELM, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The template helm renders for a case: data cases go through tpl so the root object is theirs. */
function helmSide(c: CorpusCase): { template: string; values: string } {
  if (c.data === undefined) return { template: c.template, values: c.values };
  const data = c.data
    .split('\n')
    .map((l) => (l === '' ? l : `  ${l}`))
    .join('\n');
  return {
    template: '{{ tpl .Values.template .Values.data }}',
    values: `template: ${JSON.stringify(c.template)}\ndata:\n${data}\n`,
  };
}

function writeChart(dir: string, values: string, templates: Map<string, string>): void {
  mkdirSync(join(dir, 'templates'), { recursive: true });
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: t\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'values.yaml'), values);
  for (const [file, text] of templates) writeFileSync(join(dir, 'templates', file), text);
}

/** Every file's exact output from a run that was forced onto helm's "print raw files" path. */
function parseRaw(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  const header = /(?:^|\n)---\n# Source: t\/templates\/([^\n]+)\n/g;
  let m: RegExpExecArray | null;
  while ((m = header.exec(stdout)) !== null) {
    const start = m.index + m[0].length;
    const end = stdout.indexOf(SENTINEL, start);
    if (end >= 0 && m[1] !== undefined) out.set(m[1], stdout.slice(start, end));
  }
  return out;
}

function errorMessage(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => !l.startsWith('level='));
  return lines
    .join('\n')
    .replace(/\n*Use --debug flag to render out invalid YAML\s*$/, '')
    .trim()
    .replace(/^Error: /, '');
}

async function inChart<T>(
  values: string,
  templates: Map<string, string>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'gotemplate-oracle-'));
  try {
    writeChart(join(dir, 't'), values, templates);
    return await fn(join(dir, 't'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Renders several cases sharing values in one chart; undefined when a render error fails the run. */
async function renderBatch(
  cases: CorpusCase[],
  values: string,
): Promise<Map<CorpusCase, string> | undefined> {
  const templates = new Map<string, string>();
  cases.forEach((c, i) =>
    templates.set(`t${String(i).padStart(4, '0')}.yaml`, helmSide(c).template + SENTINEL),
  );
  templates.set(INVALID_FILE, 'a: b: c: [\n');
  return inChart(values, templates, async (dir) => {
    const run = await helm(['template', RELEASE, dir, '-n', NAMESPACE, '--debug']);
    if (!/^Error: YAML parse error on /m.test(run.stderr)) return undefined;
    const files = parseRaw(run.stdout);
    const result = new Map<CorpusCase, string>();
    for (const [i, c] of cases.entries()) {
      const output = files.get(`t${String(i).padStart(4, '0')}.yaml`);
      if (output === undefined) return undefined;
      result.set(c, output);
    }
    return result;
  });
}

/** Renders one case alone as templates/t.yaml; a failing render is recorded with helm's message. */
export async function renderSolo(c: CorpusCase): Promise<Expectation> {
  const side = helmSide(c);
  const rendered = await renderBatch([c], side.values);
  const output = rendered?.get(c);
  if (output !== undefined) return { output };
  // Failed: rerun the template exactly as written (no sentinel) for helm's own message.
  const run = await inChart(side.values, new Map([['t.yaml', side.template]]), (dir) =>
    helm(['template', RELEASE, dir, '-n', NAMESPACE]),
  );
  if (run.code === 0) throw new Error(`${c.name}: helm fails only with the sentinel appended`);
  const message = errorMessage(run.stderr);
  // Runaway recursion nests one message per level (include → ~100 KB): keep the head only.
  if (message.length <= MAX_MESSAGE) return { error: true, message };
  return {
    error: true,
    message: `${message.slice(0, MAX_MESSAGE)} …[truncated: ${message.length} characters]`,
  };
}

async function pool<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

const DEFINES = /\{\{-?\s*(?:define|block)\b/;

/** Computes helm's expectation for every case given. */
export async function oracle(cases: CorpusCase[]): Promise<Map<CorpusCase, Expectation>> {
  const expectations = new Map<CorpusCase, Expectation>();
  const solo: CorpusCase[] = [];
  const groups = new Map<string, CorpusCase[]>();
  for (const c of cases) {
    // Defines share one namespace per chart, data cases carry their own values, known failures fail a run.
    if (c.data !== undefined || DEFINES.test(c.template) || (c.expect && 'error' in c.expect)) solo.push(c);
    else groups.set(c.values, [...(groups.get(c.values) ?? []), c]);
  }
  const batches: { values: string; cases: CorpusCase[] }[] = [];
  for (const [values, group] of groups)
    for (let i = 0; i < group.length; i += BATCH) batches.push({ values, cases: group.slice(i, i + BATCH) });
  await pool(
    batches.map((b) => async () => {
      const rendered = await renderBatch(b.cases, b.values);
      if (!rendered) solo.push(...b.cases);
      else for (const [c, output] of rendered) expectations.set(c, { output });
    }),
  );
  await pool(solo.map((c) => async () => expectations.set(c, await renderSolo(c))));
  return expectations;
}

/** Writes the expectations back into the corpus files, keeping their comments and layout. */
function writeBack(file: string, expectations: Map<string, Expectation>): number {
  const path = join(CORPUS_DIR, file);
  const previous = new Map(loadCorpusFile(file).cases.map((c) => [c.name, c]));
  const doc = parseDocument(readFileSync(path, 'utf8'));
  if (doc.has('helm')) doc.set('helm', HELM_VERSION);
  else if (isMap(doc.contents)) {
    const items = doc.contents.items;
    items.unshift(doc.createPair('helm', HELM_VERSION) as (typeof items)[number]);
  }
  const seq = doc.get('cases');
  if (!isSeq(seq)) throw new Error(`${file}: cases must be a list`);
  const prefix = file.replace(/\.yaml$/, '');
  let changed = 0;
  for (const item of seq.items) {
    if (!isMap(item)) continue;
    const name = `${prefix}/${String(item.get('name'))}`;
    const e = expectations.get(name);
    if (!e) continue;
    // A random case keeps its stored sample while that still has the shape, so reruns do not churn.
    const old = previous.get(name);
    if (
      old?.random !== undefined &&
      old.expect &&
      'output' in old.expect &&
      outputMatches(old, old.expect.output)
    )
      continue;
    item.flow = false;
    item.set('expect', doc.createNode(e));
    changed++;
  }
  writeFileSync(path, doc.toString({ lineWidth: 0 }));
  return changed;
}

/** A .tgz's regular files and their bytes: what a chart package means, whatever its timestamps. */
export function tarFiles(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  const field = (at: number, len: number): string =>
    tar
      .subarray(at, at + len)
      .toString('latin1')
      .replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length;) {
    const name = field(at, 100);
    if (name === '') break;
    const size = parseInt(field(at + 124, 12).trim() || '0', 8);
    const type = field(at + 156, 1);
    const prefix = field(at + 345, 155);
    const body = at + 512;
    if (type === '0' || type === '')
      files.set(prefix ? `${prefix}/${name}` : name, tar.subarray(body, body + size));
    at = body + Math.ceil(size / 512) * 512;
  }
  return files;
}

function sameFiles(a: Map<string, Buffer>, b: Map<string, Buffer>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, bytes] of a) if (!b.get(name)?.equals(bytes)) return false;
  return true;
}

/**
 * Packages every PACKAGED_CHARTS source with `helm package`. helm 4.1.4 stores each source file's mtime
 * in the tar (the gzip header has none), so the bytes change with every checkout: the stored .tgz is
 * replaced only when missing or when the files it holds differ, and reruns leave it untouched.
 */
async function packageCharts(): Promise<void> {
  for (const p of PACKAGED_CHARTS) {
    const tmp = mkdtempSync(join(tmpdir(), 'gotemplate-package-'));
    try {
      const run = await helm(['package', join(CHARTS_DIR, p.source), '-d', tmp]);
      const made = /saved it to: (\S+\.tgz)/.exec(run.stdout)?.[1];
      if (run.code !== 0 || made === undefined) throw new Error(`helm package ${p.source}: ${run.stderr}`);
      const target = join(CHARTS_DIR, p.into, made.slice(dirname(made).length + 1));
      const fresh = tarFiles(readFileSync(made));
      if (existsSync(target) && sameFiles(tarFiles(readFileSync(target)), fresh)) {
        console.log(`charts/${p.into}: ${p.source} unchanged`);
        continue;
      }
      copyFileSync(made, target);
      console.log(`charts/${p.into}: packaged ${p.source} (${fresh.size} files)`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}

/** Re-renders the stored whole-chart expectations (every CHART_RENDERS entry whose name contains a filter). */
async function chartOracles(filters: string[]): Promise<void> {
  await packageCharts();
  for (const r of CHART_RENDERS) {
    if (filters.length > 0 && !filters.some((f) => r.name.includes(f))) continue;
    const run = await helm(['template', ...chartArgs(r.args)]);
    const path = join(CHARTS_DIR, r.expected);
    mkdirSync(dirname(path), { recursive: true });
    // The corpus states which renders fail: helm disagreeing means the chart or the list is wrong.
    if (isFailingRender(r)) {
      if (run.code === 0) throw new Error(`${r.name}: helm succeeded, the corpus expects a failure`);
      const message = errorMessage(run.stderr);
      if (r.messageIncludes !== undefined && !message.includes(r.messageIncludes))
        throw new Error(`${r.name}: helm's message ${JSON.stringify(message)} lacks ${r.messageIncludes}`);
      writeFileSync(path, `${JSON.stringify({ error: true, exitCode: run.code, message }, null, 2)}\n`);
      console.log(`charts/${r.expected}: exit ${run.code}, ${message}`);
    } else {
      if (run.code !== 0) throw new Error(`${r.name}: helm template ${r.args.join(' ')}: ${run.stderr}`);
      writeFileSync(path, run.stdout);
      console.log(`charts/${r.expected}: ${run.stdout.length} bytes`);
    }
  }
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const version = await helm(['version', '--template', '{{ .Version }}']);
  if (version.stdout.trim() !== HELM_VERSION)
    throw new Error(`${HELM} is ${version.stdout}, want ${HELM_VERSION}`);
  if (filters[0] === '--charts') {
    await chartOracles(filters.slice(1));
    if (home) rmSync(home, { recursive: true, force: true });
    return;
  }
  for (const file of corpusFiles()) {
    const cases = loadCorpusFile(file).cases.filter(
      (c) => filters.length === 0 || filters.some((f) => c.name.includes(f)),
    );
    if (cases.length === 0) continue;
    const expectations = await oracle(cases);
    const byName = new Map([...expectations].map(([c, e]) => [c.name, e]));
    const written = writeBack(file, byName);
    // Read back: the file must now hold exactly what helm produced.
    for (const c of loadCorpusFile(file).cases) {
      const want = byName.get(c.name);
      if (!want) continue;
      if (c.random !== undefined) {
        // Both the fresh output and the stored sample must have the stated shape.
        const fresh: CorpusCase = { ...c, expect: want };
        if (!outputMatches(fresh, 'output' in want ? want.output : ''))
          throw new Error(`${c.name}: helm's output ${JSON.stringify(want)} does not match /${c.random}/`);
        if (!outputMatches(c, c.expect && 'output' in c.expect ? c.expect.output : ''))
          throw new Error(`${c.name}: stored sample does not match /${c.random}/`);
      } else if (JSON.stringify(c.expect) !== JSON.stringify(want))
        throw new Error(`${c.name}: expectation did not round-trip`);
    }
    const errors = [...expectations.values()].filter((e) => 'error' in e).length;
    console.log(`${file}: ${expectations.size} cases (${errors} errors, ${written} rewritten)`);
  }
  if (filters.length === 0) await chartOracles([]);
  if (home) rmSync(home, { recursive: true, force: true });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
