// encoding/json behaviour of toJson/toRawJson/toPrettyJson/fromJson (the helm oracle table in yaml.test.ts covers them in templates);
// these pin the Go-specific details directly.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fromJson, fromJsonArray, toJson, toPrettyJson, toRawJson } from './json.js';
import { formatFloatJSON } from './strconv.js';

describe('json', () => {
  test('sorted keys, HTML escaping only in toJson', () => {
    assert.equal(
      toJson({ b: '<&>', a: [1n, 1.5, null, true] }),
      '{"a":[1,1.5,null,true],"b":"\\u003c\\u0026\\u003e"}',
    );
    assert.equal(toRawJson({ b: '<&>' }), '{"b":"<&>"}');
  });
  test('pretty printing indents by two spaces, empty collections stay inline', () => {
    assert.equal(
      toPrettyJson({ a: [1n], e: {}, l: [] }),
      '{\n  "a": [\n    1\n  ],\n  "e": {},\n  "l": []\n}',
    );
  });
  test('floats as encoding/json writes them', () => {
    assert.equal(formatFloatJSON(1e6), '1000000');
    assert.equal(formatFloatJSON(1e21), '1e+21');
    assert.equal(formatFloatJSON(1e-7), '1e-7');
    assert.equal(formatFloatJSON(0.000001), '0.000001');
  });
  test('unsupported values give an empty string, as helm does', () => {
    assert.equal(toJson(NaN), '');
    assert.equal(
      toJson(() => null),
      '',
    );
  });
  test('fromJson errors are returned in the map', () => {
    assert.deepEqual(fromJson('{"a":1}'), { a: 1 });
    assert.deepEqual(fromJson('[1]'), {
      Error: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    });
    assert.deepEqual(fromJson('{"a":'), { Error: 'unexpected end of JSON input' });
    assert.deepEqual(fromJsonArray('{}'), [
      'json: cannot unmarshal object into Go value of type []interface {}',
    ]);
  });
});
