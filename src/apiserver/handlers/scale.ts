// The `/scale` subresource of scalable kinds (Deployments, ReplicaSets, StatefulSets, CRDs with
// subresources.scale): an autoscaling/v1 Scale read from and written back to the object's replica fields.
import type { KindDefinition } from '../../kinds/types.js';
import type { KubeObject, Store } from '../../store/types.js';
import { ApiError, errors } from '../../util/errors.js';
import { decodeObjectBody, readBody } from '../body.js';
import type { RequestContext } from '../context.js';
import { applyPatch, patchTypeOf, MERGE_PATCH } from '../patch/index.js';
import { writeJson } from '../respond.js';
import { clone } from './objects.js';

type Path = string[];

/** `.spec.replicas` → ['spec', 'replicas'] (the simple paths CRDs allow for scale). */
function parsePath(path: string): Path {
  return path.replace(/^\./, '').split('.').filter(Boolean);
}

function getAt(obj: unknown, path: Path): unknown {
  let cur = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function setAt(obj: Record<string, unknown>, path: Path, value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (typeof next !== 'object' || next === null) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = value;
}

/** A metav1.LabelSelector as the string `kubectl get --selector` takes. */
export function selectorString(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null) return '';
  const s = selector as {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
  const parts = Object.entries(s.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Built-in scalable kinds (Deployments …) keep replicas in spec/status and compute the selector. */
const BUILTIN_SCALE: ScaleSpec = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
};

function scaleSpecOf(def: KindDefinition): ScaleSpec {
  return def.scale ?? BUILTIN_SCALE;
}

function scaleOf(def: KindDefinition, obj: KubeObject): KubeObject {
  const spec = scaleSpecOf(def);
  const specReplicas = getAt(obj, parsePath(spec.specReplicasPath));
  const statusReplicas = getAt(obj, parsePath(spec.statusReplicasPath));
  // Built-in kinds compute the selector from spec.selector; CRDs name a string field.
  const selector = spec.labelSelectorPath
    ? getAt(obj, parsePath(spec.labelSelectorPath))
    : selectorString((obj['spec'] as { selector?: unknown } | undefined)?.selector);
  const m = obj.metadata;
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace) metadata['namespace'] = m.namespace;
  metadata['uid'] = m.uid;
  metadata['resourceVersion'] = m.resourceVersion;
  metadata['creationTimestamp'] = m.creationTimestamp;
  const status: Record<string, unknown> = {
    replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
  };
  if (typeof selector === 'string' && selector !== '') status['selector'] = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: metadata as KubeObject['metadata'],
    spec: typeof specReplicas === 'number' ? { replicas: specReplicas } : {},
    status,
  };
}

function replicasOf(scale: unknown): number {
  const replicas = (scale as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
  if (replicas === undefined) return 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas))
    throw errors.badRequest('spec.replicas in body must be of type integer');
  if (replicas < 0)
    throw errors.invalid('Scale', 'autoscaling', '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
        field: 'spec.replicas',
      },
    ]);
  return replicas;
}

/** Serves GET, PUT and PATCH on `<kind>/<name>/scale` for a kind with `def.scale`. */
export async function serveScale(store: Store, ctx: RequestContext): Promise<void> {
  const { def, info } = ctx;
  const namespace = def.namespaced ? info.namespace : '';
  const live = await store.get(ctx.resource, namespace, info.name);
  if (!live) throw errors.notFound(def.plural, def.group, info.name);
  if (info.verb === 'get') {
    ctx.code = 200;
    return writeJson(ctx.res, 200, scaleOf(def, live));
  }
  const body = await readBody(ctx.req);
  let wanted: KubeObject;
  if (info.verb === 'update') {
    wanted = decodeObjectBody(ctx.req.headers['content-type'], body) as KubeObject;
    const rv = wanted?.metadata?.resourceVersion;
    if (rv && rv !== live.metadata.resourceVersion)
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${def.plural}${def.group ? `.${def.group}` : ''} "${info.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
  } else if (info.verb === 'patch') {
    const contentType = ctx.req.headers['content-type'];
    const type = patchTypeOf(contentType);
    if (type === undefined || type === 'apply')
      throw errors.unsupportedMediaType(contentType ?? '', [
        'application/json-patch+json',
        MERGE_PATCH,
        'application/strategic-merge-patch+json',
      ]);
    // A Scale has no lists: a strategic merge patch is a merge patch.
    const asMerge = type === 'strategic' ? MERGE_PATCH : contentType;
    wanted = applyPatch(asMerge, clone(scaleOf(def, live)), body, undefined) as KubeObject;
  } else throw errors.methodNotAllowed();
  const replicas = replicasOf(wanted);
  const next = clone(live);
  setAt(next as Record<string, unknown>, parsePath(scaleSpecOf(def).specReplicasPath), replicas);
  // Scaling changes the spec: the generation moves, so controllers see a new desired state.
  if (getAt(live, parsePath(scaleSpecOf(def).specReplicasPath)) !== replicas)
    next.metadata.generation = (live.metadata.generation ?? 1) + 1;
  const updated = await store.update(ctx.resource, next);
  ctx.code = 200;
  writeJson(ctx.res, 200, scaleOf(def, updated));
}
