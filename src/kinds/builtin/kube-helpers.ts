// Pieces the cluster kinds share: kube-apiserver's defaulting of pod specs and templates (pkg/apis/core/v1
// defaults.go), and the cell formatting its printers use (label selectors, container lists, ages).
import type { KubeObject } from '../../store/types.js';
import type { PrinterColumn } from '../types.js';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object at `obj[key]`, created when missing (defaulting fills nested structs the way Go zero values exist). */
export function child(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

/** Reads a nested value; undefined on any missing or non-object step. */
export function at(obj: unknown, ...path: (string | number)[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (typeof p === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[p] as unknown;
    } else {
      if (!isObj(cur)) return undefined;
      cur = cur[p];
    }
  }
  return cur;
}

export function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/**
 * "Unset" as Go sees a decoded field: absent, null, or the zero value of a non-pointer field — protobuf
 * bodies (kubectl ≥1.32) carry `""` and `0` for every field the client did not set.
 */
export function unset(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0;
}

/** Sets a non-pointer field's default when Go would see its zero value. */
export function defaultTo(obj: Obj, key: string, value: unknown): void {
  if (unset(obj[key])) obj[key] = value;
}

/** Sets a pointer field's default: only absence counts, `0`/`false` are deliberate values. */
export function defaultPtr(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

// ---------------------------------------------------------------------------------------------------
// Pod spec defaulting (SetDefaults_PodSpec, _Container, _Probe, _Volume … in core/v1 defaults.go)

function defaultProbe(probe: unknown): void {
  if (!isObj(probe)) return;
  defaultTo(probe, 'timeoutSeconds', 1);
  defaultTo(probe, 'periodSeconds', 10);
  defaultTo(probe, 'successThreshold', 1);
  defaultTo(probe, 'failureThreshold', 3);
  const httpGet = probe.httpGet;
  if (isObj(httpGet)) {
    defaultTo(httpGet, 'path', '/');
    defaultTo(httpGet, 'scheme', 'HTTP');
  }
  const grpc = probe.grpc;
  if (isObj(grpc)) defaultPtr(grpc, 'service', '');
}

function defaultLifecycleHandler(handler: unknown): void {
  if (isObj(handler) && isObj(handler.httpGet)) {
    defaultTo(handler.httpGet, 'path', '/');
    defaultTo(handler.httpGet, 'scheme', 'HTTP');
  }
}

/** Always for `:latest` or an untagged image (no digest), IfNotPresent otherwise: kube's rule. */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon < 0 ? '' : lastSegment.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

export function defaultContainer(c: Obj, hostNetwork: boolean): void {
  if (typeof c.image === 'string' && c.image !== '')
    defaultTo(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  defaultTo(c, 'terminationMessagePath', '/dev/termination-log');
  defaultTo(c, 'terminationMessagePolicy', 'File');
  if (!isObj(c.resources)) c.resources = {};
  for (const port of list(c.ports)) {
    defaultTo(port, 'protocol', 'TCP');
    // Host networking exposes the container port on the node: hostPort must equal it.
    if (hostNetwork) defaultTo(port, 'hostPort', port.containerPort);
  }
  for (const env of list(c.env)) {
    const fieldRef = at(env, 'valueFrom', 'fieldRef');
    if (isObj(fieldRef)) defaultTo(fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    defaultLifecycleHandler(c.lifecycle.postStart);
    defaultLifecycleHandler(c.lifecycle.preStop);
  }
}

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((k) => isObj(v[k]))) v.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const source = v[key];
    if (isObj(source)) defaultPtr(source, 'defaultMode', 420);
  }
  const hostPath = v.hostPath;
  if (isObj(hostPath)) defaultPtr(hostPath, 'type', '');
  for (const item of list(at(v, 'downwardAPI', 'items'))) {
    if (isObj(item.fieldRef)) defaultTo(item.fieldRef, 'apiVersion', 'v1');
  }
  for (const source of list(at(v, 'projected', 'sources'))) {
    for (const item of list(at(source, 'downwardAPI', 'items')))
      if (isObj(item.fieldRef)) defaultTo(item.fieldRef, 'apiVersion', 'v1');
    const token = source.serviceAccountToken;
    if (isObj(token)) defaultPtr(token, 'expirationSeconds', 3600);
  }
  const claim = at(v, 'ephemeral', 'volumeClaimTemplate', 'spec');
  if (isObj(claim)) defaultPtr(claim, 'volumeMode', 'Filesystem');
}

/** SetDefaults_PodSpec and everything under it; a pod template's spec gets exactly this. */
export function defaultPodSpec(spec: Obj): void {
  defaultTo(spec, 'dnsPolicy', 'ClusterFirst');
  defaultTo(spec, 'restartPolicy', 'Always');
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  defaultPtr(spec, 'terminationGracePeriodSeconds', 30);
  defaultTo(spec, 'schedulerName', 'default-scheduler');
  const hostNetwork = spec.hostNetwork === true;
  for (const c of list(spec.initContainers)) defaultContainer(c, hostNetwork);
  for (const c of list(spec.containers)) defaultContainer(c, hostNetwork);
  for (const c of list(spec.ephemeralContainers)) defaultContainer(c, hostNetwork);
  for (const v of list(spec.volumes)) defaultVolume(v);
}

/** A PodTemplateSpec inside a workload: only the spec defaults apply (no admission plugins run on templates). */
export function defaultPodTemplate(template: unknown): void {
  if (!isObj(template)) return;
  defaultPodSpec(child(template, 'spec'));
}

/** Kubernetes' QoS class of a pod (pkg/apis/core/helper/qos). */
export function qosClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...list(spec.initContainers), ...list(spec.containers)];
  let anyRequestOrLimit = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const requests = isObj(at(c, 'resources', 'requests')) ? (at(c, 'resources', 'requests') as Obj) : {};
    const limits = isObj(at(c, 'resources', 'limits')) ? (at(c, 'resources', 'limits') as Obj) : {};
    for (const name of ['cpu', 'memory']) {
      const request = requests[name];
      const limit = limits[name];
      if (!unset(request) || !unset(limit)) anyRequestOrLimit = true;
      // A missing request defaults to the limit, so only a differing explicit request breaks Guaranteed.
      if (unset(limit) || (!unset(request) && String(request) !== String(limit))) guaranteed = false;
    }
  }
  if (!anyRequestOrLimit) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// ---------------------------------------------------------------------------------------------------
