// helm's error messages against the oracle: every failing corpus case rendered as a chart file must fail
// with the text helm 4.1.4 printed (after "Error: "), except the few listed as not matched yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadValues } from '../../src/helm/chart.js';
import { renderOne } from '../../src/helm/render-template.js';
import { allCases } from './corpus.js';

/** Messages known to differ from helm's, each for a stated reason. Shrink this list, never grow it. */
const NOT_YET = new Set<string>([
  // JavaScript's stack ends at about 600 nested includes, before helm's limit of 1000: the message has
  // helm's shape and final words, with a shorter chain.
  'define/include-recursive-limit',
]);

test('failing templates fail with the message helm prints', () => {
  const cases = allCases().filter(
    (c) => c.data === undefined && c.expect !== undefined && 'error' in c.expect && c.expect.message,
  );
  assert.ok(cases.length >= 80, `only ${cases.length} error cases with messages`);
  const differ: { name: string; want: string; got: string }[] = [];
  for (const c of cases) {
    const want = (c.expect as { message: string }).message;
    let got = '(rendered without error)';
    try {
      let values;
      try {
        values = loadValues(c.values);
      } catch (e) {
        // What the chart loader says of a broken values.yaml.
        throw new Error(`cannot load values.yaml: ${(e as Error).message}`);
      }
      renderOne(c.template, values, {
        templateName: 't/templates/t.yaml',
        release: { name: 'r', namespace: 'ns' },
        chart: { name: 't', version: '0.1.0' },
      });
    } catch (e) {
      got = (e as Error).message;
    }
    if (got !== want && !NOT_YET.has(c.name)) differ.push({ name: c.name, want, got });
    if (got === want && NOT_YET.has(c.name)) differ.push({ name: c.name, want: 'listed in NOT_YET', got });
  }
  assert.deepEqual(differ, [], 'messages that differ from helm');
});
