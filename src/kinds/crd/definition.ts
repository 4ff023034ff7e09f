// The apiextensions.k8s.io/v1 CustomResourceDefinition kind: its schema, kube-apiserver's basic checks
// (422 with causes) and the create-time status that says the names are accepted and the CRD established.
import { Type } from '@sinclair/typebox';
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { closed, kindSchema, nameProblem } from '../meta.js';
import type { KindDefinition } from '../types.js';
import type { JsonSchemaProps } from './schema.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_VERSION = 'v1';
export const CRD_PLURAL = 'customresourcedefinitions';
/** The store's name for CRDs (`<plural>.<group>`, as for every grouped kind). */
export const CRD_RESOURCE = `${CRD_PLURAL}.${CRD_GROUP}`;

export interface CrdNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CrdColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: { jsonPath: string }[];
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: Record<string, unknown>;
  preserveUnknownFields?: boolean;
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

/** A CRD as stored; the schema has checked the shape, the spec may still miss required parts. */
export type CrdObject = KubeObject & { spec?: CrdSpec; status?: CrdStatus };

const Strings = Type.Array(Type.String());

const NamesSchema = closed({
  plural: Type.Optional(Type.String({ description: 'The resource name in URLs: `widgets`.' })),
  singular: Type.Optional(Type.String({ description: 'Defaults to the lowercased kind.' })),
  shortNames: Type.Optional(Strings),
  kind: Type.Optional(Type.String({ description: 'The CamelCase kind of the resources.' })),
  listKind: Type.Optional(Type.String({ description: 'Defaults to `<kind>List`.' })),
  categories: Type.Optional(Strings),
});

/** JSONSchemaProps is recursive and large; any object is taken and read by the CRD machinery. */
const AnySchema = Type.Object(
  {},
  { additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': true },
);

const ColumnSchema = closed({
  name: Type.String(),
  type: Type.String(),
  format: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  priority: Type.Optional(Type.Integer()),
  jsonPath: Type.String(),
});

const VersionSchema = closed({
  name: Type.String(),
  served: Type.Boolean(),
  storage: Type.Boolean(),
  deprecated: Type.Optional(Type.Boolean()),
  deprecationWarning: Type.Optional(Type.String()),
  schema: Type.Optional(closed({ openAPIV3Schema: Type.Optional(AnySchema) })),
  subresources: Type.Optional(
    closed({
      status: Type.Optional(AnySchema),
      scale: Type.Optional(
        closed({
          specReplicasPath: Type.String(),
          statusReplicasPath: Type.String(),
          labelSelectorPath: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
  additionalPrinterColumns: Type.Optional(Type.Array(ColumnSchema)),
  selectableFields: Type.Optional(Type.Array(closed({ jsonPath: Type.String() }))),
});

const ConditionSchema = closed({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const CustomResourceDefinitionSchema = kindSchema('CustomResourceDefinition', `${CRD_GROUP}/v1`, {
  spec: closed({
    group: Type.Optional(Type.String({ description: 'The API group of the resources: `example.com`.' })),
    names: Type.Optional(NamesSchema),
    scope: Type.Optional(Type.String({ description: '`Namespaced` or `Cluster`.' })),
    versions: Type.Optional(Type.Array(VersionSchema)),
    conversion: Type.Optional(AnySchema),
    preserveUnknownFields: Type.Optional(Type.Boolean()),
  }),
  status: Type.Optional(
    closed({
      conditions: Type.Optional(Type.Array(ConditionSchema)),
      acceptedNames: Type.Optional(NamesSchema),
      storedVersions: Type.Optional(Strings),
    }),
  ),
});

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND_NAME = /^[A-Za-z][A-Za-z0-9]*$/;
const PRINTER_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);

const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});

const invalid = (field: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value))}: ${detail}`,
  field,
});

function checkNames(names: CrdNames | undefined, field: string, causes: StatusCause[]): void {
  if (!names?.plural) causes.push(required(`${field}.plural`));
  else if (!DNS1035_LABEL.test(names.plural))
    causes.push(invalid(`${field}.plural`, names.plural, 'a lowercase RFC 1123 label is required'));
  if (names?.singular && !DNS1035_LABEL.test(names.singular))
    causes.push(invalid(`${field}.singular`, names.singular, 'a lowercase RFC 1123 label is required'));
  if (!names?.kind) causes.push(required(`${field}.kind`));
  else if (!KIND_NAME.test(names.kind))
    causes.push(
      invalid(
        `${field}.kind`,
        names.kind,
        'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?',
      ),
    );
  if (names?.kind && names.kind === names.listKind)
    causes.push(invalid(`${field}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names?.shortNames ?? []).forEach((short, i) => {
    if (!DNS1035_LABEL.test(short))
      causes.push(invalid(`${field}.shortNames[${i}]`, short, 'a lowercase RFC 1123 label is required'));
  });
}

function checkVersions(versions: CrdVersion[] | undefined, causes: StatusCause[]): void {
  if (!versions || versions.length === 0) {
    causes.push(required('spec.versions'));
    return;
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const field = `spec.versions[${i}]`;
    if (!v.name) causes.push(required(`${field}.name`));
    else if (!DNS1035_LABEL.test(v.name))
      causes.push(invalid(`${field}.name`, v.name, 'a DNS-1035 label is required'));
    else if (seen.has(v.name))
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(v.name)}`,
        field: `${field}.name`,
      });
    seen.add(v.name);
    (v.additionalPrinterColumns ?? []).forEach((c, j) => {
      if (!PRINTER_TYPES.has(c.type))
        causes.push({
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: ${JSON.stringify(c.type)}: supported values: "boolean", "date", "integer", "number", "string"`,
          field: `${field}.additionalPrinterColumns[${j}].type`,
        });
    });
  });
  const storage = versions.filter((v) => v.storage).length;
  if (storage !== 1)
    causes.push(
      invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  if (!versions.some((v) => v.served))
    causes.push(
      invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have at least one version marked as served',
      ),
    );
}

