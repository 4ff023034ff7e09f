// ClusterReports for DryRun profiles: for each ClusterSummary whose ManifestWork is a dry run, the report
// Sveltos would write (`<profile>--capi--<cluster>`), listing what applying would do to each object.
//
// The agent dry-runs the work and says per manifest, in its Applied condition, Create, Update, No Action or
// Conflict, and lists what it would delete; this controller only translates that into Sveltos's
// resourceReports. A report describes the work's current generation or nothing: while the agent has not
// answered, it lists no resources rather than a stale answer. It is deleted once the summary is gone or its
// work is not a dry run (or is gone).
import { SVELTOS_API_VERSION, SVELTOS_GROUP, SVELTOS_RESOURCES } from '../../addons/api.js';
import {
  CLUSTER_TYPE,
  LABEL_CLUSTER_PROFILE_NAME,
  LABEL_PROFILE_NAME,
  SelectionError,
  clusterReportName,
  clusterSummaryLabels,
  type ProfileKind,
} from '../../addons/selection.js';
import { DRY_RUN_REASONS, type DryRunAction } from '../../agent/work/types.js';
import { ANNOTATION_DRY_RUN, LABEL_CLUSTER_SUMMARY, RESOURCES } from '../../fleet/names.js';
import { at, list, str } from '../../kinds/builtin/kube-helpers.js';
import type { KubeObject, Store } from '../../store/types.js';
import { jsonEqual } from '../../store/json.js';
import { isApiError } from '../../util/errors.js';
import { stableStringify } from '../../util/json-text.js';
import { workNameFor } from '../addon-summary/addon-summary.controller.js';
import { conditionsOf, findCondition, type Condition } from '../runtime/conditions.js';
import { Controller, type ControllerOptions } from '../runtime/controller.js';
import { isDeleting } from '../runtime/finalizers.js';
import { ownerRequests, type OwnerKind } from '../runtime/owners.js';
import {
  TerminalError,
  type CacheReader,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  type Reconciler,
} from '../runtime/reconcile.js';
import { retryOnConflict } from '../runtime/retry.js';

/** Sveltos's ResourceReport actions (addon-controller clusterreport_types.go), plus Error for a failed dry run. */
export type ResourceAction = 'Create' | 'Update' | 'Delete' | 'No Action' | 'Conflict' | 'Error';

export interface ResourceReport {
  resource: { group: string; version?: string; kind: string; namespace?: string; name: string };
  action: ResourceAction;
  message?: string;
}

const SUMMARY_OWNER: OwnerKind = { group: SVELTOS_GROUP, kind: 'ClusterSummary', namespaced: true };

const ACTION_OF_REASON = new Map<string, ResourceAction>(
  (Object.entries(DRY_RUN_REASONS) as [DryRunAction, string][]).map(([action, reason]) => [
    reason,
    action === 'NoAction' ? 'No Action' : action,
  ]),
);

/** An agent from before the precise verdicts says only whether applying would change the object. */
const LEGACY_DRY_RUN_REASON = 'AppliedManifestDryRun';

const DELETE_MESSAGE = 'No longer in the profile’s content; applying would delete it';

/** Whether the work is the dry run of the summary `summaryName`. */
export function isDryRunWorkOf(work: KubeObject | undefined, summaryName: string): work is KubeObject {
  return (
    work !== undefined &&
    !isDeleting(work) &&
    work.metadata.labels?.[LABEL_CLUSTER_SUMMARY] === summaryName &&
    work.metadata.annotations?.[ANNOTATION_DRY_RUN] === 'true'
  );
}

/** The profile a summary belongs to: its Sveltos labels, else its controller owner reference. */
function profileOf(summary: KubeObject): { kind: ProfileKind; name: string } | undefined {
  const labels = summary.metadata.labels ?? {};
  const clusterProfile = labels[LABEL_CLUSTER_PROFILE_NAME];
  if (clusterProfile) return { kind: 'ClusterProfile', name: clusterProfile };
  const profile = labels[LABEL_PROFILE_NAME];
  if (profile) return { kind: 'Profile', name: profile };
  const owner = summary.metadata.ownerReferences?.find((r) => r.controller);
  if (owner?.kind === 'ClusterProfile' || owner?.kind === 'Profile')
    return { kind: owner.kind, name: owner.name };
  return undefined;
}

