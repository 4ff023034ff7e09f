import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJsonValue } from './json.js';

/** What the store has always meant by "as JSON would store it". */
const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

class Widget {
  constructor(public size = 1) {}
}

void test('toJsonValue gives exactly what a JSON round trip gives', () => {
  const sparse: unknown[] = [1];
  sparse[3] = 4;
  const withExtra = Object.assign([1, 2], { extra: 'dropped' });
  const bare = Object.create(null) as Record<string, unknown>;
  bare['k'] = 'v';
  const inputs: unknown[] = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' } },
    { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: [undefined, () => 1, Symbol('t'), null] },
    { n: [0, -0, 1.5, NaN, Infinity, -Infinity, 1e21, Number.MAX_SAFE_INTEGER] },
    { when: new Date(Date.UTC(2026, 10, 30, 7, 0, 0)), nested: { at: new Date(0) } },
    { map: new Map([['a', 1]]), set: new Set([1]), widget: new Widget(3), bytes: new Uint8Array([1, 2]) },
    { boxed: [new String('s'), new Number(2), new Boolean(false)] },
    { custom: { toJSON: () => ({ replaced: true }) } },
    { sparse, withExtra, bare },
    { text: 'lone \ud800 surrogate, quote " and \\ backslash, \u2028 separator' },
    { 10: 'ten', 2: 'two', b: 'b', a: 'a' },
    JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown,
    [{ deep: [[[{ deeper: [1, { deepest: true }] }]]] }],
  ];
  for (const input of inputs) {
    const copied = toJsonValue(input);
    assert.deepEqual(copied, roundTrip(input));
    assert.equal(JSON.stringify(copied), JSON.stringify(roundTrip(input)), 'same text, same key order');
  }
  assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'no prototype was touched');
  const proto = toJsonValue(inputs[10]) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.ok(Object.keys(proto).includes('__proto__'), '"__proto__" stays a member, as JSON.parse makes it');
});

void test('toJsonValue copies: changing the copy leaves the input alone', () => {
  const input = { metadata: { labels: { a: '1' } }, list: [{ x: 1 }] };
  const copy = toJsonValue(input);
  copy.metadata.labels.a = '2';
  copy.list[0]!.x = 2;
  assert.deepEqual(input, { metadata: { labels: { a: '1' } }, list: [{ x: 1 }] });
});

void test('toJsonValue fails where JSON does: bigints, cycles and values without a JSON form', () => {
  assert.throws(() => toJsonValue({ big: 1n }), TypeError);
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  assert.throws(() => toJsonValue(cyclic));
  assert.throws(() => toJsonValue(undefined));
  assert.equal(toJsonValue('text'), 'text');
  assert.equal(toJsonValue(null), null);
});
