// ClusterSummary: one per (profile, matching cluster), in the cluster's namespace, carrying a copy of the
// profile's spec and what was delivered (addon-controller api/v1beta1 clustersummary_types.go).
import { Type } from '@sinclair/typebox';
import type { StatusCause } from '../../util/errors.js';
import { refuseGenerated } from './generated.js';
import { isObj, list, str, type Obj } from '../builtin/kube-helpers.js';
import { closed, kindSchema } from '../meta.js';
import type { KindDefinition, PrinterColumn } from '../types.js';
import { checkEnum, enumString, status } from '../fleet/common.js';
import { applySchemaDefaults, checkSchemaEnums } from './schema-walk.js';
import { FEATURE_IDS, Hash, ProfileSpec, Time, validateProfileSpec } from './spec.js';
import {
  CLUSTER_TYPES,
  SVELTOS_API_VERSION,
  SVELTOS_CATEGORIES,
  SVELTOS_GROUP,
  SVELTOS_VERSION,
} from './names.js';

export const FEATURE_STATUSES = [
  'Provisioning',
  'Provisioned',
  'Failed',
  'FailedNonRetriable',
  'Removing',
  'Removed',
  'AgentRemoving',
] as const;
export const HELM_CHART_STATUSES = ['Managing', 'Conflict'] as const;

const FeatureSummary = closed({
  featureID: enumString(FEATURE_IDS, 'Resources (policyRefs), Helm (helmCharts) or Kustomize.'),
  hash: Type.Optional(Hash),
  status: Type.Optional(enumString(FEATURE_STATUSES)),
  consecutiveFailures: Type.Optional(Type.Integer({ minimum: 0 })),
  failureReason: Type.Optional(Type.String()),
  failureMessage: Type.Optional(Type.String()),
  lastAppliedTime: Type.Optional(Time),
  resourceSummaryDeployed: Type.Optional(Type.Boolean()),
  deployedGroupVersionKind: Type.Optional(
    Type.Array(Type.String(), { description: 'Deprecated: see status.deployedGVKs.' }),
  ),
});

const HelmReleaseSummary = closed({
  releaseName: Type.String({ minLength: 1 }),
  releaseNamespace: Type.String({ minLength: 1 }),
  status: enumString(HELM_CHART_STATUSES, 'Managing, or Conflict when another profile owns the release.'),
  conflictMessage: Type.Optional(Type.String()),
  failureMessage: Type.Optional(Type.String()),
  valuesHash: Type.Optional(Hash),
  patchesHash: Type.Optional(Hash),
  chartName: Type.Optional(Type.String()),
  repositoryName: Type.Optional(Type.String()),
  repoURL: Type.Optional(Type.String()),
  chartVersion: Type.Optional(Type.String()),
  credentialsSecretRef: Type.Optional(
    closed({ name: Type.Optional(Type.String()), namespace: Type.Optional(Type.String()) }),
  ),
  latestVersion: Type.Optional(Type.String()),
  latestPatchVersion: Type.Optional(Type.String()),
  lastCheckedTime: Type.Optional(Time),
  needsRedeploy: Type.Optional(Type.Boolean()),
  delivery: Type.Optional(
    Type.String({
      description:
        'fleethub: how the release reached the cluster — rendered on the hub and applied as manifests (no helm release there, hooks not run, lookup empty).',
    }),
  ),
});

const BY_FEATURE = { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['featureID'] };

const ClusterSummaryStatus = closed({
  // Keyed by featureID as in Sveltos's CRD: server-side apply merges one feature's entry at a time.
  featureSummaries: Type.Optional(Type.Array(FeatureSummary, BY_FEATURE)),
  deployedGVKs: Type.Optional(
    Type.Array(
      closed({
        featureID: enumString(FEATURE_IDS),
        deployedGroupVersionKind: Type.Optional(
          Type.Array(Type.String({ description: 'Kind.version.group, e.g. ConfigMap.v1.' })),
        ),
      }),
      BY_FEATURE,
    ),
  ),
  helmReleaseSummaries: Type.Optional(Type.Array(HelmReleaseSummary)),
  dependencies: Type.Optional(Type.String({ description: 'E.g. "All dependencies deployed".' })),
  failureMessage: Type.Optional(Type.String({ description: 'A failure not tied to one feature.' })),
  nextReconcileTime: Type.Optional(Time),
  reconciliationSuspended: Type.Optional(Type.Boolean()),
  suspensionReason: Type.Optional(Type.String()),
});

