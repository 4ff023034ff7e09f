// sprig's list, dict and defaults functions (list.go, dict.go, defaults.go): reflect-based list
// handling, mergo's merge rules and Go's emptiness test, expressed on GoValue trees.

import { GoSizedInt, isGoMap, isGoOpaque, type GoFunc, type GoMap, type GoValue } from '../value.js';
import {
  argBool,
  argIntNum,
  argMap,
  argString,
  arity,
  kindName,
  mapTypeName,
  sliceTypeName,
  tagMap,
  tagSlice,
  strval,
  toInt,
  typeNameOf,
} from './cast.js';

const nilDeref = 'runtime error: invalid memory address or nil pointer dereference';

/** sprig's empty(): Go's zero-value test through reflection. */
export function isEmpty(v: GoValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case 'boolean':
      return !v;
    case 'string':
      return v.length === 0;
    case 'bigint':
      return v === 0n;
    case 'number':
      return v === 0;
    case 'function':
      return false;
  }
  if (Array.isArray(v)) return v.length === 0;
  if (isGoOpaque(v)) {
    const e = (v as { isEmpty?: unknown }).isEmpty;
    return typeof e === 'function' ? Boolean((e as () => boolean).call(v)) : false;
  }
  return Object.keys(v).length === 0;
}

