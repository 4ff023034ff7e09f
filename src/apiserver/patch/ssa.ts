// Server-side apply: merges a manager's applied configuration into the live object, removes what it stopped
// applying, refuses (409) to overwrite other managers' fields unless forced, and computes managedFields.
import type { KubeObject, ManagedFieldsEntry } from '../../store/types.js';
import { ApiError, errors, type StatusCause } from '../../util/errors.js';
import { FieldSet, goJson, pathToString, type FieldPath } from './managedfields-set.js';
import {
  clone,
  compare,
  deepEqual,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
  TypedValueError,
  validateTyped,
} from './managedfields-typed.js';
import { builtinTypeInfo, type KindTypeInfo } from './managedfields-types.js';
import {
  applyManagerId,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  filterComparison,
  groupOf,
  printManager,
  resetFieldSet,
  rfc3339Seconds,
  STRIPPED_FIELDS,
  takeOwnership,
  trackUpdate,
  updateManagerId,
  withoutManagedFields,
  type Managed,
  type ResetFields,
} from './managedfields.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Owner of the fields an object had when it was first applied to without managedFields. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export interface ApplyOptions {
  /** The stored object; undefined when the apply creates it. */
  live: KubeObject | undefined;
  /** The request body (the manager's full intent). Its `metadata.managedFields` is ignored. */
  applied: KubeObject;
  /** The `fieldManager` parameter (required for apply; the caller answers 422 when missing). */
  manager: string;
  force: boolean;
  /** The version served by the URL, e.g. `apps/v1`; the body's apiVersion must equal it. */
  apiVersion: string;
  now: string | Date;
  /** Defaults to the built-in table for the body's apiVersion/kind. */
  typeInfo?: KindTypeInfo;
  /** Fields this endpoint may not set or own; see `resetFieldsFor`. Their live values are kept. */
  resetFields?: ResetFields;
  /** 'status' for applies to the status subresource. */
  subresource?: string;
  /** The kind served by the URL; when given, the body's kind must equal it. */
  kind?: string;
}

export interface ApplyResult {
  /** The object to store, `metadata.managedFields` included (absent when empty). */
  object: KubeObject;
  managedFields: ManagedFieldsEntry[];
  /** False when neither the object nor its managedFields changed (nothing to write). */
  changed: boolean;
}

export interface Conflict {
  /** Manager identifier (see `managerIdentifier`). */
  manager: string;
  path: FieldPath;
}

class ConflictsFound extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

/** The 409 Kubernetes answers, grouped by manager in identifier order, paths in field-set order. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const byManager = new Map<string, FieldPath[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
  const managers = [...byManager.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const causes: StatusCause[] = [];
  const lines: string[] = [];
  for (const m of managers) {
    const who = printManager(m);
    lines.push(`conflicts with ${who}:`);
    for (const p of byManager.get(m)!) {
      causes.push({
        reason: 'FieldManagerConflict',
        message: `conflict with ${who}`,
        field: pathToString(p),
      });
      lines.push(`- ${pathToString(p)}`);
    }
  }
  const message =
    causes.length === 1
      ? `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`
      : `Apply failed with ${causes.length} conflicts: ${lines.join('\n')}`;
  return new ApiError(409, 'Conflict', message, { causes });
}

function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
  return `${gv}, Kind=${kind}`;
}

function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

type Obj = Record<string, unknown>;

function getPath(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[k];
  }
  return cur;
}

/** Puts the live values of reset fields back (or removes them on create): the apply cannot change them. */
function restoreReset(obj: Obj, live: unknown, reset: ResetFields): Obj {
  for (const path of reset) {
    if (path.length === 0) continue;
    const liveValue = getPath(live, path);
    let parent: Obj = obj;
    for (const k of path.slice(0, -1)) {
      const next = parent[k];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) {
        if (liveValue === undefined) break;
        parent[k] = {};
      }
      parent = parent[k] as Obj;
    }
    const last = path[path.length - 1]!;
    if (liveValue === undefined) Reflect.deleteProperty(parent, last);
    else parent[last] = clone(liveValue);
  }
  return obj;
}