// Printer cells

/** A computed printer column (kube's printers compute every cell in Go). */
export const col = (
  name: string,
  type: PrinterColumn['type'],
  description: string,
  value: (o: KubeObject) => unknown,
  priority = 0,
): PrinterColumn => ({ name, type, jsonPath: '', description, value, priority });

export const spec = (o: KubeObject): Obj => (isObj(o.spec) ? o.spec : {});
export const status = (o: KubeObject): Obj => (isObj(o.status) ? o.status : {});

export const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

/** `labels.FormatLabels`: `a=b,c=d` sorted by key, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  if (!isObj(labels)) return '<none>';
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${str(labels[k])}`).join(',');
}

/** `metav1.LabelSelectorAsSelector(s).String()`: requirements sorted by key; '' for an empty selector. */
export function selectorString(selector: unknown): string {
  if (!isObj(selector)) return '';
  const reqs: [string, string][] = [];
  const matchLabels = selector.matchLabels;
  if (isObj(matchLabels))
    for (const k of Object.keys(matchLabels)) reqs.push([k, `${k}=${str(matchLabels[k])}`]);
  for (const e of list(selector.matchExpressions)) {
    const key = str(e.key);
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort().join(',');
    switch (e.operator) {
      case 'In':
        reqs.push([key, `${key} in (${values})`]);
        break;
      case 'NotIn':
        reqs.push([key, `${key} notin (${values})`]);
        break;
      case 'Exists':
        reqs.push([key, key]);
        break;
      case 'DoesNotExist':
        reqs.push([key, `!${key}`]);
        break;
    }
  }
  return reqs
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((r) => r[1])
    .join(',');
}

/** `metav1.FormatLabelSelector`: as selectorString, `<none>` when empty. */
export function formatSelector(selector: unknown): string {
  return selectorString(selector) || '<none>';
}

/** The Containers / Images cells of workload printers (`layoutContainerCells`). */
export function containerNames(spec: unknown): string {
  return list(at(spec, 'containers'))
    .map((c) => str(c.name))
    .join(',');
}

export function containerImages(spec: unknown): string {
  return list(at(spec, 'containers'))
    .map((c) => str(c.image))
    .join(',');
}

/** Containers / Images (wide) columns reading the pod spec at `specOf(obj)`. */
export function containerColumns(specOf: (o: KubeObject) => unknown): PrinterColumn[] {
  return [
    {
      name: 'Containers',
      type: 'string',
      jsonPath: '',
      priority: 1,
      description: 'Names of each container in the template.',
      value: (o) => containerNames(specOf(o)),
    },
    {
      name: 'Images',
      type: 'string',
      jsonPath: '',
      priority: 1,
      description: 'Images referenced by each container in the template.',
      value: (o) => containerImages(specOf(o)),
    },
  ];
}

/** `helper.GetAccessModesAsString`: RWO, ROX, RWX, RWOP in that order. */
export function accessModes(modes: unknown): string {
  const have = new Set(Array.isArray(modes) ? modes : []);
  const out: string[] = [];
  for (const [mode, short] of [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ] as const)
    if (have.has(mode)) out.push(short);
  return out.join(',');
}

/** A quantity cell: the stored string, or a number as kube would print it. */
export function quantity(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return '';
}
