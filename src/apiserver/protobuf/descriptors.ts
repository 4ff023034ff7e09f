// Compact message descriptors for the Kubernetes protobuf schema: the table notation, its parser, and the
// registry that resolves `pkg.Message` names (e.g. `core.v1.Pod`) to parsed field lists.
//
// Notation (one string per message, fields separated by whitespace):
//   jsonName=fieldNo:type      type: string | bool | int32 | int64 | bytes | Message | pkg.v1.Message
//   …:type[]                   repeated
//   …:map<string,type>         map (wire: repeated entries {1 key, 2 value})
//   …:type?                    a pointer in the Go type: presence is meaningful, so 0/false/""/{} are kept
//   ...=fieldNo:Message        embedded with `json:",inline"`: the message's fields merge into the parent
// Unqualified message names refer to the table's own package.

export type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';

/** Messages whose JSON form is not an object of their fields. */
export type SpecialType =
  | 'time' // meta.v1.Time {1 seconds, 2 nanos} → RFC 3339 seconds; empty = unset
  | 'microTime' // meta.v1.MicroTime → RFC 3339 with microseconds; empty = unset
  | 'intOrString' // intstr.IntOrString {1 type, 2 intVal, 3 strVal} → number | string
  | 'quantity' // resource.Quantity {1 string} → string
  | 'fieldsV1' // meta.v1.FieldsV1 {1 raw JSON} → object
  | 'rawExtension' // runtime.RawExtension {1 raw JSON} → any
  | 'stringList'; // ExtraValue {1 items} (a Go []string) → array

export const SPECIAL_TYPES: Readonly<Record<string, SpecialType>> = {
  'meta.v1.Time': 'time',
  'meta.v1.MicroTime': 'microTime',
  'meta.v1.FieldsV1': 'fieldsV1',
  'runtime.RawExtension': 'rawExtension',
  'intstr.IntOrString': 'intOrString',
  'resource.Quantity': 'quantity',
  'authentication.v1.ExtraValue': 'stringList',
  'authorization.v1.ExtraValue': 'stringList',
  'certificates.v1.ExtraValue': 'stringList',
};

export type ValueType =
  | { kind: 'scalar'; scalar: ScalarType }
  | { kind: 'special'; special: SpecialType; name: string }
  | { kind: 'message'; name: string };

export interface FieldDesc {
  fieldNo: number;
  /** JSON property name; '' for an inline field. */
  json: string;
  inline: boolean;
  /** Go pointer field: a present zero value is kept rather than dropped. */
  pointer: boolean;
  shape: 'single' | 'repeated' | 'map';
  /** The element type for `repeated`, the value type for `map` (keys are always strings). */
  value: ValueType;
}

export interface MessageDesc {
  /** Qualified name, e.g. `core.v1.Secret`. */
  name: string;
  fields: ReadonlyMap<number, FieldDesc>;
}

export interface PackageTable {
  /** Short package name: `core.v1` for k8s.io.api.core.v1, `meta.v1` for apimachinery's meta/v1. */
  pkg: string;
  /** Messages that are top-level kinds (they embed TypeMeta), i.e. that may be a request body. */
  kinds: readonly string[];
  messages: Readonly<Record<string, string>>;
}

const SCALARS: ReadonlySet<string> = new Set(['string', 'bool', 'int32', 'int64', 'bytes']);
const FIELD_RE = /^(\.\.\.|[A-Za-z_][A-Za-z0-9_]*)=([1-9][0-9]*):(.+)$/;

function resolveType(token: string, pkg: string): ValueType {
  if (SCALARS.has(token)) return { kind: 'scalar', scalar: token as ScalarType };
  const name = token.includes('.') ? token : `${pkg}.${token}`;
  const special = SPECIAL_TYPES[name];
  return special ? { kind: 'special', special, name } : { kind: 'message', name };
}

/** Parses one message's notation; throws on a malformed table (a programming error, caught by tests). */
export function parseMessage(pkg: string, name: string, notation: string): MessageDesc {
  const fields = new Map<number, FieldDesc>();
  for (const token of notation.split(/\s+/)) {
    if (!token) continue;
    const m = FIELD_RE.exec(token);
    if (!m) throw new Error(`${pkg}.${name}: bad field "${token}"`);
    const [, jsonName, no, typeText] = m as unknown as [string, string, string, string];
    const inline = jsonName === '...';
    let type = typeText;
    let shape: FieldDesc['shape'] = 'single';
    let pointer = false;
    const map = /^map<string,(.+)>$/.exec(type);
    if (map) {
      shape = 'map';
      type = map[1]!;
    } else if (type.endsWith('[]')) {
      shape = 'repeated';
      type = type.slice(0, -2);
    } else if (type.endsWith('?')) {
      pointer = true;
      type = type.slice(0, -1);
    }
    const value = resolveType(type, pkg);
    if (inline && (shape !== 'single' || value.kind !== 'message')) {
      throw new Error(`${pkg}.${name}: inline field ${no} must be a single message`);
    }
    const fieldNo = Number(no);
    if (fields.has(fieldNo)) throw new Error(`${pkg}.${name}: duplicate field ${no}`);
    fields.set(fieldNo, { fieldNo, json: inline ? '' : jsonName, inline, pointer, shape, value });
  }
  return { name: `${pkg}.${name}`, fields };
}

/** Resolves qualified message names across a set of package tables, parsing each message on first use. */
export class SchemaRegistry {
  private readonly notations = new Map<string, { pkg: string; name: string; notation: string }>();
  private readonly parsed = new Map<string, MessageDesc>();
  private readonly kinds = new Set<string>();

  constructor(tables: readonly PackageTable[]) {
    for (const t of tables) {
      for (const [name, notation] of Object.entries(t.messages)) {
        this.notations.set(`${t.pkg}.${name}`, { pkg: t.pkg, name, notation });
      }
      for (const k of t.kinds) this.kinds.add(`${t.pkg}.${k}`);
    }
  }

  message(qualifiedName: string): MessageDesc | undefined {
    const cached = this.parsed.get(qualifiedName);
    if (cached) return cached;
    const n = this.notations.get(qualifiedName);
    if (!n) return undefined;
    const desc = parseMessage(n.pkg, n.name, n.notation);
    this.parsed.set(qualifiedName, desc);
    return desc;
  }

  /** True when `qualifiedName` is a top-level kind such as `core.v1.Secret`. */
  isKind(qualifiedName: string): boolean {
    return this.kinds.has(qualifiedName);
  }

  /** Every message name the tables define (for consistency tests). */
  messageNames(): string[] {
    return [...this.notations.keys()];
  }
}
