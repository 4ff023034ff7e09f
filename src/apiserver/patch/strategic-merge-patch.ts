// Strategic merge patch (`application/strategic-merge-patch+json`) as the apiserver applies it: a JSON
// merge patch whose lists merge by key per the kind's patch metadata, plus kubectl's `$` directives.
import { ApiError, errors } from '../../util/errors.js';
import {
  cloneJson,
  deleteMember,
  describeJson,
  getMember,
  isJsonObject,
  jsonEqual,
  setMember,
  type JsonObject,
  type JsonValue,
} from './json.js';
import { listStrategy, mapStrategy, type KindPatchMeta, type PatchMetaNode } from './patch-meta.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList';

/**
 * Applies `patch` to `original` for a kind described by `meta`; neither input is modified.
 * Directives: `$patch: replace|delete` (maps and list items; a `{"$patch":"replace"}` item replaces the
 * list), `$retainKeys: [...]` (clear every other key of the map), `$setElementOrder/<list>` (final
 * order; server-only items keep their place relative to it), `$deleteFromPrimitiveList/<list>`, and
 * `null` to delete a field. Malformed directives → 400 (as kube); patches that cannot apply → 422.
 */
export function strategicMergePatch(
  original: JsonObject,
  patch: JsonObject,
  meta: KindPatchMeta,
): JsonObject {
  return mergeObject(cloneJson(original), cloneJson(patch), meta.root, '');
}

/** A value that must not land in the result (`$patch: delete` with nothing to delete). */
const DROP = Symbol('drop');

// Works in place on private copies: `original` becomes the result, `patch` is consumed.
function mergeObject(original: JsonObject, patch: JsonObject, node: PatchMetaNode, path: string): JsonObject {
  if (Object.hasOwn(patch, PATCH)) {
    const directive = patch[PATCH];
    deleteMember(patch, PATCH);
    if (directive === 'delete') return {};
    if (directive === 'replace') return mergeObject({}, patch, node, path);
    throw unprocessable(
      path,
      `unknown patch type: ${describeJson(directive)} in map: ${describeJson(patch)}`,
    );
  }

  applyRetainKeys(original, patch, path);
  applyElementOrders(original, patch, node, path);

  for (const [rawKey, value] of Object.entries(patch)) {
    let key = rawKey;
    let deleteList = false;
    if (rawKey.startsWith(DELETE_PRIMITIVES)) {
      key = directiveField(rawKey, DELETE_PRIMITIVES, path, 'invalid patch format of primitive list');
      deleteList = true;
    }
    const fieldPath = join(path, key);
    if (value === null) {
      deleteMember(original, key);
      continue;
    }
    const current = getMember(original, key);
    const child = node.child(key);
    if (current === undefined || kind(current) !== kind(value)) {
      if (deleteList) continue;
      put(original, key, fresh(value, child, fieldPath));
      continue;
    }
    if (isJsonObject(current) && isJsonObject(value)) {
      put(
        original,
        key,
        mapStrategy(child.meta) === 'replace'
          ? fresh(value, child, fieldPath)
          : mergeObject(current, value, child, fieldPath),
      );
    } else if (Array.isArray(current) && Array.isArray(value)) {
      const merges = deleteList || listStrategy(child.meta) === 'merge';
      setMember(
        original,
        key,
        merges
          ? mergeList(current, value, child, child.meta?.mergeKey ?? '', deleteList, fieldPath)
          : freshList(value, child, fieldPath),
      );
    } else {
      setMember(original, key, value);
    }
  }
  return original;
}

function put(obj: JsonObject, key: string, value: JsonValue | typeof DROP): void {
  if (value === DROP) deleteMember(obj, key);
  else setMember(obj, key, value);
}

/** `$retainKeys`: every key not listed is cleared from the live map; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject, path: string): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  deleteMember(patch, RETAIN_KEYS);
  if (!Array.isArray(retain)) throw badFormat(path, 'invalid patch format of retainKeys');
  const keep = new Set(retain.filter((k): k is string => typeof k === 'string'));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVES) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw badFormat(path, 'invalid patch format of retainKeys');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) deleteMember(original, k);
}

/**
 * `$setElementOrder/<list>`: merges the list (if the patch carries it) and orders the result: listed
 * items in the given order, server-only items placed by their position in the live list.
 */
