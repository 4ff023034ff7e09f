// Tests for the values.schema.json validator: each expected message was printed by helm 4.1.4
// (`helm template r <chart>` on a throwaway chart holding the schema and values shown).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildChart, loadValues } from './chart.js';
import { validateAgainstSchema, validateValues } from './schema.js';

// [name, values.schema.json, values.yaml, helm 4.1.4's text after "demo:\n" (null: helm renders)]
const cases: [string, string, string, string | null][] = [
  [
    'type integer rejects a string',
    '{"properties":{"replicaCount":{"type":"integer"}}}',
    'replicaCount: "3"',
    "- at '/replicaCount': got string, want integer\n",
  ],
  ['type integer accepts a whole float', '{"properties":{"a":{"type":"integer"}}}', 'a: 3.0', null],
  [
    'type integer rejects 3.5',
    '{"properties":{"a":{"type":"integer"}}}',
    'a: 3.5',
    "- at '/a': got number, want integer\n",
  ],
  [
    'type list',
    '{"properties":{"b":{"type":["string","null"]}}}',
    'b: 1.5',
    "- at '/b': got number, want null or string\n",
  ],
  [
    'enum of primitives',
    '{"properties":{"a":{"enum":[1,2.50,"x",null,true,1e3]}}}',
    'a: 3',
    "- at '/a': value must be one of 1, 2.50, 'x', <nil>, true, 1e3\n",
  ],
  [
    'enum with one value',
    '{"properties":{"a":{"enum":["on"]}}}',
    'a: off',
    "- at '/a': value must be 'on'\n",
  ],
  ['enum with a composite', '{"properties":{"a":{"enum":[[1],2]}}}', 'a: 3', "- at '/a': 'enum' failed\n"],
  [
    'enum quoting',
    '{"properties":{"a":{"enum":["it\'s","tab\\t"]}}}',
    'a: x',
    "- at '/a': value must be one of 'it\\'s', 'tab\\t'\n",
  ],
  ['const primitive', '{"properties":{"a":{"const":1.50}}}', 'a: 3', "- at '/a': value must be 1.50\n"],
  ['const composite', '{"properties":{"a":{"const":{"a":1}}}}', 'a: 3', "- at '/a': 'const' failed\n"],
  ['required one', '{"required":["a"]}', 'c: 1', "- at '': missing property 'a'\n"],
  [
    'required several, min/maxProperties',
    '{"required":["a","b"],"minProperties":3,"maxProperties":0}',
    'c: 1',
    "- at '': minProperties: got 1, want 3\n- at '': maxProperties: got 1, want 0\n- at '': missing properties 'a', 'b'\n",
  ],
  [
    'nested properties',
    '{"properties":{"a":{"properties":{"b":{"properties":{"c":{"type":"string"}}}}}}}',
    'a: {b: {c: 1}}',
    "- at '/a/b/c': got number, want string\n",
  ],
  [
    'additionalProperties schema',
    '{"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}',
    'a: x\nb: y',
    "- at '/b': got boolean, want integer\n",
  ],
  [
    'additionalProperties false',
    '{"properties":{"a":{}},"additionalProperties":false}',
    'a: 1\nzz: 2',
    "- at '': additional properties 'zz' not allowed\n",
  ],
  [
    'patternProperties',
    '{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}',
    'x-a: y',
    "- at '/x-a': got boolean, want integer\n",
  ],
  [
    'propertyNames',
    '{"properties":{"a":{"propertyNames":{"pattern":"^[a-z]+$","maxLength":1}}}}',
    'a: {BB: 1}',
    "- at '': invalid propertyName 'BB'\n  - at '': maxLength: got 2, want 1\n  - at '': 'BB' does not match pattern '^[a-z]+$'\n",
  ],
  ['boolean false subschema', '{"properties":{"a":false}}', 'a: 1', "- at '/a': false schema\n"],
  ['boolean false root', 'false', 'a: 1', "- at '': false schema\n"],
  [
    'minItems/maxItems/uniqueItems',
    '{"properties":{"a":{"uniqueItems":true,"minItems":5,"maxItems":1}}}',
    'a: [1, 2, 1.0]',
    "- at '/a': minItems: got 3, want 5\n- at '/a': maxItems: got 3, want 1\n- at '/a': items at 0 and 2 are equal\n",
  ],
  [
    'prefixItems then items restart at 0',
    '{"properties":{"a":{"prefixItems":[{"type":"string"}],"items":{"type":"string"}}}}',
    'a: [x, 1, 2]',
    "- at '/a/0': got number, want string\n- at '/a/1': got number, want string\n",
  ],
  [
    'draft-07 tuple items with additionalItems schema',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"string"}],"additionalItems":{"type":"string"}}}}',
    'a: [x, 1, 2]',
    "- at '/a/0': got number, want string\n- at '/a/1': got number, want string\n",
  ],
  [
    'draft-07 additionalItems false',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"string"}],"additionalItems":false}}}',
    'a: [x, 1, 2]',
    "- at '/a': last 2 additionalItem(s) not allowed\n",
  ],
  [
    'contains',
    '{"properties":{"a":{"contains":{"type":"string"}}}}',
    'a: [1, 2]',
    "- at '/a': no items match contains schema\n  - at '/a/0': got number, want string\n  - at '/a/1': got number, want string\n",
  ],
  [
    'minContains/maxContains',
    '{"properties":{"a":{"contains":{"type":"string"},"minContains":2,"maxContains":0}}}',
    'a: [1, x]',
    "- at '/a': min 2 items required to match contains schema, but matched 1 items at 1\n  - at '/a/0': got number, want string\n- at '/a': max 0 items required to match contains schema, but matched 1 items at 1\n",
  ],
  [
    'minimum with grouping',
    '{"properties":{"a":{"maximum":1}}}',
    'a: 123456.5',
    "- at '/a': maximum: got 123,456.5, want 1\n",
  ],
  [
    'maximum scientific',
    '{"properties":{"b":{"maximum":-1e-7}}}',
    'b: 0.00001',
    "- at '/b': maximum: got 1×10⁻⁰⁵, want -1×10⁻⁰⁷\n",
  ],
  [
    'minimum large scientific',
    '{"properties":{"c":{"minimum":1e300}}}',
    'c: -1234567.125',
    "- at '/c': minimum: got -1.234567125×10⁰⁶, want 1×10³⁰⁰\n",
  ],
  [
    'exclusiveMinimum numeric',
    '{"properties":{"a":{"exclusiveMinimum":3}}}',
    'a: 3',
    "- at '/a': exclusiveMinimum: got 3, want 3\n",
  ],
  [
    'draft-04 boolean exclusiveMaximum',
    '{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"maximum":3,"exclusiveMaximum":true}}}',
    'a: 3',
    "- at '/a': exclusiveMaximum: got 3, want 3\n",
  ],
  [
    'multipleOf',
    '{"properties":{"h":{"multipleOf":0.3}}}',
    'h: 1',
    "- at '/h': multipleOf: got 1, want 0.3\n",
  ],
  ['multipleOf decimal exact', '{"properties":{"h":{"multipleOf":0.1}}}', 'h: 0.3', null],
  [
    'minLength grouping',
    '{"properties":{"g":{"minLength":2000}}}',
    'g: x',
    "- at '/g': minLength: got 1, want 2,000\n",
  ],
  [
    'maxLength counts code points',
    '{"properties":{"a":{"maxLength":2}}}',
    'a: "héllo😀"',
    "- at '/a': maxLength: got 6, want 2\n",
  ],
  [
    'pattern',
    '{"properties":{"a":{"pattern":"^z"}}}',
    'a: ab',
    "- at '/a': 'ab' does not match pattern '^z'\n",
  ],
  ['pattern with RE2 flags', '{"properties":{"a":{"pattern":"(?i)^abc\\\\z"}}}', 'a: ABC', null],
  ['format is an annotation in 2020-12', '{"properties":{"e":{"format":"email"}}}', 'e: notanemail', null],
  [
    'format asserted in draft-07: email',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"e":{"format":"email"}}}',
    'e: notanemail',
    "- at '/e': 'notanemail' is not valid email: missing @\n",
  ],
  [
    'format date-time',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"date-time"}}}',
    'd: x',
    "- at '/d': 'x' is not valid date-time: less than 20 characters long\n",
  ],
  [
    'format date',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"date"}}}',
    'd: 2020-13-01',
    "- at '/d': '2020-13-01' is not valid date: parsing time \"2020-13-01\": month out of range\n",
  ],
  [
    'format ipv4',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"ipv4"}}}',
    'd: 1.2.3',
    "- at '/d': '1.2.3' is not valid ipv4: expected four decimals\n",
  ],
  [
    'format uri',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"uri"}}}',
    'd: foo',
    "- at '/d': 'foo' is not valid uri: relative url\n",
  ],
  [
    'format hostname',
    '{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"d":{"format":"hostname"}}}',
    'd: a_b',
    "- at '/d': 'a_b' is not valid hostname: invalid character '_'\n",
  ],
  [
    'allOf',
    '{"properties":{"a":{"allOf":[{"minLength":3},{"pattern":"^z"}]}}}',
    'a: ab',
    "- at '/a': 'allOf' failed\n  - at '/a': minLength: got 2, want 3\n  - at '/a': 'ab' does not match pattern '^z'\n",
  ],
  [
    'anyOf',
    '{"properties":{"a":{"anyOf":[{"type":"integer"},{"type":"boolean"}]}}}',
    'a: ab',
    "- at '/a': 'anyOf' failed\n  - at '/a': got string, want integer\n  - at '/a': got string, want boolean\n",
  ],
  [
    'oneOf none matched',
    '{"properties":{"a":{"oneOf":[{"type":"integer"},{"type":"boolean"}]}}}',
    'a: ab',
    "- at '/a': 'oneOf' failed, none matched\n  - at '/a': got string, want integer\n  - at '/a': got string, want boolean\n",
  ],
  [
    'oneOf two matched',
    '{"properties":{"a":{"oneOf":[{"type":"string"},{"minLength":1}]}}}',
    'a: ab',
    "- at '/a': 'oneOf' failed, subschemas 0, 1 matched\n",
  ],
  ['not', '{"properties":{"a":{"not":{"type":"string"}}}}', 'a: ab', "- at '/a': 'not' failed\n"],
  [
    'if/then',
    '{"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]},"else":{"required":["c"]}}',
    'a: 1',
    "- at '': missing property 'b'\n",
  ],
  [
    'if/else',
    '{"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]},"else":{"required":["c"]}}',
    'a: 2',
    "- at '': missing property 'c'\n",
  ],
  [
    'dependentRequired/dependentSchemas',
    '{"dependentRequired":{"a":["b","c"]},"dependentSchemas":{"a":{"required":["d"]}}}',
    'a: 1',
    "- at '': missing property 'd'\n- at '': properties 'b', 'c' required, if 'a' exists\n",
  ],
  [
    'draft-07 dependencies',
    '{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}',
    'a: 1\nc: 1',
    "- at '': properties 'b' required, if 'a' exists\n- at '': missing property 'd'\n",
  ],
  [
    '$ref with one error is flattened',
    '{"properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string","minLength":3}}}',
    'a: 1',
    "- at '/a': got number, want string\n",
  ],
  [
    '$ref with several errors',
    '{"properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"minLength":3,"pattern":"^z"}}}',
    'a: ab',
    "- at '/a': validation failed\n  - at '/a': minLength: got 2, want 3\n  - at '/a': 'ab' does not match pattern '^z'\n",
  ],
  [
    '$ref siblings apply in 2020-12',
    '{"properties":{"a":{"$ref":"#/$defs/s","maxLength":1}},"$defs":{"s":{"minLength":3}}}',
    'a: ab',
    "- at '/a': minLength: got 2, want 3\n- at '/a': maxLength: got 2, want 1\n",
  ],
  [
    '$ref siblings ignored in draft-07',
    '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"$ref":"#/definitions/x","type":"integer"}},"definitions":{"x":{"type":"string"}}}',
    'a: x',
    null,
  ],
  [
    '$ref to an $anchor',
    '{"properties":{"a":{"$ref":"#node"}},"$defs":{"x":{"$anchor":"node","type":"string"}}}',
    'a: 1',
    "- at '/a': got number, want string\n",
  ],
  [
    '$ref under a root $id',
    '{"$id":"http://example.com/s.json","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}',
    'a: 1',
    "- at '/a': got number, want string\n",
  ],
  [
    'allOf over $ref with a group',
    '{"properties":{"a":{"allOf":[{"$ref":"#/$defs/x"}]}},"$defs":{"x":{"properties":{"b":{"type":"string"},"c":{"type":"string"}}}}}',
    'a: {b: 1, c: 2}',
    "- at '/a': 'allOf' failed\n  - at '/a': validation failed\n    - at '/a/b': got number, want string\n    - at '/a/c': got number, want string\n",
  ],
  [
    'reference cycle',
    '{"$ref":"#"}',
    'a: 1',
    '- at \'\': both /$ref and  resolve to "file:///values.schema.json#" causing reference cycle\n',
  ],
  [
    'missing json-pointer',
    '{"properties":{"a":{"$ref":"#/$defs/x"}}}',
    'a: 1',
    'json-pointer in "file:///values.schema.json#/$defs/x" not found',
  ],
  [
    'missing anchor',
    '{"properties":{"a":{"$ref":"#foo"}}}',
    'a: 1',
    'anchor in "file:///values.schema.json#foo" not found in schema "file:///values.schema.json"',
  ],
  ['invalid JSON', '{"properties":', 'a: 1', 'unexpected EOF'],
  ['trailing data', '{"a":1} x', 'a: 1', 'invalid character after top-level value'],
  ['empty schema file', '', 'a: 1', 'EOF'],
  [
    'schema that is not an object',
    '[]',
    'a: 1',
    "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': got array, want boolean or object",
  ],
  [
    'valid values',
    '{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"]}',
    'a: 2',
    null,
  ],
];

