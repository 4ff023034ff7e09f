// ClusterSummaries to ManifestWorks (the Resources feature): the summary's policyRefs are read (ConfigMaps,
// Secrets, remoteURLs), rendered for its cluster (templates, patches, Sveltos's stamps) and delivered as one
// ManifestWork the cluster's agent pulls; the work's conditions come back as featureSummaries.
//
// syncMode maps onto the work's switches: ContinuousWithDriftDetection keeps the agent's drift correction
// on, Continuous and OneTime turn it off, DryRun makes the work a dry run. Deleting a summary deletes its
// work (the agent withdraws what it applied), or orphans it first with stopMatchingBehavior LeavePolicies.
// Every failure — a missing ConfigMap, a fetch, a template line, the cluster's answer — lands in status.
import { CLUSTER_SUMMARY_FINALIZER, SVELTOS_RESOURCES } from '../../addons/api.js';
import {
  renderResources,
  type RenderError,
  type ResourceSource,
  type SourceRef,
} from '../../addons/content/render.js';
import type { Patch } from '../../addons/content/patches.js';
import {
  DEFAULT_TIER,
  describeConflict,
  objectKey,
  resolveOwnership,
  type Conflict,
  type ProfileRef,
} from '../../addons/ownership.js';
import type { SourceObject } from '../../addons/content/sources.js';
import type { JsonObject } from '../../apiserver/patch/json.js';
import {
  credentialsFromSecret,
  RemoteContentCache,
  isRemoteError,
  parseGoDuration,
} from '../../addons/remote/index.js';
import type { RemoteURLRef } from '../../addons/remote/index.js';
import {
  ANNOTATION_DRIFT_CORRECTION,
  ANNOTATION_DRY_RUN,
  LABEL_CLUSTER,
  LABEL_CLUSTER_SUMMARY,
  RESOURCES,
  WORK_API_VERSION,
  WORK_CLEANUP_FINALIZER,
} from '../../fleet/names.js';
import { MAX_MANIFESTWORK_BYTES } from '../../kinds/fleet/index.js';
import type { KindDefinition } from '../../kinds/types.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { stableStringify } from '../../util/json-text.js';
import { conditionsOf, findCondition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { addFinalizer, isDeleting, removeFinalizer } from '../runtime/finalizers.js';
import type {
  CacheReader,
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';
import {
  handedOver,
  holdingOf,
  manifestsOf,
  rulesForConflicts,
  siblingWorks,
  type OrphaningRule,
} from './holdings.js';

const FEATURE = 'Resources';
/** How soon a summary whose remote content could not be fetched is tried again. */
const RETRY_FAILED_MS = 30_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

interface PolicyRef {
  kind?: string;
  namespace?: string;
  name?: string;
  tier?: number;
  deploymentType?: 'Local' | 'Remote';
  optional?: boolean;
  remoteURL?: RemoteURLRef;
}

interface FeatureSummary {
  featureID: string;
  hash?: string;
  status: 'Provisioning' | 'Provisioned' | 'Failed' | 'FailedNonRetriable' | 'Removing' | 'Removed';
  failureReason?: string;
  failureMessage?: string;
  lastAppliedTime?: string;
}

export interface AddonSummaryOptions {
  store: Store;
  /** One per hub: remoteURL bodies are fetched once per interval whatever the number of clusters. */
  remote?: RemoteContentCache;
  /** The kinds the hub knows, to tell namespaced objects (which get `default`) from cluster-scoped ones. */
  kinds?: readonly KindDefinition[];
}

/** The work that carries a summary's Resources feature: same namespace, `<summary>-resources`. */
export function workNameFor(summaryName: string): string {
  return `${summaryName}-resources`;
}

function profileOwner(summary: KubeObject): { kind: string; name: string } {
  const owner =
    summary.metadata.ownerReferences?.find((r) => r.controller) ?? summary.metadata.ownerReferences?.[0];
  return { kind: owner?.kind ?? 'ClusterProfile', name: owner?.name ?? '' };
}

function describeRenderError(e: RenderError): string {
  return e.message;
}

export class AddonSummaryReconciler implements Reconciler {
  private readonly store: Store;
  private readonly remote: RemoteContentCache;
  private readonly namespaced: Map<string, boolean>;

  constructor(options: AddonSummaryOptions) {
    this.store = options.store;
    this.remote = options.remote ?? new RemoteContentCache();
    this.namespaced = new Map((options.kinds ?? []).map((k) => [`${k.group}/${k.kind}`, k.namespaced]));
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const namespace = req.namespace ?? '';
    const summary = await this.store.get(SVELTOS_RESOURCES.clusterSummaries, namespace, req.name);
    if (!summary) return {};
    const spec = asObj(summary['spec']);
    const profileSpec = asObj(spec['clusterProfileSpec']);
    const workName = workNameFor(req.name);
    const work = await this.store.get(RESOURCES.manifestWorks, namespace, workName);

    if (isDeleting(summary)) return this.withdraw(ctx.cache, summary, profileSpec, work);
    if (!summary.metadata.finalizers?.includes(CLUSTER_SUMMARY_FINALIZER))
      await this.editSummary(summary, (s) => addFinalizer(s, CLUSTER_SUMMARY_FINALIZER));

    const clusterName = str(spec['clusterName']) ?? '';
    const cluster = await this.store.get(RESOURCES.clusters, namespace, clusterName);
    if (!cluster || isDeleting(cluster))
      return this.report(summary, {
        featureID: FEATURE,
        status: 'Failed',
        failureReason: 'ClusterNotFound',
        failureMessage: `the Cluster ${namespace}/${clusterName} does not exist`,
      });
    if (asObj(cluster['spec'])['paused'] === true) return {};

    const gathered = await this.gather(profileSpec, cluster);
    if (gathered.errors.length > 0) {
      await this.report(summary, {
        featureID: FEATURE,
        status: 'Failed',
        failureReason: gathered.reason,
        failureMessage: gathered.errors.join('; '),
      });
      return gathered.retryMs ? { requeueAfterMs: gathered.retryMs } : {};
    }
    const owner = profileOwner(summary);
    const rendered = renderResources({
      sources: gathered.sources,
      patches: (Array.isArray(profileSpec['patches']) ? profileSpec['patches'] : []) as Patch[],
      cluster: cluster as unknown as JsonObject,
      owner: { kind: owner.kind, name: owner.name, tier: Number(profileSpec['tier'] ?? 100) },
      isNamespaced: (apiVersion, kind) => this.isNamespaced(apiVersion, kind),
    });
    if (rendered.errors.length > 0) {
      await this.report(summary, {
        featureID: FEATURE,
        status: 'Failed',
        failureReason: rendered.errors[0]!.code.startsWith('Template')
          ? 'TemplateInstantiationError'
          : 'InvalidContent',
        failureMessage: rendered.errors.map(describeRenderError).join('; '),
      });
      return {};
    }
    if (rendered.manifests.Local.length > 0) {
      await this.report(summary, {
        featureID: FEATURE,
        status: 'Failed',
        failureReason: 'LocalNotSupported',
        failureMessage: 'deploymentType Local is not delivered yet; nothing was applied',
      });
      return {};
    }

    const profile: ProfileRef = {
      kind: owner.kind,
      name: owner.name,
      tier: Number(profileSpec['tier'] ?? DEFAULT_TIER),
    };
    const { manifests, conflicts, rules } = this.decideOwnership(
      ctx.cache,
      summary,
      clusterName,
      profileSpec,
      profile,
      work,
      rendered.manifests.Remote,
    );
    const desired = this.desiredWork(summary, clusterName, profileSpec, manifests, rules);
    const size = Buffer.byteLength(JSON.stringify(desired));
    if (size > MAX_MANIFESTWORK_BYTES) {
      await this.report(summary, {
        featureID: FEATURE,
        status: 'Failed',
        failureReason: 'TooLarge',
        failureMessage: `the rendered content is ${size} bytes; a ManifestWork holds at most ${MAX_MANIFESTWORK_BYTES}`,
      });
      return {};
    }
    const current = await this.writeWork(work, desired);
    const feature: FeatureSummary =
      conflicts.length > 0
        ? {
            featureID: FEATURE,
            hash: hashBytes(rendered.hash),
            status: 'Failed',
            failureReason: 'Conflict',
            failureMessage: conflicts.map((c) => describeConflict(c, profile)).join('; '),
          }
        : featureFromWork(current, rendered.hash);
    await this.report(summary, feature, deployedGvks(manifests));
    return gathered.retryMs ? { requeueAfterMs: gathered.retryMs } : {};
  }

  private isNamespaced(apiVersion: string, kind: string): boolean | undefined {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    return this.namespaced.get(`${group}/${kind}`);
  }

  /** Reads every policyRef: ConfigMaps and Secrets from the store, remoteURLs through the cache. */
  private async gather(
    profileSpec: Obj,
    cluster: KubeObject,
  ): Promise<{ sources: ResourceSource[]; errors: string[]; reason?: string; retryMs?: number }> {
    const refs = (Array.isArray(profileSpec['policyRefs']) ? profileSpec['policyRefs'] : []) as PolicyRef[];
    const sources: ResourceSource[] = [];
    const errors: string[] = [];
    let reason: string | undefined;
    let retryMs: number | undefined;
    const clusterNs = cluster.metadata.namespace ?? '';
    for (const [i, ref] of refs.entries()) {
      const base = { tier: ref.tier ?? 100, deploymentType: ref.deploymentType ?? 'Remote' } as const;
      if (ref.remoteURL) {
        const sourceRef: SourceRef = { kind: 'RemoteURL', namespace: '', name: ref.remoteURL.url, ...base };
        try {
          const credentials = await this.remoteCredentials(ref.remoteURL, clusterNs);
          const content = await this.remote.get(ref.remoteURL, credentials);
          sources.push({
            ref: sourceRef,
            text: content.body,
            ...(ref.remoteURL.template ? { templated: true } : {}),
          });
          const every = parseGoDuration(
            ref.remoteURL.interval ?? '5m',
            `spec.policyRefs[${i}].remoteURL.interval`,
          );
          retryMs = Math.min(retryMs ?? every, every);
        } catch (e) {
          errors.push(`spec.policyRefs[${i}]: ${e instanceof Error ? e.message : String(e)}`);
          reason ??= isRemoteError(e) ? 'FetchFailed' : 'InvalidReference';
          retryMs = Math.min(retryMs ?? RETRY_FAILED_MS, RETRY_FAILED_MS);
        }
        continue;
      }
      const kind = ref.kind ?? '';
      const ns = ref.namespace || clusterNs;
      const name = ref.name ?? '';
      const resource =
        kind === 'Secret' ? RESOURCES.secrets : kind === 'ConfigMap' ? 'configmaps' : undefined;
      if (!resource) {
        errors.push(
          `spec.policyRefs[${i}]: kind ${kind || '(none)'} is not supported (ConfigMap, Secret or remoteURL)`,
        );
        reason ??= 'InvalidReference';
        continue;
      }
      const obj = await this.store.get(resource, ns, name);
      if (!obj) {
        if (ref.optional) continue;
        errors.push(`spec.policyRefs[${i}]: ${kind} ${ns}/${name} not found`);
        reason ??= 'ReferenceNotFound';
        continue;
      }
      sources.push({ ref: { kind, namespace: ns, name, ...base }, object: obj as unknown as SourceObject });
    }
    return { sources, errors, ...(reason ? { reason } : {}), ...(retryMs !== undefined ? { retryMs } : {}) };
  }

  private async remoteCredentials(ref: RemoteURLRef, clusterNs: string) {
    if (!ref.secretRef?.name) return undefined;
    const ns = ref.secretRef.namespace || clusterNs;
    const secret = await this.store.get(RESOURCES.secrets, ns, ref.secretRef.name);
    if (!secret) throw new Error(`remoteURL secretRef ${ns}/${ref.secretRef.name} not found`);
    return credentialsFromSecret(secret);
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
    return {
      apiVersion: WORK_API_VERSION,
      kind: 'ManifestWork',
      metadata: {
        name: workNameFor(summary.metadata.name ?? ''),
        namespace: summary.metadata.namespace ?? '',
        labels: { [LABEL_CLUSTER]: clusterName, [LABEL_CLUSTER_SUMMARY]: summary.metadata.name ?? '' },
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        finalizers: [WORK_CLEANUP_FINALIZER],
      },
      spec: {
        workload: { manifests },
        deleteOption: deleteOptionFor(leave, orphaningRules),
      },
    };
  }

  /** Creates or updates the work when what it says differs; returns what is stored. */
  private async writeWork(stored: KubeObject | undefined, desired: KubeObject): Promise<KubeObject> {
    if (!stored) {
      try {
        return await this.store.create(RESOURCES.manifestWorks, desired);
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
      stableStringify(stored['spec'] ?? null) === stableStringify(desired['spec']) &&
      stableStringify(stored.metadata.annotations ?? {}) ===
        stableStringify(desired.metadata.annotations ?? {});
    if (same) return stored;
    const next: KubeObject = {
      ...stored,
      metadata: { ...stored.metadata, labels: desired.metadata.labels },
      spec: desired['spec'],
    };
    if (desired.metadata.annotations) next.metadata.annotations = desired.metadata.annotations;
    else delete next.metadata.annotations;
    return this.store.update(RESOURCES.manifestWorks, next);
  }

  /**
   * Deleting summary: delete its work — orphaning everything with LeavePolicies, and whatever another
   * profile delivers or waits for, so ownership moves without the object going away — and go once the agent
   * let the work go. Re-evaluated while the work is deleting: a profile may claim an object meanwhile.
   */
  private async withdraw(
    cache: CacheReader,
    summary: KubeObject,
    profileSpec: Obj,
    work: KubeObject | undefined,
  ): Promise<ReconcileResult> {
    if (work) {
      const leave = leavesPolicies(profileSpec);
      const clusterName = str(asObj(summary['spec'])['clusterName']) ?? '';
      const keep = leave
        ? []
        : handedOver(
            work,
            siblingWorks(cache, work.metadata.namespace ?? '', clusterName, summary.metadata.name ?? ''),
          );
      const deleteOption = deleteOptionFor(leave, keep);
      const spec = asObj(work['spec']);
      if (stableStringify(spec['deleteOption'] ?? null) !== stableStringify(deleteOption))
        work = await this.store.update(RESOURCES.manifestWorks, { ...work, spec: { ...spec, deleteOption } });
      if (!isDeleting(work)) {
        try {
          await this.store.delete(
            RESOURCES.manifestWorks,
            work.metadata.namespace ?? '',
            work.metadata.name ?? '',
          );
        } catch (e) {
          if (!(isApiError(e) && e.code === 404)) throw e;
        }
      }
      await this.report(summary, { featureID: FEATURE, status: 'Removing' });
      return {}; // the work's deletion brings us back
    }
    await this.editSummary(summary, (s) => removeFinalizer(s, CLUSTER_SUMMARY_FINALIZER));
    return {};
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

  /** featureSummaries (and deployedGVKs) written only when they change: no status-write storms. */
  private async report(
    summary: KubeObject,
    feature: FeatureSummary,
    gvks?: string[],
  ): Promise<ReconcileResult> {
    await retryOnConflict(async () => {
      const fresh = await this.store.get(
        SVELTOS_RESOURCES.clusterSummaries,
        summary.metadata.namespace ?? '',
        summary.metadata.name ?? '',
      );
      if (!fresh || fresh.metadata.uid !== summary.metadata.uid) return;
      const status = asObj(fresh['status']);
      const features = (
        Array.isArray(status['featureSummaries']) ? status['featureSummaries'] : []
      ) as FeatureSummary[];
      const previous = features.find((f) => f.featureID === feature.featureID);
      const next: FeatureSummary = { ...feature };
      if (previous?.lastAppliedTime && !next.lastAppliedTime) next.lastAppliedTime = previous.lastAppliedTime;
      const nextStatus: Obj = {
        ...status,
        featureSummaries: [...features.filter((f) => f.featureID !== feature.featureID), next],
      };
      if (gvks)
        nextStatus['deployedGVKs'] = [{ featureID: feature.featureID, deployedGroupVersionKind: gvks }];
      if (stableStringify(nextStatus) === stableStringify(status)) return;
      await this.store.update(
        SVELTOS_RESOURCES.clusterSummaries,
        { ...fresh, status: nextStatus },
        { subresource: 'status' },
      );
    });
    return {};
  }
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
function featureFromWork(work: KubeObject, renderedHash: string): FeatureSummary {
  const hash = hashBytes(renderedHash);
  const applied = findCondition(conditionsOf(work), 'Applied');
  const current = applied && applied.observedGeneration === work.metadata.generation;
  if (current && applied.status === 'True')
    return { featureID: FEATURE, hash, status: 'Provisioned', lastAppliedTime: applied.lastTransitionTime };
  if (current && applied.status === 'False')
    return {
      featureID: FEATURE,
      hash,
      status: 'Failed',
      failureReason: applied.reason,
      failureMessage: applied.message,
    };
  return { featureID: FEATURE, hash, status: 'Provisioning' };
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

/** Summaries that read this ConfigMap or Secret through a policyRef. */
function summariesReferencing(resourceKind: 'ConfigMap') {
  return (obj: KubeObject, cache: CacheReader): ReconcileRequest[] => {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const out: ReconcileRequest[] = [];
    for (const s of cache.list(SVELTOS_RESOURCES.clusterSummaries)) {
      const sNs = s.metadata.namespace ?? '';
      const refs = asObj(asObj(s['spec'])['clusterProfileSpec'])['policyRefs'];
      if (!Array.isArray(refs)) continue;
      if (
        refs.some((r: PolicyRef) => r.kind === resourceKind && r.name === name && (r.namespace || sNs) === ns)
      )
        out.push({ namespace: sNs, name: s.metadata.name ?? '' });
    }
    return out;
  };
}

/** A Cluster change a template may read: anything but its status heartbeats. */
function clusterChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    stableStringify(obj['spec'] ?? null) !== stableStringify(old['spec'] ?? null) ||
    stableStringify(obj.metadata.labels ?? {}) !== stableStringify(old.metadata.labels ?? {}) ||
    stableStringify(obj.metadata.annotations ?? {}) !== stableStringify(old.metadata.annotations ?? {}) ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp)
  );
}

function summariesOfCluster(cluster: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const ns = cluster.metadata.namespace ?? '';
  return cache
    .list(SVELTOS_RESOURCES.clusterSummaries, ns)
    .filter((s) => asObj(s['spec'])['clusterName'] === cluster.metadata.name)
    .map((s) => ({ namespace: ns, name: s.metadata.name ?? '' }));
}

/** A work's delivered objects or deletion changed: the other summaries of its cluster decide again. */
function siblingsOfWork(work: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const ns = work.metadata.namespace ?? '';
  const cluster = work.metadata.labels?.[LABEL_CLUSTER];
  const own = work.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
  if (!cluster || !own) return [];
  return cache
    .list(SVELTOS_RESOURCES.clusterSummaries, ns)
    .filter((s) => s.metadata.name !== own && asObj(s['spec'])['clusterName'] === cluster)
    .map((s) => ({ namespace: ns, name: s.metadata.name ?? '' }));
}

function workContentChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return (
    stableStringify(obj['spec'] ?? null) !== stableStringify(old['spec'] ?? null) ||
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
  return (
    new Controller({
      ...options,
      name: 'addon-summary',
      reconciler: new AddonSummaryReconciler(options),
    })
      .for(SVELTOS_RESOURCES.clusterSummaries)
      .watches(RESOURCES.manifestWorks, summaryOfWork)
      .watches(RESOURCES.manifestWorks, siblingsOfWork, { predicate: workContentChanged })
      .watches(RESOURCES.clusters, summariesOfCluster, { predicate: clusterChanged })
      // Not Secrets: an informer would hold every tenant's Secret decrypted in memory. A change of a
      // content Secret reaches clusters with the next change of the profile or cluster (to do: a
      // type-filtered watch of addons.projectsveltos.io/cluster-profile Secrets).
      .watches('configmaps', summariesReferencing('ConfigMap'))
  );
}
