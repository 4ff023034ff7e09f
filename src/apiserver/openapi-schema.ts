// TypeBox (JSON Schema) → OpenAPI 3.0 schema objects as Kubernetes publishes them: nullable instead of
// null unions, enums for literals, maps for records, x-kubernetes-* markers, named subschemas as components.
import type { TSchema } from '@sinclair/typebox';

export type Json = Record<string, unknown>;

const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * Keywords OpenAPI 3.0 schema objects allow and Kubernetes uses; everything else (TypeBox's `$id`,
 * `patternProperties`, `title`…) goes.
 */
const OAS_KEYWORDS = new Set([
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'type',
  'description',
  'format',
  'default',
  'nullable',
  'readOnly',
  'writeOnly',
  'example',
  'externalDocs',
  'deprecated',
]);

const STRUCTURE_KEYWORDS = [
  'type',
  'properties',
  'items',
  '$ref',
  'anyOf',
  'allOf',
  'oneOf',
  'enum',
  'additionalProperties',
];

export function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

interface ConvertContext {
  /** `$id` → component name. */
  ids: Map<string, string>;
  /** `$id` → its schema, for `$ref` resolution. */
  byId: Map<string, Json>;
  /** Hoisted components (named subschemas); shared by every kind of one document. */
  components: Record<string, Json>;
  inProgress: Set<string>;
  prefix: string;
}

function collectIds(node: unknown, ctx: ConvertContext, isRoot: boolean, rootName: string): void {
  if (Array.isArray(node)) {
    for (const item of node) collectIds(item, ctx, false, rootName);
    return;
  }
  if (!isPlainObject(node)) return;
  if (typeof node.$id === 'string' && !ctx.byId.has(node.$id)) {
    const id = node.$id;
    const name = isRoot ? rootName : id.includes('.') ? id : `${ctx.prefix}.${id}`;
    ctx.ids.set(id, name);
    ctx.byId.set(id, node);
  }
  if (isPlainObject(node.$defs)) {
    for (const [key, def] of Object.entries(node.$defs)) {
      if (isPlainObject(def) && typeof def.$id !== 'string' && !ctx.byId.has(key)) {
        ctx.ids.set(key, `${ctx.prefix}.${key}`);
        ctx.byId.set(key, def);
      }
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'default' && key !== 'examples' && key !== 'const') collectIds(value, ctx, false, rootName);
  }
}

function refTarget(refString: string): string {
  return refString.startsWith('#/$defs/') ? refString.slice('#/$defs/'.length) : refString;
}

/** A named subschema as a component reference, converting it once. */
function hoist(id: string, ctx: ConvertContext): Json {
  const name = ctx.ids.get(id);
  const target = ctx.byId.get(id);
  if (!name || !target) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (!(name in ctx.components) && !ctx.inProgress.has(name)) {
    ctx.inProgress.add(name);
    ctx.components[name] = convertBody(target, ctx);
    ctx.inProgress.delete(name);
  }
  return { $ref: ref(name) };
}

function convertNode(node: unknown, ctx: ConvertContext): Json {
  if (!isPlainObject(node)) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (typeof node.$id === 'string' && ctx.ids.has(node.$id)) return withSiblings(hoist(node.$id, ctx), node);
  if (typeof node.$ref === 'string') return withSiblings(hoist(refTarget(node.$ref), ctx), node);
  return convertBody(node, ctx);
}

/** OpenAPI 3.0 ignores siblings of `$ref`; Kubernetes wraps the reference in `allOf` to keep a description. */
function withSiblings(reference: Json, node: Json): Json {
  const extra: Json = {};
  if (typeof node.description === 'string') extra.description = node.description;
  if (node.default !== undefined) extra.default = clone(node.default);
  return Object.keys(extra).length ? { allOf: [reference], ...extra } : reference;
}

function primitiveTypeOf(v: unknown): string | undefined {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return undefined;
}

function mergeInto(out: Json, converted: Json): void {
  for (const [k, v] of Object.entries(converted)) if (!(k in out)) out[k] = v;
}

