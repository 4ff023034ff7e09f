// work.open-cluster-management.io/v1 ManifestWork, in Open Cluster Management's shape
// (open-cluster-management-io/api work/v1/types.go): the objects one cluster's agent applies, how it
// applies and deletes them, and the per-manifest status and feedback it reports back.
import { Type } from '@sinclair/typebox';
import {
  ANNOTATION_DRIFT_CORRECTION,
  ANNOTATION_DRY_RUN,
  LABEL_CLUSTER,
  LABEL_CLUSTER_SUMMARY,
  LABEL_LOCAL,
  WORK_API_VERSION,
  WORK_CLEANUP_FINALIZER,
  WORK_GROUP,
} from '../../fleet/names.js';
import type { KubeObject } from '../../store/types.js';
import { errors, type StatusCause } from '../../util/errors.js';
import { stableStringify } from '../../util/json-text.js';
import { isAgentSubject } from '../../security/bootstrap.js';
import { AGE, at, isObj, list, str } from '../builtin/kube-helpers.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition } from '../types.js';
import {
  checkEnum,
  conditionColumn,
  Conditions,
  enumString,
  FLEET_CATEGORIES,
  required,
  spec,
  status,
  validateConditions,
} from './common.js';

/** The largest ManifestWork stored, as serialized JSON (managedFields not counted). */
export const MAX_MANIFESTWORK_BYTES = 1024 * 1024;

const PROPAGATION_POLICIES = ['Foreground', 'Orphan', 'SelectivelyOrphan'] as const;
const FEEDBACK_TYPES = ['WellKnownStatus', 'JSONPaths'] as const;
const UPDATE_STRATEGIES = ['Update', 'CreateOnly', 'ServerSideApply', 'ReadOnly'] as const;
const IGNORE_CONDITIONS = ['OnSpokePresent', 'OnSpokeChange'] as const;
const VALUE_TYPES = ['Integer', 'String', 'Boolean', 'JsonRaw'] as const;

/** A whole Kubernetes object, kept as sent (`x-kubernetes-embedded-resource`). */
const Manifest = Type.Object(
  {},
  {
    additionalProperties: true,
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-embedded-resource': true,
    description:
      'A Kubernetes object to apply in the cluster: apiVersion, kind and metadata.name are required.',
  },
);

const ResourceIdentifier = closed({
  group: Type.Optional(Type.String({ description: 'API group; empty for the core group.' })),
  resource: Type.String({ description: 'Resource (plural) name, e.g. deployments.' }),
  name: Type.String(),
  namespace: Type.Optional(Type.String({ description: 'Empty for a cluster-scoped resource.' })),
});

const ManifestConfigOption = closed({
  resourceIdentifier: ResourceIdentifier,
  feedbackRules: Type.Optional(
    Type.Array(
      closed({
        type: enumString(FEEDBACK_TYPES),
        jsonPaths: Type.Optional(
          Type.Array(
            closed({
              name: Type.String(),
              path: Type.String({ description: 'JSONPath under the resource status.' }),
              version: Type.Optional(Type.String()),
            }),
          ),
        ),
      }),
    ),
  ),
  updateStrategy: Type.Optional(
    closed({
      type: enumString(UPDATE_STRATEGIES, 'How the agent updates the resource; default Update.'),
      serverSideApply: Type.Optional(
        closed({
          force: Type.Optional(Type.Boolean()),
          fieldManager: Type.Optional(Type.String()),
          ignoreFields: Type.Optional(
            Type.Array(
              closed({
                condition: enumString(IGNORE_CONDITIONS),
                jsonPaths: Type.Array(Type.String()),
              }),
            ),
          ),
        }),
      ),
    }),
  ),
});

const ResourceMeta = closed({
  ordinal: Type.Integer({ minimum: 0 }),
  group: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  resource: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
});

const FieldValue = closed({
  type: enumString(VALUE_TYPES),
  integer: Type.Optional(Type.Integer()),
  string: Type.Optional(Type.String()),
  boolean: Type.Optional(Type.Boolean()),
  jsonRaw: Type.Optional(Type.String({ maxLength: 1024 })),
});

const ManifestCondition = closed({
  resourceMeta: ResourceMeta,
  statusFeedback: Type.Optional(
    closed({ values: Type.Optional(Type.Array(closed({ name: Type.String(), fieldValue: FieldValue }))) }),
  ),
  conditions: Conditions,
});

// fleethub's own: what a dry-run work would delete (objects it applied before and no longer lists).
// OCM's status lists only the manifests, so deletions need a place of their own.
const DryRunDeletion = closed({
  group: Type.String(),
  version: Type.String(),
  kind: Type.String({ minLength: 1 }),
  resource: Type.String({ minLength: 1 }),
  namespace: Type.String({ description: "'' for cluster-scoped objects." }),
  name: Type.String({ minLength: 1 }),
});

