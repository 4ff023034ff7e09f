// Applies local ManifestWorks (fleethub.io/local) to the hub itself: a ClusterProfile's deploymentType Local
// content, applied through the hub's own API as its agent would apply a work to a cluster.
//
// Through the API — not the store — so admission, validation, RBAC and audit apply as for any client, and
// so only kinds the hub serves can be delivered (the hub's discovery decides). The apply, pruning, deletion
// and status are the agent's own (agent/work/applier.ts); what this controller adds is who may deliver
// (only a summary a ClusterProfile controls: Profiles are tenants'), where the applied record is kept
// (record.ts), and drift correction by polling, since the hub has no agent watching what it applied.
import { SVELTOS_GROUP, SVELTOS_RESOURCES } from '../../addons/api.js';
import { COND_APPLIED } from '../../agent/work/conditions.js';
import { isDrift, driftCorrectionEnabled } from '../../agent/work/drift.js';
import {
  applyWork,
  deleteWork,
  isDryRun,
  refreshStatus,
  type ApplyOutcome,
} from '../../agent/work/applier.js';
import type {
  AppliedRecord,
  DeleteOption,
  ManifestWork,
  ManifestWorkStatus,
} from '../../agent/work/types.js';
import {
  LABEL_CLUSTER,
  LABEL_CLUSTER_SUMMARY,
  LABEL_LOCAL,
  RESOURCES,
  WORK_CLEANUP_FINALIZER,
} from '../../fleet/names.js';
import { KubeApiError, type KubeClientApi, type ResourceRef } from '../../kube/types.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { jsonEqual } from '../../store/json.js';
import { stableStringify } from '../../util/json-text.js';
import { findCondition, setCondition, type Condition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { addFinalizer, hasFinalizer, isDeleting, removeFinalizer } from '../runtime/finalizers.js';
import { fieldEquals } from '../runtime/informer.js';
import { controllerReferenceOf, groupOf } from '../runtime/owners.js';
import type {
  CacheReader,
  ReconcileContext,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';
import { LOCAL_RECORD_TYPE, LocalRecordStore, workOfRecord, type LocalRecord } from './record.js';

/** The Applied reason of a local work the hub refuses to apply (and of the summary's feature). */
export const REASON_LOCAL_NOT_ALLOWED = 'LocalNotAllowed';
/** The Applied reason of a manifest whose kind the hub does not serve. */
export const REASON_KIND_NOT_SERVED = 'KindNotServedByHub';
/** How often applied works are checked for drift and their status refreshed; default. */
const DEFAULT_RESYNC_MS = 30_000;
/** How long one reconcile waits for deleted objects to go before it retries later. */
const DELETE_WAIT_MS = 10_000;

/** Applying or cleaning up a local work did not finish; the status says which manifests and why. */
export class LocalWorkIncompleteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalWorkIncompleteError';
  }
}

/** A work this controller applies: labelled local and naming no cluster (a cluster's works are its agent's). */
export function isHubLocalWork(obj: KubeObject): boolean {
  const labels = obj.metadata.labels ?? {};
  return labels[LABEL_LOCAL] !== undefined && labels[LABEL_CLUSTER] === undefined;
}

/** The message of a manifest whose kind the hub does not serve. */
export function notServedMessage(apiVersion: string, kind: string): string {
  return `the hub does not serve ${apiVersion} ${kind} (deploymentType Local delivers only kinds the hub serves)`;
}

export interface AddonLocalOptions {
  store: Store;
  /** The hub's own API as its admin (`admin.kubeconfig`): every object is applied through it. */
  client: KubeClientApi;
  /** Drift check and status refresh interval of an applied work; default 30 s. */
  resyncMs?: number;
}

export class AddonLocalReconciler implements Reconciler {
  private readonly store: Store;
  private readonly client: KubeClientApi;
  private readonly records: LocalRecordStore;
  private readonly resyncMs: number;

