// ClusterSummaries to ManifestWorks: each feature of the summary's profile spec — Resources (policyRefs:
// ConfigMaps, Secrets, remoteURLs) and Helm (helmCharts rendered on the hub) — is rendered for its cluster
// and delivered as one ManifestWork the cluster's agent pulls; the works' conditions come back as
// featureSummaries, with deployedGVKs and helmReleaseSummaries.
//
// syncMode maps onto the work's switches: ContinuousWithDriftDetection keeps the agent's drift correction
// on, Continuous and OneTime turn it off, DryRun makes the work a dry run. One owner per object per cluster
// (tiers): what another profile owns is left out and named in status. Deleting a summary deletes its works
// (the agent withdraws what it applied), or orphans them first with stopMatchingBehavior LeavePolicies.
// Every failure — a missing ConfigMap, a fetch, a template line, the cluster's answer — lands in status.
import { CLUSTER_SUMMARY_FINALIZER, SVELTOS_RESOURCES } from '../../addons/api.js';
import { LABEL_CLUSTER_NAME } from '../../addons/selection.js';
import { CLUSTER_PROFILE_SECRET_TYPE } from '../../addons/content/sources.js';
import { HelmFeatureRenderer, type HelmReleaseSummary } from '../../addons/helm/index.js';
import {
  DEFAULT_TIER,
  describeConflict,
  guessResource,
  objectKey,
  resolveOwnership,
  type Conflict,
  type ProfileRef,
} from '../../addons/ownership.js';
import { RemoteContentCache } from '../../addons/remote/index.js';
import type { JsonObject } from '../../apiserver/patch/json.js';
import {
  ANNOTATION_DRIFT_CORRECTION,
  ANNOTATION_DRY_RUN,
  LABEL_CLUSTER,
  LABEL_CLUSTER_SUMMARY,
  LABEL_LOCAL,
  RESOURCES,
  WORK_API_VERSION,
  WORK_CLEANUP_FINALIZER,
} from '../../fleet/names.js';
import { MAX_MANIFESTWORK_BYTES } from '../../kinds/fleet/index.js';
import type { KindDefinition } from '../../kinds/types.js';
import { deleteIfPresent } from '../../store/delete-if-present.js';
import type { KubeObject, Store } from '../../store/types.js';
import { jsonEqual } from '../../store/json.js';
import { isApiError } from '../../util/errors.js';
import { stableStringify } from '../../util/json-text.js';
import { conditionsOf, findCondition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { addFinalizer, isDeleting, removeFinalizer } from '../runtime/finalizers.js';
import { fieldEquals } from '../runtime/informer.js';
import type {
  CacheReader,
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { isConflict, retryOnConflict, retryOnConflictFrom } from '../runtime/retry.js';
import { manifestConfigsFor, type DriftExclusion } from './drift-exclusions.js';
import type { FeatureContent, FeatureID } from './feature.js';
import { HelmFeature, withholdConflictingReleases } from './helm-feature.js';
import {
  handedOver,
  holdingOf,
  manifestsOf,
  rulesForConflicts,
  rulesForShared,
  siblingWorks,
  type OrphaningRule,
} from './holdings.js';
import { ResourcesFeature } from './resources-feature.js';
import {
  dependencyGate,
  dependentsOf,
  remainingDependents,
  prerequisitesOf,
  provisioningChanged,
  writeDependencyStatus,
} from './depends-on.js';

/** In the order they are delivered and reported. */
const FEATURES: readonly FeatureID[] = ['Resources', 'Helm'];
/** The works of a summary: one per feature, and one for the Resources feature's Local content. */
type WorkSlot = FeatureID | 'Local';
const WORK_SLOTS: readonly WorkSlot[] = [...FEATURES, 'Local'];
/** Which feature of its summary a work carries. */
export const LABEL_FEATURE = 'fleethub.io/feature';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

interface FeatureSummary {
  featureID: string;
  hash?: string;
  status: 'Provisioning' | 'Provisioned' | 'Failed' | 'FailedNonRetriable' | 'Removing' | 'Removed';
  failureReason?: string;
  failureMessage?: string;
  lastAppliedTime?: string;
}

/** What one reconcile found for a feature: its status entry (with GVKs and releases), or that it is gone. */
type FeatureOutcome =
  { feature: FeatureSummary; gvks?: string[]; releases?: HelmReleaseSummary[] } | { removed: FeatureID };

export interface AddonSummaryOptions {
  store: Store;
  /** One per hub: remoteURL bodies are fetched once per interval whatever the number of clusters. */
  remote?: RemoteContentCache;
  /** One per hub: charts fetched once per version, renders cached by their inputs. */
  helm?: HelmFeatureRenderer;
  /** The kinds the hub knows, to tell namespaced objects (which get `default`) from cluster-scoped ones. */
  kinds?: readonly KindDefinition[];
}

/** The work that carries one feature of a summary: same namespace, `<summary>-resources` / `-helm`. */
export function workNameFor(summaryName: string, slot: WorkSlot = 'Resources'): string {
  return `${summaryName}-${slot.toLowerCase()}`;
}

/** The Resources outcome with its Local part: a failure or wait on the hub shows over the cluster's success. */
function withLocal(outcome: FeatureOutcome, local: FeatureSummary | undefined): FeatureOutcome {
  if (!local || 'removed' in outcome) return outcome;
  const remote = outcome.feature;
  if (remote.status === 'Failed' || remote.status === 'FailedNonRetriable') return outcome;
  if (local.status === 'Failed' || (local.status === 'Provisioning' && remote.status === 'Provisioned'))
    return { ...outcome, feature: { ...local, hash: remote.hash } };
  return outcome;
}

/** A feature is delivered while its section of the spec says something (Sveltos skips empty ones). */
function featureActive(featureID: FeatureID, profileSpec: Obj): boolean {
  const section = profileSpec[featureID === 'Resources' ? 'policyRefs' : 'helmCharts'];
  return Array.isArray(section) && section.length > 0;
}

function profileOwner(summary: KubeObject): { kind: string; name: string } {
  const owner =
    summary.metadata.ownerReferences?.find((r) => r.controller) ?? summary.metadata.ownerReferences?.[0];
  return { kind: owner?.kind ?? 'ClusterProfile', name: owner?.name ?? '' };
}

export class AddonSummaryReconciler implements Reconciler {
  private readonly store: Store;
  private readonly namespaced: Map<string, boolean>;
  private readonly plurals: Map<string, string>;
  private readonly features: Record<FeatureID, ResourcesFeature | HelmFeature>;
  /**
   * The resourceVersion of each work (by namespace/name) this reconciler wrote last, until the informer
   * delivers that version: the reconcile that wrote it already reported on it, so its event needs no
   * reconcile of its own; and until then the cache is older than the store for that work.
   */
  private readonly ownWrites = new Map<string, string>();
  /**
   * Works being written right now, with the version the write starts from. A store that publishes a
   * write before returning it (SQLite does, synchronously) delivers the write's own event while it is
   * here: the first event of that work newer than the base is this write's (or one that makes it fail
   * with a Conflict, after which the write is read again and retried under a marker of its own).
   */
  private readonly writing = new Map<string, { baseRv: number; seen: boolean }>();

  constructor(options: AddonSummaryOptions) {
    this.store = options.store;
    this.namespaced = new Map((options.kinds ?? []).map((k) => [`${k.group}/${k.kind}`, k.namespaced]));
    this.plurals = new Map((options.kinds ?? []).map((k) => [`${k.group}/${k.kind}`, k.plural]));
    const isNamespaced = (apiVersion: string, kind: string) => this.isNamespaced(apiVersion, kind);
    this.features = {
      Resources: new ResourcesFeature(this.store, options.remote ?? new RemoteContentCache(), isNamespaced),
      Helm: new HelmFeature(this.store, options.helm ?? new HelmFeatureRenderer(), isNamespaced),
    };
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const namespace = req.namespace ?? '';
    // From the cache (frozen, never edited here): its writes carry its resourceVersion, so a cache that
    // is behind costs a Conflict and a read, never a lost update.
    const summary = ctx.cache.get(SVELTOS_RESOURCES.clusterSummaries, namespace, req.name);
    if (!summary) return {};
    const spec = asObj(summary['spec']);
    const profileSpec = asObj(spec['clusterProfileSpec']);
    const works = await this.worksOf(ctx.cache, summary);

    if (isDeleting(summary)) return this.withdraw(ctx.cache, summary, profileSpec, works);
    const addsFinalizer = !summary.metadata.finalizers?.includes(CLUSTER_SUMMARY_FINALIZER);
    if (addsFinalizer) await this.editSummary(summary, (s) => addFinalizer(s, CLUSTER_SUMMARY_FINALIZER));

    const active = FEATURES.filter((f) => featureActive(f, profileSpec));
    const clusterName = str(spec['clusterName']) ?? '';
    const cluster = ctx.cache.get(RESOURCES.clusters, namespace, clusterName);
    if (!cluster || isDeleting(cluster))
      return this.report(
        summary,
        active.map((featureID) => ({
          feature: {
            featureID,
            status: 'Failed',
            failureReason: 'ClusterNotFound',
            failureMessage: `the Cluster ${namespace}/${clusterName} does not exist`,
          },
        })),
      );
    if (asObj(cluster['spec'])['paused'] === true) return {};
    // dependsOn: nothing is delivered before every prerequisite is Provisioned on this cluster.
    const gate = dependencyGate(ctx.cache, summary);
    const gateWritten = await writeDependencyStatus(this.store, summary, gate, active);
    if (!gate.ready) return {};

    const owner = profileOwner(summary);
    const profile: ProfileRef = { ...owner, tier: Number(profileSpec['tier'] ?? DEFAULT_TIER) };
    const outcomes: FeatureOutcome[] = [];
    let retryMs: number | undefined;
    for (const featureID of FEATURES) {
      const work = works[featureID];
      if (!active.includes(featureID)) {
        // The section is gone from the profile: withdraw what it delivered, then forget the feature.
        if (work) await this.withdrawWork(ctx.cache, summary, profileSpec, work);
        outcomes.push(work ? { feature: { featureID, status: 'Removing' } } : { removed: featureID });
        continue;
      }
      const content = await this.features[featureID].render({
        summary,
        cluster,
        profileSpec,
        owner: profile,
        cache: ctx.cache,
      });
      if (content.retryMs !== undefined) retryMs = Math.min(retryMs ?? content.retryMs, content.retryMs);
      const outcome = withAgentState(
        await this.deliver(ctx.cache, summary, featureID, profileSpec, profile, work, content),
        cluster,
      );
      const local = content.failure
        ? undefined
        : await this.deliverLocal(ctx.cache, summary, profileSpec, works.Local, content);
      outcomes.push(withLocal(outcome, local));
    }
    if (!active.includes('Resources') && works.Local)
      await this.withdrawWork(ctx.cache, summary, profileSpec, works.Local);
    // The summary read above is still the latest known unless this reconcile wrote it (a conflict re-reads).
    await this.report(summary, outcomes, addsFinalizer || gateWritten ? undefined : summary);
    return retryMs !== undefined ? { requeueAfterMs: retryMs } : {};
  }

  /**
   * The summary's works from the informer cache (at least as new as the event that brought us here; a
   * stale one fails its write with a Conflict and is read again), or from the store while the cache has
   * not yet seen this reconciler's own last write of it.
   */
  private async worksOf(
    cache: CacheReader,
    summary: KubeObject,
  ): Promise<Partial<Record<WorkSlot, KubeObject>>> {
    const out: Partial<Record<WorkSlot, KubeObject>> = {};
    const namespace = summary.metadata.namespace ?? '';
    for (const featureID of WORK_SLOTS) {
      const name = workNameFor(summary.metadata.name ?? '', featureID);
      const work = this.ownWrites.has(`${namespace}/${name}`)
        ? await this.store.get(RESOURCES.manifestWorks, namespace, name)
        : cache.get(RESOURCES.manifestWorks, namespace, name);
      if (work) out[featureID] = work;
    }
    return out;
  }

  /** Whether a work event is of this reconciler's own last write (seen once: the entry is dropped). */
  ownWriteSeen(work: KubeObject): boolean {
    const key = `${work.metadata.namespace ?? ''}/${work.metadata.name ?? ''}`;
    const inFlight = this.writing.get(key);
    if (inFlight && !inFlight.seen && Number(work.metadata.resourceVersion) > inFlight.baseRv) {
      inFlight.seen = true;
      return true;
    }
    const rv = this.ownWrites.get(key);
    if (rv === undefined) return false;
    // Ours or a later version (or a deletion): the cache has caught up with our write either way.
    this.ownWrites.delete(key);
    return rv === work.metadata.resourceVersion;
  }

  /** Runs one write of a work, and notes its version unless its event already reached the cache. */
  private async ownWrite(
    target: KubeObject,
    write: (work: KubeObject) => Promise<KubeObject>,
  ): Promise<KubeObject> {
    const key = `${target.metadata.namespace ?? ''}/${target.metadata.name ?? ''}`;
    const marker = { baseRv: Number(target.metadata.resourceVersion ?? 0), seen: false };
    this.writing.set(key, marker);
    let work: KubeObject;
    try {
      work = await write(target);
    } finally {
      if (this.writing.get(key) === marker) this.writing.delete(key);
    }
    if (!marker.seen && work.metadata.resourceVersion) this.ownWrites.set(key, work.metadata.resourceVersion);
    else this.ownWrites.delete(key);
    return work;
  }

  /** The resource (plural) of an object's kind: the hub's own name for it, else Kubernetes' guess. */
  private resourceOf(obj: JsonObject): string {
    const apiVersion = String(obj['apiVersion'] ?? '');
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const kind = String(obj['kind'] ?? '');
    return this.plurals.get(`${group}/${kind}`) ?? guessResource(kind);
  }

  private isNamespaced(apiVersion: string, kind: string): boolean | undefined {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return this.namespaced.get(`${group}/${kind}`);
  }

  /**
   * deploymentType Local: a ClusterProfile's content for the hub itself, in a work the hub applies to its
   * own API (controllers/addon-local) — so only kinds the hub serves, with admission and audit. Undefined
   * when there is none and never was.
   */
  private async deliverLocal(
    cache: CacheReader,
    summary: KubeObject,
    profileSpec: Obj,
    work: KubeObject | undefined,
    content: FeatureContent,
  ): Promise<FeatureSummary | undefined> {
    const featureID: FeatureID = 'Resources';
    if (content.local.length === 0) {
      if (work && !isDeleting(work)) await this.withdrawWork(cache, summary, profileSpec, work);
      return undefined;
    }
    if (profileOwner(summary).kind !== 'ClusterProfile')
      return {
        featureID,
        status: 'Failed',
        failureReason: 'LocalNotAllowed',
        failureMessage: 'deploymentType Local is for ClusterProfiles only; nothing was applied',
      };
    const desired = this.desiredWork(summary, 'Local', '', profileSpec, content.local, []);
    const current = await this.writeWork(work, desired);
    const feature = featureFromWork(current, featureID, content.hash);
    return feature.failureMessage
      ? { ...feature, failureMessage: `on the hub: ${feature.failureMessage}` }
      : feature;
  }

  /** A rendered feature through ownership into its work, and the status that follows. */
  private async deliver(
    cache: CacheReader,
    summary: KubeObject,
    featureID: FeatureID,
    profileSpec: Obj,
    profile: ProfileRef,
    work: KubeObject | undefined,
    content: FeatureContent,
  ): Promise<FeatureOutcome> {
    const releases = content.releases;
    if (content.failure)
      return {
        feature: {
          featureID,
          status: 'Failed',
          failureReason: content.failure.reason,
          failureMessage: content.failure.message,
        },
        ...(releases ? { releases } : {}),
      };
    const clusterName = str(asObj(summary['spec'])['clusterName']) ?? '';
    const decided = this.decideOwnership(
      cache,
      summary,
      clusterName,
      profileSpec,
      profile,
      work,
      content.manifests,
    );
    let manifests = decided.manifests;
    let delivered = releases;
    if (releases && decided.conflicts.length > 0) {
      const held = withholdConflictingReleases(
        manifests,
        content.manifests,
        decided.conflicts,
        releases,
        profile,
      );
      manifests = held.manifests;
      delivered = held.releases;
    }
    const rules = [...decided.rules, ...rulesForShared(manifests)];
    const desired = this.desiredWork(summary, featureID, clusterName, profileSpec, manifests, rules);
    const size = Buffer.byteLength(JSON.stringify(desired));
    if (size > MAX_MANIFESTWORK_BYTES)
      return {
        feature: {
          featureID,
          status: 'Failed',
          failureReason: 'TooLarge',
          failureMessage: `the rendered content is ${size} bytes; a ManifestWork holds at most ${MAX_MANIFESTWORK_BYTES}`,
        },
        ...(releases ? { releases } : {}),
      };
    const current = await this.writeWork(work, desired);
    const feature: FeatureSummary =
      decided.conflicts.length > 0
        ? {
            featureID,
            hash: hashBytes(content.hash),
            status: 'Failed',
            failureReason: 'Conflict',
            failureMessage: decided.conflicts.map((c) => describeConflict(c, profile)).join('; '),
          }
        : featureFromWork(current, featureID, content.hash);
    return { feature, gvks: deployedGvks(manifests), ...(delivered ? { releases: delivered } : {}) };
  }

  /**
   * One owner per object per cluster (see addons/ownership.ts). Objects another profile keeps are left out
   * and become orphaning rules; with continueOnConflict false nothing new is delivered while a conflict lasts.
   * Dry runs claim nothing: they only report what would happen.
   */
  private decideOwnership(
    cache: CacheReader,
    summary: KubeObject,
    clusterName: string,
    profileSpec: Obj,
    profile: ProfileRef,
    work: KubeObject | undefined,
    desired: JsonObject[],
  ): { manifests: JsonObject[]; conflicts: Conflict[]; rules: OrphaningRule[] } {
    if (profileSpec['syncMode'] === 'DryRun') return { manifests: desired, conflicts: [], rules: [] };
    const summaryName = summary.metadata.name ?? '';
    const siblings = siblingWorks(cache, summary.metadata.namespace ?? '', clusterName, summaryName);
    const input = {
      self: { summary: summaryName, since: work?.metadata.creationTimestamp ?? '', profile },
      holding: new Set(manifestsOf(work).map(objectKey)),
      others: siblings.map(holdingOf),
    };
    const decided = resolveOwnership({ ...input, desired });
    if (decided.conflicts.length === 0) return { manifests: decided.owned, conflicts: [], rules: [] };
    const manifests =
      profileSpec['continueOnConflict'] === true
        ? decided.owned
        : resolveOwnership({ ...input, desired: manifestsOf(work) }).owned;
    return { manifests, conflicts: decided.conflicts, rules: rulesForConflicts(decided.conflicts, siblings) };
  }

  private desiredWork(
    summary: KubeObject,
    slot: WorkSlot,
    clusterName: string,
    profileSpec: Obj,
    manifests: JsonObject[],
    orphaningRules: OrphaningRule[],
  ): KubeObject {
    const syncMode = str(profileSpec['syncMode']) ?? 'Continuous';
    const annotations: Record<string, string> = {};
    if (syncMode !== 'ContinuousWithDriftDetection') annotations[ANNOTATION_DRIFT_CORRECTION] = 'false';
    if (syncMode === 'DryRun') annotations[ANNOTATION_DRY_RUN] = 'true';
    const leave = leavesPolicies(profileSpec);
    const exclusions = Array.isArray(profileSpec['driftExclusions']) ? profileSpec['driftExclusions'] : [];
    const configs = manifestConfigsFor(exclusions as DriftExclusion[], manifests, (m) => this.resourceOf(m));
    return {
      apiVersion: WORK_API_VERSION,
      kind: 'ManifestWork',
      metadata: {
        name: workNameFor(summary.metadata.name ?? '', slot),
        namespace: summary.metadata.namespace ?? '',
        // A local work has no cluster: no agent picks it up; the hub applies it to itself.
        labels:
          slot === 'Local'
            ? {
                [LABEL_LOCAL]: 'true',
                [LABEL_CLUSTER_SUMMARY]: summary.metadata.name ?? '',
                [LABEL_FEATURE]: 'Resources',
              }
            : {
                [LABEL_CLUSTER]: clusterName,
                [LABEL_CLUSTER_SUMMARY]: summary.metadata.name ?? '',
                [LABEL_FEATURE]: slot,
              },
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        finalizers: [WORK_CLEANUP_FINALIZER],
      },
      spec: {
        workload: { manifests },
        deleteOption: deleteOptionFor(leave, orphaningRules),
        ...(configs.length > 0 ? { manifestConfigs: configs } : {}),
      },
    };
  }

  /**
   * Creates or updates the work when what it says differs; returns what is stored. `stored` may come from
   * the cache: when it was stale the update is a Conflict, and the work is compared again as stored.
   */
  private async writeWork(stored: KubeObject | undefined, desired: KubeObject): Promise<KubeObject> {
    try {
      return await this.putWork(stored, desired);
    } catch (e) {
      if (!stored || !isConflict(e)) throw e;
      const fresh = await this.store.get(
        RESOURCES.manifestWorks,
        desired.metadata.namespace ?? '',
        desired.metadata.name ?? '',
      );
      return this.putWork(fresh, desired);
    }
  }

  private async putWork(stored: KubeObject | undefined, desired: KubeObject): Promise<KubeObject> {
    if (!stored) {
      try {
        return await this.ownWrite(desired, (w) => this.store.create(RESOURCES.manifestWorks, w));
      } catch (e) {
        if (!(isApiError(e) && e.code === 409)) throw e;
        stored = await this.store.get(
          RESOURCES.manifestWorks,
          desired.metadata.namespace ?? '',
          desired.metadata.name ?? '',
        );
        if (!stored) throw e;
      }
    }
    const same =
      jsonEqual(stored['spec'] ?? null, desired['spec']) &&
      jsonEqual(stored.metadata.annotations ?? {}, desired.metadata.annotations ?? {});
    if (same) return stored;
    const next: KubeObject = {
      ...stored,
      metadata: { ...stored.metadata, labels: desired.metadata.labels },
      spec: desired['spec'],
    };
    if (desired.metadata.annotations) next.metadata.annotations = desired.metadata.annotations;
    else delete next.metadata.annotations;
    return this.ownWrite(next, (w) => this.store.update(RESOURCES.manifestWorks, w));
  }

  /** Deleting summary: every feature's work withdrawn; the summary goes once the agent let them go. */
  private async withdraw(
    cache: CacheReader,
    summary: KubeObject,
    profileSpec: Obj,
    works: Partial<Record<WorkSlot, KubeObject>>,
  ): Promise<ReconcileResult> {
    const remaining = WORK_SLOTS.filter((f) => works[f]);
    const dependents = remainingDependents(summary, cache);
    if (remaining.length > 0 && dependents.length > 0) {
      const names = dependents.map((d) => d.metadata.name ?? '').join(', ');
      await this.report(
        summary,
        FEATURES.filter((f) => works[f] || (f === 'Resources' && works.Local)).map((featureID) => ({
          feature: {
            featureID,
            status: 'Removing',
            failureMessage: `waiting for ${names}, which depend on this profile, to be removed first`,
          },
        })),
      );
      return {}; // their departure brings us back
    }
    if (remaining.length === 0) {
      await this.editSummary(summary, (s) => removeFinalizer(s, CLUSTER_SUMMARY_FINALIZER));
      return {};
    }
    for (const featureID of remaining)
      await this.withdrawWork(cache, summary, profileSpec, works[featureID]!);
    const removing = FEATURES.filter((f) => works[f] || (f === 'Resources' && works.Local));
    await this.report(
      summary,
      removing.map((featureID) => ({ feature: { featureID, status: 'Removing' } })),
    );
    return {}; // the works' deletion brings us back
  }

  /**
   * Deletes a work — orphaning everything with LeavePolicies, and whatever another profile delivers or
   * waits for, so ownership moves without the object going away. Re-evaluated while the work is deleting:
   * a profile may claim an object meanwhile.
   */
  private async withdrawWork(
    cache: CacheReader,
    summary: KubeObject,
    profileSpec: Obj,
    work: KubeObject,
  ): Promise<void> {
    const leave = leavesPolicies(profileSpec);
    const clusterName = str(asObj(summary['spec'])['clusterName']) ?? '';
    // A local work's objects are the hub's: kept while another summary's local work still delivers them
    // (a ClusterProfile's Local content goes to the hub once per matching cluster, often the same objects).
    const local = work.metadata.labels?.[LABEL_LOCAL] === 'true';
    const siblings = local
      ? cache
          .byLabel(RESOURCES.manifestWorks, LABEL_LOCAL, 'true')
          .filter((w) => w.metadata.uid !== work.metadata.uid && !isDeleting(w))
      : siblingWorks(cache, work.metadata.namespace ?? '', clusterName, summary.metadata.name ?? '');
    const keep = leave ? [] : handedOver(work, siblings);
    const deleteOption = deleteOptionFor(leave, keep);
    const spec = asObj(work['spec']);
    if (stableStringify(spec['deleteOption'] ?? null) !== stableStringify(deleteOption))
      work = await this.store.update(RESOURCES.manifestWorks, { ...work, spec: { ...spec, deleteOption } });
    if (isDeleting(work)) return;
    await deleteIfPresent(
      this.store,
      RESOURCES.manifestWorks,
      work.metadata.namespace ?? '',
      work.metadata.name ?? '',
    );
  }

  private async editSummary(summary: KubeObject, edit: (s: KubeObject) => boolean): Promise<void> {
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        SVELTOS_RESOURCES.clusterSummaries,
        summary.metadata.namespace ?? '',
        summary.metadata.name ?? '',
      );
      if (!fresh || fresh.metadata.uid !== summary.metadata.uid) return;
      const next = structuredClone(fresh);
      if (edit(next)) await this.store.update(SVELTOS_RESOURCES.clusterSummaries, next);
    });
  }

  /**
   * featureSummaries, deployedGVKs and helmReleaseSummaries from this reconcile's outcomes, written only
   * when they change: no status-write storms.
   */
  private async report(
    summary: KubeObject,
    outcomes: FeatureOutcome[],
    stored?: KubeObject,
  ): Promise<ReconcileResult> {
    // `stored`: the summary as last known (the cache's copy this reconcile began from) — the first try
    // writes over its version without a read; a Conflict means it changed meanwhile, and retries read it.
    const key = { namespace: summary.metadata.namespace ?? '', name: summary.metadata.name ?? '' };
    await retryOnConflictFrom(this.store, SVELTOS_RESOURCES.clusterSummaries, key, stored, async (fresh) => {
      if (!fresh || fresh.metadata.uid !== summary.metadata.uid) return;
      // Computed for an older spec: the new one's reconcile reports (Provisioned means "of this spec").
      if (fresh.metadata.generation !== summary.metadata.generation) return;
      const status = asObj(fresh['status']);
      const nextStatus = statusWith(status, outcomes);
      if (jsonEqual(nextStatus, status)) return;
      await this.store.update(
        SVELTOS_RESOURCES.clusterSummaries,
        { ...fresh, status: nextStatus },
        { subresource: 'status' },
      );
    });
    return {};
  }
}