interface Context {
  liveBase: KubeObject | undefined;
  compareBase: unknown;
  config: KubeObject;
  id: string;
  apiVersion: string;
  now: string;
  typeInfo: KindTypeInfo;
  reset: FieldSet;
  resetPaths: ResetFields;
}

/** Removes what the applier owned last time and nobody (itself included) owns now. */
function prune(merged: unknown, managed: Managed, lastSet: FieldSet | undefined, ctx: Context): unknown {
  if (!lastSet || lastSet.isEmpty()) return merged;
  let owned = new FieldSet();
  for (const vs of managed.fields.values()) owned = owned.union(vs.set);
  const root = ctx.typeInfo.root;
  const toRemove = ensureNamedFieldsAreMembers(lastSet, root).difference(
    ensureNamedFieldsAreMembers(owned, root),
  );
  return removeItems(merged, toRemove, root) ?? {};
}

function applyOnce(ctx: Context, managedIn: Managed, force: boolean): { object: Obj; managed: Managed } {
  const managed = copyManaged(managedIn);
  const root = ctx.typeInfo.root;
  const lastSet = managed.fields.get(ctx.id)?.set;
  const appliedSet = toFieldSet(ctx.config, root).recursiveDifference(ctx.reset);
  managed.fields.set(ctx.id, { set: appliedSet, apiVersion: ctx.apiVersion, applied: true });

  let object = merge(ctx.liveBase ?? {}, ctx.config, root);
  object = prune(object, managed, lastSet, ctx);
  const result = restoreReset(object as Obj, ctx.liveBase, ctx.resetPaths);

  const cmp = filterComparison(compare(ctx.compareBase, result, root), ctx.reset);
  const changedFields = cmp.modified.union(cmp.added);
  const conflicts: Conflict[] = [];
  for (const [id, vs] of managed.fields) {
    if (id === ctx.id) continue;
    for (const path of vs.set.intersection(changedFields).paths()) conflicts.push({ manager: id, path });
  }
  if (conflicts.length > 0 && !force) throw new ConflictsFound(conflicts);
  takeOwnership(managed, ctx.id, changedFields, cmp.removed);

  const own = appliedSet.difference(STRIPPED_FIELDS);
  if (own.isEmpty()) managed.fields.delete(ctx.id);
  else managed.fields.set(ctx.id, { set: own, apiVersion: ctx.apiVersion, applied: true });
  if (!ctx.liveBase || !deepEqual(ctx.liveBase, result)) managed.times.set(ctx.id, ctx.now);
  return { object: result, managed };
}

/** The last-applied fields still equal in the live object: conflicts on them are forgiven for `kubectl`. */
function fieldsFromLastApplied(ctx: Context): FieldSet | undefined {
  const raw = ctx.liveBase?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!raw) return undefined;
  try {
    const last = JSON.parse(raw) as unknown;
    if (last === null || typeof last !== 'object' || (last as Obj)['apiVersion'] !== ctx.apiVersion)
      return undefined;
    const set = toFieldSet(last, ctx.typeInfo.root);
    const cmp = compare(last, ctx.liveBase, ctx.typeInfo.root);
    return set.difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
  } catch {
    return undefined;
  }
}

/** kubectl's applies keep the client-side-apply annotation in step with what was applied. */
function syncLastApplied(object: Obj, config: KubeObject): void {
  const annotations = (object['metadata'] as Obj | undefined)?.['annotations'] as
    Record<string, string> | undefined;
  if (!annotations?.[LAST_APPLIED_ANNOTATION]) return;
  const last = clone(config);
  if (last.metadata?.annotations) Reflect.deleteProperty(last.metadata.annotations, LAST_APPLIED_ANNOTATION);
  annotations[LAST_APPLIED_ANNOTATION] = `${goJson(last)}\n`;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > MAX_ANNOTATIONS_BYTES) Reflect.deleteProperty(annotations, LAST_APPLIED_ANNOTATION);
}

