// The spec ClusterProfile, Profile and ClusterSummary share and the status of both profile kinds, in
// Sveltos's shape (addon-controller api/v1beta1 spec.go, status.go): fields, enums and CRD defaults.
import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { FLEET_API_VERSION } from '../../fleet/names.js';
import { parseLabelSelector, validateLabelKey, validateLabelValue } from '../../apiserver/selectors.js';
import { ApiError, type StatusCause } from '../../util/errors.js';
import { isObj, list, str, type Obj } from '../builtin/kube-helpers.js';
import { closed, StringMap, validateObjectMeta } from '../meta.js';
import type { KubeObject } from '../../store/types.js';
import { enumString, required, validateLabels } from '../fleet/common.js';
import { checkSchemaEnums } from './schema-walk.js';

// ---------------------------------------------------------------------------------------------------
// Formats and scalars

/** Go's time.ParseDuration syntax (metav1.Duration): `5m`, `1h30m`, `0`. */
const GO_DURATION = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/;
if (!FormatRegistry.Has('duration')) FormatRegistry.Set('duration', (v) => GO_DURATION.test(v));
// []byte fields are base64 in JSON; proto-schema.ts registers the same check when it loads first.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
if (!FormatRegistry.Has('byte')) FormatRegistry.Set('byte', (v) => v.length % 4 === 0 && BASE64.test(v));

const Str = (description?: string) => Type.String(description ? { description } : {});
const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Bool = (fallback?: boolean, description?: string) =>
  Type.Boolean({
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(description ? { description } : {}),
  });
export const Duration = (description: string) => Type.String({ format: 'duration', description });
export const Time = Type.String({ format: 'date-time' });
export const Hash = Type.String({ format: 'byte', description: 'A hash, base64-encoded.' });
const Tier = (description: string) =>
  Type.Integer({ minimum: 1, maximum: 2147483647, default: 100, format: 'int32', description });

// ---------------------------------------------------------------------------------------------------
// Enums

export const SYNC_MODES = ['OneTime', 'Continuous', 'ContinuousWithDriftDetection', 'DryRun'] as const;
export const STOP_MATCHING_BEHAVIORS = ['WithdrawPolicies', 'LeavePolicies'] as const;
export const DEPLOYMENT_TYPES = ['Local', 'Remote'] as const;
export const POLICY_REF_KINDS = ['ConfigMap', 'Secret', 'GitRepository', 'OCIRepository', 'Bucket'] as const;
export const KUSTOMIZATION_REF_KINDS = [
  'GitRepository',
  'OCIRepository',
  'Bucket',
  'ConfigMap',
  'Secret',
] as const;
export const VALUE_FROM_KINDS = ['ConfigMap', 'Secret'] as const;
export const HELM_CHART_ACTIONS = ['Install', 'Uninstall'] as const;
export const FEATURE_IDS = ['Resources', 'Helm', 'Kustomize'] as const;
export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
const LABEL_FILTER_OPERATIONS = ['Equal', 'Different', 'Has', 'DoesNotHave'] as const;

/** What Sveltos's controllers take when the field is unset (its CRD sets no default for them). */
export const DEFAULT_MAX_UPDATE = '100%';
export const DEFAULT_REMOTE_INTERVAL = '5m';

// ---------------------------------------------------------------------------------------------------
// References and selectors

