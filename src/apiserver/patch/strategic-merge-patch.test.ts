// Tests for strategic merge patch with the built-in kinds' metadata, using the patches kubectl sends
// (apply's 3-way patches with `$setElementOrder`, cordon/uncordon, set image, deletions) and kube's ordering.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../util/errors.js';
import { builtinPatchMeta } from './builtin-patch-meta.js';
import type { JsonObject } from './json.js';
import { definePatchMeta, type KindPatchMeta } from './patch-meta.js';
import { strategicMergePatch } from './strategic-merge-patch.js';

function metaOf(group: string, kind: string): KindPatchMeta {
  const meta = builtinPatchMeta(group, kind);
  assert.ok(meta, `no patch meta for ${group}/${kind}`);
  return meta;
}

const deploymentMeta = metaOf('apps', 'Deployment');
const podMeta = metaOf('', 'Pod');

function rejects(fn: () => unknown, code: 400 | 422, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.reason, code === 400 ? 'BadRequest' : 'Invalid');
    assert.match(e.message, message);
    return true;
  });
}

function deployment(containers: JsonObject[], extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers, ...extra } },
    },
  };
}

function containersOf(obj: JsonObject): JsonObject[] {
  const spec = obj['spec'] as JsonObject;
  const podSpec = 'template' in spec ? ((spec['template'] as JsonObject)['spec'] as JsonObject) : spec;
  return podSpec['containers'] as JsonObject[];
}

const nginx = {
  name: 'nginx',
  image: 'nginx:1.25',
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  env: [
    { name: 'A', value: '1' },
    { name: 'OLD', value: 'x' },
  ],
  imagePullPolicy: 'IfNotPresent',
};
const sidecar = { name: 'sidecar', image: 'busybox', args: ['sleep', '3600'] };