  constructor(options: AddonLocalOptions) {
    this.store = options.store;
    this.client = options.client;
    this.records = new LocalRecordStore(options.store);
    this.resyncMs = options.resyncMs ?? DEFAULT_RESYNC_MS;
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const namespace = req.namespace ?? '';
    const stored = await this.store.get(RESOURCES.manifestWorks, namespace, req.name);
    const known = await this.records.load(namespace, req.name);
    if (!stored || !isHubLocalWork(stored)) {
      // Gone without our cleanup (its finalizer removed in the store): as the agent does for works deleted
      // while it was away, withdraw what the record holds with the deleteOption of the last apply.
      if (known) await this.cleanUp(ctx, namespace, req.name, known, known.deleteOption);
      return {};
    }
    const work = stored as unknown as ManifestWork;

    if (isDeleting(stored)) {
      if (!hasFinalizer(stored, WORK_CLEANUP_FINALIZER)) return {};
      // The deleting work's own deleteOption (it may orphan what another profile takes over); a dry run
      // changed nothing, so its going changes nothing either.
      const option: DeleteOption | undefined = isDryRun(work)
        ? { propagationPolicy: 'Orphan' }
        : work.spec.deleteOption;
      if (known) await this.cleanUp(ctx, namespace, req.name, known, option);
      await this.editWork(stored, (w) => removeFinalizer(w, WORK_CLEANUP_FINALIZER));
      return {};
    }

    const refusal = await this.refusal(stored);
    if (refusal) {
      ctx.logger.info({ reason: refusal }, 'local work refused; nothing applied');
      await this.writeStatus(work, refusedStatus(work, refusal));
      return {};
    }

    // The hub adds the finalizer at creation; a work without it would not wait for its cleanup.
    const current = await this.editWork(stored, (w) => addFinalizer(w, WORK_CLEANUP_FINALIZER));
    if (!current) return {}; // gone meanwhile: its delete event brings us back
    const latest = current as unknown as ManifestWork;
    if (this.settled(latest, known) && !(await this.drifted(latest, known.record))) {
      await this.writeStatus(latest, await refreshStatus(this.client, latest));
      return { requeueAfterMs: this.resyncMs };
    }
    return this.apply(ctx, latest, known);
  }

  /** Applies the work in full, keeps the record (before the status: it is what pruning needs), writes status. */
  private async apply(
    ctx: ReconcileContext,
    work: ManifestWork,
    known: LocalRecord | undefined,
  ): Promise<ReconcileResult> {
    const namespace = work.metadata.namespace ?? '';
    const name = work.metadata.name ?? '';
    const outcome = await applyWork(this.client, work, known?.record);
    await this.explainUnserved(work, outcome);
    const failed = outcome.manifests.filter((m) => m.action === 'failed');
    const complete = failed.length === 0 && outcome.pruneErrors.length === 0;
    if (!outcome.dryRun) {
      const next: LocalRecord = { record: outcome.record };
      if (work.spec.deleteOption) next.deleteOption = work.spec.deleteOption;
      // Only a full success settles the generation; anything less is applied again (with backoff).
      if (complete && work.metadata.generation !== undefined) next.generation = work.metadata.generation;
      await this.records.save(namespace, name, next, known);
    }
    await this.writeStatus(work, outcome.status);
    ctx.logger.info(
      {
        generation: work.metadata.generation,
        dryRun: outcome.dryRun || undefined,
        failed: failed.length,
        pruned: outcome.pruned.length,
      },
      'local work applied to the hub',
    );
    if (!complete)
      throw new LocalWorkIncompleteError(
        `local work ${namespace}/${name}: ${failed.length} manifest(s) failed${failed[0]?.error ? `, first: ${failed[0].error}` : ''}${outcome.pruneErrors.length > 0 ? `; ${outcome.pruneErrors.length} prune(s) failed` : ''}`,
      );
    return { requeueAfterMs: this.resyncMs };
  }

  /** Deletes what the record holds (except what `option` orphans), then forgets the record. */
  private async cleanUp(
    ctx: ReconcileContext,
    namespace: string,
    name: string,
    known: LocalRecord,
    option: DeleteOption | undefined,
  ): Promise<void> {
    const out = await deleteWork(this.client, known.record, option, { timeoutMs: DELETE_WAIT_MS });
    if (out.errors.length > 0 || out.remaining.length > 0)
      throw new LocalWorkIncompleteError(
        `cleanup of local work ${namespace}/${name} incomplete: ${out.errors.map((e) => e.error).join('; ') || `${out.remaining.length} object(s) still deleting`}`,
      );
    await this.records.forget(namespace, name);
    ctx.logger.info(
      { deleted: out.deleted.length, orphaned: out.orphaned.length },
      'local work removed from the hub',
    );
  }