/** The summary's status with each outcome's feature entry (and its GVKs and releases) put in or taken out. */
function statusWith(status: Obj, outcomes: FeatureOutcome[]): Obj {
  let features = (
    Array.isArray(status['featureSummaries']) ? status['featureSummaries'] : []
  ) as FeatureSummary[];
  let gvks = (Array.isArray(status['deployedGVKs']) ? status['deployedGVKs'] : []) as {
    featureID: string;
    deployedGroupVersionKind: string[];
  }[];
  let releases = status['helmReleaseSummaries'] as HelmReleaseSummary[] | undefined;
  for (const outcome of outcomes) {
    const featureID = 'removed' in outcome ? outcome.removed : outcome.feature.featureID;
    const previous = features.find((f) => f.featureID === featureID);
    features = features.filter((f) => f.featureID !== featureID);
    if ('removed' in outcome) {
      gvks = gvks.filter((g) => g.featureID !== featureID);
      if (featureID === 'Helm') releases = undefined;
      continue;
    }
    const next: FeatureSummary = { ...outcome.feature };
    if (previous?.lastAppliedTime && !next.lastAppliedTime) next.lastAppliedTime = previous.lastAppliedTime;
    features.push(next);
    if (outcome.gvks) {
      gvks = gvks.filter((g) => g.featureID !== featureID);
      gvks.push({ featureID, deployedGroupVersionKind: outcome.gvks });
    }
    if (outcome.releases) releases = outcome.releases;
  }
  features.sort(
    (a, b) => FEATURES.indexOf(a.featureID as FeatureID) - FEATURES.indexOf(b.featureID as FeatureID),
  );
  gvks.sort(
    (a, b) => FEATURES.indexOf(a.featureID as FeatureID) - FEATURES.indexOf(b.featureID as FeatureID),
  );
  const next: Obj = { ...status, featureSummaries: features };
  if (gvks.length > 0) next['deployedGVKs'] = gvks;
  else delete next['deployedGVKs'];
  if (releases && releases.length > 0) next['helmReleaseSummaries'] = releases;
  else delete next['helmReleaseSummaries'];
  return next;
}

