// ManifestWork status conditions: per manifest (Applied, Available, StatusFeedbackSynced) and for the
// work (Applied, Available, Progressing, Degraded), keeping lastTransitionTime when a status holds.
import { removeCondition, setCondition, type Condition } from '../../controllers/runtime/conditions.js';
import type { FeedbackResult } from './feedback.js';
import { clone } from './objects.js';
import type { DryRunResult } from './dryrun.js';
import {
  DRY_RUN_REASONS,
  type DryRunAction,
  type DryRunDeletion,
  type FeedbackValue,
  type ManifestCondition,
  type ManifestResourceMeta,
  type ManifestWorkStatus,
} from './types.js';

export const COND_APPLIED = 'Applied';
export const COND_AVAILABLE = 'Available';
export const COND_PROGRESSING = 'Progressing';
export const COND_DEGRADED = 'Degraded';
export const COND_FEEDBACK_SYNCED = 'StatusFeedbackSynced';

/** How applying one manifest went. */
export type AppliedState =
  | { ok: true; dryRun?: undefined }
  | { ok: true; dryRun: DryRunResult }
  | { ok: false; reason?: string; message: string };

/** Whether the object is in the cluster: True/False, or Unknown with why. */
export type AvailableState =
  { status: 'True' } | { status: 'False' } | { status: 'Unknown'; reason: string; message: string };

/** Everything the conditions of one manifest are computed from. */
export interface ManifestState {
  meta: ManifestResourceMeta;
  /** Undefined: keep the Applied condition the previous status has (a status-only refresh). */
  applied?: AppliedState;
  available: AvailableState;
  /** Undefined when the manifest has no feedback rules (or the object could not be read). */
  feedback?: FeedbackResult;
}

