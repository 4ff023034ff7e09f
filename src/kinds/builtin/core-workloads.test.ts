import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { ApiError } from '../../util/errors.js';
import { tableFromList, tableFromObject } from '../../apiserver/table.js';
import { validateObject } from '../validation.js';
import {
  createServiceAllocator,
  Endpoints,
  Node,
  PersistentVolumeClaim,
  Pod,
  podCells,
  ReplicationController,
  Service,
  serviceKind,
} from './core-workloads.js';

type Json = Record<string, unknown>;
const NOW = Date.parse('2024-01-01T00:10:00Z');
const CREATED = '2024-01-01T00:00:00Z';

function create(def: typeof Pod, obj: KubeObject): KubeObject {
  validateObject(def, obj, 'Strict');
  def.defaults?.(obj);
  validateObject(def, obj, 'Strict');
  return obj;
}

test('a pod as `kubectl run` sends it gets the apiserver defaults', () => {
  const pod = create(Pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { run: 'web' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx',
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: '1', memory: '1Gi' } },
        },
        {
          name: 'side',
          image: 'busybox:1.36',
          imagePullPolicy: '',
          readinessProbe: { httpGet: { port: 8080 } },
        },
      ],
      restartPolicy: '',
    },
  });
  const spec = pod.spec as Json;
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(spec.securityContext, {});
  assert.equal(spec.enableServiceLinks, true);
  assert.equal(spec.serviceAccountName, 'default');
  assert.equal(spec.serviceAccount, 'default');
  assert.equal(spec.priority, 0);
  assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
  assert.equal((spec.tolerations as Json[]).length, 2);
  const [web, side] = spec.containers as Json[];
  assert.equal(web!.imagePullPolicy, 'Always');
  assert.equal(side!.imagePullPolicy, 'IfNotPresent');
  assert.equal(web!.terminationMessagePath, '/dev/termination-log');
  assert.equal(web!.terminationMessagePolicy, 'File');
  assert.deepEqual(web!.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual((web!.resources as Json).requests, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(side!.resources, {});
  assert.deepEqual(side!.readinessProbe, {
    httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  const volume = (spec.volumes as Json[])[0]!;
  assert.match(String(volume.name), /^kube-api-access-[a-z0-9]{5}$/);
  assert.deepEqual((web!.volumeMounts as Json[])[0], {
    name: volume.name,
    readOnly: true,
    mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
  });
  assert.deepEqual(pod.status, { phase: 'Pending', qosClass: 'Burstable' });
});

test('terminationGracePeriodSeconds 0 is a value, not unset; automount false skips the token volume', () => {
  const pod = create(Pod, {
    metadata: { name: 'p' },
    spec: {
      containers: [{ name: 'c', image: 'i:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
    },
  });
  assert.equal((pod.spec as Json).terminationGracePeriodSeconds, 0);
  assert.equal((pod.spec as Json).volumes, undefined);
  assert.equal((pod.status as Json).qosClass, 'Guaranteed');
});

test('pod table row: the cells `kubectl get pods -o wide` shows', () => {
  const pod: KubeObject = {
    metadata: { name: 'web', namespace: 'default', creationTimestamp: CREATED },
    spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'node1' },
    status: {
      phase: 'Running',
      podIPs: [{ ip: '10.244.0.5' }],
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 0, state: { running: {} } },
        { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  };
  const table = tableFromObject(Pod, pod, { now: NOW });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ],
  );
  assert.deepEqual(table.rows[0]!.cells, [
    'web',
    '1/2',
    'CrashLoopBackOff',
    '2',
    '10m',
    '10.244.0.5',
    'node1',
    '<none>',
    '<none>',
  ]);
  const fresh = tableFromObject(
    Pod,
    {
      metadata: { name: 'p', creationTimestamp: CREATED },
      spec: { containers: [{}] },
      status: { phase: 'Pending' },
    },
    { now: NOW },
  );
  assert.deepEqual(fresh.rows[0]!.cells.slice(1, 5), ['0/1', 'Pending', '0', '10m']);
});

test('pod status reasons follow kube: init progress, completion, termination', () => {
  const base = (status: Json, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
    metadata: { name: 'p', ...extra },
    spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'c' }] },
    status,
  });
  assert.equal(
    podCells(
      base({
        phase: 'Pending',
        initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }],
      }),
    ).status,
    'Init:0/1',
  );
  assert.equal(
    podCells(
      base({
        phase: 'Succeeded',
        containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      }),
    ).status,
    'Completed',
  );
  assert.equal(podCells(base({ phase: 'Running' }, { deletionTimestamp: CREATED })).status, 'Terminating');
});

test('pod field selectors', () => {
  const pod: KubeObject = {
    metadata: { name: 'p' },
    spec: { nodeName: 'n1', hostNetwork: true },
    status: { phase: 'Running', podIPs: [{ ip: '1.2.3.4' }] },
  };
  const f = Pod.selectableFields!;
  assert.equal(f['spec.nodeName']!(pod), 'n1');
  assert.equal(f['spec.hostNetwork']!(pod), 'true');
  assert.equal(f['status.phase']!(pod), 'Running');
  assert.equal(f['status.podIP']!(pod), '1.2.3.4');
  assert.equal(f['spec.restartPolicy']!(pod), '');
  assert.deepEqual(Pod.shortNames, ['po']);
  assert.deepEqual(Pod.categories, ['all']);
  assert.equal(Pod.deleteReturnsObject, true);
});

