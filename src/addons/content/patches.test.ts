// Sveltos/kustomize patches: JSON 6902 and strategic merge, target selection, per-cluster patch text.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPatches, compileSelector } from './patches.js';
import type { Manifest } from './sources.js';
import { TemplateContext } from './template.js';

const ctx = (cidr = '10.1.0.0/16'): TemplateContext =>
  new TemplateContext({
    cluster: { metadata: { name: 'c1' }, spec: { clusterNetwork: { pods: { cidrBlocks: [cidr] } } } },
  });

const deployment = (): Manifest => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'apps', labels: { tier: 'front' }, annotations: { team: 'a' } },
  spec: {
    replicas: 1,
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] },
          { name: 'sidecar', image: 'envoy:1' },
        ],
      },
    },
  },
});

const configMap = (name: string, ns = 'kube-system', labels: Record<string, string> = {}): Manifest => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { a: '1' },
});

describe('strategic merge', () => {
  test('an untargeted patch applies to the object with the same id; containers merge by name', () => {
    const out = applyPatches(
      [configMap('web', 'apps'), deployment()],
      [
        {
          patch:
            'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  replicas: 3\n' +
            '  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n' +
            '        env:\n        - name: B\n          value: "{{ .Cluster.metadata.name }}"\n',
        },
      ],
      ctx(),
    );
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.objects[0], configMap('web', 'apps'));
    const spec = out.objects[1]!['spec'] as {
      replicas: number;
      template: { spec: { containers: unknown[] } };
    };
    assert.equal(spec.replicas, 3);
    assert.deepEqual(spec.template.spec.containers, [
      {
        name: 'web',
        image: 'nginx:1.27',
        env: [
          { name: 'B', value: 'c1' },
          { name: 'A', value: '1' },
        ],
      },
      { name: 'sidecar', image: 'envoy:1' },
    ]);
  });

  test('a targeted patch keeps each target identity; $patch: delete removes the object', () => {
    const out = applyPatches(
      [configMap('a'), configMap('b'), deployment()],
      [
        {
          patch: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\ndata:\n  x: z\n',
          target: { kind: 'ConfigMap' },
        },
        {
          patch: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n$patch: delete\n',
          target: { name: 'b' },
        },
      ],
      ctx(),
    );
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.inputIndex, [0, 2]);
    assert.deepEqual(out.objects[0], { ...configMap('a'), data: { a: '1', x: 'z' } });
  });

  test('custom resources (no patch metadata) merge maps and replace lists', () => {
    const cr: Manifest = {
      apiVersion: 'x.io/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { l: [1, 2], m: { a: 1 } },
    };
    const out = applyPatches(
      [cr],
      [{ patch: 'apiVersion: x.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {l: [3], m: {b: 2}}' }],
      ctx(),
    );
    assert.deepEqual(out.objects[0]!['spec'], { l: [3], m: { a: 1, b: 2 } });
  });
});

