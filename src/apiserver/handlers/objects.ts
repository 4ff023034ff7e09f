// Shared steps of the write path: shaping a decoded body into an object of the target kind, server-set
// fields, generateName, and the namespace checks every namespaced write needs.
import { randomInt } from 'node:crypto';
import type { KindDefinition } from '../../kinds/types.js';
import { apiVersionOf } from '../../kinds/types.js';
import type { KubeObject, Store } from '../../store/types.js';
import { ApiError, errors } from '../../util/errors.js';

/** Checks a decoded body is an object of this kind and fills apiVersion/kind. */
export function asKubeObject(
  value: unknown,
  def: KindDefinition,
  kindName = def.kind,
  apiVersion = apiVersionOf(def),
): KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw errors.badRequest(`the request body must be a JSON or YAML object of kind ${kindName}`);
  const obj = value as Record<string, unknown>;
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion)
    throw errors.badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  if (obj.kind !== undefined && obj.kind !== kindName)
    throw errors.badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${kindName})`,
    );
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata))
    throw errors.invalid(kindName, def.group, '', [
      {
        reason: 'FieldValueTypeInvalid',
        message: 'Invalid value: metadata must be an object',
        field: 'metadata',
      },
    ]);
  // apiVersion and kind lead, as in every Kubernetes response.
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  const shaped: Record<string, unknown> = { apiVersion, kind: kindName, ...rest };
  dropNulls(shaped);
  return shaped as KubeObject;
}

/** JSON `null` means "unset" for Kubernetes fields (Go decodes it to a zero value); drop it. */
function dropNulls(value: Record<string, unknown>): void {
  for (const [key, child] of Object.entries(value)) {
    if (child === null) {
      Reflect.deleteProperty(value, key);
    } else if (Array.isArray(child)) {
      for (const item of child as unknown[])
        if (item !== null && typeof item === 'object' && !Array.isArray(item))
          dropNulls(item as Record<string, unknown>);
    } else if (typeof child === 'object') {
      dropNulls(child as Record<string, unknown>);
    }
  }
}

/** Applies the request path's namespace to the object (or clears it for cluster-scoped kinds). */
export function bindNamespace(obj: KubeObject, def: KindDefinition, pathNamespace: string): void {
  if (!def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const bodyNamespace = obj.metadata.namespace;
  if (bodyNamespace && bodyNamespace !== pathNamespace)
    throw errors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  obj.metadata.namespace = pathNamespace;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` + 5 random characters, as Kubernetes names generated objects. */
export function resolveGenerateName(obj: KubeObject): void {
  const meta = obj.metadata;
  if (meta.name || !meta.generateName) return;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[randomInt(GENERATE_ALPHABET.length)];
  meta.name = `${meta.generateName.slice(0, 58)}${suffix}`;
}

/** Fields a client may not set on create: the server owns them. */
export function clearServerFields(obj: KubeObject): void {
  const meta = obj.metadata;
  for (const field of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'selfLink',
  ])
    Reflect.deleteProperty(meta, field);
}

/** Namespaced writes need an existing, non-terminating namespace. */
export async function assertNamespaceWritable(store: Store, namespace: string): Promise<void> {
  const ns = await store.get('namespaces', '', namespace);
  if (!ns) throw errors.notFound('namespaces', '', namespace);
  if (ns.metadata.deletionTimestamp)
    throw new ApiError(
      403,
      'Forbidden',
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        name: namespace,
        kind: 'namespaces',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    );
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}
