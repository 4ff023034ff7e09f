// ClusterProfile (cluster-scoped, the platform's) and Profile (namespaced, a tenant's): one spec, and for
// Profiles the tenancy Sveltos's limitReferencesToNamespace gives, enforced when the Profile is written.
import { Type } from '@sinclair/typebox';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { AGE, isObj, list, str, type Obj } from '../builtin/kube-helpers.js';
import { kindSchema } from '../meta.js';
import type { KindDefinition, PrinterColumn } from '../types.js';
import { spec } from '../fleet/common.js';
import { applySchemaDefaults } from './schema-walk.js';
import { ProfileSpec, ProfileStatus, validateProfileSpec } from './spec.js';
import { SVELTOS_API_VERSION, SVELTOS_CATEGORIES, SVELTOS_GROUP, SVELTOS_VERSION } from './names.js';

export const PROFILE_COLUMNS: PrinterColumn[] = [
  {
    name: 'SyncMode',
    type: 'string',
    jsonPath: '.spec.syncMode',
    description: 'OneTime, Continuous, ContinuousWithDriftDetection or DryRun.',
  },
  {
    name: 'Clusters',
    type: 'integer',
    jsonPath: '.status.matchingClusters',
    description: 'How many clusters the profile matches.',
    value: (o) =>
      isObj(o.status) && Array.isArray(o.status.matchingClusters) ? o.status.matchingClusters.length : 0,
  },
  {
    name: 'Tier',
    type: 'integer',
    jsonPath: '.spec.tier',
    description: 'Conflict priority; lower wins.',
    priority: 1,
  },
  AGE,
];

function profileSchema(kind: string) {
  return kindSchema(kind, SVELTOS_API_VERSION, {
    spec: Type.Optional(ProfileSpec),
    status: Type.Optional(ProfileStatus),
  });
}

const clusterProfileSchema = profileSchema('ClusterProfile');

export const ClusterProfile: KindDefinition = {
  group: SVELTOS_GROUP,
  version: SVELTOS_VERSION,
  kind: 'ClusterProfile',
  plural: 'clusterprofiles',
  singular: 'clusterprofile',
  namespaced: false,
  categories: SVELTOS_CATEGORIES,
  subresources: { status: true },
  description:
    'Add-ons for every Cluster it matches, in any namespace (Sveltos’s ClusterProfile): manifests, Helm charts and kustomizations, kept in place.',
  schema: clusterProfileSchema,
  printerColumns: PROFILE_COLUMNS,
  defaults: (obj) => applySchemaDefaults(clusterProfileSchema, obj),
  // kube-apiserver defaults a custom resource's body on every write, not only at create.
  admit(obj, { operation }) {
    if (operation === 'update') applySchemaDefaults(clusterProfileSchema, obj);
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    validateProfileSpec(causes, obj.spec, 'spec', obj.metadata.name);
    return causes;
  },
};

// ---------------------------------------------------------------------------------------------------
// Profile tenancy

/** One reference to an object on the hub, by the object holding its `namespace` and that field's path. */
interface HubReference {
  holder: Obj;
  field: string;
}

function secretRefAt(out: HubReference[], parent: unknown, key: string, field: string): void {
  if (isObj(parent) && isObj(parent[key]))
    out.push({ holder: parent[key], field: `${field}.${key}.namespace` });
}

function valuesFrom(out: HubReference[], refs: unknown, field: string): void {
  list(refs).forEach((r, i) => out.push({ holder: r, field: `${field}[${i}].namespace` }));
}

/**
 * Every place a Profile names an object on the hub: what Sveltos's limitReferencesToNamespace rewrites
 * (clusterRefs, policyRefs and their remoteURL secret, kustomizationRefs and their valuesFrom, helm
 * registry credentials) and what it leaves open, which a tenant could otherwise use to read another
 * namespace: helm valuesFrom and signature/provenance keys, patchesFrom, templateResourceRefs, the
 * kustomization remoteURL secret, and the health checks' metric-source secrets and job references.
 */
