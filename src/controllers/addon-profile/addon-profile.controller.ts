// Profiles to ClusterSummaries, as Sveltos's addon-controller does: for each ClusterProfile (and namespaced
// Profile) the fleethub Clusters it matches go to status.matchingClusters, and each gets one ClusterSummary.
//
// A ClusterSummary (in the cluster's namespace, named `<profile>-capi-<cluster>`, `p--` first for a
// Profile) carries a copy of the profile's spec; OneTime profiles never update it after creation. A cluster
// that stops matching loses its summary (whose own finalizer withdraws or leaves what was delivered). A
// deleted profile waits, under its finalizer, until all of its summaries are gone.
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
  type ProfileKind,
  type SelectingProfile,
} from '../../addons/selection.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { stableStringify } from '../../util/json-text.js';
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
import { retryOnConflict } from '../runtime/retry.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const specOf = (o: KubeObject): Obj => (isObj(o['spec']) ? o['spec'] : {});

function profileKindOf(req: ReconcileRequest): ProfileKind {
  return req.namespace ? 'Profile' : 'ClusterProfile';
}

function profileResource(kind: ProfileKind): string {
  return kind === 'Profile' ? SVELTOS_RESOURCES.profiles : SVELTOS_RESOURCES.clusterProfiles;
}

/** The ClusterSummaries a profile owns, found by label as Sveltos looks them up (never by name). */
function summariesOf(cache: CacheReader, kind: ProfileKind, profile: KubeObject): KubeObject[] {
  const label = kind === 'Profile' ? LABEL_PROFILE_NAME : LABEL_CLUSTER_PROFILE_NAME;
  const name = profile.metadata.name ?? '';
  // A Profile's summaries live in its own namespace; a ClusterProfile's in every cluster's namespace.
  const namespace = kind === 'Profile' ? (profile.metadata.namespace ?? '') : undefined;
  return cache
    .list(SVELTOS_RESOURCES.clusterSummaries, namespace)
    .filter((s) => s.metadata.labels?.[label] === name);
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
      clusterProfileSpec: structuredClone(specOf(profile)),
    },
  };
  return summary;
}

/** Whether the stored summary already says what the profile wants (spec, labels, annotations). */
function upToDate(stored: KubeObject, wanted: KubeObject): boolean {
  return (
    stableStringify(stored['spec'] ?? null) === stableStringify(wanted['spec']) &&
    stableStringify(stored.metadata.labels ?? {}) === stableStringify(wanted.metadata.labels ?? {}) &&
    stableStringify(stored.metadata.annotations ?? {}) === stableStringify(wanted.metadata.annotations ?? {})
  );
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

    const oneTime = specOf(profile)['syncMode'] === 'OneTime';
    const wantedNames = new Set<string>();
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
      const stored = owned.find((s) => `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}` === key);
      if (!stored) await this.createSummary(wanted);
      else if (!oneTime && !isDeleting(stored) && !upToDate(stored, wanted))
        await this.updateSummary(stored, wanted);
    }
    for (const s of owned) {
      const key = `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`;
      if (!wantedNames.has(key) && !isDeleting(s)) await this.deleteSummary(s);
    }

    await this.writeMatching(resource, profile, matches.map(clusterReference));
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
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        SVELTOS_RESOURCES.clusterSummaries,
        stored.metadata.namespace ?? '',
        stored.metadata.name ?? '',
      );
      if (!fresh || isDeleting(fresh)) return;
      const next: KubeObject = {
        ...fresh,
        metadata: {
          ...fresh.metadata,
          labels: { ...(fresh.metadata.labels ?? {}), ...(wanted.metadata.labels ?? {}) },
          ...(wanted.metadata.annotations ? { annotations: wanted.metadata.annotations } : {}),
        },
        spec: wanted['spec'],
      };
      if (!wanted.metadata.annotations) delete next.metadata.annotations;
      await this.store.update(SVELTOS_RESOURCES.clusterSummaries, next);
    });
  }

  private async deleteSummary(summary: KubeObject): Promise<void> {
    try {
      await this.store.delete(
        SVELTOS_RESOURCES.clusterSummaries,
        summary.metadata.namespace ?? '',
        summary.metadata.name ?? '',
      );
    } catch (e) {
      if (!(isApiError(e) && e.code === 404)) throw e;
    }
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

  /** status.matchingClusters, written only when it changed (a status write per reconcile is a storm). */
  private async writeMatching(resource: string, profile: KubeObject, matching: unknown[]): Promise<void> {
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        resource,
        profile.metadata.namespace ?? '',
        profile.metadata.name ?? '',
      );
      if (!fresh || fresh.metadata.uid !== profile.metadata.uid) return;
      const status = isObj(fresh['status']) ? fresh['status'] : {};
      if (stableStringify(status['matchingClusters'] ?? []) === stableStringify(matching)) return;
      await this.store.update(
        resource,
        { ...fresh, status: { ...status, matchingClusters: matching } },
        {
          subresource: 'status',
        },
      );
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
  return new Controller({
    ...options,
    name: 'addon-profile',
    reconciler: new AddonProfileReconciler(options.store),
  })
    .for(SVELTOS_RESOURCES.clusterProfiles)
    .for(SVELTOS_RESOURCES.profiles)
    .watches(SVELTOS_RESOURCES.clusterSummaries, summaryOwner)
    .watches(RESOURCES.clusters, profilesFor, { predicate: selectionRelevant });
}
