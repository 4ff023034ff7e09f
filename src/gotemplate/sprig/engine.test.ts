// The sprig differential table run through the template engine (parse + execute), compared with
// what helm 4.1.4 rendered: the end-to-end form of sprig.test.ts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTemplate } from '../template.js';
import type { GoValue } from '../value.js';
import {
  oracleValues,
  SPRIG_CASES,
  SPRIG_ENGINE_CASES,
  SPRIG_ERROR_CASES,
  SPRIG_SHAPE_CASES,
} from './cases.js';
import { sprigFunctions } from './index.js';
import { HELM_ERRORS, HELM_OUTPUT } from './oracle.js';

const funcs = sprigFunctions();
/** Fresh per render: some snippets mutate what they are given, as in Go. */
const data = (): GoValue => ({ Values: oracleValues() });

/** Renders as helm does: missing keys as zero values, then the literal `<no value>` blanked. */
function render(tpl: string): string {
  return parseTemplate('t', tpl, { funcs, missingKey: 'zero' })
    .execute('t', data())
    .replaceAll('<no value>', '');
}

// Known engine gaps (not sprig's): a function identifier used as an argument, e.g. `date "2006" now`.
describe('sprig through the engine against helm 4.1.4', () => {
  for (const c of SPRIG_CASES) {
    // keys' order is Go's random map order; sprig.test.ts checks it sorted.
    if (c.fn === 'keys' && !c.tpl.includes('sortAlpha')) continue;
    test(c.tpl, () => {
      assert.equal(render(c.tpl), HELM_OUTPUT[c.tpl]);
    });
  }
  for (const tpl of SPRIG_ENGINE_CASES) {
    test(tpl, () => {
      assert.equal(render(tpl), HELM_OUTPUT[tpl]);
    });
  }
  for (const c of SPRIG_ERROR_CASES) {
    test(`fails: ${c.tpl}`, () => {
      assert.ok(HELM_ERRORS[c.tpl]);
      assert.throws(() => render(c.tpl));
    });
  }
  for (const c of SPRIG_SHAPE_CASES) {
    test(`shape: ${c.tpl}`, () => {
      assert.match(render(c.tpl), c.shape);
    });
  }
});
