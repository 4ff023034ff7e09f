// RFC 6902 JSON patch (`application/json-patch+json`) over RFC 6901 pointers: a malformed operation
// list is a 400, an operation that does not apply (including a failed `test`) is a 422 naming op and path.
import { ApiError, errors } from '../../util/errors.js';
import {
  cloneJson,
  deleteMember,
  getMember,
  isJsonObject,
  jsonEqual,
  setMember,
  type JsonObject,
  type JsonValue,
} from './json.js';

/** The real apiserver's cap on operations per JSON patch (answered with 413). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OpName = (typeof OPS)[number];

/**
 * Checks the shape the apiserver decodes before applying anything: a JSON array of objects.
 * Per-operation problems (unknown op, missing path) surface as 422 when the operation runs, as on kube.
 */
export function decodeJsonPatch(body: JsonValue): JsonObject[] {
  if (!Array.isArray(body)) {
    throw errors.badRequest(`json patch must be a JSON array of operations, got ${kindOf(body)}`);
  }
  body.forEach((op, i) => {
    if (!isJsonObject(op))
      throw errors.badRequest(`json patch operation ${i} must be a JSON object, got ${kindOf(op)}`);
  });
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  return body as JsonObject[];
}

/** Applies the operations in order to a copy of `doc`; all or nothing, `doc` and `ops` stay untouched. */
export function applyJsonPatch(doc: JsonValue, ops: JsonValue): JsonValue {
  const operations = decodeJsonPatch(ops);
  const state = { root: cloneJson(doc) };
  operations.forEach((raw, index) => applyOne(state, cloneJson(raw), index));
  return state.root;
}

interface DocState {
  root: JsonValue;
}

class OpFailure extends Error {}

function applyOne(state: DocState, raw: JsonObject, index: number): void {
  const op = getMember(raw, 'op');
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    throw unprocessable(
      `json patch operation ${index} failed: unknown op ${JSON.stringify(op ?? null)} (expected one of ${OPS.join(', ')})`,
    );
  }
  const path = getMember(raw, 'path');
  if (typeof path !== 'string') {
    throw unprocessable(`json patch ${op} operation ${index} failed: "path" must be a string`);
  }
  const from = getMember(raw, 'from');
  const where =
    op === 'move' || op === 'copy' ? `from ${JSON.stringify(from ?? null)} to "${path}"` : `on "${path}"`;
  try {
    const tokens = parsePointer(path, 'path');
    switch (op as OpName) {
      case 'add':
        add(state, tokens, requireValue(raw));
        break;
      case 'remove':
        remove(state, tokens, path);
        break;
      case 'replace':
        replace(state, tokens, requireValue(raw));
        break;
      case 'test':
        test(state, tokens, path, requireValue(raw));
        break;
      case 'move':
      case 'copy': {
        if (typeof from !== 'string') throw new OpFailure('"from" must be a string');
        const fromTokens = parsePointer(from, 'from');
        const value = read(state, fromTokens, from);
        if (op === 'move') {
          if (from !== path && path.startsWith(`${from}/`)) {
            throw new OpFailure(`cannot move "${from}" into its own child`);
          }
          remove(state, fromTokens, from);
          add(state, tokens, value);
        } else {
          add(state, tokens, cloneJson(value));
        }
        break;
      }
    }
  } catch (e) {
    if (e instanceof OpFailure)
      throw unprocessable(`json patch ${op} operation ${where} failed: ${e.message}`);
    throw e;
  }
}

/** 422 Invalid; details present (empty) so kubectl prints the message rather than a bare "is invalid". */
function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message, {});
}

function requireValue(raw: JsonObject): JsonValue {
  if (!Object.hasOwn(raw, 'value')) throw new OpFailure('"value" is required');
  return raw['value']!;
}