  /**
   * Why the hub will not apply this work, or undefined when it may: only content of a ClusterSummary that a
   * ClusterProfile controls reaches the hub (read from the store, not a cache: this is an authorization).
   */
  private async refusal(work: KubeObject): Promise<string | undefined> {
    const namespace = work.metadata.namespace ?? '';
    const summaryName = work.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
    const tail =
      'only a ClusterProfile’s deploymentType Local content is applied to the hub; nothing was applied';
    if (!summaryName) return `the work names no ClusterSummary (label ${LABEL_CLUSTER_SUMMARY}): ${tail}`;
    const summary = await this.store.get(SVELTOS_RESOURCES.clusterSummaries, namespace, summaryName);
    if (!summary) return `ClusterSummary ${namespace}/${summaryName} does not exist: ${tail}`;
    const owner = controllerReferenceOf(summary);
    if (owner?.kind === 'ClusterProfile' && groupOf(owner.apiVersion) === SVELTOS_GROUP) return undefined;
    const by = owner ? `${owner.kind} ${owner.name}` : 'no profile';
    return `ClusterSummary ${namespace}/${summaryName} belongs to ${by}, not a ClusterProfile: ${tail}`;
  }

  /** Applied in full at this generation, and the status says so: nothing to apply unless something drifted. */
  private settled(work: ManifestWork, known: LocalRecord | undefined): known is LocalRecord {
    // A dry run is never settled (turning a work into one changes no generation).
    if (!known || isDryRun(work) || known.generation === undefined) return false;
    const applied = findCondition(work.status?.conditions, COND_APPLIED);
    return known.generation === work.metadata.generation && applied?.observedGeneration === known.generation;
  }

  /**
   * Drift correction without watches: each resync reads what the work applied and judges it with the agent's
   * own rules (changed by someone else, or deleted; not our echo, not status).
   */
  private async drifted(work: ManifestWork, record: AppliedRecord): Promise<boolean> {
    if (!driftCorrectionEnabled(work)) return false;
    for (const r of record.resources) {
      if (r.strategy === 'ReadOnly') continue;
      const ref: ResourceRef = { ...r, namespaced: r.namespace !== '' };
      const live = await this.client.get(ref, r.namespace || undefined, r.name);
      const seen: KubeObject = live ?? { metadata: { name: r.name, namespace: r.namespace, uid: r.uid } };
      if (isDrift(work, record, r, live ? 'MODIFIED' : 'DELETED', seen).drift) return true;
    }
    return false;
  }

  /**
   * A manifest the applier could not resolve is, when the hub's discovery does not know its kind, one the
   * hub does not serve: say so in its Applied condition and in the work's, instead of a bare "not found".
   */
  private async explainUnserved(work: ManifestWork, outcome: ApplyOutcome): Promise<void> {
    const notServed: string[] = [];
    const entries = outcome.status.resourceStatus?.manifests ?? [];
    for (const m of outcome.manifests) {
      if (m.action !== 'failed' || m.meta.resource !== '' || !m.meta.kind) continue;
      const apiVersion = work.spec.workload?.manifests?.[m.ordinal]?.apiVersion ?? '';
      try {
        await this.client.resourceFor(apiVersion, m.meta.kind);
        continue; // served after all (a CRD established meanwhile): the applier's message stands
      } catch (e) {
        if (!(e instanceof KubeApiError && e.code === 404)) continue;
      }
      const message = notServedMessage(apiVersion, m.meta.kind);
      notServed.push(message);
      const entry = entries.find((c) => c.resourceMeta.ordinal === m.ordinal);
      if (entry) setApplied(entry.conditions, REASON_KIND_NOT_SERVED, message, work.metadata.generation);
    }
    const conditions = outcome.status.conditions ?? [];
    const applied = findCondition(conditions, COND_APPLIED);
    if (notServed.length === 0 || applied?.status !== 'False') return;
    const failed = outcome.manifests.filter((m) => m.action === 'failed').length;
    const reason = failed === notServed.length ? REASON_KIND_NOT_SERVED : applied.reason;
    setApplied(conditions, reason, `${applied.message}: ${notServed.join('; ')}`, work.metadata.generation);
  }

