// Core (v1) kinds of a simulated cluster: Pod, Node, Service, Endpoints, volumes, ReplicationController,
// PodTemplate, ResourceQuota, LimitRange — names, printers, field selectors and create-time defaults as kube's.
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { formatIp, tryParseIp } from '../../util/ipv4.js';
import { protoSchema } from '../proto-schema.js';
import type { ExtraSubresource, KindDefinition, PrinterColumn } from '../types.js';
import {
  accessModes,
  AGE,
  at,
  child,
  col,
  containerColumns,
  defaultPodSpec,
  defaultPodTemplate,
  defaultPtr,
  defaultTo,
  formatLabels,
  isObj,
  list,
  num,
  qosClass,
  quantity,
  spec,
  status,
  str,
  unset,
  type Obj,
} from './kube-helpers.js';

/** Go's `time.Time` ordering on RFC 3339 strings of one format: later is larger. */
const later = (a: string, b: string) => (Date.parse(a) > Date.parse(b) ? a : b);

function sinceText(timestamp: string): string {
  const ms = Date.now() - Date.parse(timestamp);
  const s = Math.max(0, Math.trunc(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.trunc(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.trunc(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  return `${Math.trunc(h / 24)}d`;
}

// ---------------------------------------------------------------------------------------------------
// Pod

interface PodCells {
  ready: string;
  status: string;
  restarts: string;
}

function isRestartable(c: Obj | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

/** kube's printPod: READY, STATUS (the famous reason logic) and RESTARTS of `kubectl get pods`. */
export function podCells(pod: KubeObject): PodCells {
  const sp = spec(pod);
  const st = status(pod);
  const initSpecs = new Map(list(sp.initContainers).map((c) => [str(c.name), c]));
  let total = list(sp.containers).length;
  for (const c of initSpecs.values()) if (isRestartable(c)) total++;
  let ready = 0;
  let restarts = 0;
  let restartableRestarts = 0;
  let lastRestart = '';
  let lastRestartableRestart = '';
  const phase = str(st.phase);
  let reason = str(st.reason) || phase;
  for (const c of list(st.conditions))
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';

  let initializing = false;
  const initStatuses = list(st.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += num(c.restartCount);
    const finished = str(at(c, 'lastState', 'terminated', 'finishedAt'));
    if (finished) lastRestart = lastRestart ? later(lastRestart, finished) : finished;
    const restartable = isRestartable(initSpecs.get(str(c.name)));
    if (restartable) {
      restartableRestarts += num(c.restartCount);
      if (finished)
        lastRestartableRestart = lastRestartableRestart ? later(lastRestartableRestart, finished) : finished;
    }
    const terminated = at(c, 'state', 'terminated');
    const waitingReason = str(at(c, 'state', 'waiting', 'reason'));
    if (isObj(terminated) && num(terminated.exitCode) === 0) continue;
    if (restartable && c.started === true) {
      if (c.ready === true) ready++;
      continue;
    }
    if (isObj(terminated)) {
      if (str(terminated.reason)) reason = `Init:${str(terminated.reason)}`;
      else if (num(terminated.signal) !== 0) reason = `Init:Signal:${num(terminated.signal)}`;
      else reason = `Init:ExitCode:${num(terminated.exitCode)}`;
    } else if (waitingReason && waitingReason !== 'PodInitializing') {
      reason = `Init:${waitingReason}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  const initialized = list(st.conditions).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = list(st.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += num(c.restartCount);
      const finished = str(at(c, 'lastState', 'terminated', 'finishedAt'));
      if (finished) lastRestart = lastRestart ? later(lastRestart, finished) : finished;
      const waiting = str(at(c, 'state', 'waiting', 'reason'));
      const terminated = at(c, 'state', 'terminated');
      if (waiting) reason = waiting;
      else if (isObj(terminated) && str(terminated.reason)) reason = str(terminated.reason);
      else if (isObj(terminated))
        reason =
          num(terminated.signal) !== 0
            ? `Signal:${num(terminated.signal)}`
            : `ExitCode:${num(terminated.exitCode)}`;
      else if (c.ready === true && isObj(at(c, 'state', 'running'))) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = list(st.conditions).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp && st.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed')
    reason = 'Terminating';

  const restartText =
    restarts !== 0 && lastRestart ? `${restarts} (${sinceText(lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartText };
}

function podIP(pod: KubeObject): string {
  return str(at(pod, 'status', 'podIPs', 0, 'ip'));
}

function readinessGates(pod: KubeObject): string {
  const gates = list(spec(pod).readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = list(status(pod).conditions);
  const trueCount = gates.filter((g) => {
    const c = conditions.find((x) => x.type === g.conditionType);
    return c?.status === 'True';
  }).length;
  return `${trueCount}/${gates.length}`;
}

const POD_COLUMNS: PrinterColumn[] = [
  col(
    'Ready',
    'string',
    'The aggregate readiness state of this pod for accepting traffic.',
    (o) => podCells(o).ready,
  ),
  col('Status', 'string', 'The aggregate status of the containers in this pod.', (o) => podCells(o).status),
  col(
    'Restarts',
    'string',
    'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    (o) => podCells(o).restarts,
  ),
  AGE,
  col(
    'IP',
    'string',
    'IP address allocated to the pod. Routable at least within the cluster.',
    (o) => podIP(o) || '<none>',
    1,
  ),
  col(
    'Node',
    'string',
    'NodeName of the node the pod is scheduled onto.',
    (o) => str(spec(o).nodeName) || '<none>',
    1,
  ),
  col(
    'Nominated Node',
    'string',
    'nominatedNodeName is set only when this pod preempts other pods on the node.',
    (o) => str(status(o).nominatedNodeName) || '<none>',
    1,
  ),
  col(
    'Readiness Gates',
    'string',
    'If specified, all readiness gates will be evaluated for pod readiness.',
    readinessGates,
    1,
  ),
];

const GENERATE = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += GENERATE[randomInt(GENERATE.length)];
  return s;
}

/** The ServiceAccount admission plugin's projected token volume, mounted into every container. */
function addServiceAccountVolume(sp: Obj): void {
  if (sp.automountServiceAccountToken === false) return;
  const mountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
  const containers = [...list(sp.initContainers), ...list(sp.containers)];
  if (containers.some((c) => list(c.volumeMounts).some((m) => m.mountPath === mountPath))) return;
  const name = `kube-api-access-${randomSuffix()}`;
  const volumes = Array.isArray(sp.volumes) ? (sp.volumes as unknown[]) : (sp.volumes = []);
  volumes.push({
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    },
  });
  for (const c of containers) {
    const mounts = Array.isArray(c.volumeMounts) ? (c.volumeMounts as unknown[]) : (c.volumeMounts = []);
    mounts.push({ name, readOnly: true, mountPath });
  }
}

/** Tolerations the DefaultTolerationSeconds admission plugin adds to every pod. */
function addDefaultTolerations(sp: Obj): void {
  const tolerations = Array.isArray(sp.tolerations) ? (sp.tolerations as unknown[]) : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const covered = list(tolerations).some(
      (t) =>
        (t.key === key || (unset(t.key) && t.operator === 'Exists')) &&
        (unset(t.effect) || t.effect === 'NoExecute'),
    );
    if (!covered) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  sp.tolerations = tolerations;
}

export function defaultPod(obj: KubeObject): void {
  const sp = child(obj, 'spec');
  defaultPodSpec(sp);
  defaultPtr(sp, 'enableServiceLinks', true);
  // Admission plugins a real apiserver runs on every pod: ServiceAccount, Priority, DefaultTolerationSeconds.
  defaultTo(sp, 'serviceAccountName', unset(sp.serviceAccount) ? 'default' : sp.serviceAccount);
  sp.serviceAccount = sp.serviceAccountName;
  addServiceAccountVolume(sp);
  if (unset(sp.priorityClassName)) defaultPtr(sp, 'priority', 0);
  defaultPtr(sp, 'preemptionPolicy', 'PreemptLowerPriority');
  addDefaultTolerations(sp);
  // Requests default to limits (SetDefaults_Pod), which the QoS class below depends on.
  for (const c of [...list(sp.initContainers), ...list(sp.containers)]) {
    const limits = at(c, 'resources', 'limits');
    if (!isObj(limits)) continue;
    const resources = child(c, 'resources');
    const requests = child(resources, 'requests');
    for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
  }
  obj.status = { phase: 'Pending', qosClass: qosClass(sp) };
}

const podFields: NonNullable<KindDefinition['selectableFields']> = {
  'spec.nodeName': (o) => str(spec(o).nodeName),
  'spec.restartPolicy': (o) => str(spec(o).restartPolicy),
  'spec.schedulerName': (o) => str(spec(o).schedulerName),
  'spec.serviceAccountName': (o) => str(spec(o).serviceAccountName),
  'spec.hostNetwork': (o) => String(spec(o).hostNetwork === true),
  'status.phase': (o) => str(status(o).phase),
  'status.podIP': podIP,
  'status.nominatedNodeName': (o) => str(status(o).nominatedNodeName),
};

const scale: ExtraSubresource = {
  name: 'scale',
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  verbs: ['get', 'patch', 'update'],
};
export const SCALE_SUBRESOURCE = scale;

export const Pod: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  schema: protoSchema('core.v1.Pod'),
  subresources: { status: true },
  extraSubresources: [
    { name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
    { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    { name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'] },
    { name: 'ephemeralcontainers', group: '', version: 'v1', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ],
  printerColumns: POD_COLUMNS,
  selectableFields: podFields,
  deleteReturnsObject: true,
  defaults: defaultPod,
};

// ---------------------------------------------------------------------------------------------------
// Node

function nodeStatus(o: KubeObject): string {
  const parts: string[] = [];
  const ready = list(status(o).conditions).find((c) => c.type === 'Ready');
  if (ready) parts.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else parts.push('Unknown');
  if (spec(o).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  const a = list(status(o).addresses).find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

const nodeInfo = (o: KubeObject, key: string): string => str(at(o, 'status', 'nodeInfo', key));

export const Node: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  namespaced: false,
  shortNames: ['no'],
  schema: protoSchema('core.v1.Node'),
  subresources: { status: true },
  printerColumns: [
    col('Status', 'string', 'The status of the node', nodeStatus),
    col('Roles', 'string', 'The roles of the node', nodeRoles),
    AGE,
    col('Version', 'string', 'Kubelet Version reported by the node.', (o) => nodeInfo(o, 'kubeletVersion')),
    col(
      'Internal-IP',
      'string',
      'List of addresses reachable to the node.',
      (o) => nodeAddress(o, 'InternalIP'),
      1,
    ),
    col(
      'External-IP',
      'string',
      'List of addresses reachable to the node.',
      (o) => nodeAddress(o, 'ExternalIP'),
      1,
    ),
    col(
      'OS-Image',
      'string',
      'OS Image reported by the node.',
      (o) => nodeInfo(o, 'osImage') || '<unknown>',
      1,
    ),
    col(
      'Kernel-Version',
      'string',
      'Kernel Version reported by the node.',
      (o) => nodeInfo(o, 'kernelVersion') || '<unknown>',
      1,
    ),
    col(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node.',
      (o) => nodeInfo(o, 'containerRuntimeVersion') || '<unknown>',
      1,
    ),
  ],
  selectableFields: { 'spec.unschedulable': (o) => String(spec(o).unschedulable === true) },
  defaults(obj) {
    // Allocatable defaults to capacity (SetDefaults_NodeStatus).
    const st = status(obj);
    if (isObj(st.capacity) && !isObj(st.allocatable)) st.allocatable = { ...st.capacity };
  },
};

// ---------------------------------------------------------------------------------------------------
// Service

/**
 * Per-cluster address allocation for Services: the simulator passes one allocator per cluster (see
 * `serviceKind`), so cluster state never lives in this module. Both calls are synchronous because
 * defaulting is; they throw an ApiError (422) when a requested address is taken or out of range.
 */
export interface ServiceAllocator {
  /** A cluster IP for a new Service; `requested` is the client's own `spec.clusterIP`, to reserve. */
  allocateClusterIP(requested?: string): string;
  /** A node port for a NodePort/LoadBalancer port; `requested` is the client's `nodePort`, to reserve. */
  allocateNodePort(requested?: number): number;
  /** Returns a deleted Service's addresses to the pool. */
  release?(clusterIP: string | undefined, nodePorts: readonly number[]): void;
}

export interface ServiceAllocatorOptions {
  /** IPv4 service CIDR; default kube's `10.96.0.0/12`. */
  serviceCIDR?: string;
  /** Inclusive node port range; default 30000–32767. */
  nodePorts?: [number, number];
}

function allocationError(field: string, value: string, detail: string): Error {
  return errors.invalid('Service', '', '', [
    { reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${detail}`, field },
  ]);
}

/**
 * An in-memory allocator handing out addresses in order (first `10.96.0.1`, which a cluster's
 * `kubernetes` Service takes), as deterministic tests like. One per simulated cluster.
 */
export function createServiceAllocator(options: ServiceAllocatorOptions = {}): ServiceAllocator {
  const [base, bitsText] = (options.serviceCIDR ?? '10.96.0.0/12').split('/') as [string, string | undefined];
  const bits = Number(bitsText ?? 32);
  const network = tryParseIp(base);
  if (network === undefined || !(bits >= 8 && bits <= 30))
    throw new Error(`bad service CIDR ${options.serviceCIDR}`);
  const size = 2 ** (32 - bits);
  const first = network - (network % size);
  const [portMin, portMax] = options.nodePorts ?? [30000, 32767];
  const ips = new Set<number>();
  const ports = new Set<number>();
  let nextIp = 1;
  let nextPort = portMin;
  return {
    allocateClusterIP(requested) {
      if (requested) {
        const n = tryParseIp(requested);
        if (n === undefined || n <= first || n >= first + size - 1)
          throw allocationError(
            'spec.clusterIPs',
            `[]string{"${requested}"}`,
            `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${options.serviceCIDR ?? '10.96.0.0/12'}`,
          );
        if (ips.has(n))
          throw allocationError(
            'spec.clusterIPs',
            `[]string{"${requested}"}`,
            `failed to allocate IP ${requested}: provided IP is already allocated`,
          );
        ips.add(n);
        return requested;
      }
      for (let i = 0; i < size - 2; i++) {
        const offset = ((nextIp - 1 + i) % (size - 2)) + 1;
        if (!ips.has(first + offset)) {
          ips.add(first + offset);
          nextIp = offset + 1;
          return formatIp(first + offset);
        }
      }
      throw errors.internal('failed to allocate a serviceIP: range is full');
    },
    allocateNodePort(requested) {
      if (requested) {
        if (requested < portMin || requested > portMax)
          throw allocationError(
            'spec.ports[0].nodePort',
            String(requested),
            `provided port is not in the valid range. The range of valid ports is ${portMin}-${portMax}`,
          );
        if (ports.has(requested))
          throw allocationError(
            'spec.ports[0].nodePort',
            String(requested),
            'provided port is already allocated',
          );
        ports.add(requested);
        return requested;
      }
      const span = portMax - portMin + 1;
      for (let i = 0; i < span; i++) {
        const port = portMin + ((nextPort - portMin + i) % span);
        if (!ports.has(port)) {
          ports.add(port);
          nextPort = port + 1;
          return port;
        }
      }
      throw errors.internal('failed to allocate a nodePort: range is full');
    },
    release(clusterIP, nodePorts) {
      const n = clusterIP ? tryParseIp(clusterIP) : undefined;
      if (n !== undefined) ips.delete(n);
      for (const p of nodePorts) ports.delete(p);
    },
  };
}

/**
 * Without a per-cluster allocator (the static `clusterKinds` list): random addresses from kube's default
 * ranges. Collisions are improbable (a /12 has a million addresses) and nothing checks uniqueness.
 */
const RANDOM_ALLOCATOR: ServiceAllocator = {
  allocateClusterIP: (requested) =>
    requested || formatIp((tryParseIp('10.96.0.0') ?? 0) + 2 + randomInt(2 ** 20 - 3)),
  allocateNodePort: (requested) => requested || 30000 + randomInt(2768),
};

function defaultService(obj: KubeObject, allocator: ServiceAllocator): void {
  const sp = child(obj, 'spec');
  defaultTo(sp, 'type', 'ClusterIP');
  defaultTo(sp, 'sessionAffinity', 'None');
  if (sp.sessionAffinity === 'ClientIP') {
    const clientIP = child(child(sp, 'sessionAffinityConfig'), 'clientIP');
    defaultPtr(clientIP, 'timeoutSeconds', 10800);
  }
  const type = str(sp.type);
  for (const port of list(sp.ports)) {
    defaultTo(port, 'protocol', 'TCP');
    if (unset(port.targetPort)) port.targetPort = port.port;
  }
  if (type !== 'ExternalName') {
    // The client may give clusterIPs, clusterIP, or both (they must agree); "None" = headless.
    const requested = str(sp.clusterIP) || str(at(sp, 'clusterIPs', 0));
    if (requested === 'None') {
      sp.clusterIP = 'None';
      sp.clusterIPs = ['None'];
    } else {
      const ip = allocator.allocateClusterIP(requested || undefined);
      sp.clusterIP = ip;
      sp.clusterIPs = [ip];
    }
    if (!Array.isArray(sp.ipFamilies) || sp.ipFamilies.length === 0) sp.ipFamilies = ['IPv4'];
    defaultTo(sp, 'ipFamilyPolicy', 'SingleStack');
    defaultTo(sp, 'internalTrafficPolicy', 'Cluster');
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    defaultTo(sp, 'externalTrafficPolicy', 'Cluster');
    for (const port of list(sp.ports))
      port.nodePort = allocator.allocateNodePort(num(port.nodePort) || undefined);
  }
  if (type === 'LoadBalancer') defaultPtr(sp, 'allocateLoadBalancerNodePorts', true);
  obj.status = { loadBalancer: {} };
}

function servicePorts(o: KubeObject): string {
  const ports = list(spec(o).ports).map((p) =>
    num(p.nodePort) > 0
      ? `${num(p.port)}:${num(p.nodePort)}/${str(p.protocol)}`
      : `${num(p.port)}/${str(p.protocol)}`,
  );
  return ports.length ? ports.join(',') : '<none>';
}

function loadBalancerIngress(st: unknown): string[] {
  return list(at(st, 'loadBalancer', 'ingress'))
    .map((i) => str(i.ip) || str(i.hostname))
    .filter(Boolean);
}

function serviceExternalIP(o: KubeObject): string {
  const sp = spec(o);
  const external = Array.isArray(sp.externalIPs) ? sp.externalIPs.map(String) : [];
  switch (sp.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const all = [...loadBalancerIngress(status(o)), ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(sp.externalName);
    default:
      return '<unknown>';
  }
}

/** The Service kind with `allocator` doing its address allocation; see ServiceAllocator. */
export function serviceKind(allocator: ServiceAllocator = RANDOM_ALLOCATOR): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    singular: 'service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    nameRule: 'dns1123-label',
    schema: protoSchema('core.v1.Service'),
    subresources: { status: true },
    deleteReturnsObject: true,
    printerColumns: [
      col('Type', 'string', 'type determines how the Service is exposed.', (o) => str(spec(o).type)),
      col(
        'Cluster-IP',
        'string',
        'clusterIP is the IP address of the service and is usually assigned randomly.',
        (o) => str(at(o, 'spec', 'clusterIPs', 0)) || '<none>',
      ),
      col(
        'External-IP',
        'string',
        'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
        serviceExternalIP,
      ),
      col('Port(s)', 'string', 'The list of ports that are exposed by this service.', servicePorts),
      AGE,
      col(
        'Selector',
        'string',
        'Route service traffic to pods with label keys and values matching this selector.',
        (o) => formatLabels(spec(o).selector),
        1,
      ),
    ],
    defaults: (obj) => defaultService(obj, allocator),
  };
}

export const Service: KindDefinition = serviceKind();

// ---------------------------------------------------------------------------------------------------
// Endpoints

function endpointsCell(o: KubeObject): string {
  const subsets = list(o.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = list(ss.addresses);
    const ports = list(ss.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) if (shown.length < max) shown.push(str(a.ip));
    } else {
      for (const p of ports) {
        count += addresses.length;
        for (const a of addresses) {
          if (shown.length >= max) continue;
          const ip = str(a.ip);
          shown.push(ip.includes(':') ? `[${ip}]:${num(p.port)}` : `${ip}:${num(p.port)}`);
        }
      }
    }
  }
  const text = shown.join(',');
  return count > max ? `${text} + ${count - max} more...` : text;
}

export const Endpoints: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  singular: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  schema: protoSchema('core.v1.Endpoints'),
  printerColumns: [
    col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.', endpointsCell),
    AGE,
  ],
  defaults(obj) {
    for (const ss of list(obj.subsets)) for (const p of list(ss.ports)) defaultTo(p, 'protocol', 'TCP');
  },
};

// ---------------------------------------------------------------------------------------------------
// Volumes

const storageClassOf = (o: KubeObject, specClass: unknown): string =>
  o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? str(specClass);

export const PersistentVolumeClaim: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  namespaced: true,
  shortNames: ['pvc'],
  schema: protoSchema('core.v1.PersistentVolumeClaim'),
  subresources: { status: true },
  printerColumns: [
    col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.', (o) =>
      o.metadata.deletionTimestamp ? 'Terminating' : str(status(o).phase),
    ),
    col(
      'Volume',
      'string',
      'volumeName is the binding reference to the PersistentVolume backing this claim.',
      (o) => str(spec(o).volumeName),
    ),
    col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.', (o) =>
      str(spec(o).volumeName) ? quantity(at(o, 'status', 'capacity', 'storage')) : '',
    ),
    col(
      'Access Modes',
      'string',
      'accessModes contains the actual access modes the volume backing the PVC has.',
      (o) => (str(spec(o).volumeName) ? accessModes(status(o).accessModes) : ''),
    ),
    col(
      'StorageClass',
      'string',
      'storageClassName is the name of the StorageClass required by the claim.',
      (o) => storageClassOf(o, spec(o).storageClassName),
    ),
    col(
      'VolumeAttributesClass',
      'string',
      'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.',
      (o) => str(spec(o).volumeAttributesClassName) || '<unset>',
    ),
    AGE,
    col(
      'VolumeMode',
      'string',
      'volumeMode defines what type of volume is required by the claim.',
      (o) => str(spec(o).volumeMode) || '<unset>',
      1,
    ),
  ],
  defaults(obj) {
    defaultPtr(child(obj, 'spec'), 'volumeMode', 'Filesystem');
    obj.status = { phase: 'Pending' };
  },
};

export const PersistentVolume: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  singular: 'persistentvolume',
  namespaced: false,
  shortNames: ['pv'],
  schema: protoSchema('core.v1.PersistentVolume'),
  subresources: { status: true },
  printerColumns: [
    col(
      'Capacity',
      'string',
      "capacity is the description of the persistent volume's resources and capacity.",
      (o) => quantity(at(o, 'spec', 'capacity', 'storage')),
    ),
    col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.', (o) =>
      accessModes(spec(o).accessModes),
    ),
    col(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
      (o) => str(spec(o).persistentVolumeReclaimPolicy),
    ),
    col(
      'Status',
      'string',
      'phase indicates if a volume is available, bound to a claim, or released by a claim.',
      (o) => (o.metadata.deletionTimestamp ? 'Terminating' : str(status(o).phase)),
    ),
    col(
      'Claim',
      'string',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
      (o) => {
        const ref = spec(o).claimRef;
        return isObj(ref) ? `${str(ref.namespace)}/${str(ref.name)}` : '';
      },
    ),
    col(
      'StorageClass',
      'string',
      'storageClassName is the name of StorageClass to which this persistent volume belongs.',
      (o) => storageClassOf(o, spec(o).storageClassName),
    ),
    col(
      'VolumeAttributesClass',
      'string',
      'Name of VolumeAttributesClass to which this persistent volume belongs.',
      (o) => str(spec(o).volumeAttributesClassName) || '<unset>',
    ),
    col('Reason', 'string', 'reason is a brief CamelCase string that describes any failure.', (o) =>
      str(status(o).reason),
    ),
    AGE,
    col(
      'VolumeMode',
      'string',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
      (o) => str(spec(o).volumeMode) || '<unset>',
      1,
    ),
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    defaultTo(sp, 'persistentVolumeReclaimPolicy', 'Retain');
    defaultPtr(sp, 'volumeMode', 'Filesystem');
    obj.status = { phase: 'Pending' };
  },
};

// ---------------------------------------------------------------------------------------------------
// ReplicationController, PodTemplate

export const ReplicationController: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  singular: 'replicationcontroller',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  schema: protoSchema('core.v1.ReplicationController'),
  subresources: { status: true },
  extraSubresources: [scale],
  printerColumns: [
    col('Desired', 'integer', 'Replicas is the number of desired replicas.', (o) => num(spec(o).replicas)),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.', (o) =>
      num(status(o).replicas),
    ),
    col('Ready', 'integer', 'The number of ready replicas for this replication controller.', (o) =>
      num(status(o).readyReplicas),
    ),
    AGE,
    ...containerColumns((o) => at(o, 'spec', 'template', 'spec')),
    col(
      'Selector',
      'string',
      'Selector is a label query over pods that should match the Replicas count.',
      (o) => formatLabels(spec(o).selector),
      1,
    ),
  ],
  selectableFields: { 'status.replicas': (o) => String(num(status(o).replicas)) },
  defaults(obj) {
    const sp = child(obj, 'spec');
    const templateLabels = at(sp, 'template', 'metadata', 'labels');
    // Selector and the RC's own labels default to the template's (SetDefaults_ReplicationController).
    if (isObj(templateLabels)) {
      if (!isObj(sp.selector) || Object.keys(sp.selector).length === 0) sp.selector = { ...templateLabels };
      if (!obj.metadata.labels || Object.keys(obj.metadata.labels).length === 0)
        obj.metadata.labels = { ...(templateLabels as Record<string, string>) };
    }
    defaultPtr(sp, 'replicas', 1);
    defaultPodTemplate(sp.template);
    obj.status = { replicas: 0 };
  },
};

export const PodTemplate: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  plural: 'podtemplates',
  singular: 'podtemplate',
  namespaced: true,
  schema: protoSchema('core.v1.PodTemplate'),
  printerColumns: [
    col('Containers', 'string', 'Names of each container in the template.', (o) =>
      list(at(o, 'template', 'spec', 'containers'))
        .map((c) => str(c.name))
        .join(','),
    ),
    col('Images', 'string', 'Images referenced by each container in the template.', (o) =>
      list(at(o, 'template', 'spec', 'containers'))
        .map((c) => str(c.image))
        .join(','),
    ),
    col('Pod Labels', 'string', 'The labels for the pod template.', (o) =>
      formatLabels(at(o, 'template', 'metadata', 'labels')),
    ),
  ],
  defaults(obj) {
    defaultPodTemplate(obj.template);
  },
};

// ---------------------------------------------------------------------------------------------------
// ResourceQuota, LimitRange

function quotaCell(o: KubeObject, limits: boolean): string {
  const hard = at(o, 'spec', 'hard');
  if (!isObj(hard)) return '';
  const used = at(o, 'status', 'used');
  return Object.keys(hard)
    .sort()
    .filter((k) => k.startsWith('limits.') === limits)
    .map((k) => `${k}: ${quantity(isObj(used) ? used[k] : undefined) || '0'}/${quantity(hard[k])}`)
    .join(', ');
}

export const ResourceQuota: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  namespaced: true,
  shortNames: ['quota'],
  schema: protoSchema('core.v1.ResourceQuota'),
  subresources: { status: true },
  printerColumns: [
    AGE,
    col(
      'Request',
      'string',
      'Request represents a minimum amount of cpu/memory that a container may consume.',
      (o) => quotaCell(o, false),
    ),
    col(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      (o) => quotaCell(o, true),
    ),
  ],
};

export const LimitRange: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  singular: 'limitrange',
  namespaced: true,
  shortNames: ['limits'],
  schema: protoSchema('core.v1.LimitRange'),
  // No printerColumns: kube's LimitRange printer is the default Name / Created At one.
};

export const coreWorkloadKinds: readonly KindDefinition[] = [
  Pod,
  Node,
  Service,
  Endpoints,
  PersistentVolumeClaim,
  PersistentVolume,
  ReplicationController,
  PodTemplate,
  ResourceQuota,
  LimitRange,
];
