// Strategic-merge metadata of the built-in kinds, transcribed from the `patchStrategy`/`patchMergeKey`
// tags of k8s.io/api (every group a simulated cluster serves) and apimachinery's ObjectMeta; fields without a tag replace.
import { definePatchMeta, mountPatchMeta, type KindPatchMeta, type PatchMetaTable } from './patch-meta.js';

const byName = { strategy: 'merge', mergeKey: 'name' } as const;
const byType = { strategy: 'merge', mergeKey: 'type' } as const;
const byIp = { strategy: 'merge', mergeKey: 'ip' } as const;

/** metav1.ObjectMeta. */
export const objectMetaPatchMeta: PatchMetaTable = {
  ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
  finalizers: { strategy: 'merge' },
};

/** core/v1 Container (EphemeralContainerCommon carries the same tags). */
export const containerPatchMeta: PatchMetaTable = {
  ports: { strategy: 'merge', mergeKey: 'containerPort' },
  env: byName,
  volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
  volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
};

/** core/v1 PodSpec. `tolerations`, `affinity` lists, `readinessGates` have no tag: they replace. */
export const podSpecPatchMeta: PatchMetaTable = {
  volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
  initContainers: byName,
  containers: byName,
  ephemeralContainers: byName,
  ...mountPatchMeta('initContainers', containerPatchMeta),
  ...mountPatchMeta('containers', containerPatchMeta),
  ...mountPatchMeta('ephemeralContainers', containerPatchMeta),
  imagePullSecrets: byName,
  hostAliases: byIp,
  topologySpreadConstraints: { strategy: 'merge', mergeKey: 'topologyKey' },
  schedulingGates: byName,
  resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

/** core/v1 PodStatus (containerStatuses have no tag: replaced whole). */
export const podStatusPatchMeta: PatchMetaTable = {
  conditions: byType,
  hostIPs: byIp,
  podIPs: byIp,
  resourceClaimStatuses: { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

/** core/v1 PodTemplateSpec. */
export const podTemplatePatchMeta: PatchMetaTable = {
  ...mountPatchMeta('metadata', objectMetaPatchMeta),
  ...mountPatchMeta('spec', podSpecPatchMeta),
};

const meta = mountPatchMeta('metadata', objectMetaPatchMeta);
const template = mountPatchMeta('spec.template', podTemplatePatchMeta);
const statusConditions = { 'status.conditions': byType };

/** One table per kind, keyed `group/Kind` (core group ''). Adding a kind is adding an entry here. */
const TABLES: Record<string, PatchMetaTable> = {
  '/Namespace': { ...meta, ...statusConditions },
  '/ConfigMap': meta,
  '/Secret': meta,
  // ServiceAccount.imagePullSecrets carries no tag in core/v1 (unlike PodSpec's): it replaces.
  '/ServiceAccount': { ...meta, secrets: byName },
  '/Event': meta,
  'events.k8s.io/Event': meta,
  'coordination.k8s.io/Lease': meta,
  // CRDs are a Go type to the apiserver, so strategic merge works (helm 3 sends it for apiextensions/v1
  // CRDs); its lists carry no patch strategy and are replaced.
  'apiextensions.k8s.io/CustomResourceDefinition': meta,
  // RBAC rules, subjects and roleRef carry no tags: lists replace.
  'rbac.authorization.k8s.io/Role': meta,
  'rbac.authorization.k8s.io/ClusterRole': meta,
  'rbac.authorization.k8s.io/RoleBinding': meta,
  'rbac.authorization.k8s.io/ClusterRoleBinding': meta,
  '/Pod': {
    ...meta,
    ...mountPatchMeta('spec', podSpecPatchMeta),
    ...mountPatchMeta('status', podStatusPatchMeta),
  },
  '/Service': { ...meta, 'spec.ports': { strategy: 'merge', mergeKey: 'port' }, ...statusConditions },
  '/Node': {
    ...meta,
    'spec.podCIDRs': { strategy: 'merge' },
    ...statusConditions,
    'status.addresses': byType,
  },
  'apps/Deployment': {
    ...meta,
    ...template,
    'spec.strategy': { strategy: 'retainKeys' },
    ...statusConditions,
  },
  'apps/ReplicaSet': { ...meta, ...template, ...statusConditions },
  'apps/StatefulSet': { ...meta, ...template, ...statusConditions },
  'apps/DaemonSet': { ...meta, ...template, ...statusConditions },
  'batch/Job': { ...meta, ...template, ...statusConditions },
  '/PersistentVolumeClaim': { ...meta, ...statusConditions },
  '/PersistentVolume': meta,
  '/ReplicationController': { ...meta, ...template, ...statusConditions },
  '/PodTemplate': { ...meta, ...mountPatchMeta('template', podTemplatePatchMeta) },
  '/ResourceQuota': meta,
  '/LimitRange': meta,
  // Endpoints.subsets and their addresses/ports carry no tags: replaced whole.
  '/Endpoints': meta,
  'apps/ControllerRevision': meta,
  'policy/PodDisruptionBudget': { ...meta, ...statusConditions },
  // HPA spec.metrics is atomic; only the status conditions merge.
  'autoscaling/HorizontalPodAutoscaler': { ...meta, ...statusConditions },
  'networking.k8s.io/Ingress': meta,
  'networking.k8s.io/IngressClass': meta,
  'networking.k8s.io/NetworkPolicy': meta,
  'networking.k8s.io/ServiceCIDR': { ...meta, ...statusConditions },
  'storage.k8s.io/StorageClass': meta,
  'storage.k8s.io/CSIDriver': meta,
  'discovery.k8s.io/EndpointSlice': meta,
  'scheduling.k8s.io/PriorityClass': meta,
  'certificates.k8s.io/CertificateSigningRequest': meta,
  'batch/CronJob': {
    ...meta,
    ...mountPatchMeta('spec.jobTemplate.metadata', objectMetaPatchMeta),
    ...mountPatchMeta('spec.jobTemplate.spec.template', podTemplatePatchMeta),
  },
};

const COMPILED = new Map<string, KindPatchMeta>(
  Object.entries(TABLES).map(([key, table]) => [key, definePatchMeta(table)]),
);

/** Patch metadata of a built-in kind, or undefined (custom resources: strategic merge is refused). */
export function builtinPatchMeta(group: string, kind: string): KindPatchMeta | undefined {
  return COMPILED.get(`${group}/${kind}`);
}