/** Converts one schema object (not a reference) to an OpenAPI 3.0 schema. */
function convertBody(s: Json, ctx: ConvertContext): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith('x-')) out[key] = clone(value);
    else if (
      OAS_KEYWORDS.has(key) &&
      key !== 'type' &&
      key !== 'exclusiveMinimum' &&
      key !== 'exclusiveMaximum'
    )
      out[key] = clone(value);
  }

  // `$defs`-with-`$ref` roots (TypeBox modules) stand for the referenced definition.
  if (typeof s.$ref === 'string' && isPlainObject(s.$defs)) {
    const target = ctx.byId.get(refTarget(s.$ref));
    if (target) mergeInto(out, convertBody(target, ctx));
  }

  // type: TypeBox's non-JSON types, `null`, and type arrays.
  const types = Array.isArray(s.type)
    ? (s.type as unknown[]).map(String)
    : typeof s.type === 'string'
      ? [s.type]
      : [];
  if (types.includes('null')) out.nullable = true;
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length === 1) {
    const t = nonNull[0]!;
    if (t === 'Date') Object.assign(out, { type: 'string', format: 'date-time' });
    else if (t === 'Uint8Array') Object.assign(out, { type: 'string', format: 'byte' });
    else if (t === 'bigint') Object.assign(out, { type: 'integer', format: 'int64' });
    else if (['string', 'number', 'integer', 'boolean', 'object', 'array'].includes(t)) out.type = t;
  } else if (nonNull.length > 1) {
    out.anyOf = nonNull.map((t) => ({ type: t }));
  }

  if ('const' in s) {
    out.enum = [clone(s.const)];
    const t = primitiveTypeOf(s.const);
    if (t && !out.type) out.type = t;
  }
  if (Array.isArray(s.examples) && s.examples.length && out.example === undefined)
    out.example = clone(s.examples[0]);

  // JSON Schema 2019 numeric exclusive bounds → OpenAPI 3.0 boolean form.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const v = s[exclusive];
    if (typeof v === 'number') {
      out[bound] = v;
      out[exclusive] = true;
    } else if (typeof v === 'boolean') {
      out[exclusive] = v;
    }
  }

  if (Array.isArray(s.anyOf)) convertUnion(s.anyOf, out, ctx, 'anyOf');
  if (Array.isArray(s.oneOf)) convertUnion(s.oneOf, out, ctx, 'oneOf');
  if (Array.isArray(s.allOf)) convertAllOf(s.allOf, out, ctx);
  if (isPlainObject(s.not)) out.not = convertNode(s.not, ctx);

  if (isPlainObject(s.properties)) {
    const props: Json = isPlainObject(out.properties) ? out.properties : {};
    for (const [name, sub] of Object.entries(s.properties)) props[name] = convertNode(sub, ctx);
    out.properties = props;
  }
  if (isPlainObject(s.additionalProperties)) {
    out.additionalProperties = convertNode(s.additionalProperties, ctx);
  } else if (isPlainObject(s.patternProperties)) {
    // Record<string, T>: one pattern (TypeBox writes `^(.*)$`) becomes a map of T.
    const values = Object.values(s.patternProperties);
    out.additionalProperties =
      values.length === 1 ? convertNode(values[0], ctx) : { 'x-kubernetes-preserve-unknown-fields': true };
    if (!out.type) out.type = 'object';
  }
  if (Array.isArray(s.items)) {
    // Tuples have no OpenAPI 3.0 form; keep a common item schema when all positions agree.
    const converted = s.items.map((item) => JSON.stringify(convertNode(item, ctx)));
    out.items =
      converted.length > 0 && converted.every((c) => c === converted[0])
        ? (JSON.parse(converted[0]!) as Json)
        : { 'x-kubernetes-preserve-unknown-fields': true };
  } else if (isPlainObject(s.items)) {
    out.items = convertNode(s.items, ctx);
  }
  if (out.type === 'array' && !out.items) out.items = { 'x-kubernetes-preserve-unknown-fields': true };

  // `{}` (Type.Unknown / Type.Any) means "anything": say so the Kubernetes way.
  if (
    !STRUCTURE_KEYWORDS.some((k) => k in out) &&
    !('x-kubernetes-int-or-string' in out) &&
    !('x-kubernetes-preserve-unknown-fields' in out)
  ) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  return out;
}

