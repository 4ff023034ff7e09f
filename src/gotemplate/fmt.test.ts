// fmt's Sprintf/Sprint/Sprintln against helm 4.1.4 output (testdata/fmt.cases.json, captured with `helm template`),
// plus direct unit checks of the value formatting the executor relies on.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, sprint, sprintf, sprintln } from './fmt.js';
import { formatFloat } from './strconv.js';
import { loadCases, renderMini } from './testdata/mini.js';

describe('fmt against helm (oracle table)', () => {
  for (const c of loadCases('fmt.cases.json')) {
    test(c.template, () => {
      assert.equal(renderMini(c), c.expected);
    });
  }
});

describe('fmt units', () => {
  test('formatValue of the value kinds', () => {
    assert.equal(formatValue(null), '<nil>');
    assert.equal(formatValue(true), 'true');
    assert.equal(formatValue(12n), '12');
    assert.equal(formatValue(1e6), '1e+06');
    assert.equal(formatValue(3.14), '3.14');
    assert.equal(formatValue(1e-5), '1e-05');
    assert.equal(formatValue({ b: 2, a: [1n, 'x', null] }), 'map[a:[1 x <nil>] b:2]');
  });
  test('Sprint spacing and Sprintln', () => {
    assert.equal(sprint([1n, 2n, 'a', 'b', 3n]), '1 2ab3');
    assert.equal(sprintln(['a', 1n]), 'a 1\n');
  });
  test('error forms', () => {
    assert.equal(sprintf('%d', ['hi']), '%!d(string=hi)');
    assert.equal(sprintf('%s', []), '%!s(MISSING)');
    assert.equal(sprintf('x', ['x']), 'x%!(EXTRA string=x)');
    assert.equal(sprintf('%', []), '%!(NOVERB)');
    assert.equal(sprintf('%[3]v', [1n]), '%!v(BADINDEX)');
  });
  test('FormatFloat rounding is half-to-even on exact ties', () => {
    assert.equal(formatFloat(0.5, 'f', 0), '0');
    assert.equal(formatFloat(1.5, 'f', 0), '2');
    assert.equal(formatFloat(2.5, 'f', 0), '2');
    assert.equal(formatFloat(1.005, 'f', 2), '1.00');
    assert.equal(formatFloat(123456789, 'g', -1), '1.23456789e+08');
  });
});