function leavesPolicies(profileSpec: Obj): boolean {
  return profileSpec['stopMatchingBehavior'] === 'LeavePolicies';
}

/** Orphan all (LeavePolicies), the objects other profiles keep (SelectivelyOrphan), or nothing. */
function deleteOptionFor(leave: boolean, rules: OrphaningRule[]): Obj {
  if (leave) return { propagationPolicy: 'Orphan' };
  if (rules.length === 0) return { propagationPolicy: 'Foreground' };
  return { propagationPolicy: 'SelectivelyOrphan', selectivelyOrphans: { orphaningRules: rules } };
}

/** Sveltos keeps feature hashes as bytes (base64 in JSON): the digest of `sha256:<hex>`. */
function hashBytes(hash: string): string {
  return Buffer.from(hash.replace(/^sha256:/, ''), 'hex').toString('base64');
}

/** Provisioned once the agent applied the work's current generation; its failure, verbatim, otherwise. */
function featureFromWork(work: KubeObject, featureID: FeatureID, renderedHash: string): FeatureSummary {
  const hash = hashBytes(renderedHash);
  const applied = findCondition(conditionsOf(work), 'Applied');
  const current = applied && applied.observedGeneration === work.metadata.generation;
  if (current && applied.status === 'True')
    return { featureID, hash, status: 'Provisioned', lastAppliedTime: applied.lastTransitionTime };
  if (current && applied.status === 'False')
    return {
      featureID,
      hash,
      status: 'Failed',
      failureReason: applied.reason,
      failureMessage: applied.message,
    };
  return { featureID, hash, status: 'Provisioning' };
}