function convertUnion(members: unknown[], out: Json, ctx: ConvertContext, keyword: 'anyOf' | 'oneOf'): void {
  const objects = members.filter(isPlainObject);
  const isNull = (m: Json) =>
    m.type === 'null' || (Array.isArray(m.type) && m.type.length === 1 && m.type[0] === 'null');
  if (objects.some(isNull)) out.nullable = true;
  const rest = objects.filter((m) => !isNull(m));
  if (rest.length === 0) return;
  if (rest.length === 1) {
    mergeInto(out, convertNode(rest[0], ctx));
    return;
  }
  // Union of literals → enum.
  const literalValues = rest.map((m) =>
    'const' in m ? m.const : Array.isArray(m.enum) && m.enum.length === 1 ? m.enum[0] : undefined,
  );
  const literalTypes = new Set(
    literalValues.map((v) =>
      v === undefined ? undefined : primitiveTypeOf(v) === 'integer' ? 'number' : primitiveTypeOf(v),
    ),
  );
  if (literalValues.every((v) => v !== undefined) && literalTypes.size === 1) {
    const t = [...literalTypes][0]!;
    out.type = t === 'number' && literalValues.every((v) => Number.isInteger(v)) ? 'integer' : t;
    out.enum = clone(literalValues);
    return;
  }
  // integer | string → Kubernetes IntOrString.
  const simpleTypes = rest.map((m) =>
    Object.keys(m).every((k) => k === 'type' || k === 'description') ? m.type : undefined,
  );
  if (
    rest.length === 2 &&
    simpleTypes.includes('string') &&
    (simpleTypes.includes('integer') || simpleTypes.includes('number'))
  ) {
    out['x-kubernetes-int-or-string'] = true;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
    return;
  }
  out[keyword] = rest.map((m) => convertNode(m, ctx));
}

function convertAllOf(members: unknown[], out: Json, ctx: ConvertContext): void {
  const converted = members.map((m) => convertNode(m, ctx));
  // TypeBox Intersect of plain objects: merge into one object so explain lists every field.
  const mergeable = converted.every(
    (c) => !('$ref' in c) && !('allOf' in c) && (c.type === 'object' || isPlainObject(c.properties)),
  );
  if (!mergeable) {
    out.allOf = converted;
    return;
  }
  const properties: Json = isPlainObject(out.properties) ? out.properties : {};
  const required = new Set<string>(Array.isArray(out.required) ? (out.required as string[]) : []);
  for (const c of converted) {
    if (isPlainObject(c.properties)) Object.assign(properties, c.properties);
    if (Array.isArray(c.required)) for (const r of c.required) required.add(String(r));
  }
  out.type = 'object';
  out.properties = properties;
  if (required.size) out.required = [...required];
}

/**
 * Converts a TypeBox (JSON Schema) schema to an OpenAPI 3.0 schema: drops `$id`, `$schema` and TypeBox's
 * symbol keys, turns `anyOf [X, null]` into `nullable`, literal unions into `enum`, `const` into `enum`,
 * records into `additionalProperties`, integer|string into `x-kubernetes-int-or-string`, numeric exclusive
 * bounds into the boolean form, `{}` into `x-kubernetes-preserve-unknown-fields`; passes `x-*` through.
 * Named subschemas (`$id`, `$defs`) become entries of `components`, referenced with `$ref`.
 */
export function toOpenApiSchema(
  schema: TSchema,
  components: Record<string, Json> = {},
  prefix = 'io.fleethub.schemas',
  rootName?: string,
): Json {
  const ctx: ConvertContext = { ids: new Map(), byId: new Map(), components, inProgress: new Set(), prefix };
  const root: unknown = schema;
  if (!isPlainObject(root)) return { 'x-kubernetes-preserve-unknown-fields': true };
  const id = typeof root.$id === 'string' ? root.$id : undefined;
  const name = rootName ?? (id === undefined ? undefined : id.includes('.') ? id : `${prefix}.${id}`);
  collectIds(root, ctx, true, name ?? '');
  // The root is converted in place; references back to it (recursive schemas) point at `name`.
  if (name) ctx.inProgress.add(name);
  return convertBody(root, ctx);
}