/** The action a manifest's conditions report; undefined when they are not a dry run's answer. */
function actionOf(conditions: Condition[]): ResourceAction | undefined {
  const applied = findCondition(conditions, 'Applied');
  if (applied?.status === 'False') return 'Error';
  const action = ACTION_OF_REASON.get(applied?.reason ?? '');
  if (action) return action;
  if (applied?.reason === LEGACY_DRY_RUN_REASON) {
    if (!/would change/.test(applied.message ?? '')) return 'No Action';
    return findCondition(conditions, 'Available')?.status === 'False' ? 'Create' : 'Update';
  }
  return undefined;
}

/**
 * The report's resourceReports from the work's status, or undefined while the status does not answer
 * the work's current generation as a dry run (the agent has not run it yet).
 */
export function resourceReportsOf(work: KubeObject): ResourceReport[] | undefined {
  const applied = findCondition(conditionsOf(work), 'Applied');
  if (!applied || applied.observedGeneration !== work.metadata.generation) return undefined;
  // Applied True of a real apply: the agent has not run this work as a dry run yet.
  if (applied.status === 'True' && applied.reason !== 'AppliedManifestWorkDryRun') return undefined;
  const reports: ResourceReport[] = [];
  for (const m of list(at(work, 'status', 'resourceStatus', 'manifests'))) {
    const conditions = list(m['conditions']) as unknown as Condition[];
    const action = actionOf(conditions);
    // A real apply's answer at this generation (the work just turned into a dry run): not ours to report.
    if (!action) return undefined;
    const report = reportFor(m['resourceMeta'], action);
    if (!report) continue;
    const message = findCondition(conditions, 'Applied')?.message;
    if (message) report.message = message;
    reports.push(report);
  }
  for (const d of list(at(work, 'status', 'resourceStatus', 'dryRunDeletions'))) {
    const report = reportFor(d, 'Delete');
    if (report) reports.push({ ...report, message: DELETE_MESSAGE });
  }
  return reports;
}

function reportFor(meta: unknown, action: ResourceAction): ResourceReport | undefined {
  const field = (key: string): string => str(at(meta, key));
  const kind = field('kind');
  const name = field('name');
  // A manifest without kind or name was refused before it reached the agent; nothing to name here.
  if (!kind || !name) return undefined;
  const version = field('version');
  const namespace = field('namespace');
  return {
    resource: {
      group: field('group'),
      ...(version ? { version } : {}),
      kind,
      ...(namespace ? { namespace } : {}),
      name,
    },
    action,
  };
}