function applyElementOrders(
  original: JsonObject,
  patch: JsonObject,
  node: PatchMetaNode,
  path: string,
): void {
  for (const [rawKey, order] of Object.entries(patch)) {
    if (!rawKey.startsWith(SET_ORDER)) continue;
    deleteMember(patch, rawKey);
    const key = directiveField(rawKey, SET_ORDER, path, 'invalid patch format of setElementOrder list');
    if (!Array.isArray(order)) throw badFormat(path, 'invalid patch format of setElementOrder list');
    const fieldPath = join(path, key);
    const live = getMember(original, key);
    const patchList = getMember(patch, key);
    if (live !== undefined && !Array.isArray(live))
      throw unprocessable(fieldPath, 'expected a list in the object');
    if (patchList !== undefined && patchList !== null && !Array.isArray(patchList)) {
      throw unprocessable(fieldPath, 'expected a list in the patch');
    }
    if (patchList === null) continue; // a null deletes the list in the main pass
    const child = node.child(key);
    const mergeKey = child.meta?.mergeKey ?? '';
    checkOrderMatchesPatch(patchList ?? [], order, mergeKey, fieldPath);

    let merged: JsonValue[];
    const view = { live: live ?? [] };
    if (live && patchList) {
      merged =
        listStrategy(child.meta) === 'merge'
          ? mergeList(live, patchList, child, mergeKey, false, fieldPath, view)
          : freshList(patchList, child, fieldPath);
    } else if (patchList) merged = freshList(patchList, child, fieldPath);
    else if (live) merged = live;
    else continue;
    deleteMember(patch, key);

    const id = identity(mergeKey, fieldPath);
    const listed = merged.filter((item) => order.some((o) => jsonEqual(id(o), id(item))));
    const serverOnly = merged.filter((item) => !order.some((o) => jsonEqual(id(o), id(item))));
    setMember(original, key, orderItems(listed, serverOnly, order, view.live, id));
  }
}

/** The items the patch list sets (deletions aside) must appear in `$setElementOrder` in the same order. */
function checkOrderMatchesPatch(
  patchList: JsonValue[],
  order: JsonValue[],
  mergeKey: string,
  path: string,
): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items = mergeKey
    ? patchList.filter((item) => !(isJsonObject(item) && item[PATCH] === 'delete'))
    : patchList;
  const id = identity(mergeKey, path);
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p]!;
    if (isJsonObject(item) && Object.hasOwn(item, PATCH)) {
      p++;
      continue;
    }
    if (jsonEqual(id(item), id(order[o]!))) p++;
    o++;
  }
  if (p < items.length) {
    throw unprocessable(
      path,
      `the order in patch list ${describeJson(patchList)} doesn't match ${SET_ORDER} list ${describeJson(order)}`,
    );
  }
}

/**
 * Merges a patch list into a live list. Primitives: set union (or removal for a delete list). Maps:
 * items with `$patch: delete` remove live items with the same key, `{"$patch": "replace"}` makes the
 * patch items the whole list, other items merge into the live item with the same key or are added.
 * Order: patch items in patch order, interleaved with the untouched live items by their live positions
 * (so new items come before the first live item they cannot be placed after, as on kube).
 */
function mergeList(
  live: JsonValue[],
  patch: JsonValue[],
  node: PatchMetaNode,
  mergeKey: string,
  deleteList: boolean,
  path: string,
  view?: { live: JsonValue[] },
): JsonValue[] {
  if (live.length === 0 && patch.length === 0) return live;
  const elements = elementKind([...live, ...patch], path);

  if (elements !== 'object') {
    if (deleteList) return live.filter((item) => !patch.some((p) => jsonEqual(p, item)));
    const merged: JsonValue[] = [];
    for (const item of [...live, ...patch]) if (!merged.some((m) => jsonEqual(m, item))) merged.push(item);
    const id = (v: JsonValue | undefined) => v;
    const fromPatch = merged.filter((item) => patch.some((p) => jsonEqual(p, item)));
    const serverOnly = merged.filter((item) => !patch.some((p) => jsonEqual(p, item)));
    return orderItems(fromPatch, serverOnly, patch, live, id);
  }

  if (!mergeKey) throw unprocessable(path, 'cannot merge lists without merge key');
  const keyOf = (item: JsonObject, where: string): JsonValue => {
    const v = getMember(item, mergeKey);
    if (v === undefined) {
      throw unprocessable(
        path,
        `${where}: ${describeJson(item)} does not contain declared merge key: ${mergeKey}`,
      );
    }
    return v;
  };

  // `slots` follows the storage the live list shares with its caller in the Go implementation, which
  // deletions shift and appends refill; kube orders `$setElementOrder` lists against that view.
  const slots = [...live] as JsonObject[];
  let used = slots.length;
  let working = live as JsonObject[];
  let items: JsonObject[] = [];
  let replaceAll = false;
  for (const item of patch as JsonObject[]) {
    if (!Object.hasOwn(item, PATCH)) {
      items.push(item);
      continue;
    }
    const directive = item[PATCH];
    if (directive === 'delete') {
      const k = keyOf(item, 'map');
      const matches = (w: JsonObject) => Object.hasOwn(w, mergeKey) && jsonEqual(w[mergeKey], k);
      working = working.filter((w) => !matches(w));
      used = removeShifting(slots, used, matches);
    } else if (directive === 'replace') {
      replaceAll = true;
    } else if (directive === 'merge') {
      throw unprocessable(path, 'merging lists cannot yet be specified in the patch');
    } else {
      throw unprocessable(
        path,
        `unknown patch type: ${describeJson(directive)} in map: ${describeJson(item)}`,
      );
    }
  }
  if (replaceAll) {
    working = freshList(items, node, path) as JsonObject[];
    items = [];
  }

  const serverOrder = [...working];
  const merged = [...working];
  for (const item of items) {
    const k = keyOf(item, 'map');
    const at = merged.findIndex((m) => Object.hasOwn(m, mergeKey) && jsonEqual(m[mergeKey], k));
    if (at >= 0) merged[at] = mergeObject(merged[at]!, item, node, path);
    else {
      const added = fresh(item, node, path);
      if (added !== DROP) merged.push(added as JsonObject);
    }
  }

  if (view) view.live = replaceAll ? slots : slots.map((slot, i) => (i < merged.length ? merged[i]! : slot));

  const id = identity(mergeKey, path);
  const fromPatch = merged.filter((m) => items.some((i) => jsonEqual(id(i), id(m))));
  const serverOnly = merged.filter((m) => !items.some((i) => jsonEqual(id(i), id(m))));
  return orderItems(fromPatch, serverOnly, items, serverOrder, id);
}