/** kube-apiserver's basic CRD validation; what a broken CRD is refused for. */
export function validateCrd(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const crd = obj as CrdObject;
  const spec = crd.spec ?? {};
  const causes: StatusCause[] = [];
  const group = spec.group ?? '';
  if (!group) causes.push(required('spec.group'));
  else if (!group.includes('.') || nameProblem(group, 'dns1123-subdomain'))
    causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (!spec.scope) causes.push(required('spec.scope'));
  else if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  checkNames(spec.names, 'spec.names', causes);
  checkVersions(spec.versions, causes);
  const name = crd.metadata.name ?? '';
  const plural = spec.names?.plural ?? '';
  if (name && name !== `${plural}.${group}`)
    causes.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  const oldScope = (old as CrdObject | undefined)?.spec?.scope;
  if (oldScope && spec.scope && oldScope !== spec.scope)
    causes.push(invalid('spec.scope', spec.scope, 'field is immutable'));
  return causes;
}

/** The names as the apiserver accepts them: singular and listKind filled in. */
export function acceptedNamesOf(names: CrdNames | undefined): CrdNames {
  const out: CrdNames = { ...(names ?? {}) };
  const kind = out.kind ?? '';
  out.singular ||= kind.toLowerCase();
  out.listKind ||= `${kind}List`;
  return out;
}

/** The status the apiserver's controllers write at once: names accepted, established, storage recorded. */
export function initialStatus(spec: CrdSpec, now = new Date()): CrdStatus {
  const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const storage = spec.versions?.find((v) => v.storage)?.name;
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: at,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: at,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: acceptedNamesOf(spec.names),
    storedVersions: storage ? [storage] : [],
  };
}

/**
 * The status the apiserver's controllers would converge to for a CRD written since (names changed, a
 * new storage version, or stored without status); undefined when the stored one already says it.
 */
export function reconciledStatus(crd: CrdObject, now = new Date()): CrdStatus | undefined {
  const spec = crd.spec ?? {};
  const status = crd.status ?? {};
  const names = acceptedNamesOf(spec.names);
  const storage = spec.versions?.find((v) => v.storage)?.name;
  const established = (status.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  const stored = status.storedVersions ?? [];
  const namesSame = JSON.stringify(status.acceptedNames ?? {}) === JSON.stringify(names);
  if (established && namesSame && (!storage || stored.includes(storage))) return undefined;
  const next: CrdStatus = { ...status, acceptedNames: names };
  if (storage && !stored.includes(storage)) next.storedVersions = [...stored, storage];
  if (!established) next.conditions = initialStatus(spec, now).conditions!;
  return next;
}

function defaultCrd(obj: KubeObject): void {
  const crd = obj as CrdObject;
  const spec = (crd.spec ??= {});
  if (spec.names) spec.names = acceptedNamesOf(spec.names);
  spec.conversion ??= { strategy: 'None' };
  crd.status = initialStatus(spec);
}

export const CustomResourceDefinition: KindDefinition = {
  group: CRD_GROUP,
  version: CRD_VERSION,
  kind: 'CustomResourceDefinition',
  plural: CRD_PLURAL,
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  description:
    'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.',
  schema: CustomResourceDefinitionSchema,
  subresources: { status: true },
  defaults: defaultCrd,
  validate: validateCrd,
};