  /** Through the status subresource, as the agent writes it; skipped when nothing changed. */
  private async writeStatus(work: ManifestWork, status: ManifestWorkStatus): Promise<void> {
    if (stableStringify(work.status ?? {}) === stableStringify(status)) return;
    const namespace = work.metadata.namespace ?? '';
    const name = work.metadata.name ?? '';
    await retryOnConflict(async () => {
      const fresh = await this.store.get(RESOURCES.manifestWorks, namespace, name);
      // A newer generation (or another work of that name) is a new reconcile's to answer.
      if (!fresh || fresh.metadata.uid !== work.metadata.uid) return;
      if (fresh.metadata.generation !== work.metadata.generation) return;
      await this.store.update(RESOURCES.manifestWorks, { ...fresh, status }, { subresource: 'status' });
    });
  }

  /** Read-modify-write of the work's metadata; returns the stored work, or undefined when it is gone. */
  private async editWork(
    work: KubeObject,
    edit: (w: KubeObject) => boolean,
  ): Promise<KubeObject | undefined> {
    const namespace = work.metadata.namespace ?? '';
    const name = work.metadata.name ?? '';
    return retryOnConflict(async () => {
      const fresh = await this.store.get(RESOURCES.manifestWorks, namespace, name);
      if (!fresh || fresh.metadata.uid !== work.metadata.uid) return undefined;
      const next = structuredClone(fresh);
      if (!edit(next)) return fresh;
      try {
        return await this.store.update(RESOURCES.manifestWorks, next);
      } catch (e) {
        if (isApiError(e) && e.code === 404) return undefined;
        throw e;
      }
    });
  }
}

function setApplied(
  conditions: Condition[],
  reason: string,
  message: string,
  generation: number | undefined,
): void {
  setCondition(conditions, {
    type: COND_APPLIED,
    status: 'False',
    reason,
    message,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  });
}

/** The status of a refused work: Applied False with why; the rest of its status is left as it was. */
function refusedStatus(work: ManifestWork, message: string): ManifestWorkStatus {
  const status = structuredClone(work.status ?? {});
  const conditions = (status.conditions ??= []);
  setApplied(conditions, REASON_LOCAL_NOT_ALLOWED, message, work.metadata.generation);
  return status;
}

/** A change worth a reconcile: anything but the status (our own status writes come back as events). */
function workChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!isHubLocalWork(obj)) return false;
  if (!old) return true;
  const meta = (o: KubeObject) =>
    stableStringify([
      o.metadata.generation,
      o.metadata.deletionTimestamp,
      o.metadata.labels,
      o.metadata.annotations,
      o.metadata.finalizers,
    ]);
  return meta(obj) !== meta(old);
}

/** A summary's local works, found by label (the work's name is the summary controller's convention). */
function localWorksOfSummary(summary: KubeObject, cache: CacheReader): ReconcileRequest[] {
  const namespace = summary.metadata.namespace ?? '';
  return cache
    .byLabel(RESOURCES.manifestWorks, LABEL_CLUSTER_SUMMARY, summary.metadata.name ?? '', namespace)
    .filter(isHubLocalWork)
    .map((w) => ({ namespace, name: w.metadata.name ?? '' }));
}

/** Whether the summary's controller owner changed (or it came or went): who may deliver Local changed. */
function ownerChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!old) return true;
  return !jsonEqual(controllerReferenceOf(obj) ?? null, controllerReferenceOf(old) ?? null);
}

export type AddonLocalControllerOptions = Omit<ControllerOptions, 'name' | 'reconciler'> & AddonLocalOptions;

export function addonLocalController(options: AddonLocalControllerOptions): Controller {
  const reconciler = new AddonLocalReconciler(options);
  return (
    new Controller({ ...options, name: 'addon-local', reconciler })
      .for(RESOURCES.manifestWorks, { predicate: workChanged })
      .watches(SVELTOS_RESOURCES.clusterSummaries, localWorksOfSummary, { predicate: ownerChanged })
      // Records seen at start (or deleted by hand) bring their work back: a record whose work is gone is
      // cleaned up; updates are our own writes.
      .watches(
        RESOURCES.secrets,
        (secret) => {
          const of = workOfRecord(secret);
          return of ? [of] : [];
        },
        { filter: fieldEquals('type', LOCAL_RECORD_TYPE), predicate: (_obj, old) => old === undefined },
      )
  );
}
