// DaemonSet controller: one pod per eligible node (Ready, nodeSelector/affinity, taints), pinned by a
// matchFields node affinity the scheduler honours; cordoned nodes keep theirs, as DaemonSet pods tolerate unschedulable.
import type { KubeObject } from '../../store/types.js';
import { deletePod, isCode, nowMs, writeStatus, type SimContext } from './context.js';
import { createPod, podFromTemplate, setCount } from './replicaset.js';
import { syncRevisions } from './revisions.js';
import { misfit, pinnedNode } from './scheduler.js';
import {
  availableAt,
  controlledBy,
  field,
  isActive,
  isPodAvailable,
  isPodReady,
  nameOf,
  num,
  scaled,
  spec,
  status,
  str,
  templateHash,
  type Json,
} from './util.js';

export const DAEMONSETS = 'daemonsets.apps';
export const REVISION_HASH = 'controller-revision-hash';

/** util.AddOrUpdateDaemonPodTolerations: what every DaemonSet pod tolerates. */
const DAEMON_TOLERATIONS: Json[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

function daemonPod(ds: KubeObject, node: string, hash: string): KubeObject {
  const pod = podFromTemplate(ds, spec(ds)['template'], {
    labels: { [REVISION_HASH]: hash, 'pod-template-generation': String(ds.metadata.generation ?? 1) },
  });
  const ps = pod['spec'] as Json;
  const tolerations = Array.isArray(ps['tolerations']) ? [...(ps['tolerations'] as Json[])] : [];
  for (const t of DAEMON_TOLERATIONS)
    if (!tolerations.some((x) => x['key'] === t['key'] && x['effect'] === t['effect'])) tolerations.push(t);
  ps['tolerations'] = tolerations;
  const affinity = (ps['affinity'] ??= {}) as Json;
  const nodeAffinity = (affinity['nodeAffinity'] ??= {}) as Json;
  nodeAffinity['requiredDuringSchedulingIgnoredDuringExecution'] = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
  };
  return pod;
}

export async function syncDaemonSet(ctx: SimContext, ns: string, name: string): Promise<void> {
  const ds = await ctx.store.get(DAEMONSETS, ns, name);
  if (!ds || ds.metadata.deletionTimestamp) return;
  const sp = spec(ds);
  const hash = templateHash(sp['template']);
  const minReadySeconds = num(sp['minReadySeconds']) ?? 0;
  await syncRevisions(ctx, ds, hash, []);
  const nodes = (await ctx.store.list('nodes')).items;
  const pods = (await ctx.store.list('pods', { namespace: ns })).items.filter((p) => controlledBy(p, ds));
  // Nodes that should run a pod now, and nodes where an existing pod may keep running (not Ready).
  const eligible = new Set(nodes.filter((n) => !misfit(daemonPod(ds, nameOf(n), hash), n)).map(nameOf));
  const keep = new Set(
    nodes.filter((n) => !misfit(daemonPod(ds, nameOf(n), hash), n, { ignoreReady: true })).map(nameOf),
  );
  const byNode = new Map<string, KubeObject[]>();
  for (const pod of pods.filter(isActive)) {
    const node = pinnedNode(pod) ?? '';
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  const now = nowMs(ctx);
  try {
    for (const node of eligible) {
      if ((byNode.get(node) ?? []).length > 0) continue;
      const created = await createPod(ctx, daemonPod(ds, node, hash));
      if (created) byNode.set(node, [created]);
    }
    for (const [node, list] of byNode) {
      if (!keep.has(node)) {
        for (const pod of list) await deletePod(ctx, pod);
        byNode.delete(node);
        continue;
      }
      if (list.length > 1) {
        const sorted = [...list].sort((a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
        );
        for (const pod of sorted.slice(1)) await deletePod(ctx, pod);
        byNode.set(node, sorted.slice(0, 1));
      }
    }
    // RollingUpdate: replace outdated pods while at most maxUnavailable nodes lack an available pod.
    if ((str(field(sp, 'updateStrategy', 'type')) ?? 'RollingUpdate') === 'RollingUpdate') {
      const maxUnavailable = Math.max(
        1,
        scaled(field(sp, 'updateStrategy', 'rollingUpdate', 'maxUnavailable') ?? 1, eligible.size, true, 1),
      );
      let unavailable = [...eligible].filter(
        (n) => !(byNode.get(n) ?? []).some((p) => isPodAvailable(p, minReadySeconds, now)),
      ).length;
      const outdated = [...byNode.entries()]
        .filter(([n, list]) => eligible.has(n) && list[0]?.metadata.labels?.[REVISION_HASH] !== hash)
        .sort(
          ([, a], [, b]) =>
            Number(isPodAvailable(a[0]!, minReadySeconds, now)) -
            Number(isPodAvailable(b[0]!, minReadySeconds, now)),
        );
      for (const [node, list] of outdated) {
        const pod = list[0]!;
        const wasAvailable = isPodAvailable(pod, minReadySeconds, now);
        if (wasAvailable && unavailable >= maxUnavailable) break;
        await deletePod(ctx, pod);
        byNode.delete(node);
        if (wasAvailable) unavailable++;
      }
    }
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }

  const onEligible = [...eligible]
    .map((n) => byNode.get(n)?.[0])
    .filter((p): p is KubeObject => p !== undefined);
  const misscheduled = [...byNode.keys()].filter((n) => !eligible.has(n)).length;
  const available = onEligible.filter((p) => isPodAvailable(p, minReadySeconds, now)).length;
  const later = onEligible
    .map((p) => availableAt(p, minReadySeconds))
    .filter((t): t is number => t !== undefined && t > now);
  if (later.length) ctx.enqueue(`ds|${ns}|${name}`, Math.min(...later) - now);
  const st: Json = {
    ...status(ds),
    currentNumberScheduled: onEligible.length,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: eligible.size,
    numberReady: onEligible.filter(isPodReady).length,
    observedGeneration: ds.metadata.generation ?? 1,
  };
  setCount(
    st,
    'updatedNumberScheduled',
    onEligible.filter((p) => p.metadata.labels?.[REVISION_HASH] === hash).length,
  );
  setCount(st, 'numberAvailable', available);
  setCount(st, 'numberUnavailable', eligible.size - available);
  await writeStatus(ctx, DAEMONSETS, ds, st);
}