/** corev1.ObjectReference. */
export const ObjectReference = closed(
  {
    apiVersion: Opt(Str()),
    kind: Opt(Str()),
    namespace: Opt(Str()),
    name: Opt(Str()),
    uid: Opt(Str()),
    resourceVersion: Opt(Str()),
    fieldPath: Opt(Str()),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** corev1.SecretReference. */
const SecretRef = (description: string) =>
  closed({ name: Opt(Str()), namespace: Opt(Str()) }, { description, 'x-kubernetes-map-type': 'atomic' });

/** metav1.LabelSelector. */
export const LabelSelector = closed(
  {
    matchLabels: Opt(StringMap),
    matchExpressions: Opt(
      Type.Array(
        closed({
          key: Str(),
          operator: enumString(SELECTOR_OPERATORS),
          values: Opt(Type.Array(Str())),
        }),
      ),
    ),
  },
  {
    description: 'Selects Clusters by label. An empty selector matches no cluster, as in Sveltos.',
    'x-kubernetes-map-type': 'atomic',
  },
);

/** Which objects a patch or drift exclusion applies to (kustomize's selector). */
const PatchSelector = closed({
  group: Opt(Str()),
  version: Opt(Str()),
  kind: Opt(Str()),
  namespace: Opt(Str()),
  name: Opt(Str('A regular expression matched against the whole name.')),
  labelSelector: Opt(Str('A label selector string, e.g. app=web,tier!=db.')),
  annotationSelector: Opt(Str('A label selector string over annotations.')),
});

/** A ConfigMap or Secret on the hub whose data values are used (values, patches). */
const ValueFrom = closed({
  kind: enumString(VALUE_FROM_KINDS),
  namespace: Opt(Str('Default: the cluster’s namespace (a Profile’s own namespace).')),
  name: Type.String({ minLength: 1 }),
  optional: Opt(Bool(false, 'A missing object is ignored.')),
});

const RemoteURLFields = {
  url: Type.String({ pattern: '^(https?|oci)://', description: 'http(s):// or oci:// source.' }),
  interval: Opt(Duration(`How often the source is fetched again; unset means ${DEFAULT_REMOTE_INTERVAL}.`)),
  secretRef: Opt(SecretRef('Credentials: keys token, or username and password; caFile.')),
  insecureSkipTLSVerify: Opt(Bool(false)),
  plainHTTP: Opt(Bool(false)),
};

const RefFields = {
  namespace: Opt(Str('Default: the cluster’s namespace; a Profile’s own namespace, always.')),
  name: Opt(Str()),
  path: Opt(Str('Path in a Flux source.')),
  deploymentType: Opt(
    Type.String({
      enum: [...DEPLOYMENT_TYPES],
      default: 'Remote',
      description: 'Remote: into the matching cluster. Local: onto the hub (ClusterProfiles only).',
    }),
  ),
  optional: Opt(Bool(false, 'A missing referenced object is ignored.')),
  tier: Opt(Tier('Priority between this profile’s own references; lower wins.')),
  skipNamespaceCreation: Opt(Bool(false)),
  force: Opt(Bool(false, 'Delete and recreate an object whose update is refused.')),
};

export const PolicyRef = closed(
  {
    kind: Opt(enumString(POLICY_REF_KINDS)),
    ...RefFields,
    remoteURL: Opt(
      closed({
        ...RemoteURLFields,
        template: Opt(Type.Boolean({ description: 'Instantiate the content as a template.' })),
      }),
    ),
  },
  { description: 'Manifests to deliver: exactly one of kind (with name) or remoteURL.' },
);

const KustomizationRef = closed({
  kind: Opt(enumString(KUSTOMIZATION_REF_KINDS)),
  ...RefFields,
  components: Opt(Type.Array(Str())),
  targetNamespace: Opt(Type.String({ minLength: 1, maxLength: 63 })),
  values: Opt(StringMap),
  valuesFrom: Opt(Type.Array(ValueFrom)),
  remoteURL: Opt(closed(RemoteURLFields)),
});

// ---------------------------------------------------------------------------------------------------
// Helm charts

const HelmOptions = closed({
  skipCRDs: Opt(Bool(false)),
  skipSchemaValidation: Opt(Bool(false)),
  wait: Opt(Bool(false)),
  waitForJobs: Opt(Bool(false)),
  timeout: Opt(Duration('Time to wait for an operation; Helm’s default is 5m.')),
  disableHooks: Opt(Bool(false)),
  disableOpenAPIValidation: Opt(Bool(false)),
  atomic: Opt(Bool(false)),
  dependencyUpdate: Opt(Bool(false)),
  labels: Opt(StringMap),
  enableClientCache: Opt(Bool(false)),
  description: Opt(Str()),
  passCredentialsAll: Opt(Type.Boolean()),
  runTests: Opt(Bool(false)),
  postRenderStrategy: Opt(enumString(['combined', 'separate', 'nohooks'])),
  installOptions: Opt(
    closed({
      createNamespace: Opt(Bool(true)),
      replace: Opt(Bool(true)),
      disableHooks: Opt(Bool(false)),
      takeOwnership: Opt(Bool(false)),
      recoverAfterConsecutiveFailures: Opt(Type.Integer({ default: 5 })),
    }),
  ),
  upgradeOptions: Opt(
    closed({
      force: Opt(Bool(false)),
      recreate: Opt(Bool(false)),
      resetValues: Opt(Bool(false)),
      reuseValues: Opt(Bool(false)),
      resetThenReuseValues: Opt(Bool(false)),
      maxHistory: Opt(Type.Integer({ default: 2 })),
      cleanupOnFail: Opt(Bool(false)),
      subNotes: Opt(Bool(false)),
      upgradeCRDs: Opt(Bool(false)),
      disableHooks: Opt(Bool(false)),
      takeOwnership: Opt(Bool(false)),
    }),
  ),
  uninstallOptions: Opt(
    closed({
      keepHistory: Opt(Type.Boolean()),
      deletionPropagation: Opt(enumString(['orphan', 'foreground', 'background'])),
      disableHooks: Opt(Bool(false)),
    }),
  ),
});

export const HelmChart = closed(
  {
    repositoryURL: Type.String({
      minLength: 1,
      description:
        'An http(s) chart repository, oci://…, or <gitrepository|ocirepository|bucket>://ns/name/path.',
    }),
    repositoryName: Opt(Str('Required for http and oci repositories.')),
    chartName: Opt(Str('Required for http and oci repositories.')),
    chartVersion: Opt(Str('Required for http and oci repositories.')),
    releaseName: Type.String({ minLength: 1 }),
    releaseNamespace: Type.String({ minLength: 1 }),
    helmChartAction: Opt(Type.String({ enum: [...HELM_CHART_ACTIONS], default: 'Install' })),
    values: Opt(Str('Helm values (YAML), instantiated as a template per cluster.')),
    valuesFrom: Opt(Type.Array(ValueFrom)),
    options: Opt(HelmOptions),
    registryCredentialsConfig: Opt(
      closed({
        credentials: Opt(SecretRef('Registry credentials.')),
        key: Opt(Str()),
        ca: Opt(SecretRef('CA bundle, key ca.crt.')),
        insecureSkipTLSVerify: Opt(Type.Boolean()),
        plainHTTP: Opt(Type.Boolean()),
      }),
    ),
    signatureVerification: Opt(
      closed({
        provider: enumString(['PublicKey', 'Keyless']),
        secretRef: Opt(SecretRef('Public key, key cosign.pub.')),
        matchOIDCIdentity: Opt(
          Type.Array(
            closed({ issuer: Type.String({ minLength: 1 }), subject: Type.String({ minLength: 1 }) }),
          ),
        ),
      }),
    ),
    provenanceVerification: Opt(closed({ keyringSecretRef: SecretRef('Keyring, key keyring.gpg.') })),
  },
  { description: 'A chart rendered on the hub and delivered as manifests.' },
);

// ---------------------------------------------------------------------------------------------------
// Patches, template resources, checks, drift

const Patch = closed({
  patch: Str('A strategic-merge document or a JSON 6902 operation list (YAML).'),
  target: Opt(PatchSelector),
});

const TemplateResourceRef = closed({
  resource: ObjectReference,
  identifier: Str('Key under .MgmtResources and for getResource.'),
  optional: Opt(Bool(false)),
  ignoreStatusChanges: Opt(Bool(false)),
  watchFields: Opt(Type.Array(Str())),
});

const ValidateHealth = closed({
  name: Str(),
  featureID: enumString(FEATURE_IDS),
  group: Opt(Str()),
  version: Opt(Str()),
  kind: Opt(Str()),
  namespace: Opt(Str()),
  labelFilters: Opt(
    Type.Array(closed({ key: Str(), operation: enumString(LABEL_FILTER_OPERATIONS), value: Opt(Str()) })),
  ),
  script: Opt(Str('Lua: function evaluate(obj) returning {healthy, message}.')),
  evaluateCEL: Opt(Type.Array(closed({ name: Str(), rule: Str() }))),
  metricSource: Opt(
    closed({
      url: Type.String({ minLength: 1 }),
      path: Opt(Str()),
      secretRef: Opt(SecretRef('Credentials.')),
    }),
  ),
  metricQueries: Opt(
    Type.Array(closed({ name: Type.String({ minLength: 1 }), query: Type.String({ minLength: 1 }) })),
  ),
  jobCheck: Opt(
    closed({
      jobRef: closed({
        kind: enumString(['Secret', 'ConfigMap']),
        name: Type.String({ minLength: 1 }),
        namespace: Str(),
      }),
      timeout: Opt(Duration('Default 5m.')),
    }),
  ),
});

const DriftExclusion = closed({
  paths: Type.Array(Str(), { description: 'JSON pointers of fields drift detection ignores.' }),
  target: Opt(PatchSelector),
});

// ---------------------------------------------------------------------------------------------------
// The spec

export const ProfileSpec = closed(
  {
    clusterSelector: Opt(LabelSelector),
    clusterRefs: Opt(
      Type.Array(ObjectReference, {
        description: `Clusters by name: kind Cluster, apiVersion ${FLEET_API_VERSION} (or cluster.x-k8s.io).`,
      }),
    ),
    setRefs: Opt(Type.Array(Str())),
    syncMode: Opt(Type.String({ enum: [...SYNC_MODES], default: 'Continuous' })),
    tier: Opt(Tier('Conflict priority across profiles; lower wins, a tie keeps the current owner.')),
    continueOnConflict: Opt(Bool(false)),
    continueOnError: Opt(Bool(false)),
    maxConsecutiveFailures: Opt(Type.Integer({ minimum: 0 })),
    maxUpdate: Opt(
      Type.Union([Type.Integer(), Type.String()], {
        'x-kubernetes-int-or-string': true,
        pattern: '^((100|[0-9]{1,2})%|[0-9]+)$',
        description: `Clusters updated at once: a number or a percentage; unset means ${DEFAULT_MAX_UPDATE}.`,
      }),
    ),
    stopMatchingBehavior: Opt(
      Type.String({ enum: [...STOP_MATCHING_BEHAVIORS], default: 'WithdrawPolicies' }),
    ),
    reloader: Opt(Bool(false)),
    dependsOn: Opt(Type.Array(Str())),
    extraLabels: Opt(StringMap),
    extraAnnotations: Opt(StringMap),
    policyRefs: Opt(Type.Array(PolicyRef)),
    helmCharts: Opt(Type.Array(HelmChart)),
    kustomizationRefs: Opt(Type.Array(KustomizationRef)),
    patches: Opt(Type.Array(Patch)),
    patchesFrom: Opt(Type.Array(ValueFrom)),
    // Keyed as in Sveltos's CRD, so server-side apply merges entries by identifier.
    templateResourceRefs: Opt(
      Type.Array(TemplateResourceRef, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['identifier'],
      }),
    ),
    validateHealths: Opt(Type.Array(ValidateHealth)),
    preDeployChecks: Opt(Type.Array(ValidateHealth)),
    preDeleteChecks: Opt(Type.Array(ValidateHealth)),
    postDeleteChecks: Opt(Type.Array(ValidateHealth)),
    driftExclusions: Opt(Type.Array(DriftExclusion)),
  },
  { description: 'What to deliver to which clusters, and how (Sveltos’s Spec).' },
);

/** The spec as controllers read it (after defaults; optional fields stay optional). */
export type ProfileSpecType = Static<typeof ProfileSpec>;

const ClusterList = closed({ hash: Opt(Hash), clusters: Opt(Type.Array(ObjectReference)) });

export const ProfileStatus = closed({
  matchingClusters: Opt(Type.Array(ObjectReference)),
  updatingClusters: Opt(ClusterList),
  updatedClusters: Opt(ClusterList),
  failedClusters: Opt(
    Type.Array(closed({ clusterRef: ObjectReference, failureMessage: Str(), lastFailureTime: Opt(Time) })),
  ),
  dependenciesHash: Opt(Hash),
  reconciliationSuspended: Opt(Type.Boolean()),
  suspensionReason: Opt(Str()),
});

export type ProfileStatusType = Static<typeof ProfileStatus>;

// ---------------------------------------------------------------------------------------------------
// Checks beyond the schema (the CRD's CEL rules and what Sveltos would only find out while deploying)

const CLUSTER_API_GROUP = 'cluster.x-k8s.io';

function checkSelector(causes: StatusCause[], selector: unknown, field: string): void {
  if (!isObj(selector)) return;
  for (const [key, value] of Object.entries(isObj(selector.matchLabels) ? selector.matchLabels : {})) {
    for (const why of validateLabelKey(key))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${key}": ${why}`,
        field: `${field}.matchLabels`,
      });
    if (typeof value === 'string')
      for (const why of validateLabelValue(value))
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${value}": ${why}`,
          field: `${field}.matchLabels`,
        });
  }
  list(selector.matchExpressions).forEach((e, i) => {
    const where = `${field}.matchExpressions[${i}]`;
    for (const why of validateLabelKey(str(e.key)))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(e.key)}: ${why}`,
        field: `${where}.key`,
      });
    const values = Array.isArray(e.values) ? e.values : [];
    if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0)
      required(causes, `${where}.values`, "must be specified when `operator` is 'In' or 'NotIn'");
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0)
      causes.push({
        reason: 'FieldValueForbidden',
        message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        field: `${where}.values`,
      });
  });
}

/** A clusterRef names a fleethub Cluster; a Cluster API reference is read as the Cluster of that name. */
function checkClusterRef(causes: StatusCause[], ref: Obj, field: string): void {
  const apiVersion = str(ref.apiVersion);
  if (ref.kind !== 'Cluster')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(ref.kind ?? '')}: supported values: "Cluster" (SveltosCluster is not served here; a fleethub Cluster takes its place)`,
      field: `${field}.kind`,
    });
  if (
    apiVersion !== '' &&
    apiVersion !== FLEET_API_VERSION &&
    !apiVersion.startsWith(`${CLUSTER_API_GROUP}/`)
  )
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(apiVersion)}: supported values: "${FLEET_API_VERSION}", "${CLUSTER_API_GROUP}/<version>"`,
      field: `${field}.apiVersion`,
    });
  if (!str(ref.name)) required(causes, `${field}.name`);
}

/** The CRD's rule `has(self.remoteURL) != has(self.kind)`, said per field; a kind needs a name. */
function checkSource(causes: StatusCause[], ref: Obj, field: string): void {
  const hasURL = ref.remoteURL !== undefined && ref.remoteURL !== null;
  const hasKind = ref.kind !== undefined && ref.kind !== null;
  if (hasURL && hasKind)
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: either remoteURL or kind must be set, but not both',
      field: `${field}.remoteURL`,
    });
  else if (!hasURL && !hasKind)
    required(causes, `${field}.kind`, 'either remoteURL or kind must be set, but not both');
  else if (hasKind && !str(ref.name)) required(causes, `${field}.name`, `names the ${str(ref.kind)} to read`);
}

/** The CRD's CEL rules: http and oci repositories need chartName, chartVersion and repositoryName. */
function checkHelmChart(causes: StatusCause[], chart: Obj, field: string): void {
  const url = str(chart.repositoryURL);
  if (!url.startsWith('http') && !url.startsWith('oci')) return;
  for (const key of ['chartName', 'chartVersion', 'repositoryName'])
    if (!str(chart[key]))
      required(causes, `${field}.${key}`, `must be set for an http or oci repositoryURL (${url})`);
}

function checkSelectorString(causes: StatusCause[], value: unknown, field: string): void {
  if (typeof value !== 'string' || value === '') return;
  try {
    parseLabelSelector(value);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: ${e.message}`,
      field,
    });
  }
}

