// Profiles to ClusterSummaries, as Sveltos's addon-controller does: for each ClusterProfile (and namespaced
// Profile) the fleethub Clusters it matches go to status.matchingClusters, and each gets one ClusterSummary.
//
// A ClusterSummary (in the cluster's namespace, named `<profile>-capi-<cluster>`, `p--` first for a
// Profile) carries a copy of the profile's spec; OneTime profiles never update it after creation. A cluster
// that stops matching loses its summary (whose own finalizer withdraws or leaves what was delivered). A
// deleted profile waits, under its finalizer, until all of its summaries are gone.
//
// maxUpdate (addon-controller controllers/profile_utils.go `updateClusterSummaries`, `getMaxUpdate`): at most
// that many summaries (a percentage: of the matching clusters, rounded up; 0 or 0% means no limit) are
// updating at once. A summary is updating while it carries the profile's current spec and is not
// Provisioned (Sveltos's `isCluterSummaryProvisioned`); a summary still carrying an older spec — or not
// created yet, Sveltos gates creation too — waits until the number updating is below the limit. Paused
// clusters are neither updated nor counted while a limit is set. So that Provisioned always refers to the
// spec a summary carries, a spec copy first turns its Provisioned features back to Provisioning (the
// summary controller drops status it computed for an older generation). While clusters wait,
// status.updatingClusters / updatedClusters list the progress under the spec's hash, as in Sveltos.
//
// dependsOn (Sveltos's --auto-deploy-dependencies, on by default): a profile also reaches every cluster
// reached by a profile of its kind (a Profile: of its namespace) that depends on it, directly or through
// others, so that the prerequisite is there to wait for.
import { createHash } from 'node:crypto';
import {
  CLUSTER_PROFILE_FINALIZER,
  PROFILE_FINALIZER,
  SVELTOS_API_VERSION,
  SVELTOS_RESOURCES,
} from '../../addons/api.js';
import {
  LABEL_CLUSTER_PROFILE_NAME,
  LABEL_PROFILE_NAME,
  SelectionError,
  clusterReference,
  clusterSummaryLabels,
  clusterSummaryName,
  matchingClusters,
  type MatchingCluster,
  type ProfileKind,
  type SelectingProfile,
} from '../../addons/selection.js';
import { RESOURCES } from '../../fleet/names.js';
import { deleteIfPresent } from '../../store/delete-if-present.js';
import type { KubeObject, Store } from '../../store/types.js';
import { forEachConcurrently } from '../../util/concurrency.js';
import { isApiError } from '../../util/errors.js';
import { jsonEqual } from '../../store/json.js';
import { stableStringify } from '../../util/json-text.js';
import { isSummaryProvisioned } from '../addon-summary/depends-on.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { addFinalizer, isDeleting, removeFinalizer } from '../runtime/finalizers.js';
import {
  TerminalError,
  type CacheReader,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  type Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict, retryOnConflictFrom } from '../runtime/retry.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (o: KubeObject): Obj => (isObj(o['spec']) ? o['spec'] : {});

function profileKindOf(req: ReconcileRequest): ProfileKind {
  return req.namespace ? 'Profile' : 'ClusterProfile';
}

function profileResource(kind: ProfileKind): string {
  return kind === 'Profile' ? SVELTOS_RESOURCES.profiles : SVELTOS_RESOURCES.clusterProfiles;
}

/**
 * Summary writes of one profile reconcile in flight at once: enough that a store committing in groups
 * writes them together, few enough that a thousand-cluster rollout leaves room for other requests.
 */
const SUMMARY_WRITES_IN_FLIGHT = 32;

/** The ClusterSummaries a profile owns, found by label as Sveltos looks them up (never by name). */
function summariesOf(cache: CacheReader, kind: ProfileKind, profile: KubeObject): KubeObject[] {
  const label = kind === 'Profile' ? LABEL_PROFILE_NAME : LABEL_CLUSTER_PROFILE_NAME;
  const name = profile.metadata.name ?? '';
  // A Profile's summaries live in its own namespace; a ClusterProfile's in every cluster's namespace.
  const namespace = kind === 'Profile' ? (profile.metadata.namespace ?? '') : undefined;
  return cache.byLabel(SVELTOS_RESOURCES.clusterSummaries, label, name, namespace);
}

