// Tests for RFC 7386 merge patch: the RFC's own example table, the apiserver's null pruning, and that
// inputs are never modified.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from './json.js';
import { mergePatch } from './merge-patch.js';

void describe('mergePatch', () => {
  void it('follows the RFC 7386 example table', () => {
    const cases: [JsonValue, JsonValue, JsonValue][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, expected] of cases) {
      assert.deepEqual(
        mergePatch(target, patch),
        expected,
        `${JSON.stringify(target)} + ${JSON.stringify(patch)}`,
      );
    }
  });

  void it('changes only what a kubectl label/scale patch names', () => {
    const deploy = {
      metadata: { name: 'web', labels: { app: 'web', old: 'x' } },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.deepEqual(
      mergePatch(deploy, { metadata: { labels: { old: null, new: 'y' } }, spec: { replicas: 5 } }),
      {
        metadata: { name: 'web', labels: { app: 'web', new: 'y' } },
        spec: { replicas: 5, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      },
    );
  });

  void it('drops null members from new values, inside arrays too, but keeps null array elements', () => {
    assert.deepEqual(mergePatch({}, { list: [{ a: 1, b: null }, null] }), { list: [{ a: 1 }, null] });
    assert.deepEqual(mergePatch({ m: 'scalar' }, { m: { x: null, y: 1 } }), { m: { y: 1 } });
  });

  void it('never modifies its inputs nor shares structure with them', () => {
    const target = { a: { b: 1 }, keep: [1] };
    const patch = { a: { c: { d: 2 } }, n: [{ x: 1 }] };
    const before = structuredClone([target, patch]);
    const result = mergePatch(target, patch) as {
      a: { c: { d: number } };
      n: { x: number }[];
      keep: number[];
    };
    assert.deepEqual([target, patch], before);
    result.a.c.d = 99;
    result.n[0]!.x = 99;
    result.keep.push(2);
    assert.deepEqual([target, patch], before);
  });

  void it('keeps keys named __proto__ as ordinary data', () => {
    const patch = JSON.parse('{"data":{"__proto__":"x","a":"b"}}') as JsonValue;
    const result = mergePatch({ data: {} }, patch) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(result.data), ['__proto__', 'a']);
    assert.equal(JSON.stringify(result), '{"data":{"__proto__":"x","a":"b"}}');
  });
});