/** The ClusterReport a dry-run summary should have (status only once the agent answered). */
export function desiredReport(summary: KubeObject, work: KubeObject): KubeObject {
  const namespace = summary.metadata.namespace ?? '';
  const clusterName = str(at(summary, 'spec', 'clusterName'));
  const profile = profileOf(summary);
  if (!profile || !clusterName)
    throw new TerminalError(
      `ClusterSummary ${namespace}/${summary.metadata.name ?? ''} names no profile or cluster; no ClusterReport`,
    );
  let name: string;
  let labels: Record<string, string>;
  try {
    name = clusterReportName(profile.kind, profile.name, clusterName);
    labels = clusterSummaryLabels(profile.kind, profile.name, clusterName);
  } catch (e) {
    // Retrying cannot shorten a name: the summary's own status already says why it is too long.
    if (e instanceof SelectionError) throw new TerminalError(e.message, { cause: e });
    throw e;
  }
  const reports = resourceReportsOf(work);
  return {
    apiVersion: SVELTOS_API_VERSION,
    kind: 'ClusterReport',
    metadata: {
      name,
      namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: SVELTOS_API_VERSION,
          kind: 'ClusterSummary',
          name: summary.metadata.name ?? '',
          uid: summary.metadata.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: { clusterNamespace: namespace, clusterName, clusterType: CLUSTER_TYPE },
    status: reports ? { resourceReports: reports } : {},
  };
}

/** The reports this summary (by name) controls, from the cache. */
function reportsOf(cache: CacheReader, namespace: string, summaryName: string): KubeObject[] {
  return cache
    .list(SVELTOS_RESOURCES.clusterReports, namespace)
    .filter((r) => ownerRequests(r, SUMMARY_OWNER).some((o) => o.name === summaryName));
}

export interface AddonReportOptions {
  store: Store;
}

export class AddonReportReconciler implements Reconciler {
  private readonly store: Store;

  constructor(options: AddonReportOptions) {
    this.store = options.store;
  }

  /** Keyed by ClusterSummary: its report is written from its work, or deleted. */
  async reconcile(ctx: ReconcileContext, req: ReconcileRequest): Promise<ReconcileResult> {
    const namespace = req.namespace ?? '';
    // Most summaries are no dry run and have no report: the cache says so without two store reads. A
    // work that turns into a dry run after the cache was read brings its own event (workChanged).
    if (
      !isDryRunWorkOf(ctx.cache.get(RESOURCES.manifestWorks, namespace, workNameFor(req.name)), req.name) &&
      reportsOf(ctx.cache, namespace, req.name).length === 0
    )
      return {};
    const summary = await this.store.get(SVELTOS_RESOURCES.clusterSummaries, namespace, req.name);
    const live = summary && !isDeleting(summary) ? summary : undefined;
    const work = live
      ? await this.store.get(RESOURCES.manifestWorks, namespace, workNameFor(req.name))
      : undefined;
    const desired = live && isDryRunWorkOf(work, req.name) ? desiredReport(live, work) : undefined;
    for (const stale of reportsOf(ctx.cache, namespace, req.name)) {
      if (stale.metadata.name !== desired?.metadata.name) await this.deleteReport(stale);
    }
    if (desired) await this.writeReport(desired);
    return {};
  }

  private async deleteReport(report: KubeObject): Promise<void> {
    try {
      await this.store.delete(
        SVELTOS_RESOURCES.clusterReports,
        report.metadata.namespace ?? '',
        report.metadata.name ?? '',
        { preconditions: { uid: report.metadata.uid ?? '' } },
      );
    } catch (e) {
      // Gone already, or another incarnation (its own watch event brings us back): nothing to do.
      if (!(isApiError(e) && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  /** Creates the report, or updates it when labels, owner, spec or status differ; nothing otherwise. */
  private async writeReport(desired: KubeObject): Promise<void> {
    const namespace = desired.metadata.namespace ?? '';
    const name = desired.metadata.name ?? '';
    await retryOnConflict(async () => {
      const stored = await this.store.get(SVELTOS_RESOURCES.clusterReports, namespace, name);
      if (!stored) {
        try {
          await this.store.create(SVELTOS_RESOURCES.clusterReports, desired);
        } catch (e) {
          // Created meanwhile (another replica): its watch event brings this summary back to compare.
          if (!(isApiError(e) && e.code === 409)) throw e;
        }
        return;
      }
      const same =
        stableStringify(stored.metadata.labels ?? {}) === stableStringify(desired.metadata.labels) &&
        stableStringify(stored.metadata.ownerReferences ?? []) ===
          stableStringify(desired.metadata.ownerReferences) &&
        stableStringify(stored['spec'] ?? {}) === stableStringify(desired['spec']) &&
        stableStringify(stored['status'] ?? {}) === stableStringify(desired['status']);
      if (same) return;
      await this.store.update(SVELTOS_RESOURCES.clusterReports, {
        ...stored,
        metadata: {
          ...stored.metadata,
          labels: { ...(stored.metadata.labels ?? {}), ...desired.metadata.labels },
          ownerReferences: desired.metadata.ownerReferences,
        },
        spec: desired['spec'],
        status: desired['status'],
      });
    });
  }
}

/** The summary a dry-run (or once dry-run) work belongs to. */
function summaryOfWork(work: KubeObject): ReconcileRequest[] {
  const name = work.metadata.labels?.[LABEL_CLUSTER_SUMMARY];
  return name ? [{ namespace: work.metadata.namespace ?? '', name }] : [];
}

/** What the report reads of a work: its dry-run annotation, its generation and its status. */
function workChanged(obj: KubeObject, old?: KubeObject): boolean {
  if (!obj.metadata.labels?.[LABEL_CLUSTER_SUMMARY]) return false;
  if (!old) return true;
  return (
    obj.metadata.annotations?.[ANNOTATION_DRY_RUN] !== old.metadata.annotations?.[ANNOTATION_DRY_RUN] ||
    obj.metadata.generation !== old.metadata.generation ||
    Boolean(obj.metadata.deletionTimestamp) !== Boolean(old.metadata.deletionTimestamp) ||
    !jsonEqual(obj['status'] ?? null, old['status'] ?? null)
  );
}

export type AddonReportControllerOptions = Omit<ControllerOptions, 'name' | 'reconciler'> &
  AddonReportOptions;

export function addonReportController(options: AddonReportControllerOptions): Controller {
  return new Controller({ ...options, name: 'addon-report', reconciler: new AddonReportReconciler(options) })
    .for(SVELTOS_RESOURCES.clusterSummaries)
    .watches(RESOURCES.manifestWorks, summaryOfWork, { predicate: workChanged })
    .owns(SVELTOS_RESOURCES.clusterReports, SUMMARY_OWNER);
}
