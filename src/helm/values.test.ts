import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeValues } from './values.js';

test('later values win key by key, maps merge deeply, lists are replaced, null removes', () => {
  const base = { app: { name: 'shop', replicas: 2, ports: [80] }, keep: 'yes', drop: 'me' };
  const merged = mergeValues(base, { app: { replicas: 5, ports: [443] }, drop: null, extra: { a: 1 } });
  assert.deepEqual(merged, {
    app: { name: 'shop', replicas: 5, ports: [443] },
    keep: 'yes',
    extra: { a: 1 },
  });
});

test('merged-in values are copies: later changes to the source do not leak', () => {
  const source = { nested: { list: ['a'] } };
  const merged = mergeValues({}, source);
  source.nested.list.push('b');
  assert.deepEqual(merged, { nested: { list: ['a'] } });
});
