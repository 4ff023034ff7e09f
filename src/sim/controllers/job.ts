// Job controller: runs pods for completions/parallelism (NonIndexed or Indexed), counts Succeeded and
// Failed pods into status, and finishes with SuccessCriteriaMet+Complete or FailureTarget+Failed (1.31+), then TTL.
import type { KubeObject } from '../../store/types.js';
import { deleteObject, deletePod, isCode, nowMs, nowText, writeStatus, type SimContext } from './context.js';
import { createPod, podFromTemplate, setCount } from './replicaset.js';
import {
  conditionOf,
  controlledBy,
  isActive,
  isPodReady,
  num,
  parseTime,
  podPhase,
  spec,
  status,
  upsertCondition,
  type Json,
} from './util.js';

export const JOBS = 'jobs.batch';
const INDEX_KEY = 'batch.kubernetes.io/job-completion-index';

function finishedAt(job: KubeObject): number | undefined {
  for (const type of ['Complete', 'Failed']) {
    const c = conditionOf(job, type);
    if (c?.['status'] === 'True')
      return parseTime(status(job)['completionTime']) ?? parseTime(c['lastTransitionTime']);
  }
  return undefined;
}

/** "0,2-4": kube's compressed list of completed indexes. */
function formatIndexes(indexes: number[]): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

export async function syncJob(ctx: SimContext, ns: string, name: string): Promise<void> {
  const job = await ctx.store.get(JOBS, ns, name);
  if (!job || job.metadata.deletionTimestamp) return;
  const key = `job|${ns}|${name}`;
  const sp = spec(job);
  const now = nowMs(ctx);
  const done = finishedAt(job);
  if (done !== undefined) {
    const ttl = num(sp['ttlSecondsAfterFinished']);
    if (ttl === undefined) return;
    if (now < done + ttl * 1000) ctx.enqueue(key, done + ttl * 1000 - now);
    else await deleteObject(ctx, JOBS, job);
    return;
  }
  const parallelism = num(sp['parallelism']) ?? 1;
  const completions = num(sp['completions']);
  const backoffLimit = num(sp['backoffLimit']) ?? 6;
  const indexed = sp['completionMode'] === 'Indexed' && completions !== undefined;
  const suspended = sp['suspend'] === true;
  const uid = job.metadata.uid ?? '';

  const pods = (await ctx.store.list('pods', { namespace: ns })).items.filter((p) => controlledBy(p, job));
  const succeededPods = pods.filter((p) => podPhase(p) === 'Succeeded');
  const failed = pods.filter((p) => podPhase(p) === 'Failed').length;
  let active = pods.filter(isActive);
  const completedIndexes = succeededPods
    .map((p) => Number(p.metadata.annotations?.[INDEX_KEY]))
    .filter((i) => Number.isInteger(i) && completions !== undefined && i < completions);
  const succeeded = indexed ? new Set(completedIndexes).size : succeededPods.length;
  const complete =
    completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;
  const failedJob = failed > backoffLimit;
  const st = structuredClone(status(job));
  const text = nowText(ctx);

  try {
    if (suspended || complete || failedJob) {
      for (const p of active) await deletePod(ctx, p);
      active = [];
    } else {
      const want =
        completions !== undefined
          ? Math.min(parallelism, completions - succeeded)
          : succeeded > 0
            ? 0
            : parallelism;
      const labels = {
        'batch.kubernetes.io/controller-uid': uid,
        'batch.kubernetes.io/job-name': job.metadata.name ?? '',
        'controller-uid': uid,
        'job-name': job.metadata.name ?? '',
      };
      if (indexed) {
        const busy = new Set([
          ...completedIndexes,
          ...active.map((p) => Number(p.metadata.annotations?.[INDEX_KEY])),
        ]);
        for (let i = 0; i < completions && active.length < want; i++) {
          if (busy.has(i)) continue;
          const pod = podFromTemplate(job, sp['template'], {
            generateName: `${name}-${i}-`,
            labels: { ...labels, [INDEX_KEY]: String(i) },
            annotations: { [INDEX_KEY]: String(i) },
          });
          const created = await createPod(ctx, pod);
          if (created) active.push(created);
        }
      } else {
        for (let i = active.length; i < want; i++) {
          const created = await createPod(ctx, podFromTemplate(job, sp['template'], { labels }));
          if (created) active.push(created);
        }
      }
    }
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }

  if (suspended) {
    upsertCondition(
      st,
      { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' },
      text,
      { probeTime: true },
    );
  } else {
    if (conditionOf(job, 'Suspended')?.['status'] === 'True')
      upsertCondition(
        st,
        { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' },
        text,
        { probeTime: true },
      );
    st['startTime'] ??= text;
  }
  setCount(st, 'active', active.length);
  setCount(st, 'succeeded', succeeded);
  setCount(st, 'failed', failed);
  st['ready'] = active.filter(isPodReady).length;
  st['terminating'] = 0;
  st['uncountedTerminatedPods'] = {};
  if (indexed) {
    const text2 = formatIndexes(completedIndexes);
    if (text2) st['completedIndexes'] = text2;
  }
  if (complete) {
    const message = 'Reached expected number of succeeded pods';
    upsertCondition(
      st,
      { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message },
      text,
      { probeTime: true },
    );
    upsertCondition(st, { type: 'Complete', status: 'True', reason: 'CompletionsReached', message }, text, {
      probeTime: true,
    });
    st['completionTime'] ??= text;
  } else if (failedJob) {
    const message = 'Job has reached the specified backoff limit';
    upsertCondition(
      st,
      { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message },
      text,
      { probeTime: true },
    );
    upsertCondition(st, { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message }, text, {
      probeTime: true,
    });
  }
  await writeStatus(ctx, JOBS, job, st as Json);
  if ((complete || failedJob) && num(sp['ttlSecondsAfterFinished']) !== undefined) ctx.enqueue(key);
}