/** Go's `append(s[:i], s[i+1:]...)` for every match: later items shift down, the tail keeps stale copies. */
function removeShifting(slots: JsonObject[], used: number, matches: (item: JsonObject) => boolean): number {
  for (let at = 0; at < used;) {
    if (matches(slots[at]!)) {
      slots.copyWithin(at, at + 1, used);
      used--;
    } else at++;
  }
  return used;
}

type Identity = (v: JsonValue | undefined) => JsonValue | undefined;

/** What identifies a list item: its merge key value (required), or the value itself for primitives. */
function identity(mergeKey: string, path: string): Identity {
  if (!mergeKey) return (v) => v;
  return (v) => {
    if (!isJsonObject(v)) return v;
    const k = getMember(v, mergeKey);
    if (k === undefined) {
      throw unprocessable(path, `map: ${describeJson(v)} does not contain declared merge key: ${mergeKey}`);
    }
    return k;
  };
}

/**
 * Sorts `fromPatch` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them: a server
 * item goes first only when both it and the next patch item have live positions and it comes earlier.
 */
function orderItems(
  fromPatch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  id: Identity,
): JsonValue[] {
  const indexIn = (list: JsonValue[], item: JsonValue) => list.findIndex((x) => jsonEqual(id(x), id(item)));
  const sortBy = (items: JsonValue[], order: JsonValue[]) =>
    items
      .map((item, i) => ({ item, i, at: indexIn(order, item) }))
      .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0) || a.i - b.i)
      .map((x) => x.item);
  const right = sortBy(fromPatch, patchOrder);
  const left = sortBy(serverOnly, serverOrder);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexIn(serverOrder, left[i]!);
      const ri = indexIn(serverOrder, right[j]!);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

/**
 * A patch value with nothing to merge into: directives are resolved against an empty value and
 * `null` members dropped, so no directive or null is ever stored.
 */
function fresh(value: JsonValue, node: PatchMetaNode, path: string): JsonValue | typeof DROP {
  if (Array.isArray(value)) return freshList(value, node, path);
  if (!isJsonObject(value)) return value;
  if (Object.hasOwn(value, PATCH)) {
    const directive = value[PATCH];
    if (directive === 'delete') return DROP;
    if (directive !== 'replace' && directive !== 'merge') {
      throw unprocessable(
        path,
        `unknown patch type: ${describeJson(directive)} in map: ${describeJson(value)}`,
      );
    }
    deleteMember(value, PATCH);
  }
  return mergeObject({}, value, node, path);
}

/** A list from the patch taken as is: directive items (`$patch: ...`) are dropped, items cleaned. */
function freshList(list: JsonValue[], node: PatchMetaNode, path: string): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of list) {
    if (isJsonObject(item) && Object.hasOwn(item, PATCH)) continue;
    if (isJsonObject(item)) out.push(mergeObject({}, item, node, path));
    else if (Array.isArray(item)) out.push(freshList(item, node, path));
    else out.push(item);
  }
  return out;
}

function kind(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function elementKind(items: JsonValue[], path: string): string {
  let found: string | undefined;
  for (const item of items) {
    const k = kind(item);
    if (k === 'array') throw unprocessable(path, 'lists of lists are not supported');
    if (found !== undefined && found !== k) throw unprocessable(path, 'list element types are not identical');
    found = k;
  }
  return found ?? 'none';
}

/** `$setElementOrder/containers` → `containers`; anything else shaped like a directive is malformed. */
function directiveField(rawKey: string, prefix: string, path: string, malformed: string): string {
  const slash = rawKey.indexOf('/');
  if (slash < 0 || rawKey.slice(0, slash) !== prefix || slash === rawKey.length - 1)
    throw badFormat(path, malformed);
  return rawKey.slice(slash + 1);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function where(path: string): string {
  return path ? ` (at ${path})` : '';
}

function badFormat(path: string, message: string): ApiError {
  return errors.badRequest(`${message}${where(path)}`);
}

function unprocessable(path: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `strategic merge patch${where(path)}: ${message}`, {});
}
