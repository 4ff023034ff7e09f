// Owner references: at most one controller owner per object, no owner across namespaces, and the
// mapping from an owned object back to the owner a controller should reconcile.
import type { KubeObject, OwnerReference } from '../../store/types.js';
import { TerminalError, type ReconcileRequest } from './reconcile.js';

/** `apps/v1` → `apps`, `v1` → ''. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The object already has a different controller owner; retrying will not help. */
export class AlreadyOwnedError extends TerminalError {
  constructor(
    readonly object: KubeObject,
    readonly owner: OwnerReference,
  ) {
    super(
      `${object.kind ?? 'object'} "${object.metadata.name ?? ''}" is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

function referenceTo(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    throw new TerminalError('an owner needs apiVersion, kind, metadata.name and metadata.uid');
  }
  return { apiVersion, kind, name, uid };
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function checkScope(owner: KubeObject, obj: KubeObject): void {
  const ownerNs = owner.metadata.namespace ?? '';
  if (!ownerNs) return; // a cluster-scoped owner may own anything
  const objNs = obj.metadata.namespace ?? '';
  if (!objNs) throw new TerminalError('a cluster-scoped object must not have a namespaced owner');
  if (objNs !== ownerNs) throw new TerminalError('cross-namespace owner references are disallowed');
}

/** Puts `ref` in place of a reference to the same owner, or appends it; returns whether anything changed. */
function upsert(obj: KubeObject, ref: OwnerReference): boolean {
  const refs = obj.metadata.ownerReferences ?? [];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0 && JSON.stringify(refs[i]) === JSON.stringify(ref)) return false;
  const next = [...refs];
  if (i >= 0) next[i] = ref;
  else next.push(ref);
  obj.metadata.ownerReferences = next;
  return true;
}

/**
 * Makes `owner` the controller of `obj` (garbage collection and owner-mapped watches follow it).
 * Throws AlreadyOwnedError when another object already controls `obj`. Returns whether `obj` changed.
 */
export function setControllerReference(
  owner: KubeObject,
  obj: KubeObject,
  options: { blockOwnerDeletion?: boolean } = {},
): boolean {
  const ref: OwnerReference = {
    ...referenceTo(owner),
    controller: true,
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
  };
  checkScope(owner, obj);
  const current = controllerReferenceOf(obj);
  if (current && !sameOwner(current, ref)) throw new AlreadyOwnedError(obj, current);
  return upsert(obj, ref);
}

/** Adds `owner` as a non-controlling owner (kept as controller if it already was). Returns whether `obj` changed. */
export function setOwnerReference(owner: KubeObject, obj: KubeObject): boolean {
  const ref = referenceTo(owner);
  checkScope(owner, obj);
  const existing = obj.metadata.ownerReferences?.find((r) => sameOwner(r, ref));
  if (existing?.controller !== undefined) ref.controller = existing.controller;
  if (existing?.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = existing.blockOwnerDeletion;
  return upsert(obj, ref);
}

/** Drops any reference to `owner`; returns whether `obj` changed. */
export function removeOwnerReference(owner: KubeObject, obj: KubeObject): boolean {
  const ref = referenceTo(owner);
  const refs = obj.metadata.ownerReferences;
  if (!refs?.some((r) => sameOwner(r, ref))) return false;
  const next = refs.filter((r) => !sameOwner(r, ref));
  if (next.length) obj.metadata.ownerReferences = next;
  else delete obj.metadata.ownerReferences;
  return true;
}

/** Whether `obj` lists `owner` (by uid) among its owners. */
export function ownedBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && (obj.metadata.ownerReferences?.some((r) => r.uid === uid) ?? false);
}

export function controllerReferenceOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The owner kind a controller reconciles, for mapping owned objects back to it. */
export interface OwnerKind {
  /** API group, '' for core. */
  group: string;
  kind: string;
  /** Whether owners live in the owned object's namespace (false: cluster-scoped owners). */
  namespaced: boolean;
}

/**
 * Requests for the owners of `obj` of the given kind: by default only its controller owner (as
 * controller-runtime's `Owns`), with `onlyController: false` every owner of that kind.
 */
export function ownerRequests(obj: KubeObject, owner: OwnerKind, onlyController = true): ReconcileRequest[] {
  const requests: ReconcileRequest[] = [];
  for (const ref of obj.metadata.ownerReferences ?? []) {
    if (onlyController && ref.controller !== true) continue;
    if (ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) continue;
    if (!owner.namespaced) requests.push({ name: ref.name });
    else if (obj.metadata.namespace) requests.push({ namespace: obj.metadata.namespace, name: ref.name });
  }
  return requests;
}
