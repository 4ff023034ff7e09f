// Disruption controller (PodDisruptionBudget status) and the eviction subresource's decision, after
// kube's disruption.go and eviction.go: budgets from controllers' scale, disruptedPods bookkeeping, 429/500 rules.
import type { KubeObject, Store } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { isConflict } from '../../controllers/runtime/retry.js';
import { isCode, nowMs, writeStatus, type SimContext } from './context.js';
import {
  arr,
  controllerRef,
  formatTime,
  isPodReady,
  num,
  parseTime,
  podPhase,
  scaled,
  selectorEmpty,
  selectorMatcher,
  spec,
  status,
  str,
  upsertCondition,
  type Json,
} from './util.js';

export const PDBS = 'poddisruptionbudgets.policy';
/** disruption.go's DeletionTimeout: an evicted pod not deleted by then counts as healthy again. */
const DELETION_TIMEOUT_MS = 2 * 60_000;

export type EvictionDecision =
  | { allowed: true }
  | {
      allowed: false;
      code: 429 | 500;
      message: string;
      /** The DisruptionBudget cause's message (also in `causes`). */
      cause?: string;
      /** The Status details kube sends with it (DisruptionBudget cause, retryAfterSeconds). */
      causes?: StatusCause[];
      retryAfterSeconds?: number;
    };

const CONTROLLER_RESOURCES: Record<string, string> = {
  ReplicaSet: 'replicasets.apps',
  StatefulSet: 'statefulsets.apps',
  ReplicationController: 'replicationcontrollers',
  Deployment: 'deployments.apps',
};

/** The scale of every controller of `pods`, each counted once (getExpectedScale). */
async function expectedScale(store: Store, ns: string, pods: KubeObject[]): Promise<number> {
  const seen = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerRef(pod);
    if (!ref) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
    if (seen.has(ref.uid)) continue;
    const resource = CONTROLLER_RESOURCES[ref.kind];
    if (!resource) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
    let owner = await store.get(resource, ns, ref.name);
    if (!owner || owner.metadata.uid !== ref.uid)
      throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
    // A Deployment's ReplicaSet scales with the Deployment.
    const parent = controllerRef(owner);
    if (ref.kind === 'ReplicaSet' && parent?.kind === 'Deployment') {
      if (seen.has(parent.uid)) {
        seen.set(ref.uid, 0);
        continue;
      }
      const d = await store.get('deployments.apps', ns, parent.name);
      if (d && d.metadata.uid === parent.uid) {
        seen.set(parent.uid, num(spec(d)['replicas']) ?? 1);
        seen.set(ref.uid, 0);
        continue;
      }
    }
    seen.set(ref.uid, num(spec(owner)['replicas']) ?? 1);
    owner = undefined;
  }
  return [...seen.values()].reduce((a, b) => a + b, 0);
}

/** expectedPods and desiredHealthy for a budget over `pods` (getExpectedPodCount). */
async function budgetOf(
  store: Store,
  pdb: KubeObject,
  pods: KubeObject[],
): Promise<{ expected: number; desired: number }> {
  const sp = spec(pdb);
  const ns = pdb.metadata.namespace ?? '';
  if (sp['maxUnavailable'] !== undefined && sp['maxUnavailable'] !== null) {
    const expected = await expectedScale(store, ns, pods);
    const maxUnavailable = scaled(sp['maxUnavailable'], expected, true, 0);
    return { expected, desired: Math.max(0, expected - maxUnavailable) };
  }
  const minAvailable = sp['minAvailable'] ?? 1;
  if (typeof minAvailable === 'number') return { expected: pods.length, desired: minAvailable };
  const expected = await expectedScale(store, ns, pods);
  return { expected, desired: scaled(minAvailable, expected, true, 0) };
}

/** Recomputes the status of every budget in a namespace. */
export async function syncDisruptionBudgets(ctx: SimContext, ns: string): Promise<void> {
  const pdbs = (await ctx.store.list(PDBS, { namespace: ns })).items;
  if (pdbs.length === 0) return;
  const pods = (await ctx.store.list('pods', { namespace: ns })).items;
  const now = nowMs(ctx);
  const text = formatTime(now);
  for (const pdb of pdbs) {
    if (pdb.metadata.deletionTimestamp) continue;
    const matches = selectorMatcher(spec(pdb)['selector']);
    const matched = pods.filter((p) => matches(p.metadata.labels));
    const st = structuredClone(status(pdb));
    // Evicted pods stay out of the healthy count until they are deleted or the eviction times out.
    const disrupted: Record<string, string> = {};
    let recheck: number | undefined;
    for (const [podName, at] of Object.entries((st['disruptedPods'] ?? {}) as Record<string, string>)) {
      const pod = matched.find((p) => p.metadata.name === podName);
      const t = parseTime(at) ?? 0;
      if (!pod || pod.metadata.deletionTimestamp || t + DELETION_TIMEOUT_MS <= now) continue;
      disrupted[podName] = at;
      recheck = Math.min(recheck ?? Infinity, t + DELETION_TIMEOUT_MS);
    }
    if (recheck !== undefined) ctx.enqueue(`pdb|${ns}`, recheck - now);
    const healthy = matched.filter(
      (p) => !p.metadata.deletionTimestamp && isPodReady(p) && disrupted[p.metadata.name ?? ''] === undefined,
    ).length;
    st['observedGeneration'] = pdb.metadata.generation ?? 1;
    if (Object.keys(disrupted).length) st['disruptedPods'] = disrupted;
    else delete st['disruptedPods'];
    try {
      const { expected, desired } = await budgetOf(ctx.store, pdb, matched);
      st['currentHealthy'] = healthy;
      st['desiredHealthy'] = desired;
      st['expectedPods'] = expected;
      st['disruptionsAllowed'] = Math.max(0, healthy - desired);
      setAllowedCondition(st, text, pdb);
    } catch (e) {
      st['disruptionsAllowed'] = 0;
      upsertCondition(
        st,
        {
          type: 'DisruptionAllowed',
          status: 'False',
          reason: 'SyncFailed',
          message: e instanceof Error ? e.message : String(e),
        },
        text,
      );
    }
    try {
      await writeStatus(ctx, PDBS, pdb, st);
    } catch (e) {
      if (!isCode(e, 404, 409)) throw e;
      if (isCode(e, 409)) ctx.enqueue(`pdb|${ns}`, 50);
    }
  }
}