void describe('strategicMergePatch: what kubectl sends', () => {
  void it('cordons and uncordons a node (null deletes the field)', () => {
    const node = { kind: 'Node', metadata: { name: 'node1' }, spec: { podCIDR: '10.244.0.0/24' } };
    const cordoned = strategicMergePatch(node, { spec: { unschedulable: true } }, metaOf('', 'Node'));
    assert.deepEqual(cordoned['spec'], { podCIDR: '10.244.0.0/24', unschedulable: true });
    const uncordoned = strategicMergePatch(cordoned, { spec: { unschedulable: null } }, metaOf('', 'Node'));
    assert.deepEqual(uncordoned['spec'], { podCIDR: '10.244.0.0/24' });
  });

  void it("changes one container's image by name (apply 3-way patch) and keeps everything else", () => {
    const live = deployment([nginx, sidecar]);
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
            containers: [{ image: 'nginx:1.26', name: 'nginx' }],
          },
        },
      },
    };
    const result = strategicMergePatch(live, patch, deploymentMeta);
    assert.deepEqual(containersOf(result), [{ ...nginx, image: 'nginx:1.26' }, sidecar]);
    assert.deepEqual((result['metadata'] as JsonObject)['annotations'], {
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
    });
    assert.equal((result['spec'] as JsonObject)['replicas'], 2);
  });

  void it('sets an image without $setElementOrder (kubectl set image)', () => {
    const result = strategicMergePatch(
      deployment([sidecar, nginx]),
      { spec: { template: { spec: { containers: [{ image: 'nginx:1.27', name: 'nginx' }] } } } },
      deploymentMeta,
    );
    assert.deepEqual(containersOf(result), [sidecar, { ...nginx, image: 'nginx:1.27' }]);
  });

  void it('deletes a container removed from the manifest with $patch: delete', () => {
    const result = strategicMergePatch(
      deployment([nginx, sidecar]),
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'nginx' }],
              containers: [{ $patch: 'delete', name: 'sidecar' }],
            },
          },
        },
      },
      deploymentMeta,
    );
    assert.deepEqual(containersOf(result), [nginx]);
  });

  void it('deletes an env var and adds another inside a container (nested merge lists)', () => {
    const result = strategicMergePatch(
      deployment([nginx, sidecar]),
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
              containers: [
                {
                  '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }],
                  env: [
                    { name: 'B', value: '2' },
                    { $patch: 'delete', name: 'OLD' },
                  ],
                  name: 'nginx',
                },
              ],
            },
          },
        },
      },
      deploymentMeta,
    );
    assert.deepEqual(containersOf(result)[0]!['env'], [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
    assert.deepEqual(containersOf(result)[1], sidecar);
  });

  void it('adds a container at the position $setElementOrder gives', () => {
    const result = strategicMergePatch(
      deployment([nginx]),
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
              containers: [sidecar],
            },
          },
        },
      },
      deploymentMeta,
    );
    assert.deepEqual(containersOf(result), [nginx, sidecar]);
  });

  void it('puts a new item first when the patch gives no order, as the apiserver does', () => {
    const result = strategicMergePatch(
      { metadata: { name: 'p' }, spec: { containers: [nginx] } },
      { spec: { containers: [sidecar] } },
      podMeta,
    );
    assert.deepEqual(containersOf(result), [sidecar, nginx]);
  });

  void it('keeps server-only items between the ordered ones by their live positions', () => {
    const names = (...n: string[]) => n.map((name) => ({ name }));
    const live = { metadata: { name: 'p' }, spec: { containers: names('1', '2', '7', '9', '8', '3', '4') } };
    const result = strategicMergePatch(
      live,
      { spec: { '$setElementOrder/containers': names('2', '1', '4', '3') } },
      podMeta,
    );
    assert.deepEqual(containersOf(result), names('2', '1', '7', '9', '8', '4', '3'));
  });

  void it('orders a swapped container around a server-injected one exactly as the apiserver does', () => {
    // Manifest changed container b to c; the live pod also has an injected proxy kubectl never saw.
    // Kube places the new item where the deleted one's storage slot ends up: after the proxy.
    const names = (...n: string[]) => n.map((name) => ({ name }));
    const result = strategicMergePatch(
      { metadata: { name: 'p' }, spec: { containers: names('a', 'b', 'proxy') } },
      {
        spec: {
          '$setElementOrder/containers': names('a', 'c'),
          containers: [{ name: 'c' }, { $patch: 'delete', name: 'b' }],
        },
      },
      podMeta,
    );
    assert.deepEqual(containersOf(result), names('a', 'proxy', 'c'));
  });

  void it('adds and removes labels; rollout restart adds a template annotation', () => {
    const result = strategicMergePatch(
      deployment([nginx]),
      {
        metadata: { labels: { app: null, team: 'a' } },
        spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' } } } },
      },
      deploymentMeta,
    );
    assert.deepEqual((result['metadata'] as JsonObject)['labels'], { team: 'a' });
    const template = (result['spec'] as JsonObject)['template'] as JsonObject;
    assert.deepEqual(template['metadata'], {
      labels: { app: 'web' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' },
    });
  });

  void it('switches a Deployment strategy with $retainKeys, clearing the other union member', () => {
    const live = deployment([nginx]);
    (live['spec'] as JsonObject)['strategy'] = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } };
    const result = strategicMergePatch(
      live,
      { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
      deploymentMeta,
    );
    assert.deepEqual((result['spec'] as JsonObject)['strategy'], { type: 'Recreate' });
  });

  void it('switches a volume source with $retainKeys inside a merged list item', () => {
    const live = deployment([nginx], {
      volumes: [
        { name: 'cfg', configMap: { name: 'c1' } },
        { name: 'tmp', emptyDir: {} },
      ],
    });
    const result = strategicMergePatch(
      live,
      {
        spec: {
          template: {
            spec: {
              '$setElementOrder/volumes': [{ name: 'cfg' }, { name: 'tmp' }],
              volumes: [{ $retainKeys: ['name', 'secret'], name: 'cfg', secret: { secretName: 's1' } }],
            },
          },
        },
      },
      deploymentMeta,
    );
    const podSpec = ((result['spec'] as JsonObject)['template'] as JsonObject)['spec'] as JsonObject;
    assert.deepEqual(podSpec['volumes'], [
      { name: 'cfg', secret: { secretName: 's1' } },
      { name: 'tmp', emptyDir: {} },
    ]);
  });

  void it('stores new list items and subtrees without directives or nulls', () => {
    const result = strategicMergePatch(
      { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } },
      {
        spec: {
          volumes: [{ $retainKeys: ['name', 'emptyDir'], name: 'v', emptyDir: {}, hostPath: null }],
          containers: [
            {
              name: 'c',
              env: [
                { name: 'X', value: '1', valueFrom: null },
                { $patch: 'delete', name: 'Y' },
              ],
            },
          ],
          affinity: { nodeAffinity: null, podAffinity: { $patch: 'replace', x: 1 } },
        },
      },
      podMeta,
    );
    assert.deepEqual(result['spec'], {
      containers: [{ name: 'c', env: [{ name: 'X', value: '1' }] }],
      volumes: [{ name: 'v', emptyDir: {} }],
      affinity: { podAffinity: { x: 1 } },
    });
  });
});