/** The summary a profile wants for one cluster. */
function desiredSummary(
  kind: ProfileKind,
  profile: KubeObject,
  cluster: { namespace: string; name: string },
) {
  const profileName = profile.metadata.name ?? '';
  const annotations = { ...(profile.metadata.annotations ?? {}) };
  const summary: KubeObject = {
    apiVersion: SVELTOS_API_VERSION,
    kind: 'ClusterSummary',
    metadata: {
      name: clusterSummaryName(kind, profileName, cluster.name),
      namespace: cluster.namespace,
      labels: clusterSummaryLabels(kind, profileName, cluster.name),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [
        {
          apiVersion: SVELTOS_API_VERSION,
          kind,
          name: profileName,
          uid: profile.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      clusterNamespace: cluster.namespace,
      clusterName: cluster.name,
      clusterType: 'Capi',
      // Shared by every cluster's wanted summary: only read, and written to the store (which copies).
      clusterProfileSpec: specOf(profile),
    },
  };
  return summary;
}

/**
 * The canonical text of a profile spec, once per object: cache objects are replaced, never changed, on
 * update, and a reconcile of a 1,000-cluster profile compares every summary's copy with the profile's.
 */
const specTexts = new WeakMap<object, string>();
function profileSpecText(spec: unknown): string {
  if (!isObj(spec)) return stableStringify(spec ?? null);
  let text = specTexts.get(spec);
  if (text === undefined) specTexts.set(spec, (text = stableStringify(spec)));
  return text;
}

/** Whether the stored summary carries the spec the profile wants. */
function sameSpec(stored: KubeObject, wanted: KubeObject): boolean {
  const a = specOf(stored);
  const b = specOf(wanted);
  return (
    a['clusterName'] === b['clusterName'] &&
    a['clusterNamespace'] === b['clusterNamespace'] &&
    a['clusterType'] === b['clusterType'] &&
    Object.keys(a).length === Object.keys(b).length &&
    profileSpecText(a['clusterProfileSpec']) === profileSpecText(b['clusterProfileSpec'])
  );
}

/** Whether the stored summary already says what the profile wants (spec, labels, annotations). */
function upToDate(stored: KubeObject, wanted: KubeObject): boolean {
  return (
    sameSpec(stored, wanted) &&
    jsonEqual(stored.metadata.labels ?? {}, wanted.metadata.labels ?? {}) &&
    jsonEqual(stored.metadata.annotations ?? {}, wanted.metadata.annotations ?? {})
  );
}

/**
 * Sveltos's getMaxUpdate: a number is a number of clusters; a string (the schema allows `30%` and `30`) is
 * a percentage of the matching clusters, rounded up. 0 — also 0% or a percentage of no cluster — and
 * unset mean no limit.
 */
export function maxUpdateLimit(maxUpdate: unknown, matching: number): number {
  if (typeof maxUpdate === 'number') return Number.isInteger(maxUpdate) && maxUpdate > 0 ? maxUpdate : 0;
  if (typeof maxUpdate !== 'string') return 0;
  const m = /^(\d+)%?$/.exec(maxUpdate.trim());
  if (!m) return 0;
  return Math.ceil((Number(m[1]) * matching) / 100);
}

/** The hash of a profile's spec, base64 as Sveltos's status.updatingClusters.hash. */
export function profileSpecHash(spec: Obj): string {
  return createHash('sha256').update(stableStringify(spec)).digest('base64');
}

/** The status with each Provisioned feature back to Provisioning, or undefined when none is Provisioned. */
function provisioningAgain(status: Obj): Obj | undefined {
  const features = Array.isArray(status['featureSummaries']) ? (status['featureSummaries'] as Obj[]) : [];
  if (!features.some((f) => f['status'] === 'Provisioned')) return undefined;
  return {
    ...status,
    featureSummaries: features.map((f) =>
      f['status'] === 'Provisioned' ? { ...f, status: 'Provisioning' } : f,
    ),
  };
}

/** Profiles of the same kind (a Profile: same namespace) listing `name` in dependsOn, directly or not. */
function dependentsOf(cache: CacheReader, kind: ProfileKind, namespace: string, name: string): KubeObject[] {
  const all =
    kind === 'Profile'
      ? cache.list(SVELTOS_RESOURCES.profiles, namespace)
      : cache.list(SVELTOS_RESOURCES.clusterProfiles);
  const found = new Map<string, KubeObject>();
  const queue = [name];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const p of all) {
      const pName = p.metadata.name ?? '';
      if (pName === name || found.has(pName) || isDeleting(p)) continue;
      const dependsOn = specOf(p)['dependsOn'];
      if (Array.isArray(dependsOn) && dependsOn.includes(next)) {
        found.set(pName, p);
        queue.push(pName);
      }
    }
  }
  return [...found.values()];
}