export function hubReferences(sp: Obj): HubReference[] {
  const out: HubReference[] = [];
  list(sp.clusterRefs).forEach((r, i) => out.push({ holder: r, field: `spec.clusterRefs[${i}].namespace` }));
  list(sp.policyRefs).forEach((r, i) => {
    const field = `spec.policyRefs[${i}]`;
    out.push({ holder: r, field: `${field}.namespace` });
    secretRefAt(out, r.remoteURL, 'secretRef', `${field}.remoteURL`);
  });
  list(sp.kustomizationRefs).forEach((r, i) => {
    const field = `spec.kustomizationRefs[${i}]`;
    out.push({ holder: r, field: `${field}.namespace` });
    valuesFrom(out, r.valuesFrom, `${field}.valuesFrom`);
    secretRefAt(out, r.remoteURL, 'secretRef', `${field}.remoteURL`);
  });
  list(sp.helmCharts).forEach((c, i) => {
    const field = `spec.helmCharts[${i}]`;
    valuesFrom(out, c.valuesFrom, `${field}.valuesFrom`);
    secretRefAt(out, c.registryCredentialsConfig, 'credentials', `${field}.registryCredentialsConfig`);
    secretRefAt(out, c.registryCredentialsConfig, 'ca', `${field}.registryCredentialsConfig`);
    secretRefAt(out, c.signatureVerification, 'secretRef', `${field}.signatureVerification`);
    secretRefAt(out, c.provenanceVerification, 'keyringSecretRef', `${field}.provenanceVerification`);
  });
  valuesFrom(out, sp.patchesFrom, 'spec.patchesFrom');
  list(sp.templateResourceRefs).forEach((r, i) =>
    secretRefAt(out, r, 'resource', `spec.templateResourceRefs[${i}]`),
  );
  for (const key of ['validateHealths', 'preDeployChecks', 'preDeleteChecks', 'postDeleteChecks'])
    list(sp[key]).forEach((c, i) => {
      secretRefAt(out, c.metricSource, 'secretRef', `spec.${key}[${i}].metricSource`);
      secretRefAt(out, c.jobCheck, 'jobRef', `spec.${key}[${i}].jobCheck`);
    });
  return out;
}

/**
 * Sveltos overwrites these namespaces with the Profile's own while reconciling, so a Profile naming
 * `team-b` silently reads `team-a` instead. Here, decided when the Profile is written:
 *  - an empty (or absent) namespace is set to the Profile's namespace, as Sveltos would read it, and
 *    stored so, so what `kubectl get` shows is what the controllers read;
 *  - a namespace naming another namespace is refused (422 naming the field): a tenant gets a clear
 *    error, never something other than what they wrote;
 *  - `deploymentType: Local` is refused: delivery onto the hub is for ClusterProfiles only.
 * Naming the Profile's own namespace explicitly is accepted as written.
 */
function admitProfileReferences(obj: KubeObject): void {
  const namespace = obj.metadata.namespace;
  if (!isObj(obj.spec) || !namespace) return;
  for (const { holder } of hubReferences(obj.spec))
    if (holder.namespace === undefined || holder.namespace === null || holder.namespace === '')
      holder.namespace = namespace;
}

/** `gitrepository://ns/name/path` (also ocirepository, bucket): a chart in a Flux source on the hub. */
const FLUX_SOURCE_URL = /^(gitrepository|ocirepository|bucket):\/\/([^/]*)/i;

function validateProfileTenancy(causes: StatusCause[], obj: KubeObject): void {
  const namespace = str(obj.metadata.namespace);
  const sp = spec(obj);
  for (const { holder, field } of hubReferences(sp)) {
    const named = holder.namespace;
    if (named !== undefined && named !== namespace)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(named)}: may only name the Profile's namespace ${namespace} (a Profile reaches only objects and clusters in its own namespace; leave it empty)`,
        field,
      });
  }
  // A chart from a Flux source names the source's namespace inside the URL (<kind>://<ns>/<name>/<path>):
  // a reference to the hub like the others, but with no field to fill in, so only the own namespace passes.
  list(sp.helmCharts).forEach((c, i) => {
    const url = str(c.repositoryURL);
    const source = FLUX_SOURCE_URL.exec(url);
    if (source && source[2] !== namespace)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(url)}: may only name a Flux source in the Profile's namespace ${namespace} (${source[1]}://${namespace}/<name>/<path>; a Profile reaches only objects and clusters in its own namespace)`,
        field: `spec.helmCharts[${i}].repositoryURL`,
      });
  });
  for (const key of ['policyRefs', 'kustomizationRefs'])
    list(sp[key]).forEach((r, i) => {
      if (r.deploymentType === 'Local')
        causes.push({
          reason: 'FieldValueForbidden',
          message:
            'Forbidden: Local delivery is for ClusterProfiles only; a Profile delivers into its clusters (deploymentType Remote)',
          field: `spec.${key}[${i}].deploymentType`,
        });
    });
}

const profileKindSchema = profileSchema('Profile');

export const Profile: KindDefinition = {
  group: SVELTOS_GROUP,
  version: SVELTOS_VERSION,
  kind: 'Profile',
  plural: 'profiles',
  singular: 'profile',
  namespaced: true,
  categories: SVELTOS_CATEGORIES,
  subresources: { status: true },
  description:
    'A tenant’s add-ons (Sveltos’s Profile): as a ClusterProfile, but reaching only the Clusters, ConfigMaps and Secrets of its own namespace, and never the hub itself.',
  schema: profileKindSchema,
  printerColumns: PROFILE_COLUMNS,
  defaults: (obj) => applySchemaDefaults(profileKindSchema, obj),
  admit(obj, { operation }) {
    if (operation === 'update') applySchemaDefaults(profileKindSchema, obj);
    admitProfileReferences(obj);
  },
  validate(obj) {
    const causes: StatusCause[] = [];
    validateProfileSpec(causes, obj.spec, 'spec', obj.metadata.name);
    validateProfileTenancy(causes, obj);
    return causes;
  },
};