function checkNameRegex(causes: StatusCause[], value: unknown, field: string): void {
  if (typeof value !== 'string' || value === '') return;
  try {
    new RegExp(value);
  } catch {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: not a regular expression`,
      field,
    });
  }
}

function checkTarget(causes: StatusCause[], target: unknown, field: string): void {
  if (!isObj(target)) return;
  checkNameRegex(causes, target.name, `${field}.name`);
  checkSelectorString(causes, target.labelSelector, `${field}.labelSelector`);
  checkSelectorString(causes, target.annotationSelector, `${field}.annotationSelector`);
}

function checkHealths(causes: StatusCause[], checks: unknown, field: string): void {
  list(checks).forEach((c, i) => {
    if (c.jobCheck !== undefined && (c.script !== undefined || c.evaluateCEL !== undefined))
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: jobCheck cannot be set together with script or evaluateCEL',
        field: `${field}[${i}].jobCheck`,
      });
  });
}

function checkAnnotationKeys(causes: StatusCause[], annotations: unknown, field: string): void {
  if (!isObj(annotations)) return;
  const probe: KubeObject = { metadata: { name: 'x', annotations: annotations as Record<string, string> } };
  for (const cause of validateObjectMeta(probe, 'path-segment', true))
    if (cause.field === 'metadata.annotations') causes.push({ ...cause, field });
}

/**
 * Everything the schema cannot say about a spec at `base` (`spec`, `spec.clusterProfileSpec`): enums,
 * the CRD's CEL rules, and the mistakes Sveltos would only report while deploying. `self` is the
 * profile's own name, which its dependsOn may not list.
 */
export function validateProfileSpec(causes: StatusCause[], sp: unknown, base: string, self?: string): void {
  if (!isObj(sp)) return;
  checkSchemaEnums(causes, ProfileSpec, sp, base);
  if (typeof sp.maxUpdate === 'number' && sp.maxUpdate < 0)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${sp.maxUpdate}: must be a number of clusters (≥ 0) or a percentage`,
      field: `${base}.maxUpdate`,
    });
  checkSelector(causes, sp.clusterSelector, `${base}.clusterSelector`);
  list(sp.clusterRefs).forEach((r, i) => checkClusterRef(causes, r, `${base}.clusterRefs[${i}]`));
  list(sp.policyRefs).forEach((r, i) => checkSource(causes, r, `${base}.policyRefs[${i}]`));
  list(sp.kustomizationRefs).forEach((r, i) => checkSource(causes, r, `${base}.kustomizationRefs[${i}]`));
  list(sp.helmCharts).forEach((c, i) => checkHelmChart(causes, c, `${base}.helmCharts[${i}]`));
  list(sp.patches).forEach((p, i) => checkTarget(causes, p.target, `${base}.patches[${i}].target`));
  list(sp.driftExclusions).forEach((d, i) =>
    checkTarget(causes, d.target, `${base}.driftExclusions[${i}].target`),
  );
  for (const key of ['validateHealths', 'preDeployChecks', 'preDeleteChecks', 'postDeleteChecks'])
    checkHealths(causes, sp[key], `${base}.${key}`);
  // A list-map keyed by identifier in the CRD: each identifier once.
  const identifiers = new Set<string>();
  list(sp.templateResourceRefs).forEach((r, i) => {
    const id = str(r.identifier);
    const field = `${base}.templateResourceRefs[${i}].identifier`;
    if (!id) required(causes, field);
    else if (identifiers.has(id))
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(id)}`,
        field,
      });
    identifiers.add(id);
  });
  validateLabels(causes, sp.extraLabels, `${base}.extraLabels`);
  checkAnnotationKeys(causes, sp.extraAnnotations, `${base}.extraAnnotations`);
  // Depending on itself, a profile would wait for itself forever.
  if (self !== undefined && Array.isArray(sp.dependsOn))
    sp.dependsOn.forEach((d, i) => {
      if (d === self)
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(d)}: a profile cannot depend on itself`,
          field: `${base}.dependsOn[${i}]`,
        });
    });
}