/** A profile's prerequisites, directly or through others: the profiles that must reach its clusters. */
function prerequisitesOf(cache: CacheReader, kind: ProfileKind, profile: KubeObject): ReconcileRequest[] {
  const namespace = kind === 'Profile' ? (profile.metadata.namespace ?? '') : undefined;
  const byName = new Map(
    (kind === 'Profile'
      ? cache.list(SVELTOS_RESOURCES.profiles, namespace)
      : cache.list(SVELTOS_RESOURCES.clusterProfiles)
    ).map((p) => [p.metadata.name ?? '', p]),
  );
  const found = new Set<string>();
  const queue = [profile];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const dependsOn = specOf(next)['dependsOn'];
    for (const name of Array.isArray(dependsOn) ? dependsOn : []) {
      if (typeof name !== 'string' || found.has(name)) continue;
      found.add(name);
      const prerequisite = byName.get(name);
      if (prerequisite) queue.push(prerequisite);
    }
  }
  return [...found].map((name) => (namespace !== undefined ? { namespace, name } : { name }));
}

const clusterKey = (c: { namespace: string; name: string }) => `${c.namespace}/${c.name}`;

/** A summary the profile has to create or give its new spec, when the limit allows. */
interface Pending {
  cluster: MatchingCluster;
  wanted: KubeObject;
  stored?: KubeObject;
}

export class AddonProfileReconciler implements Reconciler {
  constructor(private readonly store: Store) {}

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const kind = profileKindOf(req);
    const resource = profileResource(kind);
    const namespace = req.namespace ?? '';
    const profile = await this.store.get(resource, namespace, req.name);
    if (!profile) return {};
    const finalizer = kind === 'Profile' ? PROFILE_FINALIZER : CLUSTER_PROFILE_FINALIZER;
    const owned = summariesOf(ctx.cache, kind, profile);

    if (isDeleting(profile)) {
      for (const s of owned) if (!isDeleting(s)) await this.deleteSummary(s);
      // The summaries' own finalizers withdraw what was delivered; the profile goes after the last one.
      if (owned.length > 0) return {};
      await this.editProfile(resource, profile, (p) => removeFinalizer(p, finalizer));
      return {};
    }
    if (!profile.metadata.finalizers?.includes(finalizer))
      await this.editProfile(resource, profile, (p) => addFinalizer(p, finalizer));

    const clusters =
      kind === 'Profile' ? ctx.cache.list(RESOURCES.clusters, namespace) : ctx.cache.list(RESOURCES.clusters);
    let matches;
    try {
      matches = matchingClusters(
        { kind, metadata: profile.metadata, spec: specOf(profile) } as SelectingProfile,
        clusters,
      );
    } catch (e) {
      // Admission validates selectors; one that slipped through cannot be fixed by retrying.
      if (e instanceof SelectionError) throw new TerminalError(e.message);
      throw e;
    }
    matches = withDependentsClusters(ctx.cache, kind, profile, clusters, matches);

    const spec = specOf(profile);
    const oneTime = spec['syncMode'] === 'OneTime';
    const limit = maxUpdateLimit(spec['maxUpdate'], matches.length);
    const wantedNames = new Set<string>();
    const ownedByKey = new Map(
      owned.map((s) => [`${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`, s]),
    );
    const pending: Pending[] = [];
    /** Summary writes, decided first and then run together (a profile change rewrites every summary). */
    const writes: (() => Promise<void>)[] = [];
    const updating: MatchingCluster[] = [];
    const updated: MatchingCluster[] = [];
    for (const cluster of matches) {
      let wanted: KubeObject;
      try {
        wanted = desiredSummary(kind, profile, cluster);
      } catch (e) {
        if (e instanceof SelectionError) {
          ctx.logger.error({ cluster: cluster.name, err: e.message }, 'cannot name the ClusterSummary');
          continue;
        }
        throw e;
      }
      const key = `${cluster.namespace}/${wanted.metadata.name ?? ''}`;
      wantedNames.add(key);
      const stored = ownedByKey.get(key);
      if (stored && isDeleting(stored)) continue;
      // With a limit, paused clusters are left alone and not counted (Sveltos: "Ignore this cluster").
      if (limit > 0 && cluster.paused) continue;
      if (!stored || (!oneTime && !sameSpec(stored, wanted))) {
        pending.push({ cluster, wanted, ...(stored ? { stored } : {}) });
        continue;
      }
      if (!oneTime && !upToDate(stored, wanted)) writes.push(() => this.updateSummary(stored, wanted));
      if (sameSpec(stored, wanted)) (isSummaryProvisioned(stored) ? updated : updating).push(cluster);
    }
    const held: MatchingCluster[] = [];
    for (const { cluster, wanted, stored } of pending) {
      if (limit > 0 && updating.length >= limit) {
        held.push(cluster);
        continue;
      }
      writes.push(stored ? () => this.updateSummary(stored, wanted) : () => this.createSummary(wanted));
      updating.push(cluster);
    }
    for (const s of owned) {
      const key = `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`;
      if (!wantedNames.has(key) && !isDeleting(s)) writes.push(() => this.deleteSummary(s));
    }
    await forEachConcurrently(writes, SUMMARY_WRITES_IN_FLIGHT, (write) => write());

