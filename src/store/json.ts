// JSON value helpers for the store: normalising input to what would be stored, deep equality that
// ignores key order, and deep freezing of objects shared between watchers.

/** The object as JSON would store it: drops undefined fields, turns Dates into strings, copies. */
export function toJsonValue<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Structural equality of JSON values; object key order does not matter, undefined fields count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let aCount = 0;
  for (const key in ao) {
    const av = ao[key];
    if (av === undefined) continue;
    aCount++;
    if (!jsonEqual(av, bo[key])) return false;
  }
  let bCount = 0;
  for (const key in bo) if (bo[key] !== undefined) bCount++;
  return aCount === bCount;
}

/** Freezes a JSON value and everything inside it; returns it for chaining. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
