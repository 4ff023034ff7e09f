// ObjectMeta: its schema and the validation rules Kubernetes applies to names, labels and annotations,
// shared by every kind. Messages follow apimachinery's so users recognise them.
import { Type, type TSchema, type TProperties, type ObjectOptions } from '@sinclair/typebox';
import type { KubeObject } from '../store/types.js';
import type { StatusCause } from '../util/errors.js';

/** A closed object: unknown fields are reported (strict field validation) or pruned. */
export function closed<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

export const StringMap = Type.Record(Type.String(), Type.String());

const Time = Type.String({ format: 'date-time' });

export const OwnerReferenceSchema = closed({
  apiVersion: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  uid: Type.String(),
  controller: Type.Optional(Type.Boolean()),
  blockOwnerDeletion: Type.Optional(Type.Boolean()),
});

export const ManagedFieldsEntrySchema = closed({
  manager: Type.Optional(Type.String()),
  operation: Type.Optional(Type.String()),
  apiVersion: Type.Optional(Type.String()),
  time: Type.Optional(Time),
  fieldsType: Type.Optional(Type.String()),
  fieldsV1: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  subresource: Type.Optional(Type.String()),
});

export const ObjectMetaSchema = closed({
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  selfLink: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer()),
  creationTimestamp: Type.Optional(Type.Union([Time, Type.Null()])),
  deletionTimestamp: Type.Optional(Time),
  deletionGracePeriodSeconds: Type.Optional(Type.Integer()),
  labels: Type.Optional(StringMap),
  annotations: Type.Optional(StringMap),
  ownerReferences: Type.Optional(Type.Array(OwnerReferenceSchema)),
  finalizers: Type.Optional(Type.Array(Type.String())),
  managedFields: Type.Optional(Type.Array(ManagedFieldsEntrySchema)),
});

/** The envelope every kind shares; kinds add their own top-level fields. */
export function kindSchema<T extends TProperties>(kind: string, _apiVersion: string, fields: T) {
  return closed(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: ObjectMetaSchema,
      ...fields,
    },
    { title: kind },
  );
}

export function optional<T extends TSchema>(schema: T) {
  return Type.Optional(schema);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'path-segment';

/** Returns why `name` is not a valid object name under `rule`, or undefined. */
export function nameProblem(name: string, rule: NameRule): string | undefined {
  switch (rule) {
    case 'dns1123-label':
      if (name.length > 63) return 'must be no more than 63 characters';
      if (!DNS1123_LABEL.test(name))
        return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
      return undefined;
    case 'dns1123-subdomain':
      if (name.length > 253) return 'must be no more than 253 characters';
      if (!DNS1123_SUBDOMAIN.test(name))
        return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      return undefined;
    case 'path-segment':
      if (name === '.' || name === '..') return `may not be '${name}'`;
      if (name.includes('/')) return "may not contain '/'";
      if (name.includes('%')) return "may not contain '%'";
      return undefined;
  }
}

function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || nameProblem(prefix, 'dns1123-subdomain')))
    return 'prefix part must be a lowercase RFC 1123 subdomain';
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name))
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  return undefined;
}

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** Kubernetes' ObjectMeta rules: name, labels, annotations, finalizers. */
export function validateObjectMeta(obj: KubeObject, nameRule: NameRule, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const meta = obj.metadata;
  const name = meta.name ?? '';
  if (!name) {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    });
  } else {
    const problem = nameProblem(name, nameRule);
    if (problem)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": ${problem}`,
        field: 'metadata.name',
      });
  }
  if (!namespaced && meta.namespace)
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: not allowed on this type',
      field: 'metadata.namespace',
    });
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${key}": ${keyProblem}`,
        field: 'metadata.labels',
      });
    if (value.length > 63 || !LABEL_VALUE.test(value))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        field: `metadata.labels`,
      });
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem)
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${key}": ${keyProblem}`,
        field: 'metadata.annotations',
      });
    annotationBytes += key.length + value.length;
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES)
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`,
      field: 'metadata.annotations',
    });
  for (const finalizer of meta.finalizers ?? []) {
    const problem = qualifiedNameProblem(finalizer);
    if (problem && finalizer !== 'kubernetes')
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${finalizer}": ${problem}`,
        field: 'metadata.finalizers',
      });
  }
  return causes;
}
