// How Go values live in TypeScript inside the template engine: the one contract shared by the
// parser/executor, fmt, sprig and the helm renderer. No dependency on the rest of the hub.

/**
 * A Go value as templates see it (helm data is JSON-shaped, so this covers interface{} trees):
 * - nil            → `null`
 * - bool           → `boolean`
 * - string         → `string`
 * - int            → `bigint`   (template integer literals, len, until, atoi, int, …)
 * - int64, uint64, … → `GoSizedInt` (sprig arithmetic, int64, helm --set and fromToml integers, …)
 * - float64        → `number`   (every number decoded from YAML/JSON values, as helm does)
 * - []interface{}  → `GoValue[]`
 * - map[string]interface{} → `GoMap` (a plain object; iteration in sorted key order where Go sorts)
 * - func           → `GoFunc`
 * Values of other Go types that a function must return (e.g. semver.Version, time.Time, []byte)
 * are `GoOpaque` objects carrying their Go type name and a way to format them.
 */
export type GoValue = null | boolean | string | bigint | number | GoValue[] | GoMap | GoFunc | GoOpaque;

export interface GoMap {
  [key: string]: GoValue;
}

export type GoFunc = (...args: GoValue[]) => GoValue;

/** A Go value of a named type with its own formatting (time.Time, *semver.Version, []byte …). */
export interface GoOpaque {
  readonly goType: string;
  /** What fmt's %v / print produce for it. */
  format(): string;
  /** Its MarshalText/MarshalJSON text where that differs from format() (time.Time: RFC 3339). */
  marshalText?(): string;
  /**
   * What a template action prints for it where that differs from format(): text/template calls String()
   * on an addressable value whose pointer type has the method (helm's KubeVersion), fmt does not.
   */
  templateText?(): string;
}

/** Go's integer types other than `int`, which stays a plain bigint. */
export type SizedIntType =
  'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64';

const INT_BITS: Record<SizedIntType, { bits: number; signed: boolean }> = {
  int8: { bits: 8, signed: true },
  int16: { bits: 16, signed: true },
  int32: { bits: 32, signed: true },
  int64: { bits: 64, signed: true },
  uint: { bits: 64, signed: false },
  uint8: { bits: 8, signed: false },
  uint16: { bits: 16, signed: false },
  uint32: { bits: 32, signed: false },
  uint64: { bits: 64, signed: false },
};

/**
 * An integer of a sized Go type. Go tells `int` and `int64` apart where templates can see it: typeOf,
 * kindIs, %T, deepEqual/has, and typed parameters (`until (add 1 2)` is "expected int; got int64").
 * Immutable, so values share it freely; the value is already wrapped to the type's width.
 */
export class GoSizedInt implements GoOpaque {
  readonly value: bigint;
  constructor(
    readonly goType: SizedIntType,
    value: bigint,
  ) {
    const { bits, signed } = INT_BITS[goType];
    this.value = signed ? BigInt.asIntN(bits, value) : BigInt.asUintN(bits, value);
  }
  /** reflect.Kind: a sized int's kind is its type name. */
  get goKind(): string {
    return this.goType;
  }
  get unsigned(): boolean {
    return !INT_BITS[this.goType].signed;
  }
  format(): string {
    return this.value.toString();
  }
  isEmpty(): boolean {
    return this.value === 0n;
  }
}

export function isSizedIntType(t: string): t is SizedIntType {
  return Object.hasOwn(INT_BITS, t);
}

/** An int64 (wrapped to 64 bits, as Go's arithmetic wraps). */
export function goInt64(n: bigint): GoSizedInt {
  return new GoSizedInt('int64', n);
}

/** The value of any Go integer (int or sized), or undefined for anything else. */
export function integerValue(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (v instanceof GoSizedInt) return v.value;
  return undefined;
}

export function isGoMap(v: unknown): v is GoMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isGoOpaque(v);
}

export function isGoOpaque(v: unknown): v is GoOpaque {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { goType?: unknown }).goType === 'string' &&
    typeof (v as { format?: unknown }).format === 'function'
  );
}

/** Go's type name of a value, as fmt's %T and error messages print it. */
export function goTypeName(v: GoValue | undefined): string {
  if (v === undefined || v === null) return '<nil>';
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
  if (Array.isArray(v)) return '[]interface {}';
  if (isGoOpaque(v)) return v.goType;
  return 'map[string]interface {}';
}
