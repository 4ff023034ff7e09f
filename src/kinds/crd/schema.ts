// A CRD version's openAPIV3Schema (structural JSONSchemaProps) as a TypeBox schema the validator and the
// OpenAPI publisher understand, plus the structural defaulting of its `default` values.
import { Type, type TObject, type TSchema, type TProperties } from '@sinclair/typebox';
import type { KubeObject } from '../../store/types.js';
import { ObjectMetaSchema } from '../meta.js';

/** JSONSchemaProps as stored in a CRD: only the keywords we read are named. */
export interface JsonSchemaProps {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  items?: JsonSchemaProps | JsonSchemaProps[];
  required?: string[];
  nullable?: boolean;
  default?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [keyword: string]: unknown;
}

/** Deeper schemas are accepted as "anything" rather than recursed into (a CRD is user input). */
const MAX_DEPTH = 64;

/** Formats the validator checks; kube-apiserver ignores formats it does not know, and so do we. */
const CHECKED_FORMATS = new Set(['date-time']);

const NUMBER_KEYWORDS = [
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

function isProps(v: unknown): v is JsonSchemaProps {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Keywords that carry over unchanged: documentation, value constraints, `x-kubernetes-*` markers. */
function optionsOf(s: JsonSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof s.description === 'string') out.description = s.description;
  if (s.default !== undefined) out.default = s.default;
  for (const key of NUMBER_KEYWORDS) if (typeof s[key] === 'number') out[key] = s[key];
  if (s.uniqueItems === true) out.uniqueItems = true;
  if (typeof s.pattern === 'string' && validPattern(s.pattern)) out.pattern = s.pattern;
  if (typeof s.format === 'string' && CHECKED_FORMATS.has(s.format)) out.format = s.format;
  // OpenAPI 3.0's boolean exclusive bounds are JSON Schema 2019's numeric ones.
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true) out.exclusiveMinimum = s.minimum;
    else out.minimum = s.minimum;
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true) out.exclusiveMaximum = s.maximum;
    else out.maximum = s.maximum;
  }
  for (const [key, value] of Object.entries(s)) if (key.startsWith('x-kubernetes-')) out[key] = value;
  return out;
}

function openObject(options: Record<string, unknown>): TSchema {
  return Type.Object(
    {},
    { ...options, additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': true },
  );
}

function convert(s: JsonSchemaProps, depth: number): TSchema {
  const options = optionsOf(s);
  if (depth > MAX_DEPTH) return Type.Unknown(options);
  let schema: TSchema;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s['x-kubernetes-int-or-string'] === true) {
    schema = Type.Union([Type.Integer(), Type.String()], options);
  } else if (Array.isArray(s.enum) && s.enum.length > 0 && s.type !== 'object' && s.type !== 'array') {
    // A union of literals checks the enum and publishes as one.
    const literals = s.enum.filter(
      (v): v is string | number | boolean =>
        typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
    );
    schema =
      literals.length === s.enum.length
        ? literals.length === 1
          ? Type.Literal(literals[0]!, options)
          : Type.Union(
              literals.map((v) => Type.Literal(v)),
              options,
            )
        : Type.Unknown(options);
  } else {
    switch (s.type) {
      case 'string':
        schema = Type.String(options);
        break;
      case 'integer':
        schema = Type.Integer(options);
        break;
      case 'number':
        schema = Type.Number(options);
        break;
      case 'boolean':
        schema = Type.Boolean(options);
        break;
      case 'array': {
        const items = Array.isArray(s.items) ? s.items[0] : s.items;
        schema = Type.Array(isProps(items) ? convert(items, depth + 1) : Type.Unknown(), options);
        break;
      }
      case 'object':
      case undefined:
        schema = objectSchema(s, options, preserve, depth);
        break;
      default:
        schema = Type.Unknown(options);
    }
  }
  return s.nullable === true ? Type.Union([schema, Type.Null()]) : schema;
}