/**
 * A feature still waiting for the cluster's agent says when that agent is not there to apply it (its Lease
 * expired: the Cluster's Available is not True), and why — not an endless, silent Provisioning.
 */
function withAgentState(outcome: FeatureOutcome, cluster: KubeObject): FeatureOutcome {
  if ('removed' in outcome || outcome.feature.status !== 'Provisioning' || outcome.feature.failureReason)
    return outcome;
  const available = findCondition(conditionsOf(cluster), 'Available');
  if (available?.status === 'True') return outcome;
  const name = `${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`;
  const why = available
    ? `Available is ${available.status}${available.reason ? ` (${available.reason}${available.message ? `: ${available.message}` : ''})` : ''}`
    : 'it has not joined yet';
  return {
    ...outcome,
    feature: {
      ...outcome.feature,
      failureReason: 'AgentUnreachable',
      failureMessage: `waiting for the agent of Cluster ${name}: ${why}; delivery resumes when it is back`,
    },
  };
}

/** Sveltos's `Kind.version.group` form of what the feature delivers (sorted, distinct). */
function deployedGvks(manifests: JsonObject[]): string[] {
  const out = new Set<string>();
  for (const m of manifests) {
    const apiVersion = String(m['apiVersion'] ?? '');
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    out.add(`${String(m['kind'] ?? '')}.${version}.${group}`);
  }
  return [...out].sort();
}

