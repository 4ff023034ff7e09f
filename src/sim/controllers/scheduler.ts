// Fake kube-scheduler: binds Pending pods without a node to a Ready node that fits (nodeSelector,
// required node affinity incl. DaemonSet matchFields pins, taints/tolerations, cordon), least loaded first.
import { recordEvent } from './events.js';
import type { KubeObject } from '../../store/types.js';
import { isCode, nowText, type SimContext } from './context.js';
import { isNodeReady } from './nodes.js';
import {
  arr,
  field,
  isActive,
  nameOf,
  podCondition,
  spec,
  status,
  str,
  upsertCondition,
  type Json,
} from './util.js';

const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

function tolerates(tolerations: Json[], taint: Json): boolean {
  return tolerations.some((t) => {
    const effect = str(t['effect']) ?? '';
    if (effect !== '' && effect !== taint['effect']) return false;
    const key = str(t['key']) ?? '';
    if ((t['operator'] ?? 'Equal') === 'Exists') return key === '' || key === taint['key'];
    return key === taint['key'] && (str(t['value']) ?? '') === (str(taint['value']) ?? '');
  });
}

function matchExpression(expr: Json, value: string | undefined): boolean {
  const values = (Array.isArray(expr['values']) ? expr['values'] : []) as string[];
  switch (expr['operator']) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}

/** requiredDuringSchedulingIgnoredDuringExecution: any term, all of its expressions and fields. */
function affinityMatches(pod: KubeObject, node: KubeObject): boolean {
  const terms = arr(
    field(
      spec(pod),
      'affinity',
      'nodeAffinity',
      'requiredDuringSchedulingIgnoredDuringExecution',
      'nodeSelectorTerms',
    ),
  );
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return terms.some((term) => {
    const exprs = arr(term['matchExpressions']);
    const fields = arr(term['matchFields']);
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((e) => matchExpression(e, labels[str(e['key']) ?? ''])) &&
      fields.every((f) => f['key'] === 'metadata.name' && matchExpression(f, nameOf(node)))
    );
  });
}

/** The node a DaemonSet-style pod is pinned to through a matchFields metadata.name term, if any. */
export function pinnedNode(pod: KubeObject): string | undefined {
  const nodeName = str(spec(pod)['nodeName']);
  if (nodeName) return nodeName;
  const terms = arr(
    field(
      spec(pod),
      'affinity',
      'nodeAffinity',
      'requiredDuringSchedulingIgnoredDuringExecution',
      'nodeSelectorTerms',
    ),
  );
  for (const term of terms)
    for (const f of arr(term['matchFields']))
      if (f['key'] === 'metadata.name' && f['operator'] === 'In') {
        const v = (f['values'] as unknown[] | undefined)?.[0];
        if (typeof v === 'string') return v;
      }
  return undefined;
}