function objectSchema(
  s: JsonSchemaProps,
  options: Record<string, unknown>,
  preserve: boolean,
  depth: number,
): TSchema {
  // An embedded object (a Pod template in a CR) is validated by its own kind, not here.
  if (s['x-kubernetes-embedded-resource'] === true) return openObject(options);
  if (isProps(s.properties)) {
    return Type.Object(propertiesOf(s, depth), { ...options, additionalProperties: preserve });
  }
  if (isProps(s.additionalProperties))
    return Type.Record(Type.String(), convert(s.additionalProperties, depth + 1), options);
  if (preserve || s.additionalProperties === true || s.type === undefined) return openObject(options);
  // `type: object` without properties: a structural schema prunes everything inside.
  return Type.Object({}, { ...options, additionalProperties: false });
}

function propertiesOf(s: JsonSchemaProps, depth: number, skip: readonly string[] = []): TProperties {
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const props: TProperties = {};
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    if (skip.includes(name) || !isProps(sub)) continue;
    const converted = convert(sub, depth + 1);
    props[name] = required.has(name) ? converted : Type.Optional(converted);
  }
  return props;
}

/**
 * The whole custom resource's schema: the standard apiVersion/kind/metadata envelope around the CRD's
 * top-level properties. Without a schema (not allowed by apiextensions/v1, but harmless) anything goes.
 */
export function customResourceSchema(kind: string, schema: JsonSchemaProps | undefined): TObject {
  const top = isProps(schema) ? schema : { 'x-kubernetes-preserve-unknown-fields': true };
  const preserve = top['x-kubernetes-preserve-unknown-fields'] === true || !isProps(top.properties);
  const options: Record<string, unknown> = { title: kind, additionalProperties: preserve };
  if (typeof top.description === 'string') options.description = top.description;
  if (preserve) options['x-kubernetes-preserve-unknown-fields'] = true;
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: ObjectMetaSchema,
      // The CRD may describe metadata (name patterns); the common ObjectMeta rules apply instead.
      ...propertiesOf(top, 0, ['apiVersion', 'kind', 'metadata']),
    },
    options,
  );
}

/** True when some `default` appears in the schema, so objects of kinds without any cost nothing. */
export function hasDefaults(schema: unknown, depth = 0): boolean {
  if (!isProps(schema) || depth > MAX_DEPTH) return false;
  if (schema.default !== undefined && depth > 0) return true;
  if (isProps(schema.properties))
    for (const sub of Object.values(schema.properties)) if (hasDefaults(sub, depth + 1)) return true;
  if (isProps(schema.additionalProperties) && hasDefaults(schema.additionalProperties, depth + 1))
    return true;
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  return hasDefaults(items, depth + 1);
}

/** Structural defaulting: fills absent fields that declare a `default`, in every object present. */
export function applyDefaults(schema: JsonSchemaProps, value: unknown, depth = 0): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    if (isProps(items)) for (const item of value) applyDefaults(items, item, depth + 1);
    return;
  }
  const obj = value as Record<string, unknown>;
  if (isProps(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!isProps(sub) || (depth === 0 && (name === 'metadata' || name === 'apiVersion' || name === 'kind')))
        continue;
      if (obj[name] === undefined && sub.default !== undefined) obj[name] = structuredClone(sub.default);
      applyDefaults(sub, obj[name], depth + 1);
    }
  } else if (isProps(schema.additionalProperties)) {
    for (const item of Object.values(obj)) applyDefaults(schema.additionalProperties, item, depth + 1);
  }
}

/** Defaults of a custom resource per its version's schema; undefined when the schema declares none. */
export function defaulterFor(schema: JsonSchemaProps | undefined): ((obj: KubeObject) => void) | undefined {
  if (!isProps(schema) || !hasDefaults(schema)) return undefined;
  return (obj) => applyDefaults(schema, obj);
}