/** The DisruptionAllowed condition (pdb.UpdateDisruptionAllowedCondition). */
function setAllowedCondition(st: Json, text: string, pdb: KubeObject): void {
  const allowed = (num(st['disruptionsAllowed']) ?? 0) > 0;
  upsertCondition(
    st,
    allowed
      ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
      : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' },
    text,
  );
  const cond = arr(st['conditions']).find((c) => c['type'] === 'DisruptionAllowed');
  if (cond) cond['observedGeneration'] = pdb.metadata.generation ?? 1;
}

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function budgetCause(message: string): { cause: string; causes: StatusCause[] } {
  return { cause: message, causes: [{ reason: 'DisruptionBudget', message }] };
}

/**
 * Whether the eviction subresource may evict `pod` now (registry/core/pod/storage/eviction.go). When it
 * may and a budget covers the pod, the budget's disruptionsAllowed is decremented and the pod recorded
 * in disruptedPods (not with dryRun). Starting the graceful deletion is the caller's part.
 */
export async function evictionDecision(
  store: Store,
  pod: KubeObject,
  options: { dryRun?: boolean; now?: () => number } = {},
): Promise<EvictionDecision> {
  const phase = podPhase(pod);
  // canIgnorePDB: finished, not yet running, or already being deleted.
  if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp)
    return { allowed: true };
  const ns = pod.metadata.namespace ?? '';
  const podName = pod.metadata.name ?? '';
  for (let attempt = 0; ; attempt++) {
    const pdbs = (await store.list(PDBS, { namespace: ns })).items.filter((pdb) => {
      const selector = spec(pdb)['selector'];
      // A nil or empty selector matches nothing here, unlike in the disruption controller.
      return !selectorEmpty(selector) && selectorMatcher(selector)(pod.metadata.labels);
    });
    if (pdbs.length === 0) return { allowed: true };
    if (pdbs.length > 1)
      return {
        allowed: false,
        code: 500,
        // eviction.go answers with a bare Status (code 500, no reason), not an InternalError.
        message:
          'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      };
    const pdb = pdbs[0]!;
    const st = structuredClone(status(pdb));
    const policy = str(spec(pdb)['unhealthyPodEvictionPolicy']) ?? 'IfHealthyBudget';
    const ready = isPodReady(pod);
    if (!ready && policy === 'AlwaysAllow') return { allowed: true };
    const currentHealthy = num(st['currentHealthy']) ?? 0;
    const desiredHealthy = num(st['desiredHealthy']) ?? 0;
    if (!ready && currentHealthy >= desiredHealthy && desiredHealthy > 0) return { allowed: true };
    if ((num(st['observedGeneration']) ?? 0) < (pdb.metadata.generation ?? 1))
      return {
        allowed: false,
        code: 429,
        message: VIOLATION,
        ...budgetCause(
          `The disruption budget ${pdb.metadata.name ?? ''} is still being processed by the server.`,
        ),
        retryAfterSeconds: 10,
      };
    const allowed = num(st['disruptionsAllowed']) ?? 0;
    if (allowed <= 0)
      return {
        allowed: false,
        code: 429,
        message: VIOLATION,
        ...budgetCause(
          `The disruption budget ${pdb.metadata.name ?? ''} needs ${desiredHealthy} healthy pods and has ${currentHealthy} currently`,
        ),
        retryAfterSeconds: 0,
      };
    if (options.dryRun) return { allowed: true };
    st['disruptionsAllowed'] = allowed - 1;
    const text = formatTime((options.now ?? Date.now)());
    st['disruptedPods'] = { ...((st['disruptedPods'] ?? {}) as Record<string, string>), [podName]: text };
    setAllowedCondition(st, text, pdb);
    try {
      await store.update(PDBS, { ...pdb, status: st }, { subresource: 'status' });
      return { allowed: true };
    } catch (e) {
      // Another eviction took a disruption meanwhile: decide again on the fresh budget.
      if (!isConflict(e) || attempt >= 4) throw e;
    }
  }
}
