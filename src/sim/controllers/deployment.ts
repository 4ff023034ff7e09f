// Deployment controller: one ReplicaSet per pod template (`<name>-<pod-template-hash>`), rolling update
// or recreate between them, revision history, and the status fields and conditions kubectl rollout status, helm --wait and kstatus read.
import { recordEvent } from './events.js';
import type { KubeObject } from '../../store/types.js';
import {
  createObject,
  deleteObject,
  isCode,
  nowMs,
  nowText,
  writeStatus,
  type SimContext,
} from './context.js';
import { REPLICASETS, setCount } from './replicaset.js';
import {
  conditionOf,
  controllerRef,
  controllerRefTo,
  controlledBy,
  field,
  nameOf,
  num,
  parseTime,
  POD_TEMPLATE_HASH,
  scaled,
  selectorMatcher,
  spec,
  status,
  str,
  templateHash,
  templateWithoutHash,
  upsertCondition,
  type Json,
} from './util.js';
import { stableStringify } from '../../util/json-text.js';

export const DEPLOYMENTS = 'deployments.apps';
export const REVISION = 'deployment.kubernetes.io/revision';
const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** progressDeadlineSeconds = MaxInt32 turns the Progressing condition off. */
const NO_DEADLINE = 2147483647;

function revisionOf(rs: KubeObject): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? '0') || 0;
}

const specReplicas = (rs: KubeObject): number => num(spec(rs)['replicas']) ?? 0;
const statusCount = (rs: KubeObject, key: string): number => num(status(rs)[key]) ?? 0;
const sum = (list: KubeObject[], f: (rs: KubeObject) => number): number =>
  list.reduce((n, rs) => n + f(rs), 0);