void describe('strategicMergePatch: list strategies and directives', () => {
  void it('merges finalizers as a set and deletes with $deleteFromPrimitiveList', () => {
    const cm = { metadata: { name: 'cm', finalizers: ['a.io/x', 'b.io/y', 'c.io/z'] } };
    const meta = metaOf('', 'ConfigMap');
    assert.deepEqual(
      (
        strategicMergePatch(cm, { metadata: { finalizers: ['b.io/y', 'd.io/w'] } }, meta)[
          'metadata'
        ] as JsonObject
      )['finalizers'],
      ['a.io/x', 'b.io/y', 'd.io/w', 'c.io/z'],
    );
    const applied = strategicMergePatch(
      cm,
      {
        metadata: {
          '$setElementOrder/finalizers': ['c.io/z', 'a.io/x', 'd.io/w'],
          '$deleteFromPrimitiveList/finalizers': ['b.io/y'],
          finalizers: ['d.io/w'],
        },
      },
      meta,
    );
    assert.deepEqual((applied['metadata'] as JsonObject)['finalizers'], ['c.io/z', 'a.io/x', 'd.io/w']);
  });

  void it('merges ownerReferences by uid', () => {
    const live = {
      metadata: {
        name: 'rs',
        ownerReferences: [{ uid: 'u1', kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }],
      },
    };
    const result = strategicMergePatch(
      live,
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', controller: true },
            { uid: 'u2', kind: 'Foo', name: 'f', apiVersion: 'x/v1' },
          ],
        },
      },
      metaOf('apps', 'ReplicaSet'),
    );
    assert.deepEqual((result['metadata'] as JsonObject)['ownerReferences'], [
      { uid: 'u1', kind: 'Deployment', name: 'web', apiVersion: 'apps/v1', controller: true },
      { uid: 'u2', kind: 'Foo', name: 'f', apiVersion: 'x/v1' },
    ]);
  });

  void it('replaces lists without a strategy (RBAC rules, tolerations, ServiceAccount imagePullSecrets)', () => {
    const role = {
      metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    const rules = [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }];
    assert.deepEqual(
      strategicMergePatch(role, { rules }, metaOf('rbac.authorization.k8s.io', 'ClusterRole'))['rules'],
      rules,
    );
    const pod = { metadata: { name: 'p' }, spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } };
    assert.deepEqual(
      (
        strategicMergePatch(pod, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, podMeta)[
          'spec'
        ] as JsonObject
      )['tolerations'],
      [{ key: 'b', operator: 'Exists' }],
    );
    const sa = { metadata: { name: 'sa' }, secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }] };
    const patched = strategicMergePatch(
      sa,
      { secrets: [{ name: 's2' }], imagePullSecrets: [{ name: 'p2' }] },
      metaOf('', 'ServiceAccount'),
    );
    assert.deepEqual(patched['secrets'], [{ name: 's2' }, { name: 's1' }]);
    assert.deepEqual(patched['imagePullSecrets'], [{ name: 'p2' }]);
  });

  void it('merges Service ports by port and Pod conditions by type', () => {
    const svc = { metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } };
    const result = strategicMergePatch(
      svc,
      {
        spec: {
          '$setElementOrder/ports': [{ port: 80 }, { port: 443 }],
          ports: [{ name: 'https', port: 443 }],
        },
      },
      metaOf('', 'Service'),
    );
    assert.deepEqual((result['spec'] as JsonObject)['ports'], [
      { name: 'http', port: 80, targetPort: 8080 },
      { name: 'https', port: 443 },
    ]);
    const pod = {
      metadata: { name: 'p' },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    };
    const ready = strategicMergePatch(
      pod,
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      podMeta,
    );
    assert.deepEqual((ready['status'] as JsonObject)['conditions'], [
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ]);
  });

  void it('replaces a whole list with a {"$patch":"replace"} item', () => {
    const result = strategicMergePatch(
      deployment([nginx, sidecar]),
      {
        spec: {
          template: {
            spec: { containers: [{ name: 'only', image: 'x', command: null }, { $patch: 'replace' }] },
          },
        },
      },
      deploymentMeta,
    );
    assert.deepEqual(containersOf(result), [{ name: 'only', image: 'x' }]);
  });

  void it('replaces or empties a map with $patch', () => {
    const cm = { metadata: { name: 'cm', labels: { a: '1', b: '2' } }, data: { x: '1', y: '2' } };
    const meta = metaOf('', 'ConfigMap');
    const replaced = strategicMergePatch(cm, { metadata: { labels: { $patch: 'replace', c: '3' } } }, meta);
    assert.deepEqual((replaced['metadata'] as JsonObject)['labels'], { c: '3' });
    assert.deepEqual(strategicMergePatch(cm, { data: { $patch: 'delete' } }, meta)['data'], {});
    assert.deepEqual(strategicMergePatch(cm, { data: { y: null, z: '3' } }, meta)['data'], {
      x: '1',
      z: '3',
    });
  });

  void it('replaces a value whose type changes', () => {
    const obj = { metadata: { name: 'x' }, a: 'scalar', b: { m: 1 }, c: [1] };
    assert.deepEqual(strategicMergePatch(obj, { a: { now: 'map' }, b: [1, 2], c: 'str' }, podMeta), {
      metadata: { name: 'x' },
      a: { now: 'map' },
      b: [1, 2],
      c: 'str',
    });
  });

  void it('never modifies its inputs', () => {
    const live = deployment([nginx, sidecar]);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'nginx' }],
            containers: [{ name: 'nginx', env: [{ $patch: 'delete', name: 'A' }] }],
          },
        },
      },
    };
    const before = structuredClone([live, patch]);
    const result = strategicMergePatch(live, patch, deploymentMeta);
    assert.deepEqual(
      containersOf(result).map((c) => c['name']),
      ['sidecar', 'nginx'],
    );
    assert.deepEqual([live, patch], before);
  });
});

