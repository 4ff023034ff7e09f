// JSON value helpers for the store: normalising input to what would be stored, deep equality that
// ignores key order, and deep freezing of objects shared between watchers.

/**
 * The object as JSON would store it: drops undefined fields, turns Dates into strings, copies. Exactly
 * `JSON.parse(JSON.stringify(value))` (json.test.ts holds the two side by side), built directly: plain
 * objects, arrays and primitives are copied in one walk, several times faster than the round trip through
 * text, which every store write paid. Anything else (a Date, a boxed primitive, a class with toJSON) takes
 * the round trip itself.
 */
export function toJsonValue<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return JSON.parse(JSON.stringify(value)) as T;
  return jsonCopy(value) as T;
}

/** Member values JSON leaves out of objects and turns into null in arrays. */
const SKIPPED = new Set(['undefined', 'function', 'symbol']);

/** A member value (never one of SKIPPED) as JSON gives it back. */
function jsonCopy(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // -0 → 0, NaN → null
  if (typeof value !== 'object' || value === null) {
    // Strings, booleans and null as they are; a bigint throws, as in JSON.stringify.
    return typeof value === 'bigint' ? (JSON.parse(JSON.stringify(value)) as unknown) : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out[i] = SKIPPED.has(typeof item) ? null : jsonCopy(item);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  const plain = proto === Object.prototype || proto === null;
  if (!plain || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return JSON.parse(JSON.stringify(value)) as unknown;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = source[key];
    if (SKIPPED.has(typeof member)) continue;
    const copy = jsonCopy(member);
    // A "__proto__" member is data in JSON: defined, never assigned (that would set the prototype).
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
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