/** reflect.DeepEqual on GoValues. */
export function deepEqual(a: GoValue | undefined, b: GoValue | undefined): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || typeNameOf(a) !== typeNameOf(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isGoOpaque(a) || isGoOpaque(b)) {
    if (!isGoOpaque(a) || !isGoOpaque(b) || a.goType !== b.goType) return false;
    const eq = (a as { deepEquals?: unknown }).deepEquals;
    return typeof eq === 'function'
      ? Boolean((eq as (o: unknown) => boolean).call(a, b))
      : a.format() === b.format();
  }
  if (isGoMap(a) && isGoMap(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The reflect.Kind check sprig does before list operations; returns the list or throws Go's error. */
function asList(v: GoValue | undefined, errPrefix: string): GoValue[] {
  if (Array.isArray(v)) return v;
  if (v === null || v === undefined) throw new Error(nilDeref);
  throw new Error(`${errPrefix} ${kindName(v)}`);
}

function mustPair(name: string, f: (...a: GoValue[]) => GoValue): Record<string, GoFunc> {
  const must = 'must' + name[0]!.toUpperCase() + name.slice(1);
  return { [name]: f, [must]: f };
}

/** mergo's isEmptyValue (dereferencing interfaces). */
function mergoEmpty(v: GoValue | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (v instanceof GoSizedInt) return v.value === 0n;
  if (isGoOpaque(v) || typeof v === 'function') return false;
  return isEmpty(v);
}

/** mergo.Merge / MergeWithOverwrite for map[string]interface{} into dst (in place). */
export function mergeInto(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const key of Object.keys(src)) {
    const s = src[key]!;
    const has = Object.hasOwn(dst, key);
    const d = has ? dst[key]! : undefined;
    if (s === null) {
      if (overwrite) dst[key] = null;
      continue;
    }
    if (isGoMap(s) && isGoMap(d)) {
      mergeInto(d, s, overwrite);
      if (!mergoEmpty(d)) continue;
    } else if (Array.isArray(s)) {
      if (has && !mergoEmpty(d)) {
        if (overwrite) dst[key] = s;
        continue;
      }
    }
    if (overwrite || !has || mergoEmpty(d)) dst[key] = s;
  }
}

/** copystructure.Copy for GoValue trees (named map and slice types survive, as in Go). */
export function deepCopyValue(v: GoValue): GoValue {
  if (Array.isArray(v)) {
    const out = v.map(deepCopyValue);
    const t = sliceTypeName(v);
    return t === '[]interface {}' ? out : tagSlice(out, t);
  }
  if (isGoMap(v)) {
    const out: GoMap = {};
    for (const k of Object.keys(v)) out[k] = deepCopyValue(v[k]!);
    const t = mapTypeName(v);
    return t === undefined ? out : tagMap(out, t);
  }
  return v;
}

function mapArg(v: GoValue | undefined): GoMap {
  return argMap(v) ?? {};
}

export function collectionFunctions(): Record<string, GoFunc> {
  const list: GoFunc = (...a) => a.slice();
  const fns: Record<string, GoFunc> = {
    // ---- defaults ----
    default: (...a) => {
      arity('default', a, 1, true);
      const given = a.slice(1);
      if (given.length === 0 || isEmpty(given[0])) return a[0]!;
      return given[0]!;
    },
    empty: (...a) => {
      arity('empty', a, 1);
      return isEmpty(a[0]);
    },
    coalesce: (...a) => a.find((x) => !isEmpty(x)) ?? null,
    all: (...a) => a.every((x) => !isEmpty(x)),
    any: (...a) => a.some((x) => !isEmpty(x)),
    ternary: (...a) => {
      arity('ternary', a, 3);
      return argBool(a[2]) ? a[0]! : a[1]!;
    },
    deepCopy: (...a) => deepCopyValue(a[0] ?? null),
    mustDeepCopy: (...a) => deepCopyValue(a[0] ?? null),

    // ---- lists ----
    list,
    tuple: list,
    ...mustPair('push', (l, v) => [...asList(l, 'Cannot push on type'), v ?? null]),
    ...mustPair('append', (l, v) => [...asList(l, 'Cannot push on type'), v ?? null]),
    ...mustPair('prepend', (l, v) => [v ?? null, ...asList(l, 'Cannot prepend on type')]),
    ...mustPair('chunk', (size, l) => {
      const n = argIntNum(size);
      const xs = asList(l, 'Cannot chunk type');
      const len = xs.length;
      const cs = Math.floor((len - 1) / n) + 1;
      if (!Number.isFinite(cs) || cs < 0) throw new Error('runtime error: makeslice: len out of range');
      const out: GoValue[] = [];
      for (let i = 0; i < cs; i++) {
        let clen = n;
        if (i === cs - 1) {
          clen = Math.floor(len % n);
          if (clen === 0) clen = n;
        }
        const part: GoValue[] = [];
        for (let j = 0; j < clen; j++) {
          const ix = i * n + j;
          if (ix >= len || ix < 0) throw new Error(`reflect: slice index out of range`);
          part.push(xs[ix]!);
        }
        out.push(part);
      }
      return out;
    }),
    ...mustPair('last', (l) => {
      const xs = asList(l, 'Cannot find last on type');
      return xs.length === 0 ? null : xs[xs.length - 1]!;
    }),
    ...mustPair('first', (l) => {
      const xs = asList(l, 'Cannot find first on type');
      return xs.length === 0 ? null : xs[0]!;
    }),
    ...mustPair('rest', (l) => {
      const xs = asList(l, 'Cannot find rest on type');
      // A nil []interface{}: prints as [] rather than <no value>.
      return xs.length === 0 ? [] : xs.slice(1);
    }),
    ...mustPair('initial', (l) => {
      const xs = asList(l, 'Cannot find initial on type');
      return xs.length === 0 ? [] : xs.slice(0, -1);
    }),
    ...mustPair('reverse', (l) => [...asList(l, 'Cannot find reverse on type')].reverse()),
    ...mustPair('compact', (l) => asList(l, 'Cannot compact on type').filter((x) => !isEmpty(x))),
    ...mustPair('uniq', (l) => {
      const out: GoValue[] = [];
      for (const x of asList(l, 'Cannot find uniq on type'))
        if (!out.some((y) => deepEqual(x, y))) out.push(x);
      return out;
    }),
    ...mustPair('without', (l, ...omit) =>
      asList(l, 'Cannot find without on type').filter((x) => !omit.some((o) => deepEqual(x, o))),
    ),
    ...mustPair('has', (needle, hay) => {
      if (hay === null || hay === undefined) return false;
      return asList(hay, 'Cannot find has on type').some((x) => deepEqual(needle, x));
    }),
    ...mustPair('slice', (l, ...idx) => {
      const xs = asList(l, 'list should be type of slice or array but');
      if (xs.length === 0) return null;
      const start = idx.length > 0 ? Number(toInt(idx[0])) : 0;
      const end = idx.length < 2 ? xs.length : Number(toInt(idx[1]));
      if (start < 0 || end < start || end > xs.length)
        throw new Error('reflect.Value.Slice: slice index out of bounds');
      return xs.slice(start, end);
    }),
    concat: (...lists) => {
      const out: GoValue[] = [];
      for (const l of lists) {
        if (Array.isArray(l)) out.push(...l);
        else if (l === null) throw new Error(nilDeref);
        else throw new Error(`Cannot concat type ${kindName(l)} as list`);
      }
      return out;
    },

    // ---- dicts ----
    dict: (...a) => {
      const d: GoMap = {};
      for (let i = 0; i < a.length; i += 2) {
        const key = strval(a[i]);
        d[key] = i + 1 >= a.length ? '' : a[i + 1]!;
      }
      return d;
    },
    get: (...a) => {
      arity('get', a, 2);
      const d = mapArg(a[0]);
      const k = argString(a[1]);
      return Object.hasOwn(d, k) ? d[k]! : '';
    },
    set: (...a) => {
      arity('set', a, 3);
      const d = argMap(a[0]);
      const k = argString(a[1]);
      if (d === null) throw new Error('assignment to entry in nil map');
      d[k] = a[2]!;
      return d;
    },
    unset: (...a) => {
      arity('unset', a, 2);
      const d = argMap(a[0]);
      const k = argString(a[1]);
      if (d !== null) Reflect.deleteProperty(d, k);
      return d;
    },
    hasKey: (...a) => {
      arity('hasKey', a, 2);
      return Object.hasOwn(mapArg(a[0]), argString(a[1]));
    },
    pluck: (...a) => {
      arity('pluck', a, 1, true);
      const k = argString(a[0]);
      const out: GoValue[] = [];
      for (const d of a.slice(1).map(mapArg)) if (Object.hasOwn(d, k)) out.push(d[k]!);
      return out;
    },
    // Go's map order is random; ours is insertion order (tests sort).
    keys: (...a) => a.map(mapArg).flatMap((d) => Object.keys(d)),
    values: (...a) => {
      arity('values', a, 1);
      return Object.values(mapArg(a[0]));
    },
    pick: (...a) => {
      arity('pick', a, 1, true);
      const d = mapArg(a[0]);
      const out: GoMap = {};
      for (const k of a.slice(1).map(argString)) if (Object.hasOwn(d, k)) out[k] = d[k]!;
      return out;
    },
    omit: (...a) => {
      arity('omit', a, 1, true);
      const d = mapArg(a[0]);
      const drop = new Set(a.slice(1).map(argString));
      const out: GoMap = {};
      for (const k of Object.keys(d)) if (!drop.has(k)) out[k] = d[k]!;
      return out;
    },
    dig: (...a) => {
      if (a.length < 3) throw new Error('dig needs at least three arguments');
      let d = a[a.length - 1];
      const def = a[a.length - 2]!;
      const ks = a.slice(0, -2).map((k) => {
        if (typeof k !== 'string')
          throw new Error(`interface conversion: interface {} is ${typeNameOf(k)}, not string`);
        return k;
      });
      for (let i = 0; i < ks.length; i++) {
        // A type assertion in Go: named map types (helm's common.Values) fail it too.
        if (!isGoMap(d) || mapTypeName(d) !== undefined) {
          throw new Error(
            `interface conversion: interface {} is ${typeNameOf(d)}, not map[string]interface {}`,
          );
        }
        const k = ks[i]!;
        if (!Object.hasOwn(d, k)) return def;
        d = d[k]!;
        if (i === ks.length - 1) return d;
      }
      return def;
    },
  };
  for (const [name, overwrite] of [
    ['merge', false],
    ['mergeOverwrite', true],
  ] as const) {
    const f: GoFunc = (...a) => {
      arity(name, a, 1, true);
      const dst = argMap(a[0]);
      const srcs = a.slice(1).map(argMap);
      if (dst === null) {
        // A nil dst map: mergo cannot allocate through the interface; sprig returns it unchanged.
        return null;
      }
      for (const s of srcs) if (s !== null) mergeInto(dst, s, overwrite);
      return dst;
    };
    fns[name] = f;
    fns['must' + name[0]!.toUpperCase() + name.slice(1)] = f;
  }
  return fns;
}
