// Pure drift rules for the agent's watches: which resources to watch for a work, and whether a watch
// event on a managed object is drift to correct (not the echo of our own write, nor a status change).
import { ANNOTATION_DRIFT_CORRECTION } from '../../fleet/names.js';
import type { WatchEventType } from '../../kube/types.js';
import type { KubeObject } from '../../store/types.js';
import { objectFingerprint } from './objects.js';
import type { AppliedRecord, AppliedResource, ManifestWork } from './types.js';

/** One watch the agent needs: a resource, in one namespace ('' = cluster-scoped). */
export interface WatchTarget {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespace: string;
}

/** Drift correction is on unless the work's annotation says "false". */
export function driftCorrectionEnabled(work: Pick<ManifestWork, 'metadata'>): boolean {
  return work.metadata.annotations?.[ANNOTATION_DRIFT_CORRECTION] !== 'false';
}

/** The distinct (group, version, resource, namespace) sets to watch; none when drift correction is off. */
export function watchTargets(work: Pick<ManifestWork, 'metadata'>, record: AppliedRecord): WatchTarget[] {
  if (!driftCorrectionEnabled(work)) return [];
  const seen = new Map<string, WatchTarget>();
  for (const r of record.resources) {
    if (r.strategy === 'ReadOnly') continue;
    const key = `${r.group}|${r.version}|${r.resource}|${r.namespace}`;
    if (!seen.has(key)) {
      seen.set(key, {
        group: r.group,
        version: r.version,
        resource: r.resource,
        kind: r.kind,
        namespace: r.namespace,
      });
    }
  }
  return [...seen.values()].sort((a, b) =>
    `${a.group}/${a.resource}/${a.namespace}`.localeCompare(`${b.group}/${b.resource}/${b.namespace}`),
  );
}

export interface DriftDecision {
  drift: boolean;
  /** Why, in a few words (for logs). */
  reason: string;
  /** The record entry the event is about, when there is one. */
  resource?: AppliedResource;
}

/**
 * Whether a watch event on `obj` (a `ref.group`/`ref.resource` object) is drift that needs the work
 * re-applied. Drift: the object is in the record with the same uid, drift correction is on, and either it
 * was DELETED, or it was MODIFIED to a resourceVersion we did not leave it at with content (status and
 * volatile metadata aside) that differs from what we left. CreateOnly objects only drift by deletion.
 */
export function isDrift(
  work: Pick<ManifestWork, 'metadata'>,
  record: AppliedRecord,
  ref: { group: string; resource: string },
  type: WatchEventType,
  obj: KubeObject,
): DriftDecision {
  if (type !== 'MODIFIED' && type !== 'DELETED') return { drift: false, reason: `${type} event` };
  const namespace = obj.metadata.namespace ?? '';
  const name = obj.metadata.name ?? '';
  const resource = record.resources.find(
    (r) =>
      r.group === ref.group && r.resource === ref.resource && r.namespace === namespace && r.name === name,
  );
  if (!resource) return { drift: false, reason: 'not applied by this work' };
  if (resource.strategy === 'ReadOnly') return { drift: false, reason: 'read-only', resource };
  if (!driftCorrectionEnabled(work)) return { drift: false, reason: 'drift correction is off', resource };
  if (resource.uid && obj.metadata.uid && resource.uid !== obj.metadata.uid) {
    return { drift: false, reason: 'another object (uid) with the same name', resource };
  }
  if (type === 'DELETED') return { drift: true, reason: 'deleted', resource };
  if (resource.strategy === 'CreateOnly') return { drift: false, reason: 'create-only', resource };
  if (obj.metadata.deletionTimestamp) return { drift: false, reason: 'being deleted', resource };
  if (resource.resourceVersion && obj.metadata.resourceVersion === resource.resourceVersion) {
    return { drift: false, reason: 'echo of our own write', resource };
  }
  if (resource.fingerprint && objectFingerprint(obj) === resource.fingerprint) {
    return { drift: false, reason: 'status or bookkeeping change only', resource };
  }
  return { drift: true, reason: 'modified', resource };
}