void describe('strategicMergePatch: errors', () => {
  const live = deployment([nginx]);
  const withPodSpec = (podSpec: JsonObject) => ({ spec: { template: { spec: podSpec } } });

  void it('answers 400 for malformed directives, as the apiserver does', () => {
    rejects(
      () => strategicMergePatch(live, { spec: { strategy: { $retainKeys: 'type' } } }, deploymentMeta),
      400,
      /^invalid patch format of retainKeys \(at spec\.strategy\)$/,
    );
    rejects(
      () =>
        strategicMergePatch(
          live,
          { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
          deploymentMeta,
        ),
      400,
      /invalid patch format of retainKeys/,
    );
    rejects(
      () => strategicMergePatch(live, withPodSpec({ $setElementOrder: [] }), deploymentMeta),
      400,
      /invalid patch format of setElementOrder list/,
    );
    rejects(
      () => strategicMergePatch(live, withPodSpec({ '$setElementOrder/containers': 'x' }), deploymentMeta),
      400,
      /invalid patch format of setElementOrder list/,
    );
    rejects(
      () =>
        strategicMergePatch(
          live,
          { metadata: { $deleteFromPrimitiveListfinalizers: ['x'] } },
          deploymentMeta,
        ),
      400,
      /invalid patch format of primitive list/,
    );
  });

  void it('answers 422 for patches that cannot apply', () => {
    rejects(
      () => strategicMergePatch(live, withPodSpec({ containers: [{ image: 'x' }] }), deploymentMeta),
      422,
      /at spec\.template\.spec\.containers\): map: \{"image":"x"\} does not contain declared merge key: name/,
    );
    rejects(
      () => strategicMergePatch(live, withPodSpec({ containers: [{ $patch: 'merge' }] }), deploymentMeta),
      422,
      /merging lists cannot yet be specified in the patch/,
    );
    rejects(
      () =>
        strategicMergePatch(
          live,
          withPodSpec({ containers: [{ $patch: 'bogus', name: 'a' }] }),
          deploymentMeta,
        ),
      422,
      /unknown patch type: "bogus"/,
    );
    rejects(
      () => strategicMergePatch(live, { metadata: { labels: { $patch: 'merge' } } }, deploymentMeta),
      422,
      /unknown patch type: "merge" in map/,
    );
    rejects(
      () =>
        strategicMergePatch(
          live,
          withPodSpec({ '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] }),
          deploymentMeta,
        ),
      422,
      /doesn't match \$setElementOrder list/,
    );
    rejects(
      () =>
        strategicMergePatch(
          { metadata: { finalizers: ['a'] } },
          { metadata: { finalizers: [['b']] } },
          deploymentMeta,
        ),
      422,
      /lists of lists are not supported/,
    );
    rejects(
      () =>
        strategicMergePatch(
          { metadata: { finalizers: ['a'] } },
          { metadata: { finalizers: [1] } },
          deploymentMeta,
        ),
      422,
      /list element types are not identical/,
    );
  });
});

void describe('definePatchMeta', () => {
  void it('lets a table use * for map values and later tables override earlier ones', () => {
    const meta = definePatchMeta(
      { 'spec.groups.*.members': { strategy: 'merge', mergeKey: 'id' } },
      { 'spec.list': { strategy: 'merge', mergeKey: 'a' } },
      { 'spec.list': { strategy: 'merge', mergeKey: 'b' } },
    );
    const live = {
      metadata: {},
      spec: { groups: { g1: { members: [{ id: 1, v: 'a' }] } }, list: [{ b: 1, x: 1 }] },
    };
    const result = strategicMergePatch(
      live,
      { spec: { groups: { g1: { members: [{ id: 1, w: 'b' }] } }, list: [{ b: 1, y: 2 }] } },
      meta,
    );
    assert.deepEqual(result['spec'], {
      groups: { g1: { members: [{ id: 1, v: 'a', w: 'b' }] } },
      list: [{ b: 1, x: 1, y: 2 }],
    });
  });

  void it('rejects malformed tables', () => {
    assert.throws(() => definePatchMeta({ a: { strategy: 'bogus' as 'merge' } }), /unknown strategy/);
    assert.throws(() => definePatchMeta({ a: { mergeKey: 'name' } }), /needs a merge strategy/);
    assert.throws(() => definePatchMeta({ 'a..b': { strategy: 'merge' } }), /empty segment/);
  });

  void it('has metadata for every kind the cluster simulator serves, and none for others', () => {
    for (const [group, kind] of [
      ['', 'Namespace'],
      ['', 'ConfigMap'],
      ['', 'Secret'],
      ['', 'ServiceAccount'],
      ['', 'Event'],
      ['coordination.k8s.io', 'Lease'],
      ['rbac.authorization.k8s.io', 'Role'],
      ['rbac.authorization.k8s.io', 'ClusterRole'],
      ['rbac.authorization.k8s.io', 'RoleBinding'],
      ['rbac.authorization.k8s.io', 'ClusterRoleBinding'],
      ['', 'Pod'],
      ['', 'Service'],
      ['', 'Node'],
      ['apps', 'Deployment'],
      ['apps', 'ReplicaSet'],
      ['apps', 'StatefulSet'],
      ['apps', 'DaemonSet'],
      ['batch', 'Job'],
    ] as const) {
      assert.ok(builtinPatchMeta(group, kind), `${group}/${kind}`);
    }
    assert.equal(builtinPatchMeta('example.com', 'Widget'), undefined);
    assert.equal(builtinPatchMeta('', 'Deployment'), undefined);
  });
});
