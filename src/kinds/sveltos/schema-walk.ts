// CRD behaviour driven by the schema itself: `default`s filled in as a structural schema's defaulting
// does, and the `enum`s and int-or-string patterns TypeBox does not check reported as apimachinery words them.
import type { TSchema } from '@sinclair/typebox';
import type { StatusCause } from '../../util/errors.js';
import { isObj, type Obj } from '../builtin/kube-helpers.js';
import { checkEnum } from '../fleet/common.js';

/** The JSON-schema keywords read here; TypeBox schemas are plain JSON schema at runtime. */
interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  anyOf?: SchemaNode[];
  'x-kubernetes-int-or-string'?: boolean;
}

const node = (s: TSchema): SchemaNode => s as unknown as SchemaNode;

/**
 * Fills every absent (or null) property that has a `default`, at every depth of what is present — never
 * creating a parent that was not sent, as kube-apiserver defaults a CRD's objects. Mutates `value`.
 */
export function applySchemaDefaults(schema: TSchema, value: unknown): void {
  walkDefaults(node(schema), value);
}

function walkDefaults(s: SchemaNode, value: unknown): void {
  if (s.properties && isObj(value)) {
    for (const [key, child] of Object.entries(s.properties)) {
      if ((value[key] === undefined || value[key] === null) && child.default !== undefined)
        value[key] = structuredClone(child.default);
      walkDefaults(child, value[key]);
    }
  } else if (s.items && Array.isArray(value)) {
    for (const item of value) walkDefaults(s.items, item);
  } else if (s.patternProperties && isObj(value)) {
    const child = Object.values(s.patternProperties)[0];
    if (child) for (const v of Object.values(value)) walkDefaults(child, v);
  }
}

/**
 * Reports string values outside their schema's `enum` (TypeBox publishes `enum` on a string but does not
 * check it) and int-or-string values not matching the `pattern` the union publishes, under `field`.
 */
export function checkSchemaEnums(
  causes: StatusCause[],
  schema: TSchema,
  value: unknown,
  field: string,
): void {
  walkEnums(causes, node(schema), value, field);
}

function walkEnums(causes: StatusCause[], s: SchemaNode, value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  if (s.enum && s.type === 'string') {
    checkEnum(causes, value, s.enum as string[], field);
    return;
  }
  if (s['x-kubernetes-int-or-string'] && s.pattern && typeof value === 'string') {
    if (!new RegExp(s.pattern).test(value))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(value)}: ${field} in body should match '${s.pattern}'`,
        field,
      });
    return;
  }
  if (s.properties && isObj(value)) {
    for (const [key, child] of Object.entries(s.properties))
      walkEnums(causes, child, (value as Obj)[key], `${field}.${key}`);
  } else if (s.items && Array.isArray(value)) {
    value.forEach((item, i) => walkEnums(causes, s.items!, item, `${field}[${i}]`));
  }
}