    // Sveltos lists the rollout's progress while clusters wait for their turn, and clears it after.
    const hash = profileSpecHash(spec);
    const progress =
      held.length > 0
        ? {
            updatingClusters: { hash, clusters: updating.map(clusterReference) },
            updatedClusters: { hash, clusters: updated.map(clusterReference) },
          }
        : {};
    if (held.length > 0)
      ctx.logger.debug({ updating: updating.length, waiting: held.length, maxUpdate: limit }, 'rolling out');
    await this.writeStatus(resource, profile, matches.map(clusterReference), progress);
    return {};
  }

  private async createSummary(summary: KubeObject): Promise<void> {
    try {
      await this.store.create(SVELTOS_RESOURCES.clusterSummaries, summary);
    } catch (e) {
      // Already there (the cache was behind): the summary's event brings the profile back to compare.
      if (!(isApiError(e) && e.code === 409)) throw e;
    }
  }

  private async updateSummary(stored: KubeObject, wanted: KubeObject): Promise<void> {
    // The cached summary first; a Conflict (the cache was behind) reads it from the store again.
    const key = { namespace: stored.metadata.namespace ?? '', name: stored.metadata.name ?? '' };
    await retryOnConflictFrom(this.store, SVELTOS_RESOURCES.clusterSummaries, key, stored, async (fresh) => {
      if (!fresh || isDeleting(fresh)) return;
      // A new spec: Provisioned said so of the old one. The spec and the status set back to Provisioning
      // land in one write, so no status of the old spec can be read with the new spec.
      const reset =
        !sameSpec(fresh, wanted) && isObj(fresh['status']) ? provisioningAgain(fresh['status']) : undefined;
      const next: KubeObject = {
        ...fresh,
        metadata: {
          ...fresh.metadata,
          labels: { ...(fresh.metadata.labels ?? {}), ...(wanted.metadata.labels ?? {}) },
          ...(wanted.metadata.annotations ? { annotations: wanted.metadata.annotations } : {}),
        },
        spec: wanted['spec'],
        ...(reset ? { status: reset } : {}),
      };
      if (!wanted.metadata.annotations) delete next.metadata.annotations;
      await this.store.update(SVELTOS_RESOURCES.clusterSummaries, next);
    });
  }

  private async deleteSummary(summary: KubeObject): Promise<void> {
    const { namespace, name } = summary.metadata;
    await deleteIfPresent(this.store, SVELTOS_RESOURCES.clusterSummaries, namespace ?? '', name ?? '');
  }

  private async editProfile(
    resource: string,
    profile: KubeObject,
    edit: (p: KubeObject) => boolean,
  ): Promise<void> {
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        resource,
        profile.metadata.namespace ?? '',
        profile.metadata.name ?? '',
      );
      if (!fresh || fresh.metadata.uid !== profile.metadata.uid) return;
      const next = structuredClone(fresh);
      if (edit(next)) await this.store.update(resource, next);
    });
  }

  /**
   * status.matchingClusters and the rollout's updatingClusters / updatedClusters (absent when no cluster
   * waits), written only when they changed (a status write per reconcile is a storm).
   */
  private async writeStatus(
    resource: string,
    profile: KubeObject,
    matching: unknown[],
    progress: Obj,
  ): Promise<void> {
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        resource,
        profile.metadata.namespace ?? '',
        profile.metadata.name ?? '',
      );
      if (!fresh || fresh.metadata.uid !== profile.metadata.uid) return;
      const status = isObj(fresh['status']) ? fresh['status'] : {};
      const next: Obj = { ...status, matchingClusters: matching, ...progress };
      if (!('updatingClusters' in progress)) delete next['updatingClusters'];
      if (!('updatedClusters' in progress)) delete next['updatedClusters'];
      // Structural: a 1,000-entry matchingClusters is not turned into text twice per reconcile.
      if (jsonEqual(next, { matchingClusters: [], ...status })) return;
      await this.store.update(resource, { ...fresh, status: next }, { subresource: 'status' });
    });
  }
}

