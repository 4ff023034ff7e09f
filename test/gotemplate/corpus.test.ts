// Integrity of the Go template differential corpus: size, unique names, an expectation from helm
// for every case, and the stored whole-chart oracles. The engine comparison lives in corpus.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHARTS_DIR,
  CHART_RENDERS,
  HELM_VERSION,
  PACKAGED_CHARTS,
  allCases,
  isFailingRender,
  loadChartExpectation,
  renderChartDir,
  renderValuesFiles,
  compareWithEngine,
  loadCorpus,
  outputMatches,
} from './corpus.js';

describe('gotemplate corpus', () => {
  const files = loadCorpus();
  const cases = files.flatMap((f) => f.cases);

  test('holds at least 300 cases', () => {
    assert.ok(cases.length >= 300, `only ${cases.length} cases`);
  });

  test('every file records the helm version its expectations came from', () => {
    for (const f of files) assert.equal(f.helm, HELM_VERSION, f.file);
  });

  test('case names are unique', () => {
    const seen = new Set<string>();
    for (const c of cases) {
      assert.ok(!seen.has(c.name), `duplicate case ${c.name}`);
      seen.add(c.name);
    }
  });

  test('every case has an expectation, and failures carry helm message', () => {
    for (const c of cases) {
      assert.ok(c.expect, `${c.name} has no expectation: run node dist/test/gotemplate/oracle.js`);
      if ('error' in c.expect) {
        assert.equal(c.expect.error, true, c.name);
        assert.ok(c.expect.message && c.expect.message.length > 0, `${c.name}: error without message`);
        assert.equal(c.random, undefined, `${c.name}: a failing case cannot be random`);
      } else assert.equal(typeof c.expect.output, 'string', c.name);
    }
  });

  test('random cases state a shape that helm output satisfies', () => {
    const random = cases.filter((c) => c.random !== undefined);
    assert.ok(random.length >= 10, `only ${random.length} random cases`);
    for (const c of random)
      assert.ok(outputMatches(c, c.expect && 'output' in c.expect ? c.expect.output : ''), c.name);
  });

  test('covers failures and successes in every area', () => {
    const errors = cases.filter((c) => c.expect && 'error' in c.expect);
    assert.ok(errors.length >= 50, `only ${errors.length} error cases`);
    for (const f of files) assert.ok(f.cases.length > 0, `${f.file} is empty`);
    assert.ok(cases.some((c) => c.name.startsWith('seeds/flannel-patch') && c.data !== undefined));
    assert.ok(cases.some((c) => c.name.startsWith('seeds/machinehealthcheck') && c.data !== undefined));
  });

  test('the seed templates render per-cluster data', () => {
    const flannel = cases.find((c) => c.name === 'seeds/flannel-patch');
    assert.ok(flannel?.expect && 'output' in flannel.expect);
    assert.match(flannel.expect.output, /"Network": "10\.244\.0\.0\/16"/);
    const mhc = cases.find((c) => c.name === 'seeds/machinehealthcheck');
    assert.ok(mhc?.expect && 'output' in mhc.expect);
    assert.equal(mhc.expect.output.match(/kind: MachineHealthCheck/g)?.length, 3);
  });

  test('whole-chart oracles are stored next to their charts', () => {
    const names = new Set<string>();
    for (const r of CHART_RENDERS) {
      assert.ok(!names.has(r.name), `duplicate render ${r.name}`);
      names.add(r.name);
      assert.ok(existsSync(join(CHARTS_DIR, renderChartDir(r), 'Chart.yaml')), r.name);
      for (const v of renderValuesFiles(r)) assert.ok(existsSync(join(CHARTS_DIR, v)), v);
      assert.ok(existsSync(join(CHARTS_DIR, r.expected)), `${r.expected}: run oracle.js --charts`);
      const e = loadChartExpectation(r);
      if ('output' in e) assert.match(e.output, /^---\n# Source: /, r.expected);
      else {
        assert.ok(e.exitCode !== 0 && e.message.length > 0, r.expected);
        if (r.messageIncludes !== undefined) assert.ok(e.message.includes(r.messageIncludes), r.expected);
      }
    }
    assert.ok(CHART_RENDERS.filter(isFailingRender).length >= 2);
  });

  test('packaged subcharts are stored next to their sources', () => {
    for (const p of PACKAGED_CHARTS) {
      assert.ok(existsSync(join(CHARTS_DIR, p.source, 'Chart.yaml')), p.source);
      const name = p.source.split('/').at(-1)!;
      const tgz = readdirSync(join(CHARTS_DIR, p.into)).filter((f) => f.startsWith(`${name}-`));
      assert.equal(tgz.length, 1, `${p.into}: ${name}-<version>.tgz`);
    }
  });

  test('compareWithEngine reports every disagreement', () => {
    const sample = allCases().slice(0, 20);
    // An engine that answers with helm's own expectations agrees everywhere …
    const byTemplate = new Map(sample.map((c) => [c.template + '\0' + c.values, c]));
    const echo = (template: string, values: string): string => {
      const c = byTemplate.get(template + '\0' + values);
      if (!c?.expect || 'error' in c.expect) throw new Error('render failed');
      return c.expect.output;
    };
    assert.deepEqual(compareWithEngine(echo, sample), []);
    // … and one that always prints nothing disagrees with every case whose expectation is not empty.
    const silent = compareWithEngine(() => '', sample);
    const nonEmpty = sample.filter((c) => !c.expect || 'error' in c.expect || !outputMatches(c, ''));
    assert.equal(silent.length, nonEmpty.length);
  });
});