function sameResource(a: ManifestResourceMeta, b: ManifestResourceMeta): boolean {
  return a.group === b.group && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

/** The previous status entry of the same resource (matched by group, kind, namespace and name). */
export function findManifestCondition(
  status: ManifestWorkStatus | undefined,
  meta: ManifestResourceMeta,
): ManifestCondition | undefined {
  return status?.resourceStatus?.manifests?.find((m) => sameResource(m.resourceMeta, meta));
}

function appliedCondition(applied: AppliedState): Omit<Condition, 'lastTransitionTime' | 'type'> {
  if (!applied.ok) {
    return {
      status: 'False',
      reason: applied.reason ?? 'AppliedManifestFailed',
      message: `Failed to apply manifest: ${applied.message}`,
    };
  }
  if (applied.dryRun) {
    // True: the dry run itself succeeded; the reason says what applying would do.
    return {
      status: 'True',
      reason: DRY_RUN_REASONS[applied.dryRun.action],
      message: applied.dryRun.message,
    };
  }
  return { status: 'True', reason: 'AppliedManifestComplete', message: 'Apply manifest complete' };
}

function availableCondition(available: AvailableState): Omit<Condition, 'lastTransitionTime' | 'type'> {
  switch (available.status) {
    case 'True':
      return { status: 'True', reason: 'ResourceAvailable', message: 'Resource is available' };
    case 'False':
      return { status: 'False', reason: 'ResourceNotAvailable', message: 'Resource is not available' };
    default:
      return { status: 'Unknown', reason: available.reason, message: available.message };
  }
}

/** One manifest's status entry; conditions keep their lastTransitionTime from `previous` when unchanged. */
export function buildManifestCondition(
  state: ManifestState,
  previous: ManifestCondition | undefined,
  generation: number | undefined,
  now: Date = new Date(),
): ManifestCondition {
  const conditions: Condition[] = clone(previous?.conditions ?? []);
  const set = (type: string, c: Omit<Condition, 'lastTransitionTime' | 'type'>) =>
    setCondition(conditions, { type, ...c, observedGeneration: generation }, now);
  if (state.applied) set(COND_APPLIED, appliedCondition(state.applied));
  set(COND_AVAILABLE, availableCondition(state.available));
  let values: FeedbackValue[] | undefined;
  if (state.feedback) {
    values = state.feedback.values;
    if (state.feedback.errors.length > 0) {
      set(COND_FEEDBACK_SYNCED, {
        status: 'False',
        reason: 'StatusFeedbackSyncFailed',
        message: `Sync status feedback failed: ${state.feedback.errors.join('; ')}`,
      });
    } else {
      set(COND_FEEDBACK_SYNCED, { status: 'True', reason: 'StatusFeedbackSynced', message: '' });
    }
  } else {
    removeCondition(conditions, COND_FEEDBACK_SYNCED);
  }
  const out: ManifestCondition = { resourceMeta: state.meta, conditions };
  if (values && values.length > 0) out.statusFeedback = { values };
  return out;
}

function status(conditions: readonly Condition[], type: string): string | undefined {
  return conditions.find((c) => c.type === type)?.status;
}

/**
 * The work's conditions from its manifests' ones, merged into `previous` (other types are kept).
 * Applied and Available follow OCM (all applied; counts of available/unavailable/unknown). OCM derives
 * Progressing and Degraded from condition rules, which fleethub does not have; here Degraded is True when
 * some manifest failed to apply, and Progressing is True while some applied resource is not available.
 */
export function buildWorkConditions(
  manifests: readonly ManifestCondition[],
  previous: readonly Condition[] | undefined,
  generation: number | undefined,
  options: { dryRun?: boolean; dryRunCounts?: DryRunCounts; keepApplied?: boolean; now?: Date } = {},
): Condition[] {
  const now = options.now ?? new Date();
  const conditions: Condition[] = clone([...(previous ?? [])]);
  const set = (type: string, c: Omit<Condition, 'lastTransitionTime' | 'type'>) =>
    setCondition(conditions, { type, ...c, observedGeneration: generation }, now);
  const total = manifests.length;
  const failed = manifests.filter((m) => status(m.conditions, COND_APPLIED) !== 'True').length;
  const available = manifests.filter((m) => status(m.conditions, COND_AVAILABLE) === 'True').length;
  const unavailable = manifests.filter((m) => status(m.conditions, COND_AVAILABLE) === 'False').length;
  const unknown = total - available - unavailable;

  if (options.keepApplied) {
    // A status-only refresh: Applied is whatever the last apply said.
  } else if (options.dryRun) {
    set(
      COND_APPLIED,
      failed > 0
        ? {
            status: 'False',
            reason: 'AppliedManifestWorkFailed',
            message: `Dry run: ${failed} of ${total} manifests failed`,
          }
        : {
            status: 'True',
            reason: 'AppliedManifestWorkDryRun',
            message: dryRunSummary(total, options.dryRunCounts),
          },
    );
  } else {
    set(
      COND_APPLIED,
      failed > 0
        ? {
            status: 'False',
            reason: 'AppliedManifestWorkFailed',
            message: `Failed to apply manifest work: ${failed} of ${total} manifests failed`,
          }
        : { status: 'True', reason: 'AppliedManifestWorkComplete', message: 'Apply manifest work complete' },
    );
  }

  if (unavailable > 0) {
    set(COND_AVAILABLE, {
      status: 'False',
      reason: 'ResourcesNotAvailable',
      message: `${available} of ${total} resources are available, ${unavailable} not available`,
    });
  } else if (unknown > 0) {
    set(COND_AVAILABLE, {
      status: 'Unknown',
      reason: 'ResourcesStatusUnknown',
      message: `${available} of ${total} resources are available, ${unknown} with unknown status`,
    });
  } else {
    set(COND_AVAILABLE, {
      status: 'True',
      reason: 'ResourcesAvailable',
      message: `${available} of ${total} resources are available`,
    });
  }

  set(
    COND_DEGRADED,
    failed > 0
      ? {
          status: 'True',
          reason: 'ManifestsFailed',
          message: `${failed} of ${total} manifests failed to apply`,
        }
      : { status: 'False', reason: 'NoFailure', message: `${total} of ${total} manifests applied` },
  );

  const pending = manifests.filter(
    (m) => status(m.conditions, COND_APPLIED) === 'True' && status(m.conditions, COND_AVAILABLE) !== 'True',
  ).length;
  set(
    COND_PROGRESSING,
    pending > 0
      ? {
          status: 'True',
          reason: 'ResourcesProgressing',
          message: `${pending} of ${total} applied resources are not available yet`,
        }
      : { status: 'False', reason: 'ResourcesSettled', message: 'No applied resource is waiting' },
  );
  return conditions;
}

/** The whole status: one entry per manifest, in manifest order, and the work conditions. */
export function buildWorkStatus(
  states: readonly ManifestState[],
  previous: ManifestWorkStatus | undefined,
  generation: number | undefined,
  options: {
    dryRun?: boolean;
    /** Dry run: what the work would delete (listed before, not now); kept as is with keepApplied. */
    dryRunDeletions?: DryRunDeletion[];
    keepApplied?: boolean;
    now?: Date;
  } = {},
): ManifestWorkStatus {
  const { dryRunDeletions, ...rest } = options;
  const now = options.now ?? new Date();
  const manifests = states.map((s) =>
    buildManifestCondition(s, findManifestCondition(previous, s.meta), generation, now),
  );
  // A status-only refresh does not dry-run again: the deletions found by the last one still stand.
  const deletions = options.keepApplied ? previous?.resourceStatus?.dryRunDeletions : dryRunDeletions;
  const counts: DryRunCounts = { Create: 0, Update: 0, NoAction: 0, Conflict: 0, Delete: 0 };
  for (const s of states) if (s.applied?.ok && s.applied.dryRun) counts[s.applied.dryRun.action]++;
  counts.Delete = deletions?.length ?? 0;
  return {
    conditions: buildWorkConditions(manifests, previous?.conditions, generation, {
      ...rest,
      dryRunCounts: counts,
      now,
    }),
    resourceStatus: {
      manifests,
      ...(deletions && deletions.length > 0 ? { dryRunDeletions: deletions } : {}),
    },
  };
}

/** How many manifests a dry run found per action, and how many objects it would delete. */
export type DryRunCounts = Record<DryRunAction | 'Delete', number>;

/** `Dry run of 3 resources: 1 to create, 1 to update, 1 unchanged; 1 to delete`. */
function dryRunSummary(total: number, counts: DryRunCounts | undefined): string {
  const c = counts ?? { Create: 0, Update: 0, NoAction: 0, Conflict: 0, Delete: 0 };
  const parts = [
    c.Create ? `${c.Create} to create` : '',
    c.Update ? `${c.Update} to update` : '',
    c.NoAction ? `${c.NoAction} unchanged` : '',
    c.Conflict ? `${c.Conflict} in conflict` : '',
  ].filter(Boolean);
  const manifests = parts.length > 0 ? parts.join(', ') : 'nothing to apply';
  return `Dry run of ${total} resources: ${manifests}${c.Delete ? `; ${c.Delete} to delete` : ''}`;
}