/** `apps/v1` → `apps`, `v1` → ``. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function validateManifests(causes: StatusCause[], manifests: unknown): void {
  const seen = new Map<string, number>();
  list(manifests).forEach((m, i) => {
    const field = `spec.workload.manifests[${i}]`;
    const apiVersion = m.apiVersion;
    const kind = m.kind;
    const name = at(m, 'metadata', 'name');
    if (typeof apiVersion !== 'string' || apiVersion === '') required(causes, `${field}.apiVersion`);
    if (typeof kind !== 'string' || kind === '') required(causes, `${field}.kind`);
    if (typeof name !== 'string' || name === '')
      required(
        causes,
        `${field}.metadata.name`,
        'every manifest needs a name (generateName is not supported)',
      );
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string') return;
    const namespace = str(at(m, 'metadata', 'namespace'));
    const group = groupOf(apiVersion);
    const key = `${group}/${kind} ${namespace ? `${namespace}/` : ''}${name}`;
    const first = seen.get(key);
    if (first !== undefined)
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: "${key}": the same object as spec.workload.manifests[${first}]`,
        field,
      });
    else seen.set(key, i);
  });
}

function validateManifestConfigs(causes: StatusCause[], configs: unknown): void {
  list(configs).forEach((c, i) => {
    const field = `spec.manifestConfigs[${i}]`;
    list(c.feedbackRules).forEach((rule, j) => {
      const where = `${field}.feedbackRules[${j}]`;
      checkEnum(causes, rule.type, FEEDBACK_TYPES, `${where}.type`);
      if (rule.type === 'JSONPaths' && list(rule.jsonPaths).length === 0)
        required(causes, `${where}.jsonPaths`, 'jsonPaths is required when type is JSONPaths');
    });
    const strategy = c.updateStrategy;
    if (isObj(strategy)) {
      checkEnum(causes, strategy.type, UPDATE_STRATEGIES, `${field}.updateStrategy.type`);
      list(at(strategy, 'serverSideApply', 'ignoreFields')).forEach((ignore, j) => {
        const where = `${field}.updateStrategy.serverSideApply.ignoreFields[${j}]`;
        checkEnum(causes, ignore.condition, IGNORE_CONDITIONS, `${where}.condition`);
        if (!Array.isArray(ignore.jsonPaths) || ignore.jsonPaths.length === 0)
          required(causes, `${where}.jsonPaths`, 'at least one JSON path');
      });
    }
  });
}

function validateBooleanAnnotation(causes: StatusCause[], obj: KubeObject, key: string): void {
  const value = obj.metadata.annotations?.[key];
  if (value !== undefined && value !== 'true' && value !== 'false')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: "true", "false"`,
      field: `metadata.annotations[${key}]`,
    });
}

/** Bytes of the object as stored, without the server's managedFields bookkeeping. */
function serializedSize(obj: KubeObject): number {
  const { managedFields: _managed, ...metadata } = obj.metadata;
  return Buffer.byteLength(JSON.stringify({ ...obj, metadata }), 'utf8');
}

function validateManifestWork(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const labelField = `metadata.labels[${LABEL_CLUSTER}]`;
  const cluster = obj.metadata.labels?.[LABEL_CLUSTER];
  if (!cluster) required(causes, labelField, 'names the cluster the work is for');
  if (old && old.metadata.labels?.[LABEL_CLUSTER] !== cluster)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(cluster ?? '')}: field is immutable`,
      field: labelField,
    });
  validateBooleanAnnotation(causes, obj, ANNOTATION_DRIFT_CORRECTION);
  validateBooleanAnnotation(causes, obj, ANNOTATION_DRY_RUN);
  const sp = spec(obj);
  validateManifests(causes, at(sp, 'workload', 'manifests'));
  checkEnum(
    causes,
    at(sp, 'deleteOption', 'propagationPolicy'),
    PROPAGATION_POLICIES,
    'spec.deleteOption.propagationPolicy',
  );
  validateManifestConfigs(causes, sp.manifestConfigs);
  const st = status(obj);
  validateConditions(causes, st.conditions, 'status.conditions');
  list(at(st, 'resourceStatus', 'manifests')).forEach((m, i) => {
    const field = `status.resourceStatus.manifests[${i}]`;
    validateConditions(causes, m.conditions, `${field}.conditions`);
    list(at(m, 'statusFeedback', 'values')).forEach((v, j) =>
      checkEnum(
        causes,
        at(v, 'fieldValue', 'type'),
        VALUE_TYPES,
        `${field}.statusFeedback.values[${j}].fieldValue.type`,
      ),
    );
  });
  const size = serializedSize(obj);
  if (size > MAX_MANIFESTWORK_BYTES)
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: the ManifestWork is ${size} bytes, may not be more than ${MAX_MANIFESTWORK_BYTES} bytes (1 MiB); split the manifests over several ManifestWorks`,
      field: 'spec.workload.manifests',
    });
  return causes;
}

/**
 * An agent writes its works' status (a subresource) and the cleanup finalizer, nothing else: like the
 * NodeRestriction admission plugin for kubelets, a compromised agent cannot rewrite what it is told to
 * apply, nor relabel a work (the authorizer already keeps it to works labelled for its cluster).
 */
