// Type-aware operations on JSON objects for server-side apply: the field set of an object, the diff of
// two objects as field sets, merging an applied configuration into a live object, and removing fields.
import {
  FieldSet,
  fieldElement,
  keyElement,
  pathToString,
  serializePathElement,
  valueElement,
  type FieldPath,
  type Json,
  type PathElement,
} from './managedfields-set.js';
import { atomicList, struct, type ListType, type TypeNode } from './managedfields-types.js';

/** A value that cannot be typed (bad list item, duplicate key): the message names the path like Kubernetes. */
export class TypedValueError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.length === 1 ? errors[0] : `errors:\n  ${errors.join('\n  ')}`);
    this.name = 'TypedValueError';
  }
}

type Obj = Record<string, unknown>;

/** Sets an own property, even `__proto__` (a plain assignment would change the prototype instead). */
function put(o: Obj, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

type Shape = 'map' | 'list' | 'scalar';

function shapeOf(v: unknown): Shape | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'map';
  return 'scalar';
}

const SCALAR: TypeNode = { kind: 'scalar' };
const DEDUCED_STRUCT = struct();

function fits(t: TypeNode, s: Shape): boolean {
  if (s === 'map') return t.kind === 'struct' || t.kind === 'map';
  if (s === 'list') return t.kind === 'list';
  return t.kind === 'scalar';
}

function deduce(s: Shape): TypeNode {
  return s === 'map' ? DEDUCED_STRUCT : s === 'list' ? atomicList : SCALAR;
}

/** The type to use for a value: the declared one when the value fits it, else deduced from the value. */
function resolve(t: TypeNode | undefined, ...values: unknown[]): TypeNode | 'leaf' {
  let shape: Shape | undefined;
  for (const v of values) {
    const s = shapeOf(v);
    if (s && shape && s !== shape) return 'leaf';
    shape ??= s;
  }
  if (!shape) return t ?? SCALAR;
  return t && fits(t, shape) ? t : deduce(shape);
}

function isAtomic(t: TypeNode): boolean {
  switch (t.kind) {
    case 'scalar':
      return true;
    case 'list':
      return t.type === 'atomic';
    default:
      return !!t.atomic;
  }
}

function childType(t: TypeNode | undefined, pe: PathElement): TypeNode | undefined {
  if (!t) return undefined;
  if (pe.kind === 'field') {
    if (t.kind === 'struct') return t.fields?.[pe.name];
    if (t.kind === 'map') return t.values;
    return undefined;
  }
  return t.kind === 'list' ? t.items : undefined;
}