const byCreation = (a: KubeObject, b: KubeObject): number =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** maxSurge (rounded up) and maxUnavailable (rounded down), never both 0 (ResolveFenceposts). */
export function fenceposts(d: KubeObject, replicas: number): { maxSurge: number; maxUnavailable: number } {
  const strategy = (spec(d)['strategy'] ?? {}) as Json;
  if ((str(strategy['type']) ?? 'RollingUpdate') !== 'RollingUpdate')
    return { maxSurge: 0, maxUnavailable: 0 };
  const ru = (strategy['rollingUpdate'] ?? {}) as Json;
  const maxSurge = scaled(ru['maxSurge'] ?? '25%', replicas, true, 0);
  let maxUnavailable = scaled(ru['maxUnavailable'] ?? '25%', replicas, false, 0);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export async function syncDeployment(ctx: SimContext, ns: string, name: string): Promise<void> {
  const d = await ctx.store.get(DEPLOYMENTS, ns, name);
  if (!d || d.metadata.deletionTimestamp) return;
  const sp = spec(d);
  const replicas = num(sp['replicas']) ?? 1;
  const paused = sp['paused'] === true;
  const matches = selectorMatcher(sp['selector']);
  const { maxSurge, maxUnavailable } = fenceposts(d, replicas);

  // The ReplicaSets this Deployment controls, adopting orphans its selector matches.
  const owned: KubeObject[] = [];
  for (const rs of (await ctx.store.list(REPLICASETS, { namespace: ns })).items) {
    if (controlledBy(rs, d)) owned.push(rs);
    else if (!controllerRef(rs) && !rs.metadata.deletionTimestamp && matches(rs.metadata.labels)) {
      const refs = [...(rs.metadata.ownerReferences ?? []), controllerRefTo(d)];
      owned.push(
        await ctx.store.update(REPLICASETS, { ...rs, metadata: { ...rs.metadata, ownerReferences: refs } }),
      );
    }
  }
  const want = stableStringify(templateWithoutHash(sp['template']));
  let newRS = owned.find(
    (rs) =>
      !rs.metadata.deletionTimestamp && stableStringify(templateWithoutHash(spec(rs)['template'])) === want,
  );
  let olds = owned.filter((rs) => rs !== newRS).sort(byCreation);
  const maxOldRevision = Math.max(0, ...olds.map(revisionOf));
  const st = structuredClone(status(d));
  const now = nowText(ctx);

  /** Writes a ReplicaSet's replicas (and the annotations kube keeps with them); returns the stored object. */
  const scale = async (
    rs: KubeObject,
    to: number,
    extra: Record<string, string> = {},
  ): Promise<KubeObject> => {
    const annotations = { ...rs.metadata.annotations, ...extra };
    if (rs === newRS || to > 0) {
      annotations[DESIRED_REPLICAS] = String(replicas);
      annotations[MAX_REPLICAS] = String(replicas + maxSurge);
    }
    const next = { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...spec(rs), replicas: to } };
    const from = Number(spec(rs)['replicas'] ?? 0);
    const written = await ctx.store.update(REPLICASETS, next);
    if (from !== to)
      await recordEvent(
        ctx,
        d,
        'ScalingReplicaSet',
        `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name ?? ''} from ${from} to ${to}`,
        'deployment-controller',
      );
    return written;
  };

  if (!paused) {
    if (!newRS) {
      const created = await createNewReplicaSet(ctx, d, st, olds, maxOldRevision + 1, replicas, maxSurge);
      if (!created) {
        await writeStatus(ctx, DEPLOYMENTS, d, st);
        return;
      }
      newRS = created;
      upsertCondition(
        st,
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetCreated',
          message: `Created new replica set "${nameOf(newRS)}"`,
        },
        now,
        { updateTime: true },
      );
    } else {
      if (revisionOf(newRS) <= maxOldRevision)
        newRS = await scale(newRS, specReplicas(newRS), { [REVISION]: String(maxOldRevision + 1) });
      if (!conditionOf(d, 'Progressing'))
        upsertCondition(
          st,
          {
            type: 'Progressing',
            status: 'True',
            reason: 'FoundNewReplicaSet',
            message: `Found new replica set "${nameOf(newRS)}"`,
          },
          now,
          { updateTime: true },
        );
    }

    const strategy = str(field(sp, 'strategy', 'type')) ?? 'RollingUpdate';
    if (strategy === 'Recreate') {
      for (let i = 0; i < olds.length; i++)
        if (specReplicas(olds[i]!) > 0) olds[i] = await scale(olds[i]!, 0);
      const oldPodsLeft = olds.some((rs) => statusCount(rs, 'replicas') > 0);
      if (!oldPodsLeft && specReplicas(newRS) !== replicas) newRS = await scale(newRS, replicas);
    } else {
      // reconcileNewReplicaSet; like rolloutRolling, a pass that scaled up leaves the old sets to the next.
      const all = () => [...olds, newRS!];
      let scaledUp = false;
      if (specReplicas(newRS) > replicas) newRS = await scale(newRS, replicas);
      else if (specReplicas(newRS) < replicas) {
        const room = replicas + maxSurge - sum(all(), specReplicas);
        const up = Math.min(Math.max(0, room), replicas - specReplicas(newRS));
        if (up > 0) {
          newRS = await scale(newRS, specReplicas(newRS) + up);
          scaledUp = true;
        }
      }
      // reconcileOldReplicaSets
      const minAvailable = replicas - maxUnavailable;
      const newUnavailable = specReplicas(newRS) - statusCount(newRS, 'availableReplicas');
      let budget = sum(all(), specReplicas) - minAvailable - newUnavailable;
      if (!scaledUp && sum(olds, specReplicas) > 0 && budget > 0) {
        // cleanupUnhealthyReplicas: unavailable old pods go first, they cost no availability.
        for (let i = 0; i < olds.length && budget > 0; i++) {
          const rs = olds[i]!;
          const unhealthy = specReplicas(rs) - statusCount(rs, 'availableReplicas');
          if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
          const down = Math.min(budget, unhealthy);
          olds[i] = await scale(rs, specReplicas(rs) - down);
          budget -= down;
        }
        // scaleDownOldReplicaSetsForRollingUpdate. A set's status may still count pods it was just
        // told to drop, so availability is capped at its spec.
        const availableNow = sum(all(), (rs) =>
          Math.min(specReplicas(rs), statusCount(rs, 'availableReplicas')),
        );
        let toScaleDown = availableNow - minAvailable;
        for (let i = 0; i < olds.length && toScaleDown > 0; i++) {
          const rs = olds[i]!;
          if (specReplicas(rs) === 0) continue;
          const down = Math.min(specReplicas(rs), toScaleDown);
          olds[i] = await scale(rs, specReplicas(rs) - down);
          toScaleDown -= down;
        }
      }
    }
    olds = await cleanupHistory(ctx, d, olds);
  }

  computeStatus(ctx, d, st, newRS, olds, replicas, maxUnavailable, paused);
  await writeStatus(ctx, DEPLOYMENTS, d, st);
}

