// Turns an `application/vnd.kubernetes.protobuf` request body (kubectl ≥1.32 typed calls, helm's release
// Secrets and DeleteOptions) into the JSON object a JSON client would have sent; bad input → 400, never 415/500.

import { errors, isApiError, type ApiError } from '../../util/errors.js';
import { decodeMessage, setOwn, type JsonObject } from './decode.js';
import { SchemaRegistry } from './descriptors.js';
import { readEnvelope } from './envelope.js';
import { ALL_TABLES } from './schema/index.js';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

export interface DecodedBody {
  apiVersion: string;
  kind: string;
  /** The object as JSON, with `apiVersion` and `kind` set from the envelope. */
  object: JsonObject;
}

const registry = new SchemaRegistry(ALL_TABLES);

/** `application/vnd.kubernetes.protobuf`, with or without parameters, in any letter case. */
export function isProtobufContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(';', 1)[0]!.trim().toLowerCase() === PROTOBUF_CONTENT_TYPE;
}

/**
 * The schema message for a type, e.g. `rbac.authorization.k8s.io/v1` `Role` → `rbac.v1.Role`;
 * meta.v1 kinds (`DeleteOptions`) are accepted under any group version, as the Kubernetes scheme does.
 */
export function messageNameFor(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  // built-in groups only (`apps`, `*.k8s.io`): a CRD group such as `apps.example.com` must not alias `apps`
  const builtIn = group === '' || !group.includes('.') || group.endsWith('.k8s.io');
  if (builtIn && version && !version.includes('/')) {
    const label = group === '' ? 'core' : group.split('.', 1)[0]!;
    const name = `${label}.${version}.${kind}`;
    if (registry.isKind(name)) return name;
  }
  const meta = `meta.v1.${kind}`;
  return registry.isKind(meta) ? meta : undefined;
}

/** Decodes a protobuf request body; every failure is a 400 `ApiError`. */
export function decodeProtobufBody(buf: Uint8Array): DecodedBody {
  try {
    const env = readEnvelope(buf);
    if (!env.kind) throw errors.badRequest(`Object 'Kind' is missing in protobuf body`);
    if (env.contentEncoding) {
      throw errors.badRequest(`unsupported content encoding "${env.contentEncoding}" in protobuf body`);
    }
    let decoded: JsonObject;
    if (env.contentType && !isProtobufContentType(env.contentType)) {
      decoded = decodeNestedJson(env.contentType, env.raw);
    } else {
      const message = messageNameFor(env.apiVersion, env.kind);
      if (!message) {
        throw errors.badRequest(`no kind "${env.kind}" is registered for version "${env.apiVersion}"`);
      }
      decoded = decodeMessage(registry, message, env.raw);
    }
    // the envelope's type is authoritative, even over apiVersion/kind inside nested JSON
    const object: JsonObject = { apiVersion: env.apiVersion, kind: env.kind };
    for (const [k, v] of Object.entries(decoded))
      if (k !== 'apiVersion' && k !== 'kind') setOwn(object, k, v);
    return { apiVersion: env.apiVersion, kind: env.kind, object };
  } catch (e) {
    throw toBadRequest(e);
  }
}

/** runtime.Unknown may carry another encoding; only JSON is plausible from a real client. */
function decodeNestedJson(contentType: string, raw: Uint8Array): JsonObject {
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    throw errors.badRequest(`unsupported content type "${contentType}" inside protobuf body`);
  }
  const v: unknown = JSON.parse(Buffer.from(raw).toString('utf8'));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw errors.badRequest('protobuf body holds JSON that is not an object');
  }
  return v as JsonObject;
}

function toBadRequest(e: unknown): ApiError {
  if (isApiError(e)) return e;
  const detail = e instanceof Error ? e.message : String(e);
  return errors.badRequest(`unable to decode protobuf body: ${detail}`);
}
