// Tests for field sets: the fieldsV1 wire form (keys and order as Kubernetes writes them), set algebra,
// and how paths print in conflict messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FieldSet,
  comparePathElements,
  fieldElement,
  fieldPath,
  keyElement,
  parsePathElement,
  pathToString,
  serializePathElement,
  valueElement,
  indexElement,
  type FieldPath,
} from './managedfields-set.js';

const p = (...names: string[]): FieldPath => fieldPath(...names);

describe('fieldsV1 encoding', () => {
  it('writes the research sample byte for byte, keys sorted, "." for items', () => {
    const nginx = keyElement({ name: 'nginx' });
    const set = FieldSet.of(
      p('spec', 'containers').concat([nginx]),
      [...p('spec', 'containers'), nginx, fieldElement('image')],
      p('metadata', 'labels', 'app'),
      p('data', 'key'),
    );
    assert.equal(
      JSON.stringify(set.toFieldsV1()),
      '{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{}}}}}',
    );
  });

  it('sorts key fields by name and writes numbers as numbers', () => {
    const pe = keyElement({ protocol: 'TCP', containerPort: 80 });
    assert.equal(serializePathElement(pe), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement(valueElement('foregroundDeletion')), 'v:"foregroundDeletion"');
    assert.equal(serializePathElement(indexElement(3)), 'i:3');
  });

  it('escapes like Go: < > & in values', () => {
    assert.equal(serializePathElement(valueElement('a<b>&c')), 'v:"a\\u003cb\\u003e\\u0026c"');
  });

  it('orders fields before keys before values before indexes, fields bytewise', () => {
    const els = [
      indexElement(0),
      valueElement('x'),
      keyElement({ name: 'a' }),
      fieldElement('b'),
      fieldElement('B'),
    ];
    els.sort(comparePathElements);
    assert.deepEqual(els.map(serializePathElement), ['f:B', 'f:b', 'k:{"name":"a"}', 'v:"x"', 'i:0']);
  });

  it('orders values numbers < strings < booleans', () => {
    const els = [valueElement(true), valueElement('a'), valueElement(10), valueElement(2)];
    els.sort(comparePathElements);
    assert.deepEqual(els.map(serializePathElement), ['v:2', 'v:10', 'v:"a"', 'v:true']);
  });

  it('round-trips a set through fieldsV1, including members that also have children', () => {
    const json = {
      'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } },
    };
    const set = FieldSet.fromFieldsV1(json);
    assert.ok(set.has(p('metadata', 'labels')));
    assert.ok(set.has(p('metadata', 'labels', 'app')));
    assert.ok(!set.has(p('metadata')));
    assert.ok(set.has([...p('metadata', 'finalizers'), valueElement('a')]));
    assert.deepEqual(set.toFieldsV1(), json);
  });

  it('normalizes key order and key-field order when reading', () => {
    const set = FieldSet.fromFieldsV1({ 'f:z': {}, 'k:{"protocol":"TCP","port":80}': {}, 'f:a': {} });
    assert.equal(
      JSON.stringify(set.toFieldsV1()),
      '{"f:a":{},"f:z":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{}}',
    );
  });

  it('drops unknown element types and rejects malformed keys', () => {
    assert.deepEqual(FieldSet.fromFieldsV1({ 'x:foo': {}, 'f:a': {} }).toFieldsV1(), { 'f:a': {} });
    assert.throws(() => FieldSet.fromFieldsV1({ fa: {} }), /missing colon/);
    assert.throws(() => FieldSet.fromFieldsV1({ 'k:{bad': {} }));
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }), /must be an object/);
    assert.throws(() => FieldSet.fromFieldsV1([]), /must be a JSON object/);
  });

  it('parses each element kind', () => {
    assert.deepEqual(parsePathElement('f:a.b'), fieldElement('a.b'));
    assert.deepEqual(parsePathElement('i:12'), indexElement(12));
    assert.deepEqual(parsePathElement('v:5'), valueElement(5));
    assert.equal(parsePathElement('z:5'), undefined);
  });
});

describe('set algebra', () => {
  const a = FieldSet.of(p('spec', 'replicas'), p('spec', 'template'), p('data', 'x'));
  const b = FieldSet.of(p('spec', 'replicas'), p('data', 'y'));

  it('union, intersection, difference', () => {
    assert.deepEqual(a.union(b).paths().map(pathToString), [
      '.data.x',
      '.data.y',
      '.spec.replicas',
      '.spec.template',
    ]);
    assert.deepEqual(a.intersection(b).paths().map(pathToString), ['.spec.replicas']);
    assert.deepEqual(a.difference(b).paths().map(pathToString), ['.data.x', '.spec.template']);
    assert.ok(a.intersection(FieldSet.of(p('other'))).isEmpty());
  });

  it('difference keeps paths below a removed member; recursiveDifference removes them', () => {
    const s = FieldSet.of(p('status'), p('status', 'phase'), p('spec', 'x'));
    const reset = FieldSet.of(p('status'));
    assert.deepEqual(s.difference(reset).paths().map(pathToString), ['.spec.x', '.status.phase']);
    assert.deepEqual(s.recursiveDifference(reset).paths().map(pathToString), ['.spec.x']);
  });

  it('iterates members of a level before descending, like structured-merge-diff', () => {
    const s = FieldSet.of(p('spec', 'template', 'spec', 'x'), p('spec', 'replicas'), p('a'));
    assert.deepEqual(s.paths().map(pathToString), ['.a', '.spec.replicas', '.spec.template.spec.x']);
  });

  it('equals ignores insertion order', () => {
    assert.ok(FieldSet.of(p('a'), p('b', 'c')).equals(FieldSet.of(p('b', 'c'), p('a'))));
    assert.ok(!FieldSet.of(p('a')).equals(FieldSet.of(p('a'), p('b'))));
  });

  it('never holds the empty path', () => {
    assert.ok(FieldSet.of([]).isEmpty());
  });
});

describe('path printing', () => {
  it('prints keyed items, set values and indexes as kubectl shows them', () => {
    const path: FieldPath = [
      ...p('spec', 'template', 'spec', 'containers'),
      keyElement({ name: 'nginx' }),
      fieldElement('ports'),
      keyElement({ protocol: 'TCP', containerPort: 80 }),
      fieldElement('hostPort'),
    ];
    assert.equal(
      pathToString(path),
      '.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].hostPort',
    );
    assert.equal(
      pathToString([...p('metadata', 'finalizers'), valueElement('x')]),
      '.metadata.finalizers[="x"]',
    );
    assert.equal(pathToString([...p('args'), indexElement(2)]), '.args[2]');
  });
});
