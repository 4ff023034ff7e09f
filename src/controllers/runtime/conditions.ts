// Status conditions in metav1.Condition form, and the one rule that makes them trustworthy:
// lastTransitionTime moves only when the status flips, not when reason or message change.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  /** CamelCase, optionally `domain/`-prefixed: `Ready`, `NamespaceContentRemaining`. */
  type: string;
  status: ConditionStatus;
  /** CamelCase machine code: `ContentDeleted`. */
  reason: string;
  message: string;
  /** The `metadata.generation` this condition was computed from. */
  observedGeneration?: number;
  /** RFC 3339 with second precision, as metav1.Time renders. */
  lastTransitionTime: string;
}

export interface ConditionUpdate {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  observedGeneration?: number;
}

/** metav1.Time's wire form: whole seconds, `Z`. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets a condition in place. A new type is appended with `lastTransitionTime = now`; an existing one
 * gets the new status, reason, message and observedGeneration, and a new `lastTransitionTime` only
 * when its status changed. Returns whether anything changed (so callers skip no-op status writes).
 */
export function setCondition(
  conditions: Condition[],
  update: ConditionUpdate,
  now: Date = new Date(),
): boolean {
  const message = update.message ?? '';
  const existing = conditions.find((c) => c.type === update.type);
  if (!existing) {
    const created: Condition = {
      type: update.type,
      status: update.status,
      reason: update.reason,
      message,
      lastTransitionTime: formatTime(now),
    };
    if (update.observedGeneration !== undefined) created.observedGeneration = update.observedGeneration;
    conditions.push(created);
    return true;
  }
  let changed = false;
  if (existing.status !== update.status) {
    existing.status = update.status;
    existing.lastTransitionTime = formatTime(now);
    changed = true;
  }
  if (existing.reason !== update.reason) {
    existing.reason = update.reason;
    changed = true;
  }
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (update.observedGeneration !== undefined && existing.observedGeneration !== update.observedGeneration) {
    existing.observedGeneration = update.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of this type; returns whether one was there. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * The `status.conditions` array of an object, created when missing, for use with `setCondition`.
 * Conditions stored by others are taken as they are (the store has validated the shape).
 */
export function conditionsOf(obj: { [field: string]: unknown }): Condition[] {
  let status = obj['status'];
  if (typeof status !== 'object' || status === null || Array.isArray(status)) {
    status = {};
    obj['status'] = status;
  }
  const holder = status as { conditions?: unknown };
  if (!Array.isArray(holder.conditions)) holder.conditions = [];
  return holder.conditions as Condition[];
}