/**
 * The only Secrets content can come from (`type=addons.projectsveltos.io/cluster-profile`): the
 * controller's informer of Secrets holds these and no other.
 */
export const CONTENT_SECRETS = fieldEquals('type', CLUSTER_PROFILE_SECRET_TYPE);

/** Summaries that read this ConfigMap or Secret through a policyRef. */
function summariesReferencing(resourceKind: 'ConfigMap' | 'Secret') {
  return (obj: KubeObject, cache: CacheReader): ReconcileRequest[] => {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const out: ReconcileRequest[] = [];
    for (const s of cache.list(SVELTOS_RESOURCES.clusterSummaries)) {
      const sNs = s.metadata.namespace ?? '';
      const refs = asObj(asObj(s['spec'])['clusterProfileSpec'])['policyRefs'];
      if (!Array.isArray(refs)) continue;
      if (
        refs.some(
          (r: { kind?: string; name?: string; namespace?: string }) =>
            r.kind === resourceKind && r.name === name && (r.namespace || sNs) === ns,
        )
      )
        out.push({ namespace: sNs, name: s.metadata.name ?? '' });
    }
    return out;
  };
}

/** Version and API versions from the agent's facts: what charts render against. */
const capabilitiesOf = (c: KubeObject) => {
  const status = asObj(c['status']);
  return stableStringify([
    status['kubernetesVersion'] ?? null,
    asObj(status['capabilities'])['apiVersions'] ?? null,
  ]);
};

