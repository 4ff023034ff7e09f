// The OCM `work.open-cluster-management.io/v1` ManifestWork shape the agent consumes and the status it
// produces (field names exactly as OCM's work/v1 types), plus the agent's own applied-resource record.
import type { Condition } from '../../controllers/runtime/conditions.js';
import type { KubeObject, ObjectMeta } from '../../store/types.js';

export type DeletePropagationPolicyType = 'Foreground' | 'Orphan' | 'SelectivelyOrphan';

/** Identifies one resource of the work: `group` '' is core, `namespace` '' is cluster-scoped. */
export interface ResourceIdentifier {
  group?: string;
  resource: string;
  namespace?: string;
  name: string;
}

export type OrphaningRule = ResourceIdentifier;

export interface DeleteOption {
  /** Default Foreground. */
  propagationPolicy: DeletePropagationPolicyType;
  selectivelyOrphans?: { orphaningRules?: OrphaningRule[] };
  ttlSecondsAfterFinished?: number;
}

export type FeedBackType = 'WellKnownStatus' | 'JSONPaths';

export interface JsonPath {
  name: string;
  /** Only read when the object's version is this one. */
  version?: string;
  path: string;
}

export interface FeedbackRule {
  type: FeedBackType;
  jsonPaths?: JsonPath[];
}

export type UpdateStrategyType = 'Update' | 'CreateOnly' | 'ServerSideApply' | 'ReadOnly';
export type IgnoreFieldsCondition = 'OnSpokePresent' | 'OnSpokeChange';

export interface IgnoreField {
  condition: IgnoreFieldsCondition;
  jsonPaths: string[];
}

export interface ServerSideApplyConfig {
  force?: boolean;
  fieldManager?: string;
  ignoreFields?: IgnoreField[];
}

export interface UpdateStrategy {
  type: UpdateStrategyType;
  serverSideApply?: ServerSideApplyConfig;
}

export interface ManifestConfigOption {
  resourceIdentifier: ResourceIdentifier;
  feedbackRules?: FeedbackRule[];
  updateStrategy?: UpdateStrategy;
}

export interface ManifestWorkSpec {
  workload?: { manifests?: KubeObject[] };
  deleteOption?: DeleteOption;
  manifestConfigs?: ManifestConfigOption[];
}

export interface ManifestResourceMeta {
  ordinal: number;
  group: string;
  version: string;
  kind: string;
  resource: string;
  name: string;
  namespace: string;
}

export type ValueType = 'Integer' | 'String' | 'Boolean' | 'JsonRaw';

export interface FieldValue {
  type: ValueType;
  integer?: number;
  string?: string;
  boolean?: boolean;
  /** JSON text of a list or object, at most 1024 characters. */
  jsonRaw?: string;
}

export interface FeedbackValue {
  name: string;
  fieldValue: FieldValue;
}

export interface ManifestCondition {
  resourceMeta: ManifestResourceMeta;
  statusFeedback?: { values?: FeedbackValue[] };
  conditions: Condition[];
}

/** What applying one manifest would do, as a dry run found (the hub's ClusterReport reads it). */
export type DryRunAction = 'Create' | 'Update' | 'NoAction' | 'Conflict';

/**
 * The reason of a dry-run manifest's Applied condition (status True: the dry run itself succeeded);
 * its message says why, and for an Update which fields would change.
 */
export const DRY_RUN_REASONS: Readonly<Record<DryRunAction, string>> = {
  Create: 'DryRunCreate',
  Update: 'DryRunUpdate',
  NoAction: 'DryRunNoAction',
  Conflict: 'DryRunConflict',
};

/**
 * An object a dry-run work would delete: the agent applied it for this work before (its record says
 * so) and the work no longer lists it. fleethub's own status field: OCM's status lists only manifests.
 */
export type DryRunDeletion = Pick<
  AppliedResource,
  'group' | 'version' | 'kind' | 'resource' | 'namespace' | 'name'
>;

export interface ManifestWorkStatus {
  conditions?: Condition[];
  resourceStatus?: { manifests?: ManifestCondition[]; dryRunDeletions?: DryRunDeletion[] };
}

export interface ManifestWork {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: ManifestWorkSpec;
  status?: ManifestWorkStatus;
}

/** One object the agent created or manages for a work (ReadOnly manifests are never recorded). */
export interface AppliedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
  uid: string;
  /** The resourceVersion our last write (or read, when nothing changed) left the object at. */
  resourceVersion?: string;
  /** `objectFingerprint` of the object as we last left it: status and volatile metadata excluded. */
  fingerprint?: string;
  /** The strategy it was applied with; CreateOnly objects are never re-applied on drift. */
  strategy?: UpdateStrategyType;
}

/** What was applied for one work last time: persisted by the agent between runs. */
export interface AppliedRecord {
  resources: AppliedResource[];
}

/** OCM's hash annotation (ignoreFields): when the live object carries the same hash, apply is skipped. */
export const CONFIG_SPEC_HASH_ANNOTATION = 'open-cluster-management.io/config-spec-hash';
