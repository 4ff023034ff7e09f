// OpenAPI v3 for the kind registry: the `/openapi/v3` root and one document per group-version with real
// component schemas converted from the kinds' TypeBox schemas, content-hashed and served as prepared bytes.
import { createHash } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { ALL_VERBS, type Verb } from '../kinds/types.js';
import { errors } from '../util/errors.js';
import { acceptsMediaType, parseAccept } from './accept.js';
import { clone, isPlainObject, toOpenApiSchema, type Json } from './openapi-schema.js';
import {
  extraSubresourcesOf,
  DEFAULT_GIT_VERSION,
  isKubernetesGroup,
  layoutRegistry,
  type GroupVersionKinds,
  type PreparedResponse,
  type ServedKind,
  type SubresourceDefinition,
} from './discovery.js';

export interface OpenApiOptions {
  /** `info.version` of every document; default the same as /version's gitVersion default. */
  kubernetesVersion?: string;
}

// ---------------------------------------------------------------------------------------------------
// Names

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * Component-name prefix of a group-version, following the names kube-apiserver uses:
 * `io.k8s.api.core.v1`, `io.k8s.api.rbac.v1`, and reversed DNS for other groups (`com.example.v1`), as for CRDs.
 */
export function schemaPrefix(group: string, version: string): string {
  if (group === '') return `io.k8s.api.core.${version}`;
  if (group === 'apiextensions.k8s.io')
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
  if (isKubernetesGroup(group)) return `io.k8s.api.${group.split('.')[0]!}.${version}`;
  return `${group.split('.').reverse().join('.')}.${version}`;
}

export function schemaName(group: string, version: string, kind: string): string {
  return `${schemaPrefix(group, version)}.${kind}`;
}

function camel(part: string): string {
  return part
    .split(/[-_]/)
    .map((p) => (p ? p[0]!.toUpperCase() + p.slice(1) : ''))
    .join('');
}

/** `Core`, `Apps`, `RbacAuthorization`, `FleetExampleCom`: the group part of operation ids. */
function groupIdPart(group: string): string {
  if (group === '') return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split('.')
    .map(camel)
    .join('');
}

function tagOf(group: string, version: string): string {
  const g = groupIdPart(group);
  return `${g[0]!.toLowerCase()}${g.slice(1)}_${version}`;
}

// ---------------------------------------------------------------------------------------------------
// Shared ObjectMeta & co. (written for this server; descriptions are our own)

const str = (description: string): Json => ({ type: 'string', description });
const int64 = (description: string): Json => ({ type: 'integer', format: 'int64', description });
const refWith = (name: string, description: string, extra: Json = {}): Json => ({
  allOf: [{ $ref: ref(name) }],
  description,
  ...extra,
});
const stringMap = (description: string): Json => ({
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  description,
});

const METADATA_DESCRIPTION =
  "Standard object's metadata: name, namespace, labels, annotations, owner references and server-set fields.";
const API_VERSION_DESCRIPTION =
  'Versioned schema of this representation of the object, e.g. `v1` or `apps/v1`.';
const KIND_DESCRIPTION = 'The REST resource type this object represents, in CamelCase.';