/** A Cluster change a template or chart may read: anything but its status heartbeats. */
function clusterChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    capabilitiesOf(obj) !== capabilitiesOf(old) ||
    findCondition(conditionsOf(obj), 'Available')?.status !==
      findCondition(conditionsOf(old), 'Available')?.status ||
    !jsonEqual(obj['spec'] ?? null, old['spec'] ?? null) ||
    !jsonEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {}) ||
    !jsonEqual(obj.metadata.annotations ?? {}, old.metadata.annotations ?? {}) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}

/** The summaries of one cluster, through the label index (not a scan of the namespace's summaries). */
function summariesOn(cache: CacheReader, namespace: string, cluster: string): KubeObject[] {
  return cache
    .byLabel(SVELTOS_RESOURCES.clusterSummaries, LABEL_CLUSTER_NAME, cluster, namespace)
    .filter((s) => asObj(s['spec'])['clusterName'] === cluster);
}

function summariesOfCluster(cluster: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const ns = cluster.metadata.namespace ?? '';
  return summariesOn(cache, ns, cluster.metadata.name ?? '').map((s) => ({
    namespace: ns,
    name: s.metadata.name ?? '',
  }));
}

/** A summary's spec (its generation), deletion, finalizers or labels changed: not a status write. */
function summaryChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    obj.metadata.generation !== old.metadata.generation ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp) ||
    !jsonEqual(obj.metadata.finalizers ?? [], old.metadata.finalizers ?? []) ||
    !jsonEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {})
  );
}

