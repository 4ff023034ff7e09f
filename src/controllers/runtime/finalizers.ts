// Finalizer list edits on an object's metadata that report whether they changed anything, so a
// reconciler writes only when it must.
import type { KubeObject } from '../../store/types.js';

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** Appends the finalizer unless present; returns whether the object changed. */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  if (hasFinalizer(obj, finalizer)) return false;
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/** Removes every occurrence of the finalizer; returns whether the object changed. */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const before = obj.metadata.finalizers;
  if (!before?.includes(finalizer)) return false;
  const after = before.filter((f) => f !== finalizer);
  if (after.length) obj.metadata.finalizers = after;
  else delete obj.metadata.finalizers;
  return true;
}

/** Whether the object is being deleted (it carries a deletionTimestamp). */
export function isDeleting(obj: KubeObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp);
}