function metaComponents(): Record<string, Json> {
  return {
    [`${META}.Time`]: {
      type: 'string',
      format: 'date-time',
      description: 'An RFC 3339 timestamp with second precision.',
    },
    [`${META}.FieldsV1`]: {
      type: 'object',
      description: 'A set of fields in the managed-fields trie format.',
    },
    [`${META}.OwnerReference`]: {
      type: 'object',
      description: 'Identifies an owning object; the owner must be in the same namespace or cluster-scoped.',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      properties: {
        apiVersion: str('API version of the owner.'),
        blockOwnerDeletion: {
          type: 'boolean',
          description: 'Whether foreground deletion of the owner waits for this object.',
        },
        controller: { type: 'boolean', description: 'Whether the owner is the managing controller.' },
        kind: str('Kind of the owner.'),
        name: str('Name of the owner.'),
        uid: str('UID of the owner.'),
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [`${META}.ManagedFieldsEntry`]: {
      type: 'object',
      description: 'Which fields a manager owns, recorded by server-side apply.',
      properties: {
        apiVersion: str('Version of the fields set.'),
        fieldsType: str('Format of fieldsV1; only "FieldsV1".'),
        fieldsV1: refWith(`${META}.FieldsV1`, 'The owned fields.'),
        manager: str('Name of the manager.'),
        operation: str('Apply or Update.'),
        subresource: str('The subresource written through, if any.'),
        time: refWith(`${META}.Time`, 'When the entry last changed.'),
      },
    },
    [`${META}.ObjectMeta`]: {
      type: 'object',
      description: 'Metadata every persisted object carries.',
      properties: {
        annotations: stringMap('Unstructured key/value data for tools; not used for selection.'),
        creationTimestamp: refWith(`${META}.Time`, 'When the object was created; set by the server.'),
        deletionGracePeriodSeconds: int64('Seconds allowed for graceful termination once deletion started.'),
        deletionTimestamp: refWith(
          `${META}.Time`,
          'When the object will be or was deleted; set by the server on delete.',
        ),
        finalizers: {
          type: 'array',
          items: { type: 'string', default: '' },
          description: 'Entries that must be removed before the object is deleted.',
          'x-kubernetes-list-type': 'set',
          'x-kubernetes-patch-strategy': 'merge',
        },
        generateName: str('Prefix for a server-generated name when name is empty.'),
        generation: int64('Sequence number of the desired state; set by the server.'),
        labels: stringMap('Key/value pairs used to select objects.'),
        managedFields: {
          type: 'array',
          items: { $ref: ref(`${META}.ManagedFieldsEntry`) },
          description: 'Field ownership per manager, maintained by the server.',
          'x-kubernetes-list-type': 'atomic',
        },
        name: str('Name, unique within the namespace (or cluster for cluster-scoped kinds).'),
        namespace: str('Namespace of a namespaced object.'),
        ownerReferences: {
          type: 'array',
          items: { $ref: ref(`${META}.OwnerReference`) },
          description: 'Objects this object depends on; it is garbage collected when they are gone.',
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        },
        resourceVersion: str('Opaque version for optimistic concurrency and watches; set by the server.'),
        selfLink: str('Deprecated; never set.'),
        uid: str('Unique identifier for the lifetime of the object; set by the server.'),
      },
    },
    [`${META}.ListMeta`]: {
      type: 'object',
      description: 'Metadata of lists.',
      properties: {
        continue: str('Token for the next page when the list was limited.'),
        remainingItemCount: int64('Items left after this page, when known.'),
        resourceVersion: str('Version of the list, to watch from.'),
        selfLink: str('Deprecated; never set.'),
      },
    },
    [`${META}.StatusCause`]: {
      type: 'object',
      description: 'One reason of an error.',
      properties: {
        field: str('The field at fault, if any.'),
        message: str('Human-readable text.'),
        reason: str('Machine-readable reason.'),
      },
    },
    [`${META}.StatusDetails`]: {
      type: 'object',
      description: 'Extra data of an error.',
      properties: {
        causes: {
          type: 'array',
          items: { $ref: ref(`${META}.StatusCause`) },
          'x-kubernetes-list-type': 'atomic',
          description: 'Causes.',
        },
        group: str('Group of the resource.'),
        kind: str('Kind (resource) of the object.'),
        name: str('Name of the object.'),
        retryAfterSeconds: { type: 'integer', format: 'int32', description: 'When to retry.' },
        uid: str('UID of the object.'),
      },
    },
    [`${META}.Status`]: {
      type: 'object',
      description: 'Result of an operation that returns no object.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        code: { type: 'integer', format: 'int32', description: 'HTTP status code.' },
        details: refWith(`${META}.StatusDetails`, 'Extra data.'),
        kind: str(KIND_DESCRIPTION),
        message: str('Human-readable text.'),
        metadata: refWith(`${META}.ListMeta`, 'List metadata.', { default: {} }),
        reason: str('Machine-readable reason.'),
        status: str('Success or Failure.'),
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
    [`${META}.Preconditions`]: {
      type: 'object',
      description: 'Must hold for a delete to go ahead.',
      properties: { resourceVersion: str('Expected resourceVersion.'), uid: str('Expected UID.') },
    },
    [`${META}.DeleteOptions`]: {
      type: 'object',
      description: 'Options of a delete.',
      properties: {
        apiVersion: str(API_VERSION_DESCRIPTION),
        dryRun: {
          type: 'array',
          items: { type: 'string', default: '' },
          'x-kubernetes-list-type': 'atomic',
          description: '["All"] to validate only.',
        },
        gracePeriodSeconds: int64('Seconds before the object is deleted.'),
        kind: str(KIND_DESCRIPTION),
        orphanDependents: { type: 'boolean', description: 'Deprecated; use propagationPolicy.' },
        preconditions: refWith(`${META}.Preconditions`, 'Must hold for the delete to go ahead.'),
        propagationPolicy: str('Orphan, Background or Foreground.'),
      },
    },
  };
}

const ENVELOPE: Json = {
  apiVersion: str(API_VERSION_DESCRIPTION),
  kind: str(KIND_DESCRIPTION),
  metadata: refWith(`${META}.ObjectMeta`, METADATA_DESCRIPTION, { default: {} }),
};

/** The kind's component: its own fields plus the common apiVersion/kind/metadata. */
function kindComponent(
  kind: { group: string; version: string; kind: string; description?: string; schema: TSchema },
  components: Record<string, Json>,
): Json {
  const converted = toOpenApiSchema(
    kind.schema,
    components,
    schemaPrefix(kind.group, kind.version),
    schemaName(kind.group, kind.version, kind.kind),
  );
  const properties: Json = isPlainObject(converted.properties) ? converted.properties : {};
  const own: Json = { ...properties };
  delete own.metadata;
  delete own.apiVersion;
  delete own.kind;
  const out: Json = {
    ...converted,
    type: 'object',
    properties: { ...clone(ENVELOPE), ...own },
    'x-kubernetes-group-version-kind': [{ group: kind.group, kind: kind.kind, version: kind.version }],
  };
  // The envelope fields are ours: Kubernetes never marks them required (the server fills kind/apiVersion).
  const required = Array.isArray(out.required)
    ? (out.required as string[]).filter((r) => !(r in ENVELOPE))
    : [];
  if (required.length) out.required = required;
  else delete out.required;
  // The definition's description is the deliberate one; a schema's is often just a label.
  if (kind.description) out.description = kind.description;
  delete out['x-kubernetes-preserve-unknown-fields'];
  return out;
}

function listComponent(kind: ServedKind): Json {
  return {
    type: 'object',
    description: `A list of ${kind.kind} objects.`,
    required: ['items'],
    properties: {
      apiVersion: str(API_VERSION_DESCRIPTION),
      items: {
        type: 'array',
        items: { $ref: ref(schemaName(kind.group, kind.version, kind.kind)) },
        description: `The ${kind.plural}.`,
      },
      kind: str(KIND_DESCRIPTION),
      metadata: refWith(`${META}.ListMeta`, 'List metadata.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': [
      { group: kind.group, kind: `${kind.kind}List`, version: kind.version },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------
// Paths

const stringSchema = { type: 'string', uniqueItems: true };
const query = (name: string, description: string, schema: Json = stringSchema): Json => ({
  name,
  in: 'query',
  description,
  schema,
});

const P = {
  name: {
    name: 'name',
    in: 'path',
    description: 'Name of the object.',
    required: true,
    schema: stringSchema,
  },
  namespace: {
    name: 'namespace',
    in: 'path',
    description: 'Namespace of the object.',
    required: true,
    schema: stringSchema,
  },
  pretty: query('pretty', "If 'true', the output is indented."),
  dryRun: query('dryRun', "'All' validates and computes the result without persisting it."),
  fieldManager: query('fieldManager', 'Name of the actor making the change, for field ownership.'),
  // kubectl and helm look for this parameter on PATCH operations to decide that the server validates fields.
  fieldValidation: query(
    'fieldValidation',
    'Ignore, Warn or Strict: how to treat unknown or duplicate fields.',
  ),
  force: query('force', "Apply only: 'true' takes ownership of conflicting fields.", {
    type: 'boolean',
    uniqueItems: true,
  }),
  labelSelector: query('labelSelector', 'Only objects whose labels match.'),
  fieldSelector: query('fieldSelector', 'Only objects whose fields match.'),
  limit: query('limit', 'Page size.', { type: 'integer', uniqueItems: true }),
  continue: query('continue', 'Token from the previous page.'),
  resourceVersion: query('resourceVersion', 'Version constraint of the read.'),
  resourceVersionMatch: query('resourceVersionMatch', 'How resourceVersion applies to a list.'),
  watch: query('watch', 'Stream changes instead of listing.', { type: 'boolean', uniqueItems: true }),
  allowWatchBookmarks: query('allowWatchBookmarks', 'Send BOOKMARK events.', {
    type: 'boolean',
    uniqueItems: true,
  }),
  sendInitialEvents: query('sendInitialEvents', 'Start a watch with the current state.', {
    type: 'boolean',
    uniqueItems: true,
  }),
  timeoutSeconds: query('timeoutSeconds', 'End the list or watch after this long.', {
    type: 'integer',
    uniqueItems: true,
  }),
  gracePeriodSeconds: query('gracePeriodSeconds', 'Seconds before the object is deleted.', {
    type: 'integer',
    uniqueItems: true,
  }),
  propagationPolicy: query('propagationPolicy', 'Orphan, Background or Foreground deletion of dependents.'),
  orphanDependents: query('orphanDependents', 'Deprecated; use propagationPolicy.', {
    type: 'boolean',
    uniqueItems: true,
  }),
};

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];

function content(schemaRef: string): Json {
  return { 'application/json': { schema: { $ref: ref(schemaRef) } } };
}

function responses(codes: Record<string, string | undefined>): Json {
  const out: Json = {};
  for (const [code, schemaRef] of Object.entries(codes)) {
    out[code] = schemaRef
      ? {
          description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK',
          content: content(schemaRef),
        }
      : { description: 'OK' };
  }
  out['401'] = { description: 'Unauthorized' };
  return out;
}

interface OperationSpec {
  id: string;
  description: string;
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  gvk: { group: string; version: string; kind: string };
  tag: string;
  parameters: Json[];
  responses: Json;
  /** Request body schema for POST/PUT; never for PATCH (see below). */
  body?: string;
}

function operation(spec: OperationSpec): Json {
  const op: Json = {
    description: spec.description,
    operationId: spec.id,
    tags: [spec.tag],
    parameters: spec.parameters,
  };
  if (spec.body)
    op.requestBody = { content: { '*/*': { schema: { $ref: ref(spec.body) } } }, required: true };
  op.responses = spec.responses;
  op['x-kubernetes-action'] = spec.action;
  op['x-kubernetes-group-version-kind'] = {
    group: spec.gvk.group,
    kind: spec.gvk.kind,
    version: spec.gvk.version,
  };
  return op;
}

/*
 * Why PATCH operations carry no `requestBody`: kubectl's client-side apply checks
 * `patch.requestBody.content["application/strategic-merge-patch+json"]` and, when present, computes the
 * strategic merge patch from these schemas, which is only right if every list carries the exact
 * `x-kubernetes-patch-merge-key` / `x-kubernetes-patch-strategy` / `x-kubernetes-list-type` of the real
 * API. Without it kubectl falls back to its compiled-in types for built-in kinds and to JSON merge
 * patch for ours, which the server implements exactly. kubectl/helm only need the `fieldValidation`
 * parameter here to skip client-side validation.
 */
function pathsForKind(kind: ServedKind, out: Json): void {
  const verbs = new Set<Verb>(kind.verbs ?? ALL_VERBS);
  const gvk = { group: kind.group, version: kind.version, kind: kind.kind };
  const prefix = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  const collection = kind.namespaced
    ? `${prefix}/namespaces/{namespace}/${kind.plural}`
    : `${prefix}/${kind.plural}`;
  const item = `${collection}/{name}`;
  const scopeParams = kind.namespaced ? [P.namespace, P.pretty] : [P.pretty];
  const itemParams = [P.name, ...scopeParams];
  const kindRef = schemaName(kind.group, kind.version, kind.kind);
  const listRef = `${kindRef}List`;
  const G = groupIdPart(kind.group);
  const V = camel(kind.version);
  const ns = kind.namespaced ? 'Namespaced' : '';
  const tag = tagOf(kind.group, kind.version);
  const op = (o: Omit<OperationSpec, 'gvk' | 'tag'>) => operation({ ...o, gvk, tag });

  const coll: Json = {};
  if (verbs.has('list')) {
    coll.get = op({
      id: `list${G}${V}${ns}${kind.kind}`,
      description: `list or watch objects of kind ${kind.kind}`,
      action: 'list',
      parameters: LIST_PARAMS,
      responses: responses({ '200': listRef }),
    });
  }
  if (verbs.has('create')) {
    const createOnly = !verbs.has('get');
    coll.post = op({
      id: `create${G}${V}${ns}${kind.kind}`,
      description: `create ${createOnly ? 'a' : 'an object of kind'} ${kind.kind}`,
      action: 'post',
      parameters: WRITE_PARAMS,
      body: kindRef,
      responses: responses({ '200': kindRef, '201': kindRef, '202': kindRef }),
    });
  }
  if (verbs.has('deletecollection')) {
    coll.delete = op({
      id: `delete${G}${V}Collection${ns}${kind.kind}`,
      description: `delete collection of ${kind.kind}`,
      action: 'deletecollection',
      parameters: [
        ...DELETE_PARAMS,
        ...LIST_PARAMS.filter((p) => p !== P.watch && p !== P.allowWatchBookmarks),
      ],
      responses: responses({ '200': `${META}.Status` }),
    });
  }
  if (Object.keys(coll).length) out[collection] = { ...coll, parameters: scopeParams };

  const one: Json = {};
  if (verbs.has('get')) {
    one.get = op({
      id: `read${G}${V}${ns}${kind.kind}`,
      description: `read the specified ${kind.kind}`,
      action: 'get',
      parameters: [],
      responses: responses({ '200': kindRef }),
    });
  }
  if (verbs.has('update')) {
    one.put = op({
      id: `replace${G}${V}${ns}${kind.kind}`,
      description: `replace the specified ${kind.kind}`,
      action: 'put',
      parameters: WRITE_PARAMS,
      body: kindRef,
      responses: responses({ '200': kindRef, '201': kindRef }),
    });
  }
  if (verbs.has('patch')) {
    one.patch = op({
      id: `patch${G}${V}${ns}${kind.kind}`,
      description: `partially update the specified ${kind.kind}`,
      action: 'patch',
      parameters: PATCH_PARAMS,
      responses: responses({ '200': kindRef, '201': kindRef }),
    });
  }
  if (verbs.has('delete')) {
    const deleted = kind.deleteReturnsObject ? kindRef : `${META}.Status`;
    one.delete = op({
      id: `delete${G}${V}${ns}${kind.kind}`,
      description: `delete ${kind.kind}`,
      action: 'delete',
      parameters: DELETE_PARAMS,
      responses: responses({ '200': deleted, '202': deleted }),
    });
  }
  if (Object.keys(one).length) out[item] = { ...one, parameters: itemParams };

  if (kind.namespaced && verbs.has('list')) {
    out[`${prefix}/${kind.plural}`] = {
      get: op({
        id: `list${G}${V}${kind.kind}ForAllNamespaces`,
        description: `list or watch objects of kind ${kind.kind}`,
        action: 'list',
        parameters: LIST_PARAMS,
        responses: responses({ '200': listRef }),
      }),
      parameters: [P.pretty],
    };
  }

  if (kind.subresources?.status) {
    out[`${item}/status`] = {
      get: op({
        id: `read${G}${V}${ns}${kind.kind}Status`,
        description: `read status of the specified ${kind.kind}`,
        action: 'get',
        parameters: [],
        responses: responses({ '200': kindRef }),
      }),
      put: op({
        id: `replace${G}${V}${ns}${kind.kind}Status`,
        description: `replace status of the specified ${kind.kind}`,
        action: 'put',
        parameters: WRITE_PARAMS,
        body: kindRef,
        responses: responses({ '200': kindRef, '201': kindRef }),
      }),
      patch: op({
        id: `patch${G}${V}${ns}${kind.kind}Status`,
        description: `partially update status of the specified ${kind.kind}`,
        action: 'patch',
        parameters: PATCH_PARAMS,
        responses: responses({ '200': kindRef, '201': kindRef }),
      }),
      parameters: itemParams,
    };
  }

  for (const sub of extraSubresourcesOf(kind))
    pathsForSubresource(kind, sub, `${item}/${sub.name}`, itemParams, out);
}

function pathsForSubresource(
  kind: ServedKind,
  sub: SubresourceDefinition,
  path: string,
  params: Json[],
  out: Json,
): void {
  const gvk = { group: sub.group, version: sub.version, kind: sub.kind };
  const subRef = sub.schema ? schemaName(sub.group, sub.version, sub.kind) : undefined;
  const idBase = `${groupIdPart(kind.group)}${camel(kind.version)}${kind.namespaced ? 'Namespaced' : ''}${kind.kind}${camel(sub.name)}`;
  const tag = tagOf(kind.group, kind.version);
  const res = (codes: string[]) => responses(Object.fromEntries(codes.map((c) => [c, subRef])));
  const entry: Json = {};
  for (const verb of new Set(sub.verbs)) {
    if (verb === 'create') {
      entry.post = operation({
        id: `create${idBase}`,
        description: `create ${sub.kind} of the specified ${kind.kind}`,
        action: 'post',
        gvk,
        tag,
        parameters: WRITE_PARAMS,
        body: subRef,
        responses: res(['200', '201', '202']),
      });
    } else if (verb === 'get') {
      entry.get = operation({
        id: `read${idBase}`,
        description: `read ${sub.name} of the specified ${kind.kind}`,
        action: 'get',
        gvk,
        tag,
        parameters: [],
        responses: res(['200']),
      });
    } else if (verb === 'update') {
      entry.put = operation({
        id: `replace${idBase}`,
        description: `replace ${sub.name} of the specified ${kind.kind}`,
        action: 'put',
        gvk,
        tag,
        parameters: WRITE_PARAMS,
        body: subRef,
        responses: res(['200', '201']),
      });
    } else if (verb === 'patch') {
      entry.patch = operation({
        id: `patch${idBase}`,
        description: `partially update ${sub.name} of the specified ${kind.kind}`,
        action: 'patch',
        gvk,
        tag,
        parameters: PATCH_PARAMS,
        responses: res(['200', '201']),
      });
    } else if (verb === 'delete') {
      entry.delete = operation({
        id: `delete${idBase}`,
        description: `delete ${sub.name} of the specified ${kind.kind}`,
        action: 'delete',
        gvk,
        tag,
        parameters: DELETE_PARAMS,
        responses: res(['200', '202']),
      });
    }
  }
  if (Object.keys(entry).length) out[path] = { ...entry, parameters: params };
}

// ---------------------------------------------------------------------------------------------------
// Documents

export interface OpenApiDocument {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Json;
  components: { schemas: Record<string, Json>; securitySchemes: Json };
  security: Json[];
}

/** The OpenAPI v3 document of one group-version (`/openapi/v3/api/v1`, `/openapi/v3/apis/{g}/{v}`). */
export function openApiDocument(gv: GroupVersionKinds, options: OpenApiOptions = {}): OpenApiDocument {
  const schemas: Record<string, Json> = metaComponents();
  const paths: Json = {};
  for (const kind of gv.kinds) {
    schemas[schemaName(kind.group, kind.version, kind.kind)] = kindComponent(kind, schemas);
    if ((kind.verbs ?? ['list']).includes('list'))
      schemas[`${schemaName(kind.group, kind.version, kind.kind)}List`] = listComponent(kind);
    pathsForKind(kind, paths);
  }
  for (const kind of gv.kinds) {
    for (const sub of extraSubresourcesOf(kind)) {
      const name = schemaName(sub.group, sub.version, sub.kind);
      if (sub.schema && !(name in schemas))
        schemas[name] = kindComponent({ ...sub, schema: sub.schema }, schemas);
    }
  }
  const sortedPaths: Json = {};
  for (const key of Object.keys(paths).sort()) sortedPaths[key] = paths[key];
  const sortedSchemas: Record<string, Json> = {};
  for (const key of Object.keys(schemas).sort()) sortedSchemas[key] = schemas[key]!;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: options.kubernetesVersion ?? DEFAULT_GIT_VERSION },
    paths: sortedPaths,
    components: {
      schemas: sortedSchemas,
      securitySchemes: {
        BearerToken: {
          type: 'apiKey',
          description: 'Bearer Token authentication',
          name: 'authorization',
          in: 'header',
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** `api/v1` or `apis/apps/v1`: the key of a group-version in the root document. */
export function openApiPathKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export interface OpenApiV3 {
  /** The root body: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"},…}}`. */
  readonly root: string;
  /** Per group-version key (`api/v1`, `apis/apps/v1`): serialized document and its content hash. */
  readonly documents: ReadonlyMap<string, { body: string; hash: string }>;
  /**
   * Answers `GET /openapi/v3` and `/openapi/v3/{api/v1|apis/g/v}` (path without cluster prefix). A
   * stale `hash` gets a 301 to the current one (relative Location, so path prefixes survive), a current
   * one long-lived cache headers. `/openapi/v2` is a document without definitions (see openApiV2Response);
   * undefined for other paths.
   */
  respond(
    path: string,
    query: URLSearchParams,
    accept?: string,
    ifNoneMatch?: string,
  ): PreparedResponse | undefined;
}

/**
 * `/openapi/v2`: a Swagger 2.0 document with no definitions. kubectl (and helm's kube client) validate each
 * item of a `kind: List` on the client against v2 — everything else through v3 and server-side field
 * validation — and without a v2 document they refuse the whole List ("the server could not find the
 * requested resource"). With no definitions, client-side validation skips the items, and the server
 * validates each one as it is applied. Protobuf (gnostic's openapi_v2.Document) when asked, as kubectl
 * asks; JSON otherwise.
 */
function openApiV2Response(accept: string | undefined): PreparedResponse {
  const protobuf = parseAccept(accept).some(
    (c) => c.type === 'application' && c.subtype.startsWith('com.github.proto-openapi.spec.v2'),
  );
  if (protobuf) {
    const field = (n: number, bytes: Buffer): Buffer =>
      Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
    const text = (n: number, value: string): Buffer => field(n, Buffer.from(value, 'utf8'));
    // Document{swagger: "2.0" (1), info: Info{title (1), version (2)} (2)}; every length is < 128.
    const body = Buffer.concat([
      text(1, '2.0'),
      field(2, Buffer.concat([text(1, OPENAPI_V2_TITLE), text(2, OPENAPI_V2_VERSION)])),
    ]);
    return {
      status: 200,
      // As kube-openapi answers it (the '@' of the requested type is no valid media type to send back).
      headers: { 'Content-Type': 'application/octet-stream' },
      // Every byte is below 0x80 (tags, short lengths, ASCII), so the text form writes the same bytes.
      body: body.toString('latin1'),
    };
  }
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      swagger: '2.0',
      info: { title: OPENAPI_V2_TITLE, version: OPENAPI_V2_VERSION },
      paths: {},
      definitions: {},
    }),
  };
}
const OPENAPI_V2_TITLE = 'fleethub';
const OPENAPI_V2_VERSION = 'v2 (definitions are served as OpenAPI v3)';

function hashOf(body: string): string {
  return createHash('sha256').update(body).digest('hex').toUpperCase();
}

/** Builds the root and every group-version document once; rebuild when the registry changes. */
export function buildOpenApiV3(kinds: readonly ServedKind[], options: OpenApiOptions = {}): OpenApiV3 {
  const layout = layoutRegistry(kinds);
  const documents = new Map<string, { body: string; hash: string }>();
  for (const group of [...(layout.core ? [layout.core] : []), ...layout.groups]) {
    for (const gv of group.versions) {
      const body = JSON.stringify(openApiDocument(gv, options));
      documents.set(openApiPathKey(gv.group, gv.version), { body, hash: hashOf(body) });
    }
  }
  const rootPaths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, doc] of documents)
    rootPaths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
  const root = JSON.stringify({ paths: rootPaths });
  const rootEtag = `"${hashOf(root)}"`;

  return {
    root,
    documents,
    respond(rawPath, query, accept, ifNoneMatch) {
      const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
      if (path === '/openapi/v2') return openApiV2Response(accept);
      if (path === '/openapi/v3') {
        const headers = { 'Content-Type': 'application/json', ETag: rootEtag };
        if (ifNoneMatch === rootEtag) return { status: 304, headers, body: '' };
        return { status: 200, headers, body: root };
      }
      if (!path.startsWith('/openapi/v3/')) return undefined;
      const key = path.slice('/openapi/v3/'.length);
      const doc = documents.get(key);
      if (!doc) return undefined;
      if (!parseAccept(accept).some((c) => acceptsMediaType(c, 'application', 'json'))) {
        const status = errors
          .notAcceptable('only application/json is served for OpenAPI v3 documents')
          .toStatus();
        return { status: 406, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(status) };
      }
      const etag = `"${doc.hash}"`;
      const requested = query.get('hash');
      if (requested && requested !== doc.hash) {
        const lastSegment = key.slice(key.lastIndexOf('/') + 1);
        return {
          status: 301,
          headers: { Location: `${lastSegment}?hash=${doc.hash}`, 'Content-Type': 'text/plain' },
          body: '',
        };
      }
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        ETag: etag,
        Vary: 'Accept',
      };
      if (requested) {
        // The URL names the content, so it never changes: let clients cache it for good.
        headers['Cache-Control'] = 'public, immutable';
        headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      }
      if (ifNoneMatch === etag) return { status: 304, headers, body: '' };
      return { status: 200, headers, body: doc.body };
    },
  };
}
