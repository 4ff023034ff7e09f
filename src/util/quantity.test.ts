import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytesMilli, formatCpuMilli, parseMilli } from './quantity.js';

describe('quantities', () => {
  test('parse the forms node capacities use, exactly', () => {
    assert.equal(parseMilli('4'), 4000n);
    assert.equal(parseMilli('500m'), 500n);
    assert.equal(parseMilli('1.5'), 1500n);
    assert.equal(parseMilli('8148140Ki'), 8148140n * 1024n * 1000n);
    assert.equal(parseMilli('16Gi'), 16n * 2n ** 30n * 1000n);
    assert.equal(parseMilli('1e3'), 1000000n);
    assert.equal(parseMilli('2k'), 2000000n);
    assert.equal(parseMilli('110'), 110000n);
    assert.equal(parseMilli('1n'), 1n, 'rounded up to a milli-unit, as kube does');
    assert.equal(parseMilli('-2'), -2000n);
    for (const bad of ['', 'abc', '1.2.3', '5 Gi', '1Q']) assert.equal(parseMilli(bad), undefined, bad);
  });

  test('print sums in kube canonical units', () => {
    assert.equal(formatCpuMilli(8000n), '8');
    assert.equal(formatCpuMilli(3500n), '3500m');
    assert.equal(formatBytesMilli(parseMilli('8Gi')! + parseMilli('8Gi')!), '16Gi');
    assert.equal(formatBytesMilli(parseMilli('8148140Ki')!), '8148140Ki');
    assert.equal(formatBytesMilli(1500000n), '1500');
  });
});
