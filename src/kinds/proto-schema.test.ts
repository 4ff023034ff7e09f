import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../util/errors.js';
import type { KubeObject } from '../store/types.js';
import { toOpenApiSchema, type Json } from '../apiserver/openapi-schema.js';
import { protoSchema } from './proto-schema.js';
import { validateObject } from './validation.js';
import type { KindDefinition } from './types.js';

function kind(message: string, group: string, version: string, k: string): KindDefinition {
  return {
    group,
    version,
    kind: k,
    plural: `${k.toLowerCase()}s`,
    singular: k.toLowerCase(),
    namespaced: true,
    schema: protoSchema(message),
  };
}

const DeploymentDef = kind('apps.v1.Deployment', 'apps', 'v1', 'Deployment');
const PodDef = kind('core.v1.Pod', '', 'v1', 'Pod');
const ServiceDef = kind('core.v1.Service', '', 'v1', 'Service');

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected an ApiError');
}

/** What `helm create`'s chart renders for its Deployment (as kubectl/helm send it, JSON). */
function helmDeployment(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'r-ch',
      labels: { 'app.kubernetes.io/name': 'ch', 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'r' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'ch' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'ch' } },
        spec: {
          serviceAccountName: 'r-ch',
          securityContext: { runAsNonRoot: true, fsGroup: 2000 },
          containers: [
            {
              name: 'ch',
              image: 'nginx:1.16.0',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
              livenessProbe: { httpGet: { path: '/', port: 'http' } },
              readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 5 },
              resources: {
                limits: { cpu: '100m', memory: '128Mi' },
                requests: { cpu: 0.1, memory: 134217728 },
              },
              env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
          volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }],
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
              },
            },
          },
        },
      },
    },
    status: {
      observedGeneration: 1,
      conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    },
  };
}

test('a realistic Deployment, Pod and Service validate under Strict', () => {
  assert.deepEqual(validateObject(DeploymentDef, helmDeployment(), 'Strict').warnings, []);
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      initContainers: [
        { name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], restartPolicy: 'Always' },
      ],
      containers: [{ name: 'c', image: 'nginx', stdin: true, tty: true }],
      restartPolicy: 'Never',
      nodeName: 'node1',
      overhead: { cpu: '10m' },
    },
    status: {
      phase: 'Running',
      podIPs: [{ ip: '10.244.0.5' }],
      startTime: '2024-01-01T00:00:00Z',
      containerStatuses: [
        {
          name: 'c',
          ready: true,
          restartCount: 0,
          image: 'nginx',
          imageID: '',
          state: { running: { startedAt: '2024-01-01T00:00:01Z' } },
        },
      ],
    },
  };
  assert.deepEqual(validateObject(PodDef, pod, 'Strict').warnings, []);
  const svc: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: {
      type: 'NodePort',
      selector: { app: 'a' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', nodePort: 30080, protocol: 'TCP' }],
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
    },
  };
  assert.deepEqual(validateObject(ServiceDef, svc, 'Strict').warnings, []);
});

test('unknown nested fields are reported with their path, as kube-apiserver reports them', () => {
  const obj = helmDeployment();
  const container = (((obj.spec as Json).template as Json).spec as { containers: Json[] }).containers[0]!;
  container.foo = 1;
  (container.ports as Json[])[0]!.bar = 'x';
  (obj.spec as Json).replica = 3;
  const err = rejection(() => validateObject(DeploymentDef, obj, 'Strict'));
  assert.equal(err.code, 400);
  assert.match(
    err.message,
    /^Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: /,
  );
  for (const path of [
    'spec.template.spec.containers[0].foo',
    'spec.template.spec.containers[0].ports[0].bar',
    'spec.replica',
  ])
    assert.ok(err.message.includes(`unknown field "${path}"`), `${path} in ${err.message}`);

  const warned = helmDeployment();
  ((warned.spec as Json).template as Json).bogus = true;
  assert.deepEqual(validateObject(DeploymentDef, warned, 'Warn').warnings, [
    'unknown field "spec.template.bogus"',
  ]);
  assert.equal(((warned.spec as Json).template as Json).bogus, undefined, 'pruned');
});

