import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { tableFromObject } from '../../apiserver/table.js';
import { builtinPatchMeta } from '../../apiserver/patch/builtin-patch-meta.js';
import { KindRegistry } from '../registry.js';
import { validateObject } from '../validation.js';
import { HorizontalPodAutoscaler } from './autoscaling.js';
import { EndpointSlice } from './discovery.js';
import { builtinKinds, clusterKinds, clusterKindsWith, createServiceAllocator } from './index.js';
import { Ingress, NetworkPolicy } from './networking.js';
import { PodDisruptionBudget } from './policy.js';
import { PriorityClass } from './scheduling.js';
import { StorageClass } from './storage.js';

type Json = Record<string, unknown>;
const NOW = Date.parse('2024-01-01T00:10:00Z');
const CREATED = '2024-01-01T00:00:00Z';

test('clusterKinds: a registry of unique resources with kube names; the hub list is untouched', () => {
  const registry = new KindRegistry(clusterKinds);
  assert.equal(registry.all().length, clusterKinds.length);
  assert.ok(!builtinKinds.some((k) => k.kind === 'Pod'));
  const short = (plural: string, group = '') => {
    const k = clusterKinds.find((d) => d.plural === plural && d.group === group);
    assert.ok(k, plural);
    return [k.shortNames ?? [], k.categories ?? []];
  };
  assert.deepEqual(short('pods'), [['po'], ['all']]);
  assert.deepEqual(short('deployments', 'apps'), [['deploy'], ['all']]);
  assert.deepEqual(short('cronjobs', 'batch'), [['cj'], ['all']]);
  assert.deepEqual(short('horizontalpodautoscalers', 'autoscaling'), [['hpa'], ['all']]);
  assert.deepEqual(short('poddisruptionbudgets', 'policy'), [['pdb'], []]);
  assert.deepEqual(short('networkpolicies', 'networking.k8s.io'), [['netpol'], []]);
  assert.deepEqual(short('resourcequotas'), [['quota'], []]);
  assert.deepEqual(short('limitranges'), [['limits'], []]);
  const all = clusterKinds
    .filter((k) => k.categories?.includes('all'))
    .map((k) => k.plural)
    .sort();
  assert.deepEqual(all, [
    'cronjobs',
    'daemonsets',
    'deployments',
    'horizontalpodautoscalers',
    'jobs',
    'pods',
    'replicasets',
    'replicationcontrollers',
    'services',
    'statefulsets',
  ]);
});

test('clusterKindsWith swaps only the Service definition', () => {
  const kinds = clusterKindsWith({
    serviceAllocator: createServiceAllocator({ serviceCIDR: '10.0.0.0/24' }),
  });
  const svc = kinds.find((k) => k.kind === 'Service')!;
  assert.notEqual(
    svc,
    clusterKinds.find((k) => k.kind === 'Service'),
  );
  assert.equal(svc.schema, clusterKinds.find((k) => k.kind === 'Service')!.schema);
  const obj: KubeObject = { metadata: { name: 's' }, spec: {} };
  svc.defaults!(obj);
  assert.equal((obj.spec as Json).clusterIP, '10.0.0.1');
});

test('every stored cluster kind has strategic-merge metadata', () => {
  for (const k of clusterKinds) {
    if (k.verbs || k.group === 'fleet.fleethub.io') continue;
    assert.ok(builtinPatchMeta(k.group, k.kind), `${k.group}/${k.kind}`);
  }
  const node = builtinPatchMeta('', 'Node')!;
  assert.equal(node.root.child('status').child('addresses').meta?.mergeKey, 'type');
  const svc = builtinPatchMeta('', 'Service')!;
  assert.equal(svc.root.child('spec').child('ports').meta?.mergeKey, 'port');
  const pdb = builtinPatchMeta('policy', 'PodDisruptionBudget')!;
  assert.equal(pdb.root.child('status').child('conditions').meta?.mergeKey, 'type');
  const tmpl = builtinPatchMeta('', 'PodTemplate')!;
  assert.equal(tmpl.root.child('template').child('spec').child('containers').meta?.mergeKey, 'name');
});

