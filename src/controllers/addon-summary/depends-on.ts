// Sveltos's dependsOn on the summary side: a ClusterSummary delivers nothing until, on the same cluster, the
// summary of every profile its profile depends on is Provisioned (addon-controller
// controllers/clustersummary_controller.go `areDependenciesDeployed`, with `isCluterSummaryProvisioned` of
// controllers/utils.go). A ClusterProfile depends on ClusterProfiles, a Profile on Profiles of its namespace
// (the summaries of both live in the cluster's namespace, found by label as Sveltos finds them).
//
// The gate is read from the informer cache; a dependency's summary changing whether it is Provisioned
// brings its dependents back (`dependentsOf`). While the gate is shut the summary says why in
// status.dependencies (Sveltos's own words) and in the failureMessage of each feature not yet Provisioned;
// a feature already Provisioned stays so — what it delivered is still there, as in Sveltos, which leaves
// the features alone while it waits.
import { SVELTOS_RESOURCES } from '../../addons/api.js';
import {
  LABEL_CLUSTER_NAME,
  LABEL_CLUSTER_PROFILE_NAME,
  LABEL_PROFILE_NAME,
  type ProfileKind,
} from '../../addons/selection.js';
import { jsonEqual } from '../../store/json.js';
import type { KubeObject, Store } from '../../store/types.js';
import type { CacheReader, ReconcileRequest } from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/** status.dependencies when all prerequisites are Provisioned, and when the profile lists none. */
export const ALL_DEPENDENCIES_DEPLOYED = 'All dependencies deployed';
export const NO_DEPENDENCIES = 'no dependencies';
/** failureReason of a feature waiting for a prerequisite (Sveltos leaves it unset). */
export const REASON_DEPENDENCY = 'DependencyNotDeployed';

interface FeatureEntry {
  featureID: string;
  status?: string;
  failureReason?: string;
  failureMessage?: string;
}

const featuresOf = (summary: KubeObject): FeatureEntry[] => {
  const list = asObj(summary['status'])['featureSummaries'];
  return Array.isArray(list) ? (list as FeatureEntry[]) : [];
};
const profileSpecOf = (summary: KubeObject): Obj => asObj(asObj(summary['spec'])['clusterProfileSpec']);
const clusterNameOf = (summary: KubeObject): string => {
  const name = asObj(summary['spec'])['clusterName'];
  return typeof name === 'string' ? name : '';
};

/**
 * Sveltos's `isCluterSummaryProvisioned`: every feature entry says Provisioned, and each section the spec
 * fills (helmCharts → Helm, policyRefs → Resources, kustomizationRefs → Kustomize) has its entry.
 */
export function isSummaryProvisioned(summary: KubeObject): boolean {
  const features = featuresOf(summary);
  if (features.some((f) => f.status !== 'Provisioned')) return false;
  const spec = profileSpecOf(summary);
  const needed = [
    ['helmCharts', 'Helm'],
    ['policyRefs', 'Resources'],
    ['kustomizationRefs', 'Kustomize'],
  ] as const;
  return needed.every(
    ([section, id]) => !nonEmpty(spec[section]) || features.some((f) => f.featureID === id),
  );
}

/** Which profile a summary belongs to, from its labels (Sveltos looks summaries up by label, not name). */
export function summaryProfile(summary: KubeObject): { kind: ProfileKind; name: string } | undefined {
  const labels = summary.metadata.labels ?? {};
  const clusterProfile = labels[LABEL_CLUSTER_PROFILE_NAME];
  if (clusterProfile) return { kind: 'ClusterProfile', name: clusterProfile };
  const profile = labels[LABEL_PROFILE_NAME];
  if (profile) return { kind: 'Profile', name: profile };
  return undefined;
}

/** The summary of `kind` `name` for the same cluster as `summary`, if there is one. */
function prerequisiteSummary(
  cache: CacheReader,
  summary: KubeObject,
  kind: ProfileKind,
  name: string,
): KubeObject | undefined {
  const label = kind === 'Profile' ? LABEL_PROFILE_NAME : LABEL_CLUSTER_PROFILE_NAME;
  const cluster = clusterNameOf(summary);
  return cache
    .byLabel(SVELTOS_RESOURCES.clusterSummaries, label, name, summary.metadata.namespace ?? '')
    .find((s) => clusterNameOf(s) === cluster);
}

export interface DependencyGate {
  /** Every prerequisite's summary for this cluster is Provisioned (or there are none). */
  ready: boolean;
  /** status.dependencies, in Sveltos's words. */
  message: string;
}

/** Whether `summary` may deliver: the first prerequisite that is missing or not Provisioned shuts the gate. */
export function dependencyGate(cache: CacheReader, summary: KubeObject): DependencyGate {
  const dependsOn = profileSpecOf(summary)['dependsOn'];
  if (dependsOn === undefined || dependsOn === null) return { ready: true, message: NO_DEPENDENCIES };
  const kind = summaryProfile(summary)?.kind ?? 'ClusterProfile';
  for (const name of Array.isArray(dependsOn) ? dependsOn : []) {
    if (typeof name !== 'string') continue;
    const prerequisite = prerequisiteSummary(cache, summary, kind, name);
    if (!prerequisite)
      return {
        ready: false,
        message: `${kind} ${name} is a dependency. The ClusterSummary instance for this profile/cluster was not found`,
      };
    if (!isSummaryProvisioned(prerequisite))
      return { ready: false, message: `${kind} ${name} is a dependency and it is not fully deployed yet` };
  }
  return { ready: true, message: ALL_DEPENDENCIES_DEPLOYED };
}