describe('JSON 6902', () => {
  test('ops apply to every selected object; a failing op names the patch and the object', () => {
    const out = applyPatches(
      [configMap('a'), configMap('b')],
      [
        { patch: '- op: add\n  path: /data/b\n  value: "2"\n', target: { kind: 'ConfigMap' } },
        { patch: '- op: remove\n  path: /data/nope\n', target: { name: 'b' } },
      ],
      ctx(),
    );
    assert.deepEqual(
      out.objects.map((o) => o['data']),
      [
        { a: '1', b: '2' },
        { a: '1', b: '2' },
      ],
    );
    assert.equal(out.errors.length, 1);
    const e = out.errors[0]!;
    assert.equal(e.code, 'PatchFailed');
    assert.equal(e.patchIndex, 1);
    assert.deepEqual(e.target, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: 'b' });
    assert.match(e.message, /^patches\[1\] on ConfigMap\.v1 kube-system\/b: /);
  });

  test('a JSON 6902 patch needs a target; malformed patches are InvalidPatch', () => {
    const out = applyPatches(
      [configMap('a')],
      [
        { patch: '- op: add\n  path: /data/b\n  value: "2"\n' },
        { patch: 'just a string', target: { kind: 'ConfigMap' } },
        { patch: '- op: add\n', target: { kind: 'ConfigMap' } },
        { patch: 'data: {b: c}', target: { name: '(' } },
        { patch: 'data: {b: c}', target: { labelSelector: 'a in (' } },
        { patch: 'data: {b: c}' },
      ],
      ctx(),
    );
    assert.deepEqual(
      out.errors.map((e) => [e.patchIndex, e.code]),
      [
        [0, 'InvalidPatch'],
        [1, 'InvalidPatch'],
        [2, 'InvalidPatch'],
        [3, 'InvalidPatch'],
        [4, 'InvalidPatch'],
        [5, 'InvalidPatch'],
      ],
    );
    assert.equal(out.errors[0]!.message, 'patches[0]: a JSON 6902 patch needs a target');
    assert.deepEqual(out.objects, [configMap('a')]);
  });

  test('a template error in the patch text names the patch, line and reason', () => {
    const out = applyPatches(
      [configMap('a')],
      [
        {
          patch: '- op: add\n  path: /data/b\n  value: "{{ .Cluster.spec.missing }}"\n',
          target: { kind: 'ConfigMap' },
        },
      ],
      ctx(),
    );
    const e = out.errors[0]!;
    assert.equal(e.code, 'TemplateExecutionError');
    assert.equal(e.templateError?.line, 3);
    assert.match(
      e.message,
      /^Patch patches\[0\]: line 3: template failed: .*map has no entry for key "missing"/,
    );
  });
});

describe('targets', () => {
  const objs = [
    configMap('kube-flannel-cfg', 'kube-flannel', { app: 'flannel', tier: 'node' }),
    configMap('cfg', 'kube-flannel', { app: 'other' }),
    deployment(),
  ];
  const names = (sel: Parameters<typeof compileSelector>[0]): string[] =>
    objs.filter(compileSelector(sel, 0)).map((o) => (o['metadata'] as { name: string }).name);

  test('name is an anchored regular expression', () => {
    assert.deepEqual(names({ name: 'cfg' }), ['cfg']);
    assert.deepEqual(names({ name: 'kube-.*' }), ['kube-flannel-cfg']);
    assert.deepEqual(names({ name: '.*cfg' }), ['kube-flannel-cfg', 'cfg']);
    assert.deepEqual(names({ name: 'web|cfg' }), ['cfg', 'web']);
  });

  test('group, version, kind and namespace match exactly when set', () => {
    assert.deepEqual(names({ group: 'apps' }), ['web']);
    assert.deepEqual(names({ version: 'v1', kind: 'ConfigMap', namespace: 'kube-flannel' }), [
      'kube-flannel-cfg',
      'cfg',
    ]);
    assert.deepEqual(names({ kind: 'configmap' }), []);
    assert.deepEqual(names({ namespace: 'kube' }), []);
  });

  test('labelSelector and annotationSelector use label selector syntax', () => {
    assert.deepEqual(names({ labelSelector: 'app=flannel' }), ['kube-flannel-cfg']);
    assert.deepEqual(names({ labelSelector: 'app in (flannel,other),!tier' }), ['cfg']);
    assert.deepEqual(names({ labelSelector: 'tier' }), ['kube-flannel-cfg', 'web']);
    assert.deepEqual(names({ annotationSelector: 'team=a' }), ['web']);
    assert.deepEqual(names({ annotationSelector: 'team=b' }), []);
  });

  test('a patch that selects nothing is reported as unmatched, not as an error', () => {
    const out = applyPatches(objs, [{ patch: 'data: {x: y}', target: { kind: 'Secret' } }], ctx());
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.unmatched, [0]);
    assert.deepEqual(out.objects, objs);
  });
});
