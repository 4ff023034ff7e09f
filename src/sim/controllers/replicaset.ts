// ReplicaSet controller: keeps `spec.replicas` active pods named `<rs>-<5 chars>` under a controller
// reference (adopting matching orphans), deletes the least useful pods first, and reports status.
import { recordEvent } from './events.js';
import type { KubeObject } from '../../store/types.js';
import { createObject, deletePod, isCode, nowMs, writeStatus, type SimContext } from './context.js';
import {
  availableAt,
  controllerRef,
  controllerRefTo,
  controlledBy,
  isActive,
  isPodAvailable,
  isPodReady,
  nameOf,
  num,
  podPhase,
  randomSuffix,
  selectorMatcher,
  spec,
  status,
  str,
  type Json,
} from './util.js';

export const REPLICASETS = 'replicasets.apps';

/** A pod as a workload controller creates it from its template (GetPodFromTemplate). */
export function podFromTemplate(
  owner: KubeObject,
  template: unknown,
  options: {
    name?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): KubeObject {
  const tmpl = (template ?? {}) as Json;
  const meta = (tmpl['metadata'] ?? {}) as Json;
  const generateName = options.generateName ?? `${nameOf(owner)}-`;
  const labels = { ...((meta['labels'] as Record<string, string> | undefined) ?? {}), ...options.labels };
  const annotations = {
    ...((meta['annotations'] as Record<string, string> | undefined) ?? {}),
    ...options.annotations,
  };
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name ?? `${generateName}${randomSuffix()}`,
      namespace: owner.metadata.namespace ?? '',
      labels,
      ownerReferences: [controllerRefTo(owner)],
    },
    spec: structuredClone((tmpl['spec'] ?? {}) as Json),
    status: { phase: 'Pending' },
  };
  if (!options.name) pod.metadata.generateName = generateName;
  if (Object.keys(annotations).length) pod.metadata.annotations = annotations;
  if (Array.isArray(meta['finalizers'])) pod.metadata.finalizers = [...(meta['finalizers'] as string[])];
  return pod;
}

/** Creates a pod with a random-suffixed name, retrying a taken name. */
export async function createPod(ctx: SimContext, pod: KubeObject): Promise<KubeObject | undefined> {
  const generateName = pod.metadata.generateName;
  return createObject(ctx, 'pods', pod, generateName ? () => `${generateName}${randomSuffix()}` : undefined);
}

/** Lower = deleted first (controller.ActivePods ordering): unscheduled, pending, unready, newest. */
export function deletionRank(a: KubeObject, b: KubeObject): number {
  const assigned = (p: KubeObject) => (str(spec(p)['nodeName']) ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: KubeObject) => ({ Pending: 0, Unknown: 1, Running: 2 })[podPhase(p)] ?? 1;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  return (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '');
}

/** Pods the owner controls, after adopting orphans its selector matches (ClaimPods). */
export async function claimPods(
  ctx: SimContext,
  owner: KubeObject,
  selector: unknown,
): Promise<KubeObject[]> {
  const matches = selectorMatcher(selector);
  const pods = (await ctx.store.list('pods', { namespace: owner.metadata.namespace ?? '' })).items;
  const owned: KubeObject[] = [];
  for (const pod of pods) {
    if (controlledBy(pod, owner)) owned.push(pod);
    else if (!controllerRef(pod) && isActive(pod) && matches(pod.metadata.labels)) {
      try {
        const refs = [...(pod.metadata.ownerReferences ?? []), controllerRefTo(owner)];
        owned.push(
          await ctx.store.update('pods', { ...pod, metadata: { ...pod.metadata, ownerReferences: refs } }),
        );
      } catch (e) {
        if (!isCode(e, 404, 409)) throw e;
      }
    }
  }
  return owned;
}

export async function syncReplicaSet(ctx: SimContext, ns: string, name: string): Promise<void> {
  const rs = await ctx.store.get(REPLICASETS, ns, name);
  if (!rs || rs.metadata.deletionTimestamp) return;
  const sp = spec(rs);
  const replicas = num(sp['replicas']) ?? 1;
  const minReadySeconds = num(sp['minReadySeconds']) ?? 0;
  const pods = await claimPods(ctx, rs, sp['selector']);
  let active = pods.filter(isActive);
  const diff = active.length - replicas;
  if (diff < 0) {
    for (let i = 0; i < -diff; i++) {
      const created = await createPod(ctx, podFromTemplate(rs, sp['template']));
      if (created)
        await recordEvent(
          ctx,
          rs,
          'SuccessfulCreate',
          `Created pod: ${created.metadata.name ?? ''}`,
          'replicaset-controller',
        );
      if (created) active.push(created);
    }
  } else if (diff > 0) {
    const doomed = [...active].sort(deletionRank).slice(0, diff);
    for (const pod of doomed) await deletePod(ctx, pod);
    active = active.filter((p) => !doomed.includes(p));
  }
  const now = nowMs(ctx);
  const templateLabels = ((sp['template'] as Json | undefined)?.['metadata'] as Json | undefined)?.[
    'labels'
  ] as Record<string, string> | undefined;
  const fullyLabeled = active.filter((p) =>
    Object.entries(templateLabels ?? {}).every(([k, v]) => p.metadata.labels?.[k] === v),
  ).length;
  const ready = active.filter(isPodReady).length;
  const available = active.filter((p) => isPodAvailable(p, minReadySeconds, now)).length;
  // A pod that becomes available only after minReadySeconds needs a look then.
  const later = active
    .map((p) => availableAt(p, minReadySeconds))
    .filter((t): t is number => t !== undefined && t > now);
  if (later.length) ctx.enqueue(`rs|${ns}|${name}`, Math.min(...later) - now);
  const st: Json = { ...status(rs), replicas: active.length };
  setCount(st, 'fullyLabeledReplicas', fullyLabeled);
  setCount(st, 'readyReplicas', ready);
  setCount(st, 'availableReplicas', available);
  st['observedGeneration'] = rs.metadata.generation ?? 1;
  try {
    await writeStatus(ctx, REPLICASETS, rs, st);
  } catch (e) {
    if (!isCode(e, 404)) throw e;
  }
}

/** omitempty integers, as Go's JSON encoder leaves zero counts out. */
export function setCount(st: Json, key: string, n: number): void {
  if (n === 0) Reflect.deleteProperty(st, key);
  else st[key] = n;
}