function parsePointer(pointer: string, name: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw new OpFailure(`"${name}" must be "" or start with "/", got "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function pointerOf(tokens: string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The container holding the last token: every token before it must exist. */
function parentOf(state: DocState, tokens: string[]): JsonObject | JsonValue[] {
  let cur: JsonValue = state.root;
  for (let i = 0; i < tokens.length - 1; i++) {
    const next = child(cur, tokens[i]!);
    if (next === undefined)
      throw new OpFailure(`the path "${pointerOf(tokens.slice(0, i + 1))}" does not exist`);
    cur = next;
  }
  if (typeof cur !== 'object' || cur === null) {
    throw new OpFailure(`"${pointerOf(tokens.slice(0, -1))}" is not an object or array`);
  }
  return cur;
}

function child(cur: JsonValue, token: string): JsonValue | undefined {
  if (isJsonObject(cur)) return getMember(cur, token);
  if (Array.isArray(cur)) {
    const idx = arrayIndex(token, cur.length, false, false);
    return idx === undefined ? undefined : cur[idx];
  }
  return undefined;
}

/**
 * Array index as the apiserver's json-patch library reads it: decimal with optional sign; negative
 * values count from the end (a non-standard extension kube accepts, e.g. `/spec/containers/-1`).
 * `insert` allows the position one past the end. Returns undefined when out of range (unless `strict`).
 */
function arrayIndex(token: string, length: number, insert: boolean, strict: boolean): number | undefined {
  if (!/^[+-]?\d+$/.test(token)) {
    if (strict) throw new OpFailure(`"${token}" is not a valid array index`);
    return undefined;
  }
  let idx = Number(token);
  const size = insert ? length + 1 : length;
  if (idx < 0) idx += size;
  if (idx < 0 || idx >= size) {
    if (strict) throw new OpFailure(`index ${token} is out of range for an array of ${length} items`);
    return undefined;
  }
  return idx;
}

function read(state: DocState, tokens: string[], path: string): JsonValue {
  if (tokens.length === 0) return state.root;
  const parent = parentOf(state, tokens);
  const key = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(key, parent.length, false, true)!]!;
  const v = getMember(parent, key);
  if (v === undefined) throw new OpFailure(`the path "${path}" does not exist`);
  return v;
}

function add(state: DocState, tokens: string[], value: JsonValue): void {
  if (tokens.length === 0) {
    state.root = value;
    return;
  }
  const parent = parentOf(state, tokens);
  const key = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (key === '-') parent.push(value);
    else parent.splice(arrayIndex(key, parent.length, true, true)!, 0, value);
  } else {
    setMember(parent, key, value);
  }
}

function remove(state: DocState, tokens: string[], path: string): void {
  if (tokens.length === 0) throw new OpFailure('the document root cannot be removed');
  const parent = parentOf(state, tokens);
  const key = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(key, parent.length, false, true)!, 1);
  } else {
    if (!Object.hasOwn(parent, key)) throw new OpFailure(`the path "${path}" does not exist`);
    deleteMember(parent, key);
  }
}

/**
 * Like the apiserver (evanphx/json-patch v4), replacing a missing object member sets it rather than
 * failing: scripts written against real clusters rely on `replace /metadata/labels/x` always working.
 * Array elements must exist.
 */
function replace(state: DocState, tokens: string[], value: JsonValue): void {
  if (tokens.length === 0) {
    state.root = value;
    return;
  }
  const parent = parentOf(state, tokens);
  const key = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false, true)!] = value;
  else setMember(parent, key, value);
}

/** As on the apiserver, testing an absent member against `null` succeeds. */
function test(state: DocState, tokens: string[], path: string, expected: JsonValue): void {
  let actual: JsonValue | undefined;
  if (tokens.length === 0) actual = state.root;
  else {
    const parent = parentOf(state, tokens);
    const key = tokens[tokens.length - 1]!;
    actual = Array.isArray(parent)
      ? parent[arrayIndex(key, parent.length, false, true)!]
      : getMember(parent, key);
  }
  if (actual === undefined ? expected !== null : !jsonEqual(actual, expected)) {
    throw new OpFailure(`the value at "${path}" is not equal to the expected value`);
  }
}

function kindOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