/** The new ReplicaSet for the current template; on a foreign name collision bumps collisionCount. */
async function createNewReplicaSet(
  ctx: SimContext,
  d: KubeObject,
  st: Json,
  olds: KubeObject[],
  revision: number,
  replicas: number,
  maxSurge: number,
): Promise<KubeObject | undefined> {
  const sp = spec(d);
  const collisionCount = num(st['collisionCount']) ?? 0;
  const hash = templateHash(sp['template'], collisionCount);
  const template = structuredClone((sp['template'] ?? {}) as Json);
  const tmeta = (template['metadata'] ??= {}) as Json;
  tmeta['labels'] = {
    ...((tmeta['labels'] as Record<string, string> | undefined) ?? {}),
    [POD_TEMPLATE_HASH]: hash,
  };
  const selector = structuredClone((sp['selector'] ?? {}) as Json);
  selector['matchLabels'] = {
    ...((selector['matchLabels'] as Record<string, string> | undefined) ?? {}),
    [POD_TEMPLATE_HASH]: hash,
  };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {}))
    if (
      !k.startsWith('deployment.kubernetes.io/') &&
      k !== 'kubectl.kubernetes.io/last-applied-configuration'
    )
      annotations[k] = v;
  annotations[REVISION] = String(revision);
  annotations[DESIRED_REPLICAS] = String(replicas);
  annotations[MAX_REPLICAS] = String(replicas + maxSurge);
  const recreate = str(field(sp, 'strategy', 'type')) === 'Recreate';
  const current = olds.reduce((n, rs) => n + specReplicas(rs), 0);
  const initial = recreate
    ? olds.some((rs) => specReplicas(rs) > 0 || statusCount(rs, 'replicas') > 0)
      ? 0
      : replicas
    : Math.max(0, Math.min(replicas, replicas + maxSurge - current));
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${nameOf(d)}-${hash}`,
      namespace: d.metadata.namespace ?? '',
      labels: tmeta['labels'] as Record<string, string>,
      annotations,
      ownerReferences: [controllerRefTo(d)],
    },
    spec: {
      replicas: initial,
      minReadySeconds: num(sp['minReadySeconds']) ?? 0,
      selector,
      template,
    },
  };
  try {
    const created = await createObject(ctx, REPLICASETS, rs);
    if (created && initial > 0)
      await recordEvent(
        ctx,
        d,
        'ScalingReplicaSet',
        `Scaled up replica set ${nameOf(created)} from 0 to ${initial}`,
        'deployment-controller',
      );
    return created;
  } catch (e) {
    if (!isCode(e, 409)) throw e;
  }
  const existing = await ctx.store.get(REPLICASETS, d.metadata.namespace ?? '', nameOf(rs));
  if (
    existing &&
    controlledBy(existing, d) &&
    stableStringify(templateWithoutHash(spec(existing)['template'])) ===
      stableStringify(templateWithoutHash(sp['template']))
  )
    return existing;
  // Someone else's object holds the name: the next hash differs (kube's collision avoidance).
  st['collisionCount'] = collisionCount + 1;
  ctx.enqueue(`deploy|${d.metadata.namespace ?? ''}|${nameOf(d)}`);
  return undefined;
}

/** Deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit (default 10). */
async function cleanupHistory(ctx: SimContext, d: KubeObject, olds: KubeObject[]): Promise<KubeObject[]> {
  const limit = num(spec(d)['revisionHistoryLimit']) ?? 10;
  const idle = olds
    .filter(
      (rs) => specReplicas(rs) === 0 && statusCount(rs, 'replicas') === 0 && !rs.metadata.deletionTimestamp,
    )
    .sort((a, b) => revisionOf(a) - revisionOf(b));
  const excess = idle.slice(0, Math.max(0, idle.length - limit));
  for (const rs of excess) await deleteObject(ctx, REPLICASETS, rs);
  return olds.filter((rs) => !excess.includes(rs));
}

/** calculateStatus + syncRolloutStatus + checkPausedConditions, into `st`. */
function computeStatus(
  ctx: SimContext,
  d: KubeObject,
  st: Json,
  newRS: KubeObject | undefined,
  olds: KubeObject[],
  replicas: number,
  maxUnavailable: number,
  paused: boolean,
): void {
  const all = newRS ? [...olds, newRS] : olds;
  const before = status(d);
  const now = nowText(ctx);
  const available = sum(all, (rs) => statusCount(rs, 'availableReplicas'));
  const total = sum(all, specReplicas);
  st['observedGeneration'] = d.metadata.generation ?? 1;
  setCount(
    st,
    'replicas',
    sum(all, (rs) => statusCount(rs, 'replicas')),
  );
  setCount(st, 'updatedReplicas', newRS ? statusCount(newRS, 'replicas') : 0);
  setCount(
    st,
    'readyReplicas',
    sum(all, (rs) => statusCount(rs, 'readyReplicas')),
  );
  setCount(st, 'availableReplicas', available);
  setCount(st, 'unavailableReplicas', Math.max(0, total - available));
  upsertCondition(
    st,
    available >= replicas - maxUnavailable
      ? {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    now,
    { updateTime: true },
  );

  const deadline = num(spec(d)['progressDeadlineSeconds']) ?? 600;
  const progressing = conditionOf({ metadata: {}, status: st }, 'Progressing');
  if (paused) {
    if (progressing?.['reason'] !== 'DeploymentPaused')
      upsertCondition(
        st,
        {
          type: 'Progressing',
          status: 'Unknown',
          reason: 'DeploymentPaused',
          message: 'Deployment is paused',
        },
        now,
        {
          updateTime: true,
        },
      );
    return;
  }
  if (progressing?.['reason'] === 'DeploymentPaused')
    upsertCondition(
      st,
      {
        type: 'Progressing',
        status: 'Unknown',
        reason: 'DeploymentResumed',
        message: 'Deployment is resumed',
      },
      now,
      {
        updateTime: true,
      },
    );
  if (deadline === NO_DEADLINE) {
    st['conditions'] = ((st['conditions'] ?? []) as Json[]).filter((c) => c['type'] !== 'Progressing');
    return;
  }
  if (!newRS) return;
  const n = (s: Json, k: string) => num(s[k]) ?? 0;
  const complete =
    n(st, 'updatedReplicas') === replicas &&
    n(st, 'replicas') === replicas &&
    n(st, 'availableReplicas') === replicas;
  const rsName = nameOf(newRS);
  if (complete) {
    upsertCondition(
      st,
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "${rsName}" has successfully progressed.`,
      },
      now,
      { updateTime: true },
    );
    return;
  }
  const madeProgress =
    n(st, 'updatedReplicas') > n(before, 'updatedReplicas') ||
    n(st, 'replicas') - n(st, 'updatedReplicas') < n(before, 'replicas') - n(before, 'updatedReplicas') ||
    n(st, 'readyReplicas') > n(before, 'readyReplicas') ||
    n(st, 'availableReplicas') > n(before, 'availableReplicas');
  const current = conditionOf({ metadata: {}, status: st }, 'Progressing');
  if (madeProgress || current?.['reason'] === 'NewReplicaSetAvailable') {
    upsertCondition(
      st,
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: `ReplicaSet "${rsName}" is progressing.`,
      },
      now,
      { updateTime: true },
    );
    // Progress refreshes lastUpdateTime even when the reason stays: the deadline counts from it.
    const cond = conditionOf({ metadata: {}, status: st }, 'Progressing');
    if (cond) cond['lastUpdateTime'] = now;
  }
  const cond = conditionOf({ metadata: {}, status: st }, 'Progressing');
  const since = parseTime(cond?.['lastUpdateTime']) ?? nowMs(ctx);
  if (cond?.['reason'] === 'ProgressDeadlineExceeded') return;
  if (since + deadline * 1000 <= nowMs(ctx)) {
    upsertCondition(
      st,
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: `ReplicaSet "${rsName}" has timed out progressing.`,
      },
      now,
      { updateTime: true },
    );
  } else {
    ctx.enqueue(
      `deploy|${d.metadata.namespace ?? ''}|${nameOf(d)}`,
      since + deadline * 1000 - nowMs(ctx) + 1,
    );
  }
}