/** How an item of a granular list is addressed: by its key fields, or (sets) by its value. */
export function listItemElement(list: ListType, item: unknown): PathElement {
  const keys = list.keys ?? [];
  if (list.type === 'map' && keys.length > 0) {
    if (item === null) throw new Error('associative list with keys may not have a null element');
    if (!isObj(item)) throw new Error('associative list with keys may not have non-map elements');
    const key: Record<string, Json> = {};
    for (const k of keys) {
      if (k in item && item[k] !== undefined) key[k] = item[k] as Json;
      else if (list.keyDefaults && k in list.keyDefaults) key[k] = list.keyDefaults[k] as Json;
    }
    if (Object.keys(key).length === 0) {
      throw new Error(
        `associative list with keys has an element that omits all key fields [${keys
          .map((k) => JSON.stringify(k))
          .join(' ')}] (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(key);
  }
  if (isObj(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return valueElement(item as Json);
}

function itemElement(list: ListType, item: unknown, path: FieldPath, index: number): PathElement {
  try {
    return listItemElement(list, item);
  } catch (e) {
    throw new TypedValueError([`${pathToString(path)}: element ${index}: ${(e as Error).message}`]);
  }
}

// --- field set of a value ----------------------------------------------------------------------------

/** The fields a value sets: leaves, atomic values, list items (`.`), empty or null maps. */
export function toFieldSet(value: unknown, t: TypeNode | undefined): FieldSet {
  const set = new FieldSet();
  collectFields(value, t, [], set);
  return set;
}

function collectFields(v: unknown, declared: TypeNode | undefined, path: FieldPath, set: FieldSet): void {
  const t = resolve(declared, v);
  if (t === 'leaf' || t.kind === 'scalar' || isAtomic(t)) {
    set.insert(path);
    return;
  }
  if (t.kind === 'list') {
    if (!Array.isArray(v)) return;
    const seen = new Set<string>();
    const duplicated = new Set<string>();
    v.forEach((item, i) => {
      const k = serializePathElement(itemElement(t, item, path, i));
      if (seen.has(k) && !duplicated.has(k)) {
        duplicated.add(k);
        set.insert([...path, itemElement(t, item, path, i)]);
      }
      seen.add(k);
    });
    v.forEach((item, i) => {
      const pe = itemElement(t, item, path, i);
      if (duplicated.has(serializePathElement(pe))) return;
      const p = [...path, pe];
      collectFields(item, t.items, p, set);
      set.insert(p);
    });
    return;
  }
  if (!isObj(v)) return;
  for (const [key, val] of Object.entries(v)) {
    if (val === undefined) continue;
    const pe = fieldElement(key);
    const p = [...path, pe];
    collectFields(val, childType(t, pe), p, set);
    if (val === null || (isObj(val) && Object.keys(val).length === 0) || t.kind === 'map') set.insert(p);
  }
}

// --- checks on an applied configuration ----------------------------------------------------------------

/** Errors that make an applied configuration untypeable: bad list items and duplicate keys. */
export function validateTyped(value: unknown, t: TypeNode | undefined): string[] {
  const errors: string[] = [];
  checkTyped(value, t, [], errors);
  return errors;
}

function checkTyped(v: unknown, declared: TypeNode | undefined, path: FieldPath, errors: string[]): void {
  const t = resolve(declared, v);
  if (t === 'leaf' || t.kind === 'scalar' || isAtomic(t)) return;
  if (t.kind === 'list') {
    if (!Array.isArray(v)) return;
    const seen = new Set<string>();
    v.forEach((item, i) => {
      let pe: PathElement;
      try {
        pe = listItemElement(t, item);
      } catch (e) {
        errors.push(`${pathToString(path)}: element ${i}: ${(e as Error).message}`);
        return;
      }
      const k = serializePathElement(pe);
      if (seen.has(k)) {
        errors.push(`${pathToString(path)}: duplicate entries for key ${pathToString([pe])}`);
        return;
      }
      seen.add(k);
      checkTyped(item, t.items, [...path, pe], errors);
    });
    return;
  }
  if (!isObj(v)) return;
  for (const [key, val] of Object.entries(v)) {
    const pe = fieldElement(key);
    checkTyped(val, childType(t, pe), [...path, pe], errors);
  }
}

// --- comparison ------------------------------------------------------------------------------------------

export interface Comparison {
  /** Present on the right only. */
  added: FieldSet;
  /** Present on both sides with different values. */
  modified: FieldSet;
  /** Present on the left only. */
  removed: FieldSet;
}

/** The fields that differ between `lhs` and `rhs`; `undefined` is an absent object. */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(lhs, rhs, t, [], c);
  return c;
}

function isEmptyContainer(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObj(v) && Object.keys(v).length === 0;
}

function compareLeaf(l: unknown, r: unknown, path: FieldPath, c: Comparison): void {
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
  else if (!deepEqual(l, r)) c.modified.insert(path);
}

function compareAt(
  l: unknown,
  r: unknown,
  declared: TypeNode | undefined,
  path: FieldPath,
  c: Comparison,
): void {
  const t = resolve(declared, l, r);
  const bothEmpty = isEmptyContainer(l) && isEmptyContainer(r);
  if (t === 'leaf' || t.kind === 'scalar' || isAtomic(t) || bothEmpty) {
    compareLeaf(l, r, path, c);
    return;
  }
  if (t.kind === 'list') {
    compareLists(t, Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], path, c);
  } else {
    const lm = isObj(l) ? l : {};
    const rm = isObj(r) ? r : {};
    const keys = new Set([...Object.keys(lm), ...Object.keys(rm)]);
    for (const key of keys) {
      const pe = fieldElement(key);
      compareAt(lm[key], rm[key], childType(t, pe), [...path, pe], c);
    }
  }
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

interface IndexedList {
  /** Items by element key; more than one entry = duplicates. */
  byKey: Map<string, unknown[]>;
  elements: Map<string, PathElement>;
}

function indexList(t: ListType, items: unknown[], path: FieldPath): IndexedList {
  const byKey = new Map<string, unknown[]>();
  const elements = new Map<string, PathElement>();
  items.forEach((item, i) => {
    const pe = itemElement(t, item, path, i);
    const k = serializePathElement(pe);
    elements.set(k, pe);
    const list = byKey.get(k);
    if (list) list.push(item);
    else byKey.set(k, [item]);
  });
  return { byKey, elements };
}

function compareLists(t: ListType, l: unknown[], r: unknown[], path: FieldPath, c: Comparison): void {
  const li = indexList(t, l, path);
  const ri = indexList(t, r, path);
  const keys = new Set([...li.byKey.keys(), ...ri.byKey.keys()]);
  for (const k of keys) {
    const pe = (li.elements.get(k) ?? ri.elements.get(k))!;
    const p = [...path, pe];
    const ls = li.byKey.get(k) ?? [];
    const rs = ri.byKey.get(k) ?? [];
    if (ls.length <= 1 && rs.length <= 1) {
      compareAt(ls[0], rs[0], t.items, p, c);
    } else if (ls.length >= 2 && rs.length >= 2) {
      if (!deepEqual(ls, rs)) c.modified.insert(p);
    } else if (ls.length >= 2) {
      // Duplicates resolved: the new single item is added, the duplicate marker removed.
      if (rs.length) compareAt(undefined, rs[0], t.items, p, c);
      c.removed.insert(p);
    } else {
      if (ls.length) compareAt(ls[0], undefined, t.items, p, c);
      c.added.insert(p);
    }
  }
}

// --- merge -------------------------------------------------------------------------------------------------

/**
 * Merges an applied configuration (`rhs`) into a live object (`lhs`): maps field by field, keyed lists item
 * by item (rhs order for shared items), atomic values replaced. `undefined` = absent.
 */
export function merge(lhs: unknown, rhs: unknown, t: TypeNode | undefined): unknown {
  if (rhs === undefined) return clone(lhs);
  // A null the configuration sets on a leaf clears it (Kubernetes stores an omitted zero value); on a
  // non-empty granular map or list it changes nothing.
  const leafValue = rhs === null ? undefined : dropNulls(rhs);
  if (lhs === undefined) return leafValue;
  const rt = resolve(t, lhs, rhs);
  const bothEmpty = isEmptyContainer(lhs) && isEmptyContainer(rhs);
  if (rt === 'leaf' || rt.kind === 'scalar' || isAtomic(rt) || bothEmpty) return leafValue;
  if (rt.kind === 'list') {
    return mergeLists(rt, Array.isArray(lhs) ? lhs : [], Array.isArray(rhs) ? rhs : [], []);
  }
  const lm = isObj(lhs) ? lhs : {};
  const rm = isObj(rhs) ? rhs : {};
  const out: Obj = {};
  for (const key of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
    const v = merge(lm[key], rm[key], childType(rt, fieldElement(key)));
    if (v !== undefined) put(out, key, v);
  }
  return out;
}

function mergeLists(t: ListType, lhs: unknown[], rhs: unknown[], path: FieldPath): unknown[] {
  const lhsKeys = lhs.map((item, i) => serializePathElement(itemElement(t, item, path, i)));
  const rhsKeys = rhs.map((item, i) => serializePathElement(itemElement(t, item, path, i)));
  // A duplicated live item merges as if absent (null), like Kubernetes does.
  const observedL = new Map<string, unknown>();
  lhsKeys.forEach((k, i) => observedL.set(k, observedL.has(k) ? null : lhs[i]));
  const observedR = new Map<string, unknown>();
  rhsKeys.forEach((k, i) => observedR.set(k, rhs[i]));

  const shared = rhsKeys.filter((k) => observedL.has(k));
  let nextShared = shared.shift();
  const mergedR = new Set<string>();
  const out: unknown[] = [];
  const push = (l: unknown, r: unknown) => {
    const v = merge(l, r, t.items);
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lhs.length || ri < rhs.length) {
    if (li < lhs.length && ri < rhs.length) {
      const k = lhsKeys[li]!;
      if (k === rhsKeys[ri]) {
        mergedR.add(k);
        push(observedL.get(k), observedR.get(k));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (observedR.has(k) && nextShared !== undefined && nextShared !== k) {
        li++;
        continue;
      }
    }
    if (li < lhs.length) {
      const k = lhsKeys[li]!;
      if (!observedR.has(k)) {
        push(lhs[li], undefined);
        li++;
        continue;
      } else if (mergedR.has(k)) {
        li++;
      }
    }
    if (ri < rhs.length) {
      const k = rhsKeys[ri]!;
      mergedR.add(k);
      push(observedL.get(k), observedR.get(k));
      ri++;
      if (nextShared !== undefined && nextShared === k) nextShared = shared.shift();
    }
  }
  return out;
}

// --- removal ---------------------------------------------------------------------------------------------

/**
 * Removes the members of `set` (whole subtrees) from a value, descending where `set` has longer paths.
 * Maps and lists left empty by the removal disappear. Returns undefined when nothing is left.
 */
export function removeItems(value: unknown, set: FieldSet, t: TypeNode | undefined): unknown {
  if (set.isEmpty()) return value;
  const rt = resolve(t, value);
  if (rt === 'leaf' || rt.kind === 'scalar' || isAtomic(rt) || isEmptyContainer(value)) return value;
  if (rt.kind === 'list') {
    if (!Array.isArray(value)) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = itemElement(rt, item, [], i);
      if (set.hasMember(pe)) return;
      const sub = set.withPrefix(pe);
      out.push(sub.isEmpty() ? item : (removeItems(item, sub, rt.items) ?? {}));
    });
    return out.length ? out : undefined;
  }
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [key, val] of Object.entries(value)) {
    const pe = fieldElement(key);
    if (set.hasMember(pe)) continue;
    const sub = set.withPrefix(pe);
    if (sub.isEmpty()) {
      put(out, key, val);
      continue;
    }
    const kept = removeItems(val, sub, childType(rt, pe));
    if (kept !== undefined) put(out, key, kept);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Adds the named fields that have owned descendants as members ("owns spec.replicas" → "owns spec"),
 * but not map keys or list items: what decides which parents survive pruning.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, t: TypeNode | undefined): FieldSet {
  const out = new FieldSet();
  for (const pe of set.memberElements()) out.insert([pe]);
  set.mapChildren((pe, sub) => {
    if (pe.kind === 'field' && (!t || t.kind === 'struct')) out.insert([pe]);
    const inner = ensureNamedFieldsAreMembers(sub, childType(t, pe));
    for (const p of inner.paths()) out.insert([pe, ...p]);
    return undefined;
  });
  return out;
}

// --- helpers ---------------------------------------------------------------------------------------------

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** A copy without null map values: Kubernetes turns them into omitted zero values when it stores. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, val] of Object.entries(v))
      if (val !== null && val !== undefined) put(out, k, dropNulls(val));
    return out;
  }
  return v;
}
