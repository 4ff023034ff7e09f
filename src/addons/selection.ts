// Which fleethub Clusters a ClusterProfile / Profile reaches (Sveltos's clusterSelector + clusterRefs
// semantics), and the names and labels Sveltos gives the per-(profile, cluster) ClusterSummary and ClusterReport.
import {
  labelSelectorFromObject,
  validateLabelValue,
  type LabelMatcher,
  type LabelSelectorObject,
} from '../apiserver/selectors.js';
import { FLEET_API_VERSION, FLEET_GROUP } from '../fleet/names.js';
import { nameProblem } from '../kinds/meta.js';
import type { KubeObject } from '../store/types.js';
import { isApiError } from '../util/errors.js';

export type ProfileKind = 'ClusterProfile' | 'Profile';

/** corev1.ObjectReference as found in `clusterRefs` (only these fields are read). */
export interface ClusterRefInput {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** The parts of a ClusterProfile / Profile that selection reads. */
export interface SelectingProfile {
  kind: ProfileKind;
  /** The Profile's namespace; also read from `metadata.namespace` when given a whole object. */
  namespace?: string;
  metadata?: { name?: string; namespace?: string };
  spec: {
    clusterSelector?: LabelSelectorObject | null;
    clusterRefs?: ClusterRefInput[] | null;
  };
}

/** A fleethub Cluster, as written to `status.matchingClusters`. */
export interface ClusterReference {
  apiVersion: string;
  kind: 'Cluster';
  namespace: string;
  name: string;
}

export interface MatchingCluster extends ClusterReference {
  /** spec.paused: still matched (listed in status), but the controller must not update it. */
  paused: boolean;
}

export type SelectionErrorCode =
  'InvalidClusterSelector' | 'InvalidClusterRef' | 'NameTooLong' | 'InvalidName';

/** A spec the selection cannot use, or a derived name Kubernetes would refuse; names the offending field. */
export class SelectionError extends Error {
  constructor(
    readonly code: SelectionErrorCode,
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'SelectionError';
  }
}

const CAPI_GROUP = 'cluster.x-k8s.io';
const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * The clusters `profile` matches: the union of `clusterSelector` and `clusterRefs`, sorted by
 * namespace then name, without duplicates. Clusters being deleted never match; paused ones do, flagged.
 * A Profile reaches only its own namespace. An invalid selector throws `SelectionError`; refs that
 * cannot name a fleethub Cluster are skipped (`clusterRefProblems` lists them for status).
 */
export function matchingClusters(
  profile: SelectingProfile,
  clusters: readonly KubeObject[],
): MatchingCluster[] {
  const onlyNamespace = profileNamespace(profile);
  const matcher = clusterSelectorMatcher(profile.spec.clusterSelector);
  const wanted = new Set<string>();
  for (const ref of profile.spec.clusterRefs ?? []) {
    const target = refTarget(ref, onlyNamespace);
    if (target) wanted.add(key(target.namespace, target.name));
  }

  const out = new Map<string, MatchingCluster>();
  for (const cluster of clusters) {
    if (!isFleetCluster(cluster)) continue;
    const { name, namespace, deletionTimestamp, labels } = cluster.metadata;
    if (!name || !namespace) continue;
    // A cluster on its way out gets nothing new; its summaries are withdrawn with it.
    if (deletionTimestamp) continue;
    if (onlyNamespace !== undefined && namespace !== onlyNamespace) continue;
    const k = key(namespace, name);
    if (out.has(k)) continue;
    if (!wanted.has(k) && !matcher(labels)) continue;
    const spec = cluster.spec as { paused?: unknown } | undefined;
    out.set(k, {
      apiVersion: FLEET_API_VERSION,
      kind: 'Cluster',
      namespace,
      name,
      paused: spec?.paused === true,
    });
  }
  return [...out.values()].sort((a, b) => compare(a.namespace, b.namespace) || compare(a.name, b.name));
}

/** The reference alone, for `status.matchingClusters`. */
export function clusterReference(m: ClusterReference): ClusterReference {
  return { apiVersion: m.apiVersion, kind: m.kind, namespace: m.namespace, name: m.name };
}

/**
 * A matcher for `spec.clusterSelector`. Sveltos, unlike Kubernetes, matches nothing with an empty or
 * absent selector: a profile must say where it goes. Bad operators, keys or values throw SelectionError.
 */
export function clusterSelectorMatcher(selector: LabelSelectorObject | null | undefined): LabelMatcher {
  const field = 'spec.clusterSelector';
  const labels = selector?.matchLabels ?? {};
  const expressions = selector?.matchExpressions ?? [];
  if (Object.keys(labels).length === 0 && expressions.length === 0) return () => false;
  expressions.forEach((expr, i) => {
    if (!OPERATORS.has(expr.operator))
      throw new SelectionError(
        'InvalidClusterSelector',
        `${field}.matchExpressions[${i}].operator`,
        `Unsupported value: ${JSON.stringify(expr.operator)}: supported values: "DoesNotExist", "Exists", "In", "NotIn"`,
      );
  });
  try {
    return labelSelectorFromObject(selector);
  } catch (e) {
    // The shared evaluator reports keys and values with Kubernetes' wording; we add where it was.
    if (isApiError(e)) throw new SelectionError('InvalidClusterSelector', field, e.message);
    throw e;
  }
}

/**
 * Why each `clusterRefs` entry that matchingClusters skips is skipped, as `spec.clusterRefs[i]: why`,
 * for the profile's status or admission warnings. Empty when every ref can name a fleethub Cluster.
 */
export function clusterRefProblems(profile: SelectingProfile): SelectionError[] {
  const onlyNamespace = profileNamespace(profile);
  const problems: SelectionError[] = [];
  (profile.spec.clusterRefs ?? []).forEach((ref, i) => {
    const why = refProblem(ref, onlyNamespace);
    if (why) problems.push(new SelectionError('InvalidClusterRef', `spec.clusterRefs[${i}]`, why));
  });
  return problems;
}

function refTarget(
  ref: ClusterRefInput,
  onlyNamespace: string | undefined,
): { namespace: string; name: string } | undefined {
  if (refProblem(ref, onlyNamespace)) return undefined;
  return { namespace: ref.namespace || onlyNamespace!, name: ref.name! };
}

function refProblem(ref: ClusterRefInput, onlyNamespace: string | undefined): string | undefined {
  const group = groupOf(ref.apiVersion);
  // SveltosCluster references are ignored: fleethub has no SveltosClusters (registered clusters are
  // fleethub Clusters), so such a ref can never name anything here.
  if (ref.kind === 'SveltosCluster')
    return 'kind SveltosCluster is not served here; reference the fleethub Cluster';
  if (ref.kind !== 'Cluster')
    return `kind ${JSON.stringify(ref.kind ?? '')} is not a cluster; use kind Cluster, apiVersion ${FLEET_API_VERSION}`;
  // A cluster.x-k8s.io Cluster is read as the fleethub Cluster of the same namespace/name, so profiles
  // written for CAPI keep working; other groups name nothing we have.
  if (group !== FLEET_GROUP && group !== CAPI_GROUP)
    return `apiVersion ${JSON.stringify(ref.apiVersion ?? '')} is not ${FLEET_API_VERSION} (or ${CAPI_GROUP}/*)`;
  if (!ref.name) return 'name is required';
  if (onlyNamespace !== undefined) {
    // Sveltos rewrites a Profile's ref namespaces to its own; we refuse instead of rewriting, so that a
    // ref to team-b/x never silently lands on team-a/x. An empty namespace means the Profile's own.
    if (ref.namespace && ref.namespace !== onlyNamespace)
      return `namespace ${JSON.stringify(ref.namespace)}: a Profile reaches only clusters in its own namespace ${JSON.stringify(onlyNamespace)}`;
  } else if (!ref.namespace) return 'namespace is required (clusters are namespaced)';
  return undefined;
}

/** The namespace a Profile is confined to; undefined for a ClusterProfile. */
function profileNamespace(profile: SelectingProfile): string | undefined {
  if (profile.kind !== 'Profile') return undefined;
  const ns = profile.namespace ?? profile.metadata?.namespace;
  if (!ns) throw new SelectionError('InvalidName', 'metadata.namespace', 'a Profile must have a namespace');
  return ns;
}

function isFleetCluster(obj: KubeObject): boolean {
  // Store lists may omit kind/apiVersion on items; when present they must say fleethub Cluster.
  if (obj.kind !== undefined && obj.kind !== 'Cluster') return false;
  return obj.apiVersion === undefined || groupOf(obj.apiVersion) === FLEET_GROUP;
}

function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------
// Names and labels of derived objects (AC:lib/clusterops GetClusterSummaryName, getClusterReportName).

export const LABEL_CLUSTER_PROFILE_NAME = 'projectsveltos.io/cluster-profile-name';
export const LABEL_PROFILE_NAME = 'projectsveltos.io/profile-name';
export const LABEL_CLUSTER_NAME = 'projectsveltos.io/cluster-name';
export const LABEL_CLUSTER_TYPE = 'projectsveltos.io/cluster-type';
/** fleethub Clusters take the place of CAPI clusters in Sveltos's naming. */
export const CLUSTER_TYPE = 'Capi';

const MAX_NAME = 253;

/** `<profile>-capi-<cluster>`, `p--` first for a Profile; beyond 253 characters a SelectionError. */
export function clusterSummaryName(
  profileKind: ProfileKind,
  profileName: string,
  clusterName: string,
): string {
  const prefix = profileKind === 'Profile' ? 'p--' : '';
  return checkedName(
    'ClusterSummary',
    `${prefix}${profileName}-${CLUSTER_TYPE.toLowerCase()}-${clusterName}`,
  );
}

/** `<profile>--capi--<cluster>`, `p--` first for a Profile; beyond 253 characters a SelectionError. */
export function clusterReportName(
  profileKind: ProfileKind,
  profileName: string,
  clusterName: string,
): string {
  const prefix = profileKind === 'Profile' ? 'p--' : '';
  return checkedName(
    'ClusterReport',
    `${prefix}${profileName}--${CLUSTER_TYPE.toLowerCase()}--${clusterName}`,
  );
}

/**
 * The labels by which ClusterSummaries are looked up (never by name). Label values are at most 63
 * characters: a longer profile name cannot be a label, so it is refused here rather than by the API server.
 */
export function clusterSummaryLabels(
  profileKind: ProfileKind,
  profileName: string,
  clusterName: string,
): Record<string, string> {
  const profileLabel = profileKind === 'Profile' ? LABEL_PROFILE_NAME : LABEL_CLUSTER_PROFILE_NAME;
  const labels = {
    [profileLabel]: profileName,
    [LABEL_CLUSTER_NAME]: clusterName,
    [LABEL_CLUSTER_TYPE]: CLUSTER_TYPE,
  };
  for (const [k, v] of Object.entries(labels)) {
    const errs = validateLabelValue(v);
    if (errs.length)
      throw new SelectionError(
        errs.some((e) => e.includes('63')) ? 'NameTooLong' : 'InvalidName',
        `metadata.labels[${k}]`,
        `Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`,
      );
  }
  return labels;
}

// Sveltos builds these names without a length check, and the API server then refuses the object. We
// refuse earlier with the same rule and a message that names the derived kind, rather than hashing or
// truncating: a shortened name would break `kubectl get clustersummary <profile>-capi-<cluster>`.
function checkedName(kind: string, name: string): string {
  if (name.length > MAX_NAME)
    throw new SelectionError(
      'NameTooLong',
      'metadata.name',
      `${kind} name ${JSON.stringify(name.slice(0, 40) + '…')} is ${name.length} characters; Kubernetes allows at most ${MAX_NAME} (shorten the profile or cluster name)`,
    );
  const problem = nameProblem(name, 'dns1123-subdomain');
  if (problem)
    throw new SelectionError(
      'InvalidName',
      'metadata.name',
      `${kind} name ${JSON.stringify(name)}: ${problem}`,
    );
  return name;
}