function restrictAgentUpdate(obj: KubeObject, old: KubeObject): void {
  // Written against an older version: the store answers 409 Conflict, which says more than this would.
  if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== old.metadata.resourceVersion) return;
  const changed: string[] = [];
  if (stableStringify(obj['spec'] ?? null) !== stableStringify(old['spec'] ?? null)) changed.push('spec');
  if (stableStringify(obj.metadata.labels ?? {}) !== stableStringify(old.metadata.labels ?? {}))
    changed.push('metadata.labels');
  if (stableStringify(obj.metadata.annotations ?? {}) !== stableStringify(old.metadata.annotations ?? {}))
    changed.push('metadata.annotations');
  const had = new Set(old.metadata.finalizers ?? []);
  for (const f of obj.metadata.finalizers ?? [])
    if (!had.has(f) && f !== WORK_CLEANUP_FINALIZER) changed.push(`metadata.finalizers (${f})`);
  if (changed.length > 0)
    throw errors.forbidden(
      `an agent may change only the status and the ${WORK_CLEANUP_FINALIZER} finalizer of a ManifestWork, not ${changed.join(', ')}`,
      'manifestworks',
      WORK_GROUP,
      old.metadata.name,
    );
}

export const ManifestWork: KindDefinition = {
  group: WORK_GROUP,
  version: 'v1',
  kind: 'ManifestWork',
  plural: 'manifestworks',
  singular: 'manifestwork',
  namespaced: true,
  shortNames: ['mw'],
  categories: FLEET_CATEGORIES,
  subresources: { status: true },
  description: `Objects for the agent of one cluster to apply (Open Cluster Management's ManifestWork). The ${LABEL_CLUSTER} label names the cluster.`,
  schema: kindSchema('ManifestWork', WORK_API_VERSION, {
    spec: Type.Optional(
      closed({
        workload: Type.Optional(closed({ manifests: Type.Optional(Type.Array(Manifest)) })),
        deleteOption: Type.Optional(
          closed({
            propagationPolicy: Type.Optional(enumString(PROPAGATION_POLICIES, 'Default Foreground.')),
            selectivelyOrphans: Type.Optional(
              closed({ orphaningRules: Type.Optional(Type.Array(ResourceIdentifier)) }),
            ),
            ttlSecondsAfterFinished: Type.Optional(Type.Integer({ minimum: 0 })),
          }),
        ),
        manifestConfigs: Type.Optional(Type.Array(ManifestConfigOption)),
      }),
    ),
    status: Type.Optional(
      closed({
        conditions: Conditions,
        resourceStatus: Type.Optional(
          closed({
            manifests: Type.Optional(Type.Array(ManifestCondition)),
            dryRunDeletions: Type.Optional(Type.Array(DryRunDeletion)),
          }),
        ),
      }),
    ),
  }),
  printerColumns: [
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: `.metadata.labels.${LABEL_CLUSTER.replace(/\./g, '\\.')}`,
      description: 'The cluster the work is for.',
      value: (o) => o.metadata.labels?.[LABEL_CLUSTER],
    },
    conditionColumn('Applied', 'Applied', 'Whether the agent applied every manifest.'),
    conditionColumn('Available', 'Available', 'Whether every manifest exists in the cluster.'),
    AGE,
  ],
  validate: validateManifestWork,
  // The cleanup finalizer from the start: the agent then applies a new work without writing it first
  // (a thousand works are a thousand writes fewer), and a work deleted before its agent saw it still
  // waits for the agent — or for the hub to find there is none (controllers/work-release).
  guard({ operation, user, old, obj }) {
    // A local work is applied by the hub to itself, as admin: through the API nobody — tenant, admin or
    // agent — may create, change, relabel into or delete one; only the hub's controllers (the store) do.
    if (
      old?.metadata.labels?.[LABEL_LOCAL] !== undefined ||
      obj?.metadata.labels?.[LABEL_LOCAL] !== undefined
    )
      throw errors.forbidden(
        `ManifestWork ${(old ?? obj)?.metadata.name ?? ''} is labelled ${LABEL_LOCAL}: the hub applies such works to itself and only its controllers write them (${operation} refused); deliver to the hub with a ClusterProfile's deploymentType Local instead`,
        'manifestworks',
        WORK_GROUP,
        (old ?? obj)?.metadata.name,
      );
    const generatedFor =
      (old ?? obj)?.metadata.labels?.[LABEL_CLUSTER_SUMMARY] ?? obj?.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
    if (generatedFor === undefined) return;
    // The agent writes status and drops its finalizer (admit restricts it to that); nobody else writes.
    if (operation === 'update' && isAgentSubject(user)) return;
    throw errors.forbidden(
      `ManifestWork ${(old ?? obj)?.metadata.name ?? ''} is generated by the hub from ClusterSummary ${generatedFor}: change its profile instead`,
      'manifestworks',
      WORK_GROUP,
      (old ?? obj)?.metadata.name,
    );
  },
  admit(obj, { operation, user, old }) {
    if (operation === 'update') {
      if (old && isAgentSubject(user)) restrictAgentUpdate(obj, old);
      return;
    }
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(WORK_CLEANUP_FINALIZER))
      obj.metadata.finalizers = [...finalizers, WORK_CLEANUP_FINALIZER];
  },
};
