// What the other add-on works of a cluster deliver, read from the informer cache: the ownership index a
// summary decides against, and the orphaning rules that keep an object in the cluster while it changes hands.
import { isJsonObject, type JsonObject } from '../../apiserver/patch/json.js';
import {
  identityOf,
  isShared,
  keyOf,
  objectKey,
  ownerOf,
  type Conflict,
  type Holding,
  type ObjectIdentity,
} from '../../addons/ownership.js';
import { ANNOTATION_DRY_RUN, LABEL_CLUSTER, LABEL_CLUSTER_SUMMARY, RESOURCES } from '../../fleet/names.js';
import type { KubeObject } from '../../store/types.js';
import { isDeleting } from '../runtime/finalizers.js';
import type { CacheReader } from '../runtime/reconcile.js';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An OCM orphaning rule: group, resource, namespace, name. */
export interface OrphaningRule {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

export function manifestsOf(work: KubeObject | undefined): JsonObject[] {
  return list(asObj(asObj(work?.['spec'])['workload'])['manifests']).filter(isJsonObject);
}

/** The resource (plural) of each delivered object, as the agent found it in discovery (work status). */
function resourcesReported(work: KubeObject): Map<string, string> {
  const out = new Map<string, string>();
  const manifests = asObj(asObj(work['status'])['resourceStatus'])['manifests'];
  for (const m of list(manifests)) {
    const meta = asObj(asObj(m)['resourceMeta']);
    const resource = text(meta['resource']);
    if (resource)
      out.set(
        keyOf({
          group: text(meta['group']),
          kind: text(meta['kind']),
          namespace: text(meta['namespace']),
          name: text(meta['name']),
        }),
        resource,
      );
  }
  return out;
}

/** The delivered objects of a work with their resource: from its status when reported, else guessed. */
export function identitiesOf(work: KubeObject): ObjectIdentity[] {
  const reported = resourcesReported(work);
  return manifestsOf(work).map((m) => identityOf(m, reported.get(objectKey(m))));
}

const ruleKey = (r: OrphaningRule): string => `${r.group}|${r.resource}|${r.namespace}|${r.name}`;

export function orphaningRulesOf(work: KubeObject): OrphaningRule[] {
  const option = asObj(asObj(work['spec'])['deleteOption']);
  return list(asObj(option['selectivelyOrphans'])['orphaningRules']).map((r) => {
    const o = asObj(r);
    return {
      group: text(o['group']),
      resource: text(o['resource']),
      namespace: text(o['namespace']),
      name: text(o['name']),
    };
  });
}

/** The live, delivering add-on works of a cluster other than the summary's own (dry runs deliver nothing). */
export function siblingWorks(
  cache: CacheReader,
  namespace: string,
  clusterName: string,
  summaryName: string,
): KubeObject[] {
  // By label index: a cluster's few works, not every work of the namespace (agents' own works included).
  return cache
    .byLabel(RESOURCES.manifestWorks, LABEL_CLUSTER, clusterName, namespace)
    .filter(
      (w) =>
        w.metadata.labels?.[LABEL_CLUSTER_SUMMARY] !== undefined &&
        w.metadata.labels[LABEL_CLUSTER_SUMMARY] !== summaryName &&
        w.metadata.annotations?.[ANNOTATION_DRY_RUN] !== 'true' &&
        !isDeleting(w),
    );
}

export function holdingOf(work: KubeObject): Holding {
  const objects = new Map(
    manifestsOf(work)
      .filter((m) => !isShared(m))
      .map((m) => [objectKey(m), ownerOf(m)]),
  );
  return {
    summary: work.metadata.labels?.[LABEL_CLUSTER_SUMMARY] ?? '',
    since: work.metadata.creationTimestamp ?? '',
    objects,
  };
}

/**
 * Orphaning rules for objects this summary wants but another work holds: the resource named as the
 * holder's agent reported it, so the holder finds the same rule when it withdraws.
 */
export function rulesForConflicts(
  conflicts: readonly Conflict[],
  siblings: readonly KubeObject[],
): OrphaningRule[] {
  const reported = new Map<string, string>();
  for (const w of siblings) for (const id of identitiesOf(w)) reported.set(keyOf(id), id.resource);
  return conflicts.map(({ key, object }) => ({
    group: object.group,
    resource: reported.get(key) ?? object.resource,
    namespace: object.namespace,
    name: object.name,
  }));
}

/**
 * What a withdrawing work must leave in the cluster: its objects another work delivers now, or wants and
 * waits for (an orphaning rule there) — the next owner takes them over as they are.
 */
export function handedOver(work: KubeObject, siblings: readonly KubeObject[]): OrphaningRule[] {
  const delivered = new Set<string>();
  const wanted = new Set<string>();
  for (const w of siblings) {
    for (const m of manifestsOf(w)) delivered.add(objectKey(m));
    for (const r of orphaningRulesOf(w)) wanted.add(ruleKey(r));
  }
  return identitiesOf(work)
    .filter((id) => delivered.has(keyOf(id)) || wanted.has(ruleKey(id)))
    .map(({ group, resource, namespace, name }) => ({ group, resource, namespace, name }));
}

/** Shared objects (a release's namespace) stay in the cluster whoever lets them go. */
export function rulesForShared(manifests: readonly JsonObject[]): OrphaningRule[] {
  return manifests
    .filter(isShared)
    .map((m) => identityOf(m))
    .map(({ group, resource, namespace, name }) => ({ group, resource, namespace, name }));
}