test('int-or-string fields take both forms and nothing else', () => {
  const svc = (targetPort: unknown): KubeObject => ({
    metadata: { name: 's' },
    spec: { ports: [{ port: 80, targetPort }] },
  });
  validateObject(ServiceDef, svc(8080), 'Strict');
  validateObject(ServiceDef, svc('http'), 'Strict');
  const err = rejection(() => validateObject(ServiceDef, svc(true), 'Strict'));
  assert.equal(err.code, 422);
  assert.match(err.message, /spec\.ports\[0\]\.targetPort/);
});

test('quantities accept strings and numbers, refuse garbage', () => {
  const pod = (cpu: unknown): KubeObject => ({
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu } } }] },
  });
  for (const ok of ['100m', '1', 1, 0.5, '1.5Gi', '1e3']) validateObject(PodDef, pod(ok), 'Strict');
  const err = rejection(() => validateObject(PodDef, pod('lots'), 'Strict'));
  assert.equal(err.code, 422);
  assert.match(err.message, /spec\.containers\[0\]\.resources\.requests\.cpu/);
});

test('type errors name the field; metadata keeps the ObjectMeta rules', () => {
  const obj = helmDeployment();
  (obj.spec as Json).replicas = 'two';
  const err = rejection(() => validateObject(DeploymentDef, obj, 'Strict'));
  assert.equal(err.code, 422);
  assert.match(err.message, /spec\.replicas: Invalid value: string: spec\.replicas must be of type integer/);
  const badName = helmDeployment();
  badName.metadata.name = 'Bad_Name';
  assert.match(rejection(() => validateObject(DeploymentDef, badName, 'Strict')).message, /metadata\.name/);
});

test('schemas are built once: the same object every call and shared between kinds', () => {
  assert.equal(protoSchema('apps.v1.Deployment'), protoSchema('apps.v1.Deployment'));
  // Optional() wraps a shallow copy; the properties (and everything below) are the same objects.
  const podTemplate = (s: Json) =>
    (((s.properties as Json).spec as { properties: Json }).properties.template as Json).properties;
  assert.equal(
    podTemplate(protoSchema('apps.v1.Deployment')),
    podTemplate(protoSchema('apps.v1.ReplicaSet')),
  );
  assert.equal(protoSchema('core.v1.PodSpec').$id, 'io.k8s.api.core.v1.PodSpec');
});

test('OpenAPI: shared messages become named components, int-or-string is marked', () => {
  const components: Record<string, Json> = {};
  const root = toOpenApiSchema(
    protoSchema('apps.v1.Deployment'),
    components,
    'io.k8s.api.apps.v1',
    'io.k8s.api.apps.v1.Deployment',
  );
  assert.deepEqual((root.properties as Json).spec, {
    $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec',
  });
  const rolling = components['io.k8s.api.apps.v1.RollingUpdateDeployment']!;
  assert.equal(((rolling.properties as Json).maxSurge as Json)['x-kubernetes-int-or-string'], true);
  assert.ok(components['io.k8s.api.core.v1.PodSpec']);
  assert.ok(components['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']);
  const port = components['io.k8s.api.core.v1.ContainerPort']!;
  assert.deepEqual((port.properties as Json).containerPort, { type: 'integer', format: 'int32' });
});

test('building every kind schema is cheap', () => {
  const names = [
    'core.v1.Node',
    'core.v1.PersistentVolume',
    'batch.v1.CronJob',
    'autoscaling.v2.HorizontalPodAutoscaler',
    'networking.v1.Ingress',
    'storage.v1.StorageClass',
    'discovery.v1.EndpointSlice',
    'events.v1.Event',
  ];
  const start = performance.now();
  for (const n of names) protoSchema(n);
  assert.ok(performance.now() - start < 500);
});
