// Argument conversion for sprig: spf13/cast's ToInt64/ToFloat64/ToString rules and the checks Go's
// text/template applies when a value is passed to a typed (int, string, map) function parameter.

import { formatValue } from '../fmt.js';
import { GoSizedInt, goTypeName, isGoMap, isGoOpaque, type GoMap, type GoValue } from '../value.js';

/** Thrown where text/template itself rejects an argument (not a function's own error). */
export class GoArgTypeError extends Error {}

/** Arrays sprig builds as Go []string / []int, so typeOf can name them as Go would. */
const sliceTypes = new WeakMap<GoValue[], string>();

export function tagSlice<T extends GoValue[]>(a: T, goType: string): T {
  sliceTypes.set(a, goType);
  return a;
}

export function sliceTypeName(a: GoValue[]): string {
  return sliceTypes.get(a) ?? '[]interface {}';
}

/** Maps of a named Go map type, e.g. helm's .Values (common.Values): typeOf shows it, dig rejects it. */
const mapTypes = new WeakMap<GoMap, string>();

export function tagMap<T extends GoMap>(m: T, goType: string): T {
  mapTypes.set(m, goType);
  return m;
}

/** The named type of a tagged map, if any. */
export function mapTypeName(m: GoMap): string | undefined {
  return mapTypes.get(m);
}

/** Go's %T for a value, knowing sprig's []string results and named map types. */
export function typeNameOf(v: GoValue | undefined): string {
  if (Array.isArray(v)) return sliceTypeName(v);
  if (isGoMap(v)) return mapTypes.get(v) ?? 'map[string]interface {}';
  return goTypeName(v);
}

/** Wrap to int64 as Go's fixed-width arithmetic does. */
export function int64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

/** Go's float64 → int64 conversion (truncation; out of range gives MinInt64 on amd64). */
export function floatToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 9223372036854775808 || f < -9223372036854775808) {
    return -9223372036854775808n;
  }
  return BigInt(Math.trunc(f));
}

// cast trims a ".0…" suffix before parsing integers, so "3.00" is 3 but "3.5" is 0.
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i];
    if (c === '.') {
      if (foundZero) return s.slice(0, i);
      break;
    } else if (c !== '0') {
      return s;
    }
    foundZero = true;
  }
  return s;
}

/** strconv.ParseInt(s, 0, 64); null where Go returns an error. */
export function parseGoInt(s: string, base = 0): bigint | null {
  let t = s;
  let neg = false;
  if (t.startsWith('+') || t.startsWith('-')) {
    neg = t.startsWith('-');
    t = t.slice(1);
  }
  if (t === '') return null;
  let radix = base;
  if (base === 0) {
    radix = 10;
    if (/^0[xX]/.test(t)) {
      radix = 16;
      t = t.slice(2);
    } else if (/^0[bB]/.test(t)) {
      radix = 2;
      t = t.slice(2);
    } else if (/^0[oO]/.test(t)) {
      radix = 8;
      t = t.slice(2);
    } else if (t.length > 1 && t.startsWith('0')) {
      radix = 8;
      t = t.slice(1);
    }
    // Base prefix allows underscores between digits.
    if (t.includes('_')) {
      // Go literal syntax: underscores only between digits, or right after a base prefix.
      const ok =
        radix === 10 && !/^0/.test(s.replace(/^[+-]/, '')) ? /^[^_]+(_[^_]+)*$/ : /^_?[^_]+(_[^_]+)*$/;
      if (!ok.test(t)) return null;
      t = t.replace(/_/g, '');
    }
  }
  const digits = t.toLowerCase();
  if (digits === '') return null;
  const valid = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
  let n = 0n;
  const r = BigInt(radix);
  for (const ch of digits) {
    const d = valid.indexOf(ch);
    if (d < 0) return null;
    n = n * r + BigInt(d);
  }
  if (neg) n = -n;
  if (n > 9223372036854775807n || n < -9223372036854775808n) return null;
  return n;
}