/** A work's delivered objects or deletion changed: the other summaries of its cluster decide again. */
function siblingsOfWork(work: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const ns = work.metadata.namespace ?? '';
  const cluster = work.metadata.labels?.[LABEL_CLUSTER];
  const own = work.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
  if (!cluster || !own) return [];
  return summariesOn(cache, ns, cluster)
    .filter((s) => s.metadata.name !== own)
    .map((s) => ({ namespace: ns, name: s.metadata.name ?? '' }));
}

function workContentChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    !jsonEqual(obj['spec'] ?? null, old['spec'] ?? null) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}

function summaryOfWork(work: KubeObject): ReconcileRequest[] {
  const name = work.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
  return name ? [{ namespace: work.metadata.namespace ?? '', name }] : [];
}

export type AddonSummaryControllerOptions = Omit<ControllerOptions, 'name' | 'reconciler'> &
  AddonSummaryOptions;

export function addonSummaryController(options: AddonSummaryControllerOptions): Controller {
  const reconciler = new AddonSummaryReconciler(options);
  return (
    new Controller({ ...options, name: 'addon-summary', reconciler })
      // Not its own status writes: each would render the summary again for nothing (Sveltos's storms).
      .for(SVELTOS_RESOURCES.clusterSummaries, { predicate: summaryChanged })
      .watches(SVELTOS_RESOURCES.clusterSummaries, dependentsOf, { predicate: provisioningChanged })
      // A dependent's arrival, departure or new spec (old and new are both mapped): a prerequisite
      // withdrawing after it may go on.
      .watches(SVELTOS_RESOURCES.clusterSummaries, prerequisitesOf, {
        predicate: (obj, old) => !old || obj.metadata.generation !== old.metadata.generation,
      })
      // Not the events of its own work writes: the reconcile that wrote one already reported on it.
      .watches(RESOURCES.manifestWorks, summaryOfWork, { predicate: (obj) => !reconciler.ownWriteSeen(obj) })
      .watches(RESOURCES.manifestWorks, siblingsOfWork, { predicate: workContentChanged })
      .watches(RESOURCES.clusters, summariesOfCluster, { predicate: clusterChanged })
      .watches('configmaps', summariesReferencing('ConfigMap'))
      // Only content Secrets: an informer of all Secrets would hold every tenant's Secret decrypted in
      // memory. Others (a remoteURL's credentials among them) are read when a summary is reconciled.
      .watches(RESOURCES.secrets, summariesReferencing('Secret'), { filter: CONTENT_SECRETS })
  );
}