test('node table: STATUS shows cordoning, wide columns come from status', () => {
  const node: KubeObject = {
    metadata: {
      name: 'node1',
      creationTimestamp: CREATED,
      labels: { 'node-role.kubernetes.io/control-plane': '' },
    },
    spec: { unschedulable: true },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: 'node1' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.31.9',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        kernelVersion: '6.1.0',
        containerRuntimeVersion: 'containerd://1.7.18',
      },
    },
  };
  const table = tableFromObject(Node, node, { now: NOW });
  assert.deepEqual(
    table.columnDefinitions!.map((c) => c.name),
    [
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP',
      'External-IP',
      'OS-Image',
      'Kernel-Version',
      'Container-Runtime',
    ],
  );
  assert.deepEqual(table.rows[0]!.cells, [
    'node1',
    'Ready,SchedulingDisabled',
    'control-plane',
    '10m',
    'v1.31.9',
    '172.18.0.2',
    '<none>',
    'Debian GNU/Linux 12 (bookworm)',
    '6.1.0',
    'containerd://1.7.18',
  ]);
  assert.equal(Node.selectableFields!['spec.unschedulable']!(node), 'true');
});

test('services: ClusterIP defaults and per-cluster allocation', () => {
  const allocator = createServiceAllocator();
  const def = serviceKind(allocator);
  const kubernetes = create(def, {
    metadata: { name: 'kubernetes' },
    spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, targetPort: 6443 }] },
  });
  assert.equal((kubernetes.spec as Json).clusterIP, '10.96.0.1');
  const svc = create(def, {
    metadata: { name: 'web' },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }], clusterIP: '', sessionAffinity: '' },
  });
  assert.deepEqual(svc.spec, {
    selector: { app: 'web' },
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    clusterIP: '10.96.0.2',
    clusterIPs: ['10.96.0.2'],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  });
  assert.deepEqual(svc.status, { loadBalancer: {} });
  assert.throws(
    () => create(def, { metadata: { name: 'dup' }, spec: { clusterIP: '10.96.0.2' } }),
    (e: unknown) => e instanceof ApiError && e.code === 422 && /already allocated/.test(e.message),
  );
  const np = create(def, {
    metadata: { name: 'np' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 'http' }] },
  });
  assert.equal(((np.spec as Json).ports as Json[])[0]!.nodePort, 30000);
  assert.equal((np.spec as Json).externalTrafficPolicy, 'Cluster');
  assert.equal((np.spec as Json).allocateLoadBalancerNodePorts, true);
  const headless = create(def, { metadata: { name: 'h' }, spec: { clusterIP: 'None' } });
  assert.deepEqual((headless.spec as Json).clusterIPs, ['None']);
  const ext = create(def, {
    metadata: { name: 'x' },
    spec: { type: 'ExternalName', externalName: 'example.com' },
  });
  assert.equal((ext.spec as Json).clusterIP, undefined);

  // Without an allocator (the static list) the IP still comes from kube's default range.
  const random = create(Service, { metadata: { name: 'r' }, spec: { ports: [{ port: 1 }] } });
  assert.match(String((random.spec as Json).clusterIP), /^10\.(9[6-9]|10[0-9]|11[01])\./);

  const table = tableFromList(
    def,
    [{ ...np, metadata: { ...np.metadata, creationTimestamp: CREATED } }],
    {},
    { now: NOW },
  );
  assert.deepEqual(table.rows[0]!.cells, [
    'np',
    'LoadBalancer',
    String((np.spec as Json).clusterIP),
    '<pending>',
    '80:30000/TCP',
    '10m',
    '<none>',
  ]);
});

test('pvc, endpoints and replication controller defaults and cells', () => {
  const pvc = create(PersistentVolumeClaim, {
    metadata: { name: 'data', creationTimestamp: CREATED },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  assert.equal((pvc.spec as Json).volumeMode, 'Filesystem');
  assert.deepEqual(pvc.status, { phase: 'Pending' });
  assert.deepEqual(tableFromObject(PersistentVolumeClaim, pvc, { now: NOW }).rows[0]!.cells, [
    'data',
    'Pending',
    '',
    '',
    '',
    '',
    '<unset>',
    '10m',
    'Filesystem',
  ]);
  const ep = create(Endpoints, {
    metadata: { name: 'web', creationTimestamp: CREATED },
    subsets: [
      {
        addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }],
        ports: [{ port: 80 }],
      },
    ],
  });
  assert.deepEqual(tableFromObject(Endpoints, ep, { now: NOW }).rows[0]!.cells, [
    'web',
    '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...',
    '10m',
  ]);
  const rc = create(ReplicationController, {
    metadata: { name: 'rc' },
    spec: {
      template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  });
  assert.deepEqual((rc.spec as Json).selector, { app: 'a' });
  assert.deepEqual(rc.metadata.labels, { app: 'a' });
  assert.equal((rc.spec as Json).replicas, 1);
});