/** strconv.ParseFloat(s, 64); null where Go returns an error. */
export function parseGoFloat(s: string): number | null {
  let t = s.replace(/_/g, (m, off: number) => (off > 0 ? m : '#'));
  if (t.includes('#')) return null;
  const lower = t.toLowerCase().replace(/^[+-]/, '');
  if (lower === 'inf' || lower === 'infinity') return s.startsWith('-') ? -Infinity : Infinity;
  if (lower === 'nan') return NaN;
  if (/^[+-]?0x/i.test(t)) {
    // Hex floats need a p exponent in Go; plain hex mantissa without it is an error.
    const m = /^([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?\d+)$/i.exec(t.replace(/_/g, ''));
    if (!m) return null;
    const mant = parseInt((m[2] ?? '') + (m[3] ?? ''), 16) / 16 ** (m[3] ?? '').length;
    const v = mant * 2 ** Number(m[4]);
    return m[1] === '-' ? -v : v;
  }
  t = t.replace(/_/g, '');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const v = Number(t);
  if (!Number.isFinite(v)) return null; // out of range is an error in Go
  return v;
}

/** cast.ToInt64: errors become 0, as sprig ignores them. */
export function toInt64(v: GoValue | undefined): bigint {
  if (v === undefined || v === null) return 0n;
  if (v instanceof GoSizedInt) return BigInt.asIntN(64, v.value);
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return floatToInt64(v);
    case 'boolean':
      return v ? 1n : 0n;
    case 'string':
      return parseGoInt(trimZeroDecimal(v)) ?? 0n;
  }
  return 0n;
}

/** cast.ToInt (Go int is 64-bit here). */
export const toInt = toInt64;

/** cast.ToFloat64: errors become 0. */
export function toFloat64(v: GoValue | undefined): number {
  if (v === undefined || v === null) return 0;
  if (v instanceof GoSizedInt) return Number(v.value);
  switch (typeof v) {
    case 'bigint':
      return Number(v);
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string':
      return parseGoFloat(v) ?? 0;
  }
  return 0;
}

/** Go's fmt %v of a value (fmt.ts's formatValue). */
export function formatGo(v: GoValue | undefined): string {
  return formatValue(v ?? null);
}

/** sprig's strval: strings as they are, []byte as its text, everything else through %v. */
export function strval(v: GoValue | undefined): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && sliceTypeName(v) === '[]uint8') return Buffer.from(v.map(Number)).toString('utf8');
  return formatGo(v);
}

// ---- text/template's argument checks for typed parameters ----

export function argString(v: GoValue | undefined): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected string');
  throw new GoArgTypeError(`wrong type for value; expected string; got ${typeNameOf(v)}`);
}

/** An `int` parameter: Go accepts integers only (float64 values from YAML are rejected). */
export function argInt(v: GoValue | undefined): bigint {
  if (typeof v === 'bigint') return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected int');
  throw new GoArgTypeError(`wrong type for value; expected int; got ${typeNameOf(v)}`);
}

export function argIntNum(v: GoValue | undefined): number {
  return Number(argInt(v));
}

export function argBool(v: GoValue | undefined): boolean {
  if (typeof v === 'boolean') return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected bool');
  throw new GoArgTypeError(`wrong type for value; expected bool; got ${typeNameOf(v)}`);
}

export function argFloat(v: GoValue | undefined): number {
  if (typeof v === 'number') return v;
  if (v === undefined || v === null) throw new GoArgTypeError('invalid value; expected float64');
  throw new GoArgTypeError(`wrong type for value; expected float64; got ${typeNameOf(v)}`);
}

/** A map[string]interface{} parameter: nil becomes a nil map (read-only, empty). */
export function argMap(v: GoValue | undefined): GoMap | null {
  if (v === undefined || v === null) return null;
  if (isGoMap(v)) return v;
  throw new GoArgTypeError(`wrong type for value; expected map[string]interface {}; got ${typeNameOf(v)}`);
}

/** A variadic ...int / ...string tail. */
export function restArgs<T>(args: GoValue[], from: number, conv: (v: GoValue | undefined) => T): T[] {
  return args.slice(from).map((a) => conv(a));
}

/** Functions with a fixed signature: text/template checks the count before calling. */
export function arity(name: string, args: GoValue[], n: number, variadic = false): void {
  if (variadic ? args.length < n : args.length !== n) {
    throw new GoArgTypeError(
      `wrong number of args for ${name}: want ${variadic ? 'at least ' : ''}${n} got ${args.length}`,
    );
  }
}

/** reflect.Kind names for our value kinds (kindOf). */
export function kindName(v: GoValue | undefined): string {
  if (v === undefined || v === null) return 'invalid';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float64';
    case 'function':
      return 'func';
  }
  if (Array.isArray(v)) return 'slice';
  if (isGoOpaque(v)) {
    const kind = (v as { goKind?: unknown }).goKind;
    if (typeof kind === 'string') return kind;
    return v.goType.startsWith('*') ? 'ptr' : 'struct';
  }
  return 'map';
}
