// Tests for the typed operations: which fields an object sets (list types from the kind tables), how two
// objects differ, how an applied configuration merges into a live object, and field removal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, fieldPath, keyElement, pathToString } from './managedfields-set.js';
import {
  compare,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
  validateTyped,
} from './managedfields-typed.js';
import { builtinTypeInfo, typeFromSchema, typeInfoFromSchema } from './managedfields-types.js';

const deployment = builtinTypeInfo('apps', 'Deployment').root;
const generic = builtinTypeInfo('example.com', 'Widget').root;

const paths = (s: FieldSet) => s.paths().map(pathToString);

describe('toFieldSet', () => {
  it('gives an applied Deployment the set a real server records', () => {
    const applied = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
        },
      },
    };
    const set = toFieldSet(applied, deployment);
    assert.deepEqual(set.toFieldsV1(), {
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
  });

  it('owns set items by value, ownerReferences by uid, empty maps and nulls as themselves', () => {
    const obj = {
      metadata: { finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u1', name: 'x' }], annotations: {} },
      spec: { gone: null },
    };
    assert.deepEqual(paths(toFieldSet(obj, generic)), [
      '.metadata.annotations',
      '.metadata.finalizers[="a"]',
      '.metadata.finalizers[="b"]',
      '.metadata.ownerReferences[uid="u1"]',
      '.spec.gone',
    ]);
  });

  it('treats undescribed lists as atomic and undescribed objects field by field', () => {
    const obj = { spec: { rules: [{ verbs: ['get'] }], nested: { a: 1 } } };
    assert.deepEqual(paths(toFieldSet(obj, generic)), ['.spec.rules', '.spec.nested.a']);
  });

  it('records a duplicated item once, without its fields', () => {
    const obj = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'x' },
              { name: 'a', image: 'y' },
            ],
          },
        },
      },
    };
    assert.deepEqual(paths(toFieldSet(obj, deployment)), ['.spec.template.spec.containers[name="a"]']);
  });
});

describe('validateTyped', () => {
  it('reports duplicate keys and items without keys, with Kubernetes wording', () => {
    const obj = {
      spec: {
        template: { spec: { containers: [{ name: 'a' }, { name: 'a' }, { image: 'x' }] } },
      },
    };
    assert.deepEqual(validateTyped(obj, deployment), [
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
      '.spec.template.spec.containers: element 2: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
    ]);
  });

  it('accepts a port without protocol (defaulted key) and rejects maps in sets', () => {
    const svc = builtinTypeInfo('', 'Service').root;
    assert.deepEqual(validateTyped({ spec: { ports: [{ port: 80 }] } }, svc), []);
    assert.deepEqual(validateTyped({ metadata: { finalizers: [{ a: 1 }] } }, generic), [
      ".metadata.finalizers: element 0: associative list without keys has an element that's a map type",
    ]);
  });
});

describe('compare', () => {
  it('splits changes into added, modified and removed', () => {
    const before = { spec: { replicas: 1, paused: true } };
    const after = { spec: { replicas: 3, minReadySeconds: 5 } };
    const c = compare(before, after, deployment);
    assert.deepEqual(paths(c.added), ['.spec.minReadySeconds']);
    assert.deepEqual(paths(c.modified), ['.spec.replicas']);
    assert.deepEqual(paths(c.removed), ['.spec.paused']);
  });

  it('marks a newly added map as added itself ("." in Update entries)', () => {
    const c = compare({ metadata: {} }, { metadata: { labels: { a: 'b' } } }, generic);
    assert.deepEqual(paths(c.added), ['.metadata.labels', '.metadata.labels.a']);
  });

  it('compares keyed list items by key, not position', () => {
    const t = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: '1' },
              { name: 'b', image: '1' },
            ],
          },
        },
      },
    };
    const u = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'b', image: '2' },
              { name: 'a', image: '1' },
            ],
          },
        },
      },
    };
    const c = compare(t, u, deployment);
    assert.deepEqual(paths(c.modified), ['.spec.template.spec.containers[name="b"].image']);
    assert.ok(c.added.isEmpty() && c.removed.isEmpty());
  });

  it('treats an atomic list as one value', () => {
    const c = compare({ spec: { x: [1, 2] } }, { spec: { x: [2, 1] } }, generic);
    assert.deepEqual(paths(c.modified), ['.spec.x']);
  });
});

