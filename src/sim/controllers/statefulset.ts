// StatefulSet controller: pods `<name>-0..n-1` created in order (each after the previous is Ready) or in
// parallel, removed from the top, rolled from the highest ordinal down above the partition, with revision status.
import type { KubeObject } from '../../store/types.js';
import { createObject, deletePod, isCode, writeStatus, type SimContext } from './context.js';
import { REVISION_HASH } from './daemonset.js';
import { createPod, podFromTemplate, setCount } from './replicaset.js';
import { revisionTemplate, syncRevisions } from './revisions.js';
import {
  arr,
  controlledBy,
  field,
  isActive,
  isPodReady,
  isTerminal,
  nameOf,
  num,
  spec,
  status,
  str,
  templateHash,
  type Json,
} from './util.js';

export const STATEFULSETS = 'statefulsets.apps';

function ordinalOf(set: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${nameOf(set)}-`;
  const name = nameOf(pod);
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

function statefulPod(set: KubeObject, ordinal: number, revision: string, template: unknown): KubeObject {
  const podName = `${nameOf(set)}-${ordinal}`;
  const pod = podFromTemplate(set, template, {
    name: podName,
    labels: {
      [REVISION_HASH]: revision,
      'statefulset.kubernetes.io/pod-name': podName,
      'apps.kubernetes.io/pod-index': String(ordinal),
    },
  });
  const ps = pod['spec'] as Json;
  ps['hostname'] = podName;
  const service = str(spec(set)['serviceName']);
  if (service) ps['subdomain'] = service;
  const volumes = arr(ps['volumes']);
  for (const claim of arr(spec(set)['volumeClaimTemplates'])) {
    const claimName = str(field(claim, 'metadata', 'name'));
    if (!claimName || volumes.some((v) => v['name'] === claimName)) continue;
    volumes.push({ name: claimName, persistentVolumeClaim: { claimName: `${claimName}-${podName}` } });
  }
  if (volumes.length) ps['volumes'] = volumes;
  return pod;
}

/** The claims of volumeClaimTemplates for one pod, created Bound (there is no volume provisioner). */
async function ensureClaims(ctx: SimContext, set: KubeObject, podName: string): Promise<void> {
  for (const claim of arr(spec(set)['volumeClaimTemplates'])) {
    const claimName = str(field(claim, 'metadata', 'name'));
    if (!claimName) continue;
    const name = `${claimName}-${podName}`;
    if (await ctx.store.get('persistentvolumeclaims', set.metadata.namespace ?? '', name)) continue;
    const labels = {
      ...((field(claim, 'metadata', 'labels') as Record<string, string> | undefined) ?? {}),
      ...(field(spec(set), 'selector', 'matchLabels') as Record<string, string> | undefined),
    };
    try {
      await createObject(ctx, 'persistentvolumeclaims', {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: set.metadata.namespace ?? '', labels },
        spec: { volumeMode: 'Filesystem', ...((claim['spec'] as Json | undefined) ?? {}) },
        status: {
          phase: 'Bound',
          accessModes: field(claim, 'spec', 'accessModes') ?? ['ReadWriteOnce'],
          capacity: field(claim, 'spec', 'resources', 'requests') ?? { storage: '1Gi' },
        },
      });
    } catch (e) {
      if (!isCode(e, 409)) throw e;
    }
  }
}

export async function syncStatefulSet(ctx: SimContext, ns: string, name: string): Promise<void> {
  const set = await ctx.store.get(STATEFULSETS, ns, name);
  if (!set || set.metadata.deletionTimestamp) return;
  const sp = spec(set);
  const replicas = num(sp['replicas']) ?? 1;
  const parallel = sp['podManagementPolicy'] === 'Parallel';
  const hash = templateHash(sp['template']);
  const updateRevision = `${name}-${hash}`;
  const currentRevision = str(status(set)['currentRevision']) ?? updateRevision;
  const revisions = await syncRevisions(ctx, set, hash, [currentRevision]);
  const currentTemplate = revisionTemplate(
    revisions.find((cr) => nameOf(cr) === currentRevision) ?? { metadata: {} },
  );
  const rolling = (str(field(sp, 'updateStrategy', 'type')) ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = num(field(sp, 'updateStrategy', 'rollingUpdate', 'partition')) ?? 0;

  const pods = (await ctx.store.list('pods', { namespace: ns })).items.filter((p) => controlledBy(p, set));
  const byOrdinal = new Map<number, KubeObject>();
  for (const p of pods) {
    const i = ordinalOf(set, p);
    if (i !== undefined) byOrdinal.set(i, p);
  }
  const healthy = (p: KubeObject | undefined) => p !== undefined && isActive(p) && isPodReady(p);

  try {
    // Failed or finished pods are replaced; the replacement comes next round.
    for (const [i, p] of byOrdinal)
      if (isTerminal(p) && !p.metadata.deletionTimestamp) {
        await deletePod(ctx, p);
        byOrdinal.delete(i);
      }
    let blocked = false;
    for (let i = 0; i < replicas && !blocked; i++) {
      const p = byOrdinal.get(i);
      if (!p) {
        const podName = `${name}-${i}`;
        await ensureClaims(ctx, set, podName);
        // Ordinals below the partition are recreated at the current revision.
        const old = rolling && i < partition && currentTemplate !== undefined;
        const pod = old
          ? statefulPod(set, i, currentRevision, currentTemplate)
          : statefulPod(set, i, updateRevision, sp['template']);
        const created = await createPod(ctx, pod);
        if (created) byOrdinal.set(i, created);
        if (!parallel) blocked = true;
      } else if (!parallel && !healthy(p)) blocked = true;
    }
    // Scale down from the highest ordinal; OrderedReady waits for each to be gone.
    const condemned = [...byOrdinal.keys()].filter((i) => i >= replicas).sort((a, b) => b - a);
    for (const i of condemned) {
      const p = byOrdinal.get(i)!;
      if (p.metadata.deletionTimestamp) {
        if (!parallel) break;
        continue;
      }
      if (!parallel && [...byOrdinal.entries()].some(([j, q]) => j < replicas && !healthy(q))) break;
      await deletePod(ctx, p);
      if (!parallel) break;
    }
    // Rolling update: one pod at a time from the top, once every pod is Ready.
    if (rolling && condemned.length === 0) {
      const ordinals = [...Array(replicas).keys()];
      if (ordinals.every((i) => healthy(byOrdinal.get(i)))) {
        const target = ordinals
          .reverse()
          .find(
            (i) => i >= partition && byOrdinal.get(i)!.metadata.labels?.[REVISION_HASH] !== updateRevision,
          );
        if (target !== undefined) await deletePod(ctx, byOrdinal.get(target)!);
      }
    }
  } catch (e) {
    if (!isCode(e, 404, 409)) throw e;
  }

  const active = [...byOrdinal.values()].filter(
    (p) => p.metadata.deletionTimestamp === undefined && !isTerminal(p),
  );
  const ready = active.filter(isPodReady).length;
  const updated = active.filter((p) => p.metadata.labels?.[REVISION_HASH] === updateRevision).length;
  let current = active.filter((p) => p.metadata.labels?.[REVISION_HASH] === currentRevision).length;
  let currentRev = currentRevision;
  // completeRollingUpdate: every pod is at the update revision and Ready.
  if (updated === replicas && ready === replicas && active.length === replicas) {
    currentRev = updateRevision;
    current = updated;
  }
  const st: Json = {
    ...status(set),
    observedGeneration: set.metadata.generation ?? 1,
    replicas: active.length,
    currentRevision: currentRev,
    updateRevision,
    collisionCount: 0,
  };
  setCount(st, 'readyReplicas', ready);
  setCount(st, 'availableReplicas', ready);
  setCount(st, 'currentReplicas', current);
  setCount(st, 'updatedReplicas', updated);
  await writeStatus(ctx, STATEFULSETS, set, st);
}