for (const [name, schema, values, want] of cases) {
  test(`schema: ${name}`, () => {
    assert.equal(validateValues(schema, loadValues(`${values}\n`)), want);
  });
}

test('schema: bigint values (from --set) count as integers', () => {
  const schema = '{"properties":{"a":{"type":"integer","maximum":2}}}';
  assert.equal(validateValues(schema, { a: 3n }), "- at '/a': maximum: got 3, want 2\n");
  assert.equal(validateValues(schema, { a: 2n }), null);
});

test('schema: several property errors come in sorted key order (helm prints them in random order)', () => {
  // One of the orders helm 4.1.4 printed for this chart.
  const schema = '{"properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}}';
  assert.equal(
    validateValues(schema, loadValues('c: z\na: x\nb: y\n')),
    "- at '/a': got string, want integer\n- at '/b': got boolean, want integer\n- at '/c': got string, want integer\n",
  );
  assert.equal(
    validateValues('{"additionalProperties":false}', loadValues('b: 1\na: 2\n')),
    "- at '': additional properties 'a', 'b' not allowed\n",
  );
});

test('schema: remote $ref is refused without fetching, naming the URL', () => {
  const got = validateValues('{"properties":{"a":{"$ref":"https://example.com/x.json"}}}', { a: 1 });
  assert.match(got ?? '', /^failing loading "https:\/\/example.com\/x.json": /);
  const file = validateValues('{"properties":{"a":{"$ref":"other.json"}}}', { a: 1 });
  assert.match(file ?? '', /^failing loading "file:\/\/\/other.json": /);
});

