// How Go values live in TypeScript inside the template engine: the one contract shared by the
// parser/executor, fmt, sprig and the helm renderer. No dependency on the rest of the hub.

/**
 * A Go value as templates see it (helm data is JSON-shaped, so this covers interface{} trees):
 * - nil            → `null`
 * - bool           → `boolean`
 * - string         → `string`
 * - int / int64    → `bigint`   (template integer literals, len, add, until, …)
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