/**
 * Server-side apply of `applied` by `manager`. Throws ApiError 409 (conflicts), 400 (wrong apiVersion or
 * kind, untypeable lists). The caller sets name/namespace/uid/resourceVersion, create-time defaults, and
 * answers 201 when `live` was undefined.
 */
export function applyServerSide(o: ApplyOptions): ApplyResult {
  const name = o.applied.metadata?.name ?? '';
  const namespace = o.applied.metadata?.namespace ?? '';
  const bodyVersion = typeof o.applied.apiVersion === 'string' ? o.applied.apiVersion : '';
  const bodyKind = typeof o.applied.kind === 'string' ? o.applied.kind : '';
  if (bodyVersion !== o.apiVersion) {
    throw errors.badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${bodyVersion}, expected: ${o.apiVersion}`,
    );
  }
  if (o.kind !== undefined && bodyKind !== o.kind) {
    throw errors.badRequest(`invalid object type: ${gvkString(bodyVersion, bodyKind)}`);
  }
  const typeInfo = o.typeInfo ?? builtinTypeInfo(groupOf(o.apiVersion), bodyKind);
  const config = withoutManagedFields(o.applied);
  const typeErrors = validateTyped(config, typeInfo.root);
  if (typeErrors.length > 0) {
    throw errors.badRequest(
      `failed to create typed patch object (${namespace}/${name}; ${gvkString(bodyVersion, bodyKind)}): ${
        new TypedValueError(typeErrors).message
      }`,
    );
  }

  const now = rfc3339Seconds(o.now);
  const liveBase = o.live ? withoutManagedFields(o.live) : undefined;
  const zero = clone(typeInfo.zero ?? { metadata: {} });
  const resetPaths = o.resetFields ?? [];
  const ctx: Context = {
    liveBase,
    compareBase: liveBase ?? zero,
    config,
    id: applyManagerId(o.manager, o.subresource),
    apiVersion: o.apiVersion,
    now,
    typeInfo,
    reset: resetFieldSet(resetPaths),
    resetPaths,
  };

  try {
    let managed: Managed;
    try {
      managed = decodeManagedFields(o.live?.metadata?.managedFields);
    } catch {
      managed = emptyManaged();
    }
    if (managed.fields.size === 0 && liveBase) {
      // Fields set before anyone applied belong to a stand-in Update manager, so they can conflict.
      const id = updateManagerId(BEFORE_FIRST_APPLY_MANAGER, o.apiVersion, o.subresource);
      trackUpdate(managed, zero, liveBase, id, o.apiVersion, now, typeInfo, ctx.reset);
    }

    let outcome: { object: Obj; managed: Managed };
    try {
      outcome = applyOnce(ctx, managed, o.force);
    } catch (e) {
      if (!(e instanceof ConflictsFound) || o.manager !== 'kubectl') throw e;
      const allowed = fieldsFromLastApplied(ctx);
      if (!allowed) throw e;
      const remaining = e.conflicts.filter((c) => !allowed.has(c.path));
      if (remaining.length > 0) throw new ConflictsFound(remaining);
      outcome = applyOnce(ctx, managed, true);
    }

    const object = outcome.object as KubeObject;
    object.metadata ??= {};
    if (o.manager === 'kubectl') syncLastApplied(object, config);
    const objectChanged = !liveBase || !deepEqual(liveBase, object);
    const managedFields = encodeManagedFields(outcome.managed);
    if (managedFields.length > 0) object.metadata.managedFields = managedFields;
    else delete object.metadata.managedFields;
    const changed = objectChanged || !deepEqual(o.live?.metadata?.managedFields ?? [], managedFields);
    return { object, managedFields, changed };
  } catch (e) {
    if (e instanceof ConflictsFound) throw conflictError(e.conflicts);
    if (e instanceof TypedValueError) throw errors.internal(`failed to merge config: ${e.message}`);
    throw e;
  }
}