test('pdb: zero status and printer', () => {
  const pdb: KubeObject = {
    metadata: { name: 'p', creationTimestamp: CREATED },
    spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } },
  };
  validateObject(PodDisruptionBudget, pdb, 'Strict');
  PodDisruptionBudget.defaults!(pdb);
  assert.deepEqual(pdb.status, {
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  });
  assert.deepEqual(tableFromObject(PodDisruptionBudget, pdb, { now: NOW }).rows[0]!.cells, [
    'p',
    '1',
    'N/A',
    0,
    '10m',
  ]);
});

test('hpa: defaults and TARGETS', () => {
  const hpa: KubeObject = {
    metadata: { name: 'web', creationTimestamp: CREATED },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 },
  };
  HorizontalPodAutoscaler.defaults!(hpa);
  validateObject(HorizontalPodAutoscaler, hpa, 'Strict');
  assert.equal((hpa.spec as Json).minReplicas, 1);
  assert.deepEqual(tableFromObject(HorizontalPodAutoscaler, hpa, { now: NOW }).rows[0]!.cells, [
    'web',
    'Deployment/web',
    'cpu: <unknown>/80%',
    '1',
    5,
    0,
    '10m',
  ]);
});

test('networking: ingress printer and pathType rule, network policy defaults', () => {
  const ing: KubeObject = {
    metadata: { name: 'web', creationTimestamp: CREATED },
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'a.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
            ],
          },
        },
      ],
      tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
    },
  };
  validateObject(Ingress, ing, 'Strict');
  assert.deepEqual(tableFromObject(Ingress, ing, { now: NOW }).rows[0]!.cells, [
    'web',
    'nginx',
    'a.example.com',
    '',
    '80, 443',
    '10m',
  ]);
  const noType = structuredClone(ing);
  delete ((((noType.spec as Json).rules as Json[])[0]!.http as Json).paths as Json[])[0]!.pathType;
  assert.throws(
    () => validateObject(Ingress, noType, 'Strict'),
    /pathType: Required value: pathType must be specified/,
  );
  const np: KubeObject = { metadata: { name: 'deny' }, spec: { egress: [{ ports: [{ port: 53 }] }] } };
  NetworkPolicy.defaults!(np);
  assert.deepEqual(np.spec, {
    egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }],
    podSelector: {},
    policyTypes: ['Ingress', 'Egress'],
  });
});

test('storage, discovery and scheduling defaults and printers', () => {
  const sc: KubeObject = {
    metadata: { name: 'standard', creationTimestamp: CREATED },
    provisioner: 'rancher.io/local-path',
  };
  StorageClass.defaults!(sc);
  assert.deepEqual(tableFromObject(StorageClass, sc, { now: NOW }).rows[0]!.cells, [
    'standard',
    'rancher.io/local-path',
    'Delete',
    'Immediate',
    false,
    '10m',
  ]);
  const slice: KubeObject = {
    metadata: { name: 'web-abc', creationTimestamp: CREATED },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'http', port: 80 }],
  };
  EndpointSlice.defaults!(slice);
  validateObject(EndpointSlice, slice, 'Strict');
  assert.deepEqual(tableFromObject(EndpointSlice, slice, { now: NOW }).rows[0]!.cells, [
    'web-abc',
    'IPv4',
    '80',
    '10.0.0.1',
    '10m',
  ]);
  const pc: KubeObject = { metadata: { name: 'high', creationTimestamp: CREATED }, value: 1000 };
  PriorityClass.defaults!(pc);
  assert.deepEqual(tableFromObject(PriorityClass, pc, { now: NOW }).rows[0]!.cells, [
    'high',
    1000,
    false,
    '10m',
    'PreemptLowerPriority',
  ]);
});