describe('merge', () => {
  it('merges keyed lists by key, keeps live-only items, takes the applied order for shared ones', () => {
    const live = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: '1' },
              { name: 'sidecar', image: 's' },
              { name: 'b', image: '1' },
            ],
          },
        },
      },
    };
    const applied = {
      spec: { template: { spec: { containers: [{ name: 'b', image: '2' }, { name: 'a' }] } } },
    };
    const out = merge(live, applied, deployment) as typeof live;
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'sidecar', image: 's' },
      { name: 'b', image: '2' },
      { name: 'a', image: '1' },
    ]);
  });

  it('replaces atomic lists and unions sets', () => {
    const live = { metadata: { finalizers: ['x'] }, spec: { args: ['a', 'b'] } };
    const applied = { metadata: { finalizers: ['y'] }, spec: { args: ['c'] } };
    assert.deepEqual(merge(live, applied, generic), {
      metadata: { finalizers: ['x', 'y'] },
      spec: { args: ['c'] },
    });
  });

  it('keeps a "__proto__" key as data instead of changing the prototype', () => {
    const applied = JSON.parse('{"data":{"__proto__":"x"}}') as unknown;
    const out = merge({ data: { a: '1' } }, applied, generic) as { data: Record<string, unknown> };
    assert.deepEqual(Object.keys(out.data), ['a', '__proto__']);
    assert.equal(Object.getPrototypeOf(out.data), Object.prototype);
  });

  it('clears a leaf the configuration sets to null but keeps a non-empty map set to null', () => {
    const live = { spec: { a: 1, b: 2, m: { k: 'v' } }, metadata: { labels: { x: 'y' } } };
    const applied = { spec: { a: null, m: null, n: { z: null } }, metadata: { labels: null } };
    assert.deepEqual(merge(live, applied, generic), {
      spec: { b: 2, m: { k: 'v' }, n: {} },
      metadata: { labels: { x: 'y' } },
    });
  });

  it('keeps live fields the configuration does not mention', () => {
    assert.deepEqual(merge({ data: { a: '1', b: '2' } }, { data: { a: '3' } }, generic), {
      data: { a: '3', b: '2' },
    });
  });
});

describe('removal and named fields', () => {
  it('removes whole subtrees and drops containers left empty', () => {
    const obj = { metadata: { labels: { a: '1' } }, data: { k: 'v', j: 'w' } };
    const set = FieldSet.of(fieldPath('metadata', 'labels', 'a'), fieldPath('data', 'k'));
    assert.deepEqual(removeItems(obj, set, generic), { data: { j: 'w' } });
  });

  it('removes keyed list items', () => {
    const obj = { spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } };
    const set = FieldSet.of([
      ...fieldPath('spec', 'template', 'spec', 'containers'),
      keyElement({ name: 'a' }),
    ]);
    assert.deepEqual(removeItems(obj, set, deployment), {
      spec: { template: { spec: { containers: [{ name: 'b' }] } } },
    });
  });

  it('adds struct parents but not map keys or list items', () => {
    const set = FieldSet.of(fieldPath('metadata', 'labels', 'a'), fieldPath('spec', 'replicas'));
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, deployment)), [
      '.metadata',
      '.spec',
      '.metadata.labels',
      '.metadata.labels.a',
      '.spec.replicas',
    ]);
  });
});

describe('types from schemas', () => {
  it('reads x-kubernetes list and map extensions, defaulting lists to atomic', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name', 'proto'],
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, proto: { type: 'string', default: 'TCP' } },
              },
            },
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            plain: { type: 'array', items: { type: 'string' } },
            sel: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string' } } },
            extra: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    };
    const info = typeInfoFromSchema(schema);
    const obj = {
      metadata: { finalizers: ['f'] },
      spec: { items: [{ name: 'x' }], tags: ['t'], plain: ['p'], sel: { a: '1' }, extra: { k: 'v' } },
    };
    assert.deepEqual(paths(toFieldSet(obj, info.root)), [
      '.metadata.finalizers[="f"]',
      '.spec.plain',
      '.spec.sel',
      '.spec.extra.k',
      '.spec.items[name="x",proto="TCP"]',
      '.spec.items[name="x",proto="TCP"].name',
      '.spec.tags[="t"]',
    ]);
    assert.deepEqual(typeFromSchema({ type: 'string' }), { kind: 'scalar' });
  });
});