const clusterSummarySchema = kindSchema('ClusterSummary', SVELTOS_API_VERSION, {
  spec: Type.Optional(
    closed({
      clusterNamespace: Type.String(),
      clusterName: Type.String(),
      clusterType: enumString(CLUSTER_TYPES, 'Capi: a fleethub Cluster (Cluster API’s place in Sveltos).'),
      clusterProfileSpec: Type.Optional(ProfileSpec),
    }),
  ),
  status: Type.Optional(ClusterSummaryStatus),
});

/** A list-map keyed by featureID in the CRD: each feature once. */
function checkFeatureKeys(causes: StatusCause[], entries: unknown, field: string): void {
  const seen = new Set<string>();
  list(entries).forEach((e: Obj, i) => {
    const id = str(e.featureID);
    if (seen.has(id))
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(id)}`,
        field: `${field}[${i}].featureID`,
      });
    seen.add(id);
  });
}

/** `.status.featureSummaries[?(@.featureID=="Helm")].status`, as Sveltos's printer columns. */
function featureColumn(name: string, featureID: string, what: string): PrinterColumn {
  return {
    name,
    type: 'string',
    jsonPath: `.status.featureSummaries[?(@.featureID=="${featureID}")].status`,
    description: `Whether ${what} are all provisioned.`,
  };
}

export const ClusterSummary: KindDefinition = {
  // Generated by the hub's add-on controllers, which write through the store: through the API nobody —
  // tenant or admin — may write one, or a tenant could hand-craft a summary that escapes its Profile's rules.
  guard: (request) => refuseGenerated('ClusterSummary', 'clustersummaries', request),
  group: SVELTOS_GROUP,
  version: SVELTOS_VERSION,
  kind: 'ClusterSummary',
  plural: 'clustersummaries',
  singular: 'clustersummary',
  namespaced: true,
  categories: SVELTOS_CATEGORIES,
  subresources: { status: true },
  description:
    'What one profile delivers to one cluster and how far it got (Sveltos’s ClusterSummary): named <profile>-capi-<cluster>, p--<profile>-capi-<cluster> for a Profile, in the cluster’s namespace.',
  schema: clusterSummarySchema,
  // Sveltos's columns (Age first); its feature columns are priority 2, shown here by default: they are
  // the answer to "did it land", which is why one runs `kubectl get clustersummaries`.
  printerColumns: [
    {
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: 'Time duration since creation of ClusterSummary',
    },
    featureColumn('HelmCharts', 'Helm', 'HelmCharts'),
    featureColumn('KustomizeRefs', 'Kustomize', 'KustomizeRefs'),
    featureColumn('PolicyRefs', 'Resources', 'PolicyRefs'),
  ],
  defaults: (obj) => applySchemaDefaults(clusterSummarySchema, obj),
  admit(obj, { operation }) {
    if (operation === 'update') applySchemaDefaults(clusterSummarySchema, obj);
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    const sp = isObj(obj.spec) ? obj.spec : {};
    checkEnum(causes, sp.clusterType, CLUSTER_TYPES, 'spec.clusterType');
    validateProfileSpec(causes, sp.clusterProfileSpec, 'spec.clusterProfileSpec');
    const st = status(obj);
    checkSchemaEnums(causes, ClusterSummaryStatus, st, 'status');
    checkFeatureKeys(causes, st.featureSummaries, 'status.featureSummaries');
    checkFeatureKeys(causes, st.deployedGVKs, 'status.deployedGVKs');
    return causes;
  },
};
