// JSON value helpers shared by the patch formats: the value types, structural equality, deep copy
// and body parsing, so each patch module works on plain parsed JSON and never on its caller's objects.
import { errors } from '../../util/errors.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonObject | JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality: object member order does not matter, array order does. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** Reads an own member only: `obj['__proto__']` must not find Object.prototype. */
export function getMember(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Sets an own member even for keys like `__proto__` (a valid ConfigMap data key), which plain
 * assignment would turn into a prototype change and silently drop.
 */
export function setMember(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Removes an own member (maps keyed by data are the point here, hence the computed key). */
export function deleteMember(obj: JsonObject, key: string): void {
  Reflect.deleteProperty(obj, key);
}

export function cloneJson<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}

/** A value as short JSON for error messages, bounded so a huge patch cannot flood a Status. */
export function describeJson(v: unknown, max = 200): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A request body as JSON; anything unparsable is the client's fault (400), as on the real apiserver. */
export function parseJsonBody(body: string | Uint8Array): JsonValue {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    const why = text.trim() === '' ? 'the request body is empty' : (e as Error).message;
    throw errors.badRequest(`invalid JSON patch: ${why}`);
  }
}