test('schema: unresolved urn: $ref is permissive, as in helm', () => {
  assert.equal(validateValues('{"properties":{"a":{"$ref":"urn:foo:bar"}}}', { a: 1 }), null);
});

function chartFiles(files: Record<string, string>): Map<string, Buffer> {
  return new Map(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)]));
}

test('schema: parent and subchart each checked against their own schema', () => {
  const chart = buildChart(
    chartFiles({
      'Chart.yaml': 'apiVersion: v2\nname: parent\nversion: 0.1.0\n',
      'values.schema.json': '{"properties":{"replicas":{"type":"integer"}}}',
      'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
      'charts/sub/values.schema.json': '{"required":["port"],"properties":{"port":{"maximum":65535}}}',
    }),
  );
  // helm 4.1.4 with values `replicas: two` and `sub: {name: x}`:
  //   Error: values don't meet the specifications of the schema(s) in the following chart(s):
  //   parent:
  //   - at '/replicas': got string, want integer
  //   sub:
  //   - at '': missing property 'port'
  assert.equal(
    validateAgainstSchema(chart, loadValues('replicas: two\nsub:\n  name: x\n')),
    "parent:\n- at '/replicas': got string, want integer\nsub:\n- at '': missing property 'port'\n",
  );
  assert.equal(validateAgainstSchema(chart, loadValues('replicas: 2\nsub:\n  port: 80\n')), null);
  // No values for the subchart: nothing to check.
  assert.equal(validateAgainstSchema(chart, loadValues('replicas: 2\n')), null);
  assert.equal(
    validateAgainstSchema(chart, loadValues('replicas: 2\nsub: 3\n')),
    'sub:\ninvalid type for values: expected object (map), got float64\n',
  );
});