/** A Cluster's change that can change which profiles match it: labels, deletion, pausing, arrival. */
function selectionRelevant(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    stableStringify(obj.metadata.labels ?? {}) !== stableStringify(old.metadata.labels ?? {}) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp) ||
    specOf(obj)['paused'] !== specOf(old)['paused']
  );
}

/** Every profile that may select `cluster`: all ClusterProfiles, and the Profiles of its namespace. */
function profilesFor(cluster: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const namespace = cluster.metadata.namespace ?? '';
  return [
    ...cache.list(SVELTOS_RESOURCES.clusterProfiles).map((p) => ({ name: p.metadata.name ?? '' })),
    ...cache
      .list(SVELTOS_RESOURCES.profiles, namespace)
      .map((p) => ({ namespace, name: p.metadata.name ?? '' })),
  ];
}

/**
 * `matches` and the clusters of every profile depending on `profile` (Sveltos's auto-deploy of
 * prerequisites), sorted as matchingClusters sorts them.
 */
function withDependentsClusters(
  cache: CacheReader,
  kind: ProfileKind,
  profile: KubeObject,
  clusters: KubeObject[],
  matches: MatchingCluster[],
): MatchingCluster[] {
  const namespace = profile.metadata.namespace ?? '';
  const dependents = dependentsOf(cache, kind, namespace, profile.metadata.name ?? '');
  if (dependents.length === 0) return matches;
  const all = new Map(matches.map((m) => [clusterKey(m), m]));
  for (const dependent of dependents) {
    try {
      const reached = matchingClusters(
        { kind, metadata: dependent.metadata, spec: specOf(dependent) } as SelectingProfile,
        clusters,
      );
      for (const m of reached) if (!all.has(clusterKey(m))) all.set(clusterKey(m), m);
    } catch (e) {
      // The dependent's own reconcile reports its bad selector.
      if (!(e instanceof SelectionError)) throw e;
    }
  }
  return [...all.values()].sort((a, b) =>
    a.namespace === b.namespace ? compareText(a.name, b.name) : compareText(a.namespace, b.namespace),
  );
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A profile change that can change which clusters its prerequisites reach. */
function dependencyRelevant(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    stableStringify(obj['spec'] ?? null) !== stableStringify(old['spec'] ?? null) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}

function summaryRelevant(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp) ||
    obj.metadata.generation !== old.metadata.generation ||
    !jsonEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {}) ||
    // Only a rollout with a limit waits for summaries to be Provisioned.
    (hasMaxUpdate(obj) && isSummaryProvisioned(obj) !== isSummaryProvisioned(old))
  );
}

function hasMaxUpdate(summary: KubeObject): boolean {
  const profileSpec = specOf(summary)['clusterProfileSpec'];
  return isObj(profileSpec) && maxUpdateLimit(profileSpec['maxUpdate'], 1) > 0;
}

/** The profile a ClusterSummary belongs to (from its labels). */
function summaryOwner(summary: KubeObject): ReconcileRequest[] {
  const labels = summary.metadata.labels ?? {};
  const clusterProfile = labels[LABEL_CLUSTER_PROFILE_NAME];
  if (clusterProfile) return [{ name: clusterProfile }];
  const profile = labels[LABEL_PROFILE_NAME];
  if (profile) return [{ namespace: summary.metadata.namespace ?? '', name: profile }];
  return [];
}

export type AddonProfileControllerOptions = Omit<ControllerOptions, 'name' | 'reconciler'> & { store: Store };

export function addonProfileController(options: AddonProfileControllerOptions): Controller {
  return (
    new Controller({
      ...options,
      name: 'addon-profile',
      reconciler: new AddonProfileReconciler(options.store),
    })
      .for(SVELTOS_RESOURCES.clusterProfiles)
      .for(SVELTOS_RESOURCES.profiles)
      .watches(SVELTOS_RESOURCES.clusterProfiles, (p, cache) => prerequisitesOf(cache, 'ClusterProfile', p), {
        predicate: dependencyRelevant,
      })
      .watches(SVELTOS_RESOURCES.profiles, (p, cache) => prerequisitesOf(cache, 'Profile', p), {
        predicate: dependencyRelevant,
      })
      // Summaries coming, going, relabelled, and Provisioned or no longer (a place for maxUpdate) — not every
      // status write: each would re-run a reconcile that reads all of the profile's summaries.
      .watches(SVELTOS_RESOURCES.clusterSummaries, summaryOwner, { predicate: summaryRelevant })
      .watches(RESOURCES.clusters, profilesFor, { predicate: selectionRelevant })
  );
}