/** Why a pod cannot go to a node (the scheduler's filter plugins), or undefined when it fits. */
export function misfit(
  pod: KubeObject,
  node: KubeObject,
  options: { ignoreReady?: boolean } = {},
): string | undefined {
  if (node.metadata.deletionTimestamp) return 'node(s) were being deleted';
  const tolerations = arr(spec(pod)['tolerations']);
  if (!options.ignoreReady && !isNodeReady(node))
    return 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }';
  if (
    spec(node)['unschedulable'] === true &&
    !tolerates(tolerations, { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' })
  )
    return 'node(s) were unschedulable';
  const selector = spec(pod)['nodeSelector'];
  if (selector && typeof selector === 'object') {
    const labels = node.metadata.labels ?? {};
    for (const [k, v] of Object.entries(selector as Record<string, string>))
      if (labels[k] !== v) return "node(s) didn't match Pod's node affinity/selector";
  }
  if (!affinityMatches(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  for (const taint of arr(spec(node)['taints'])) {
    if (taint['effect'] !== 'NoSchedule' && taint['effect'] !== 'NoExecute') continue;
    if (!tolerates(tolerations, taint))
      return `node(s) had untolerated taint {${str(taint['key']) ?? ''}: ${str(taint['value']) ?? ''}}`;
  }
  return undefined;
}

function wantsDefaultScheduler(pod: KubeObject): boolean {
  const name = str(spec(pod)['schedulerName']);
  return name === undefined || name === 'default-scheduler';
}

/** One scheduling pass over every unbound pod of the cluster. */
export async function schedulePending(ctx: SimContext): Promise<void> {
  const pods = (await ctx.store.list('pods')).items;
  const pending = pods.filter(
    (p) =>
      !str(spec(p)['nodeName']) &&
      isActive(p) &&
      wantsDefaultScheduler(p) &&
      status(p)['phase'] !== 'Running',
  );
  if (pending.length === 0) return;
  const nodes = (await ctx.store.list('nodes')).items;
  const load = new Map<string, number>();
  for (const p of pods) {
    const n = str(spec(p)['nodeName']);
    if (n && isActive(p)) load.set(n, (load.get(n) ?? 0) + 1);
  }
  // Oldest first, as the scheduler's queue orders by priority then arrival.
  pending.sort((a, b) =>
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
  );
  for (const pod of pending) {
    const reasons = new Map<string, number>();
    let best: KubeObject | undefined;
    for (const node of nodes) {
      // A node holds at most its allocatable pod count (110 by default), as kube-scheduler's NodeResourcesFit.
      const capacity = Number(
        (status(node)['allocatable'] as Record<string, unknown> | undefined)?.['pods'] ?? 110,
      );
      const why =
        misfit(pod, node) ?? ((load.get(nameOf(node)) ?? 0) >= capacity ? 'Too many pods' : undefined);
      if (why) {
        reasons.set(why, (reasons.get(why) ?? 0) + 1);
        continue;
      }
      if (!best || (load.get(nameOf(node)) ?? 0) < (load.get(nameOf(best)) ?? 0)) best = node;
    }
    try {
      if (best) {
        await bind(ctx, pod, nameOf(best));
        load.set(nameOf(best), (load.get(nameOf(best)) ?? 0) + 1);
      } else {
        const detail = [...reasons].map(([why, n]) => `${n} ${why}`).join(', ');
        const message =
          `0/${nodes.length} nodes are available: ${detail || 'no nodes available to schedule pods'}. ` +
          `preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
        await markUnschedulable(ctx, pod, message);
      }
    } catch (e) {
      // The pod changed or went away meanwhile; its own event brings it back.
      if (!isCode(e, 404, 409)) throw e;
    }
  }
}

/** The pods/binding subresource's effect: nodeName and PodScheduled=True in one write. */
async function bind(ctx: SimContext, pod: KubeObject, node: string): Promise<void> {
  const next = structuredClone(pod);
  (next['spec'] as Json)['nodeName'] = node;
  const st = (next['status'] ??= {}) as Json;
  st['phase'] ??= 'Pending';
  upsertCondition(st, { type: 'PodScheduled', status: 'True' }, nowText(ctx), { probeTime: true });
  const bound = await ctx.store.update('pods', next);
  await recordEvent(
    ctx,
    bound,
    'Scheduled',
    `Successfully assigned ${bound.metadata.namespace ?? ''}/${bound.metadata.name ?? ''} to ${node}`,
    'default-scheduler',
  );
}

async function markUnschedulable(ctx: SimContext, pod: KubeObject, message: string): Promise<void> {
  const current = podCondition(pod, 'PodScheduled');
  if (current?.['status'] === 'False' && current['message'] === message) return;
  const st = structuredClone(status(pod));
  st['phase'] ??= 'Pending';
  upsertCondition(
    st,
    { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message },
    nowText(ctx),
    {
      probeTime: true,
    },
  );
  await ctx.store.update('pods', { ...pod, status: st }, { subresource: 'status' });
}
