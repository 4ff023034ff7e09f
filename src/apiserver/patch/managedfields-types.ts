// The little type information server-side apply needs: which lists merge by key or as sets, which maps
// are atomic, per kind. Anything undescribed is deduced: objects merge field by field, lists are atomic.
import type { Json } from './managedfields-set.js';

/** A struct: keys are named fields. Undeclared keys are allowed and deduced from their value. */
export interface StructType {
  readonly kind: 'struct';
  readonly fields?: Readonly<Record<string, TypeNode>>;
  /** `+structType=atomic` / `x-kubernetes-map-type: atomic`: owned and replaced as a whole. */
  readonly atomic?: boolean;
}

/** A map whose keys are data (labels, data, resource limits), not field names. */
export interface MapType {
  readonly kind: 'map';
  readonly values?: TypeNode;
  readonly atomic?: boolean;
}

/** `x-kubernetes-list-type`: atomic (replaced whole), set (of scalars), or map keyed by `keys`. */
export interface ListType {
  readonly kind: 'list';
  readonly type: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys`. */
  readonly keys?: readonly string[];
  /** Schema defaults of key fields, used when an item omits them (ports: `protocol: TCP`). */
  readonly keyDefaults?: Readonly<Record<string, Json>>;
  readonly items?: TypeNode;
}

export interface ScalarType {
  readonly kind: 'scalar';
}

export type TypeNode = StructType | MapType | ListType | ScalarType;

/** Type information for one kind. */
export interface KindTypeInfo {
  readonly root: StructType;
  /**
   * What an empty object of the kind looks like in Kubernetes (Go zero value): structs that are never
   * omitted. Only affects `.` marks in the fieldsV1 of create-time entries, so sets match real servers.
   */
  readonly zero?: Readonly<Record<string, Json>>;
}

// --- building blocks -------------------------------------------------------------------------------

export function struct(fields?: Record<string, TypeNode>, atomic?: boolean): StructType {
  return { kind: 'struct', ...(fields ? { fields } : {}), ...(atomic ? { atomic } : {}) };
}

export function map(values?: TypeNode, atomic?: boolean): MapType {
  return { kind: 'map', ...(values ? { values } : {}), ...(atomic ? { atomic } : {}) };
}

export const atomicList: ListType = { kind: 'list', type: 'atomic' };
export const setList: ListType = { kind: 'list', type: 'set' };
export const atomicStruct: StructType = { kind: 'struct', atomic: true };

export function listMap(keys: string[], items?: TypeNode, keyDefaults?: Record<string, Json>): ListType {
  return {
    kind: 'list',
    type: 'map',
    keys,
    ...(items ? { items } : {}),
    ...(keyDefaults ? { keyDefaults } : {}),
  };
}

const stringMap = map();

export const objectMetaType: StructType = struct({
  labels: stringMap,
  annotations: stringMap,
  finalizers: setList,
  ownerReferences: listMap(['uid'], atomicStruct),
  managedFields: atomicList,
});

const conditionsByType = listMap(['type']);

/** A top-level object: ObjectMeta plus the kind's own fields. */
export function objectType(fields: Record<string, TypeNode> = {}): StructType {
  return struct({ metadata: objectMetaType, ...fields });
}

const resources = struct({ limits: stringMap, requests: stringMap, claims: listMap(['name']) });
const probe = struct({ httpGet: struct({ httpHeaders: atomicList }), exec: struct({ command: atomicList }) });

export const containerType: StructType = struct({
  command: atomicList,
  args: atomicList,
  ports: listMap(['containerPort', 'protocol'], undefined, { protocol: 'TCP' }),
  env: listMap(
    ['name'],
    struct({ valueFrom: struct({ secretKeyRef: atomicStruct, configMapKeyRef: atomicStruct }) }),
  ),
  envFrom: atomicList,
  volumeMounts: listMap(['mountPath']),
  volumeDevices: listMap(['devicePath']),
  resources,
  resizePolicy: atomicList,
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  securityContext: struct({ capabilities: struct({ add: atomicList, drop: atomicList }) }),
});

export const podSpecType: StructType = struct({
  volumes: listMap(['name']),
  initContainers: listMap(['name'], containerType),
  containers: listMap(['name'], containerType),
  ephemeralContainers: listMap(['name'], containerType),
  imagePullSecrets: listMap(['name'], atomicStruct),
  nodeSelector: map(undefined, true),
  tolerations: atomicList,
  hostAliases: listMap(['ip']),
  topologySpreadConstraints: listMap(
    ['topologyKey', 'whenUnsatisfiable'],
    struct({ labelSelector: atomicStruct, matchLabelKeys: atomicList }),
  ),
  affinity: struct({
    nodeAffinity: struct({ requiredDuringSchedulingIgnoredDuringExecution: atomicStruct }),
  }),
  readinessGates: atomicList,
  resourceClaims: listMap(['name']),
  schedulingGates: listMap(['name']),
  overhead: stringMap,
  securityContext: struct({ supplementalGroups: atomicList, sysctls: atomicList }),
  dnsConfig: struct({ nameservers: atomicList, searches: atomicList, options: atomicList }),
});

export const podTemplateSpecType: StructType = struct({ metadata: objectMetaType, spec: podSpecType });

const labelSelector = atomicStruct; // LabelSelector is +structType=atomic
const podTemplateZero = { metadata: {}, spec: { containers: null } };

const workloadStatus = struct({ conditions: conditionsByType });

const podStatus = struct({
  conditions: conditionsByType,
  podIPs: listMap(['ip']),
  hostIPs: listMap(['ip']),
  containerStatuses: atomicList,
  initContainerStatuses: atomicList,
  ephemeralContainerStatuses: atomicList,
});

const jobSpec = struct({ selector: labelSelector, template: podTemplateSpecType });

/** Built-in kinds by `group/Kind` (core group: `/Kind`). Adding a kind is one entry. */
const BUILTIN: Record<string, KindTypeInfo> = {
  '/Pod': {
    root: objectType({ spec: podSpecType, status: podStatus }),
    zero: { metadata: {}, spec: { containers: null }, status: {} },
  },
  '/PodTemplate': {
    root: objectType({ template: podTemplateSpecType }),
    zero: { metadata: {}, template: podTemplateZero },
  },
  '/ReplicationController': {
    root: objectType({
      spec: struct({ selector: map(undefined, true), template: podTemplateSpecType }),
      status: workloadStatus,
    }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  '/Service': {
    root: objectType({
      spec: struct({
        ports: listMap(['port', 'protocol'], undefined, { protocol: 'TCP' }),
        selector: map(undefined, true),
        clusterIPs: atomicList,
        externalIPs: atomicList,
        ipFamilies: atomicList,
        loadBalancerSourceRanges: atomicList,
      }),
      status: struct({ conditions: conditionsByType, loadBalancer: struct({ ingress: atomicList }) }),
    }),
    zero: { metadata: {}, spec: {}, status: { loadBalancer: {} } },
  },
  '/ConfigMap': { root: objectType({ data: stringMap, binaryData: stringMap }), zero: { metadata: {} } },
  '/Secret': { root: objectType({ data: stringMap, stringData: stringMap }), zero: { metadata: {} } },
  '/ServiceAccount': {
    root: objectType({ secrets: listMap(['name']), imagePullSecrets: atomicList }),
    zero: { metadata: {} },
  },
  '/Namespace': {
    root: objectType({
      spec: struct({ finalizers: atomicList }),
      status: struct({ conditions: conditionsByType }),
    }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  '/Node': {
    root: objectType({
      spec: struct({ taints: atomicList, podCIDRs: setList }),
      status: struct({ conditions: conditionsByType, addresses: listMap(['type']), images: atomicList }),
    }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  '/PersistentVolumeClaim': {
    root: objectType({
      spec: struct({
        accessModes: atomicList,
        resources: struct({ limits: stringMap, requests: stringMap }),
      }),
      status: struct({ accessModes: atomicList, conditions: conditionsByType, capacity: stringMap }),
    }),
    zero: { metadata: {}, spec: { resources: {} }, status: {} },
  },
  '/PersistentVolume': {
    root: objectType({
      spec: struct({ accessModes: atomicList, capacity: stringMap, mountOptions: atomicList }),
    }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  '/Endpoints': { root: objectType({ subsets: atomicList }), zero: { metadata: {} } },
  'apps/Deployment': {
    root: objectType({
      spec: struct({ selector: labelSelector, template: podTemplateSpecType }),
      status: workloadStatus,
    }),
    zero: { metadata: {}, spec: { selector: null, template: podTemplateZero, strategy: {} }, status: {} },
  },
  'apps/ReplicaSet': {
    root: objectType({
      spec: struct({ selector: labelSelector, template: podTemplateSpecType }),
      status: workloadStatus,
    }),
    zero: { metadata: {}, spec: { selector: null, template: podTemplateZero }, status: {} },
  },
  'apps/StatefulSet': {
    root: objectType({
      spec: struct({
        selector: labelSelector,
        template: podTemplateSpecType,
        volumeClaimTemplates: atomicList,
      }),
      status: workloadStatus,
    }),
    zero: {
      metadata: {},
      spec: { selector: null, template: podTemplateZero, updateStrategy: {} },
      status: {},
    },
  },
  'apps/DaemonSet': {
    root: objectType({
      spec: struct({ selector: labelSelector, template: podTemplateSpecType }),
      status: workloadStatus,
    }),
    zero: {
      metadata: {},
      spec: { selector: null, template: podTemplateZero, updateStrategy: {} },
      status: {},
    },
  },
  'batch/Job': {
    root: objectType({ spec: jobSpec, status: struct({ conditions: atomicList }) }),
    zero: { metadata: {}, spec: { template: podTemplateZero }, status: {} },
  },
  'batch/CronJob': {
    root: objectType({
      spec: struct({ jobTemplate: struct({ metadata: objectMetaType, spec: jobSpec }) }),
      status: struct({ active: atomicList }),
    }),
    zero: {
      metadata: {},
      spec: { jobTemplate: { metadata: {}, spec: { template: podTemplateZero } } },
      status: {},
    },
  },
  'rbac.authorization.k8s.io/Role': { root: objectType({ rules: atomicList }), zero: { metadata: {} } },
  'rbac.authorization.k8s.io/ClusterRole': {
    root: objectType({ rules: atomicList, aggregationRule: struct({ clusterRoleSelectors: atomicList }) }),
    zero: { metadata: {} },
  },
  'rbac.authorization.k8s.io/RoleBinding': {
    root: objectType({ subjects: atomicList, roleRef: atomicStruct }),
    zero: { metadata: {}, roleRef: {} },
  },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    root: objectType({ subjects: atomicList, roleRef: atomicStruct }),
    zero: { metadata: {}, roleRef: {} },
  },
  'networking.k8s.io/Ingress': {
    root: objectType({ spec: struct({ rules: atomicList, tls: atomicList }) }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  'apiextensions.k8s.io/CustomResourceDefinition': {
    root: objectType({
      spec: struct({ versions: atomicList }),
      status: struct({ conditions: conditionsByType, storedVersions: atomicList }),
    }),
    zero: { metadata: {}, spec: {}, status: {} },
  },
  'coordination.k8s.io/Lease': { root: objectType({ spec: struct() }), zero: { metadata: {}, spec: {} } },
};

const GENERIC: KindTypeInfo = { root: objectType(), zero: { metadata: {} } };

/** Type information for a built-in kind; any other kind gets ObjectMeta's and deduction for the rest. */
export function builtinTypeInfo(group: string, kind: string): KindTypeInfo {
  return BUILTIN[`${group}/${kind}`] ?? GENERIC;
}

// --- from an OpenAPI v3 / CRD structural schema ------------------------------------------------------

interface SchemaLike {
  type?: string | string[];
  properties?: Record<string, SchemaLike>;
  additionalProperties?: boolean | SchemaLike;
  items?: SchemaLike;
  default?: unknown;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/**
 * Reads the list/map extensions of a JSON schema (a CRD's `openAPIV3Schema` or a TypeBox schema
 * carrying the `x-kubernetes-*` keywords). Lists without `x-kubernetes-list-type` are atomic, as for CRs.
 */
export function typeFromSchema(schema: unknown): TypeNode | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const s = schema as SchemaLike;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  const atomicMap = s['x-kubernetes-map-type'] === 'atomic';
  if (type === 'array' || s.items) {
    const listType = s['x-kubernetes-list-type'];
    const items = typeFromSchema(s.items);
    if (listType === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const keyDefaults: Record<string, Json> = {};
      for (const k of keys) {
        const d = s.items?.properties?.[k]?.default;
        if (d !== undefined) keyDefaults[k] = d as Json;
      }
      return listMap(keys, items, Object.keys(keyDefaults).length ? keyDefaults : undefined);
    }
    if (listType === 'set') return setList;
    return atomicList;
  }
  if (type === 'object' || s.properties || s.additionalProperties) {
    if (s.properties) {
      const fields: Record<string, TypeNode> = {};
      for (const [name, sub] of Object.entries(s.properties)) {
        const t = typeFromSchema(sub);
        if (t) fields[name] = t;
      }
      return struct(fields, atomicMap);
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      return map(typeFromSchema(s.additionalProperties), atomicMap);
    }
    return struct(undefined, atomicMap);
  }
  if (type) return { kind: 'scalar' };
  return undefined;
}

/** A kind's type information from its whole-object schema; ObjectMeta's list types always apply. */
export function typeInfoFromSchema(schema: unknown): KindTypeInfo {
  const t = typeFromSchema(schema);
  const fields = t?.kind === 'struct' ? { ...t.fields } : {};
  delete fields['metadata'];
  return { root: objectType(fields), zero: { metadata: {} } };
}
