// Pure helpers over plain Kubernetes objects for the work applier: comparing objects without their
// server-owned fields, fingerprints, deep merge, simple dotted-path removal, and resource matching.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../store/types.js';
import type { ResourceIdentifier } from './types.js';
import { stableStringify } from '../../util/json-text.js';

type JsonMap = Record<string, unknown>;

export function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** `apps/v1` → { group: 'apps', version: 'v1' }; `v1` → core. */
export function splitApiVersion(apiVersion: string | undefined): { group: string; version: string } {
  const av = apiVersion ?? '';
  const i = av.indexOf('/');
  return i < 0 ? { group: '', version: av } : { group: av.slice(0, i), version: av.slice(i + 1) };
}

const VOLATILE_METADATA = [
  'managedFields',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'uid',
  'selfLink',
] as const;

/**
 * The object without what the server owns and changes on its own: status, managedFields,
 * resourceVersion, generation, creationTimestamp and uid. Used to decide "would this change it".
 * A read-only view: it shares everything below metadata with `obj` (a live object's managedFields and
 * status are most of it, and copying them only to drop them was most of a fingerprint's cost).
 */
export function comparable(obj: KubeObject): JsonMap {
  const { status: _status, ...view } = obj as JsonMap;
  const meta = view['metadata'];
  if (isMap(meta)) {
    const kept: JsonMap = { ...meta };
    for (const k of VOLATILE_METADATA) Reflect.deleteProperty(kept, k);
    view['metadata'] = kept;
  }
  return view;
}

export function sameContent(a: KubeObject, b: KubeObject): boolean {
  return stableStringify(comparable(a)) === stableStringify(comparable(b));
}

/** A short hash of the object's comparable content: equal for a status-only change, different for spec/metadata. */
export function objectFingerprint(obj: KubeObject): string {
  return createHash('sha256')
    .update(stableStringify(comparable(obj)))
    .digest('hex')
    .slice(0, 32);
}

export function hashOf(v: unknown): string {
  return createHash('sha256').update(stableStringify(v)).digest('hex').slice(0, 32);
}

/** `overlay` merged over `base`: maps merge key by key, everything else (lists included) is replaced. */
export function deepMerge(base: unknown, overlay: unknown): unknown {
  if (!isMap(base) || !isMap(overlay)) return clone(overlay);
  const out: JsonMap = clone(base);
  for (const [k, v] of Object.entries(overlay)) out[k] = k in out ? deepMerge(out[k], v) : clone(v);
  return out;
}

/** `.spec.replicas`, `spec.replicas` or `{.spec.replicas}` → ['spec', 'replicas']; undefined if not a plain dotted path. */
export function dottedPath(path: string): string[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  if (p.startsWith('.')) p = p.slice(1);
  if (!p) return undefined;
  const parts = p.split('.');
  return parts.every((s) => /^[A-Za-z0-9_-]+$/.test(s)) ? parts : undefined;
}

/** Removes the field a dotted path names (in place); returns whether it was there. */
export function removePath(obj: unknown, path: string): boolean {
  const parts = dottedPath(path);
  if (!parts) return false;
  let cur: unknown = obj;
  for (const key of parts.slice(0, -1)) {
    if (!isMap(cur)) return false;
    cur = cur[key];
  }
  const last = parts[parts.length - 1]!;
  if (!isMap(cur) || !(last in cur)) return false;
  Reflect.deleteProperty(cur, last);
  return true;
}

/** Whether a ResourceIdentifier names this object (group/namespace '' when absent). */
export function identifies(
  id: ResourceIdentifier,
  target: { group: string; resource: string; namespace: string; name: string },
): boolean {
  return (
    (id.group ?? '') === target.group &&
    id.resource === target.resource &&
    (id.namespace ?? '') === target.namespace &&
    id.name === target.name
  );
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