/** The status with the gate's message, and (gate shut) each active feature not Provisioned waiting for it. */
export function statusWithGate(status: Obj, gate: DependencyGate, active: readonly string[]): Obj {
  const next: Obj = { ...status, dependencies: gate.message };
  if (gate.ready) return next;
  const features = (
    Array.isArray(status['featureSummaries']) ? status['featureSummaries'] : []
  ) as FeatureEntry[];
  const waiting = active.filter((id) => features.find((f) => f.featureID === id)?.status !== 'Provisioned');
  if (waiting.length === 0) return next;
  const out = features.filter((f) => !waiting.includes(f.featureID));
  for (const id of waiting) {
    const previous = features.find((f) => f.featureID === id) ?? { featureID: id };
    out.push({
      ...previous,
      status: 'Provisioning',
      failureReason: REASON_DEPENDENCY,
      failureMessage: gate.message,
    });
  }
  next['featureSummaries'] = active
    .map((id) => out.find((f) => f.featureID === id))
    .filter((f): f is FeatureEntry => f !== undefined)
    .concat(out.filter((f) => !active.includes(f.featureID)));
  return next;
}

/**
 * Writes the gate into the summary's status when that changes it. Skipped when the summary changed
 * generation since `summary` was read: a newer spec brings its own reconcile. False when nothing was
 * written (`summary` is still what the store holds), true when it may have been.
 */
export async function writeDependencyStatus(
  store: Store,
  summary: KubeObject,
  gate: DependencyGate,
  active: readonly string[],
): Promise<boolean> {
  // Most reconciles change nothing here: judge on the summary just read before reading it again.
  const known = asObj(summary['status']);
  if (jsonEqual(statusWithGate(known, gate, active), known)) return false;
  await retryOnConflict(async () => {
    const fresh = await store.get(
      SVELTOS_RESOURCES.clusterSummaries,
      summary.metadata.namespace ?? '',
      summary.metadata.name ?? '',
    );
    if (!fresh || fresh.metadata.uid !== summary.metadata.uid) return;
    if (fresh.metadata.generation !== summary.metadata.generation) return;
    const status = asObj(fresh['status']);
    const next = statusWithGate(status, gate, active);
    if (jsonEqual(next, status)) return;
    await store.update(
      SVELTOS_RESOURCES.clusterSummaries,
      { ...fresh, status: next },
      { subresource: 'status' },
    );
  });
  return true;
}

/** The summaries of the same cluster whose profile depends on `summary`'s profile. */
function dependentSummaries(summary: KubeObject, cache: CacheReader): KubeObject[] {
  const profile = summaryProfile(summary);
  if (!profile) return [];
  const namespace = summary.metadata.namespace ?? '';
  const cluster = clusterNameOf(summary);
  return cache
    .byLabel(SVELTOS_RESOURCES.clusterSummaries, LABEL_CLUSTER_NAME, cluster, namespace)
    .filter((s) => {
      if (s.metadata.name === summary.metadata.name || clusterNameOf(s) !== cluster) return false;
      if (summaryProfile(s)?.kind !== profile.kind) return false;
      const dependsOn = profileSpecOf(s)['dependsOn'];
      return Array.isArray(dependsOn) && dependsOn.includes(profile.name);
    });
}

/** The summaries of the same cluster whose profile depends on `summary`'s profile (a watch's map function). */
export function dependentsOf(summary: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const namespace = summary.metadata.namespace ?? '';
  return dependentSummaries(summary, cache).map((s) => ({ namespace, name: s.metadata.name ?? '' }));
}

/**
 * Dependents still on the same cluster (Sveltos's areDependentsRemoved): a prerequisite withdraws after
 * them, so an add-on never loses what it runs on first. Deleting a prerequisite that something still
 * depends on therefore waits, saying for what, until those dependents are gone or stop depending on it.
 */
export function remainingDependents(summary: KubeObject, cache: CacheReader): KubeObject[] {
  return dependentSummaries(summary, cache);
}

/** The prerequisites' summaries on `summary`'s cluster (a watch's map function: its departure frees them). */
export function prerequisitesOf(summary: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const dependsOn = profileSpecOf(summary)['dependsOn'];
  const kind = summaryProfile(summary)?.kind ?? 'ClusterProfile';
  const namespace = summary.metadata.namespace ?? '';
  return (Array.isArray(dependsOn) ? dependsOn : []).flatMap((name) => {
    if (typeof name !== 'string') return [];
    const s = prerequisiteSummary(cache, summary, kind, name);
    return s ? [{ namespace, name: s.metadata.name ?? '' }] : [];
  });
}

/** A summary's event that can open or shut its dependents' gates: arrival, departure, Provisioned or not. */
export function provisioningChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    isSummaryProvisioned(obj) !== isSummaryProvisioned(old) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}
