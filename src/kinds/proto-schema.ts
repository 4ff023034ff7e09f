// TypeBox schemas for every k8s.io/api message, built from the protobuf descriptor tables the hub already
// has, so a built-in kind gets strict field validation and OpenAPI components without a hand-written schema.
import { FormatRegistry, Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { SchemaRegistry, type FieldDesc, type ValueType } from '../apiserver/protobuf/descriptors.js';
import { ALL_TABLES } from '../apiserver/protobuf/schema/index.js';
import { closed, kindSchema, ObjectMetaSchema } from './meta.js';

/*
 * Shape of the output, and why:
 * - every message is a closed object, so unknown fields surface through validation.ts exactly as for
 *   hand-written kinds (`unknown field "spec.template.spec.containers[0].foo"`);
 * - every field is optional: required-ness lives in the Go validation code, not in the proto;
 * - each message is built once per process and the same object is reused wherever it is referenced,
 *   carrying `$id` = its OpenAPI name (`io.k8s.api.core.v1.PodSpec`). TypeCompiler hoists `$id`
 *   schemas into one function each (PodSpec is compiled once per kind, not once per use) and
 *   openapi-schema.ts turns them into `components/schemas` entries named as kube-apiserver names them;
 * - a message reached again while it is being built (a recursive type) becomes "anything".
 */

const registry = new SchemaRegistry(ALL_TABLES);
const messages = new Map<string, TSchema>();
const kinds = new Map<string, TObject>();
const building = new Set<string>();

const Int32 = Type.Integer({ format: 'int32' });
const Int64 = Type.Integer({ format: 'int64' });
const Bool = Type.Boolean();
const Str = Type.String();
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
if (!FormatRegistry.Has('byte')) FormatRegistry.Set('byte', (v) => v.length % 4 === 0 && BASE64.test(v));
const Bytes = Type.String({ format: 'byte' });
const Time = Type.String({ format: 'date-time' });
/** JSON int-or-string: openapi-schema.ts renders integer|string as `x-kubernetes-int-or-string`. */
export const IntOrString = Type.Union([Type.Integer(), Type.String()]);
/**
 * resource.Quantity: the apiserver also decodes bare JSON numbers (`cpu: 1`, `cpu: 0.5`), so numbers
 * pass; the string form must parse as a quantity, the one check its decoder makes.
 */
export const Quantity = Type.Union(
  [Type.String({ pattern: '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' }), Type.Number()],
  { 'x-kubernetes-int-or-string': true },
);
const Anything = Type.Unknown();
const FieldsV1 = Type.Record(Type.String(), Type.Unknown());

/** `core.v1.PodSpec` → `io.k8s.api.core.v1.PodSpec`, `meta.v1.X` → apimachinery's name. */
export function openApiName(messageName: string): string {
  if (messageName.startsWith('meta.v1.')) return `io.k8s.apimachinery.pkg.apis.${messageName}`;
  return `io.k8s.api.${messageName}`;
}

function specialSchema(special: Extract<ValueType, { kind: 'special' }>['special']): TSchema {
  switch (special) {
    case 'time':
    case 'microTime':
      return Time;
    case 'intOrString':
      return IntOrString;
    case 'quantity':
      return Quantity;
    case 'fieldsV1':
      return FieldsV1;
    case 'rawExtension':
      return Anything;
    case 'stringList':
      return Type.Array(Str);
  }
}

function valueSchema(value: ValueType): TSchema {
  switch (value.kind) {
    case 'scalar':
      switch (value.scalar) {
        case 'string':
          return Str;
        case 'bool':
          return Bool;
        case 'int32':
          return Int32;
        case 'int64':
          return Int64;
        case 'bytes':
          return Bytes;
      }
      break;
    case 'special':
      return specialSchema(value.special);
    case 'message':
      return messageSchema(value.name);
  }
}

function fieldSchema(field: FieldDesc): TSchema {
  const value = valueSchema(field.value);
  if (field.shape === 'repeated') return Type.Array(value);
  if (field.shape === 'map') return Type.Record(Type.String(), value);
  return value;
}

/** The properties of a message with inline (`json:",inline"`) members merged in. */
function messageProperties(name: string): TProperties {
  const desc = registry.message(name);
  if (!desc) throw new Error(`no protobuf descriptor for message ${name}`);
  const props: TProperties = {};
  for (const field of desc.fields.values()) {
    if (field.inline) {
      if (field.value.kind !== 'message') throw new Error(`${name}: inline field is not a message`);
      Object.assign(props, messageProperties(field.value.name));
    } else {
      props[field.json] = Type.Optional(fieldSchema(field));
    }
  }
  return props;
}

/** The schema of a nested message (shared, built once). */
function messageSchema(name: string): TSchema {
  if (name === 'meta.v1.ObjectMeta') return ObjectMetaSchema;
  const cached = messages.get(name);
  if (cached) return cached;
  if (building.has(name)) return Anything;
  building.add(name);
  try {
    const schema = closed(messageProperties(name), { $id: openApiName(name) });
    messages.set(name, schema);
    return schema;
  } finally {
    building.delete(name);
  }
}

/** `core.v1.Pod` → apiVersion `v1`; `apps.v1.Deployment` → `apps/v1` (for the envelope's title only). */
function apiVersionOfMessage(name: string): string {
  const [pkg, version] = name.split('.') as [string, string];
  return pkg === 'core' ? version : `${pkg}/${version}`;
}

/**
 * The schema of a message, e.g. `protoSchema('core.v1.Pod')`. A top-level kind gets the common envelope
 * (`apiVersion`, `kind`, and `metadata` checked by ObjectMeta's rules, as `kindSchema` does for every kind),
 * any other message its plain closed object. Cached: every caller in the process shares one object, so
 * validators compiled for it (validation.ts keys them by schema) are compiled once.
 */
export function protoSchema(messageName: string): TObject {
  const cached = kinds.get(messageName);
  if (cached) return cached;
  let schema: TObject;
  if (registry.isKind(messageName)) {
    const props = messageProperties(messageName);
    delete props.metadata;
    const kind = messageName.slice(messageName.lastIndexOf('.') + 1);
    schema = kindSchema(kind, apiVersionOfMessage(messageName), props);
  } else {
    schema = messageSchema(messageName) as TObject;
    if (schema.type !== 'object') throw new Error(`message ${messageName} is recursive`);
  }
  kinds.set(messageName, schema);
  return schema;
}
