// Reads a request body under a size cap and decodes it by Content-Type into JSON values: JSON, YAML
// (apply patches), and Kubernetes protobuf. Anything else is a 415; anything malformed a 400.
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { errors } from '../util/errors.js';
import { decodeProtobufBody, isProtobufContentType } from './protobuf/index.js';

/** Kubernetes caps request bodies at 3 MiB; so do we. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    throw errors.tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw errors.tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

/** Real objects nest a few dozen levels; anything deeper is refused before recursive code sees it. */
export const MAX_BODY_DEPTH = 256;

/** 400 when `value` nests deeper than MAX_BODY_DEPTH (checked iteratively: no recursion to overflow). */
export function assertDepth(value: unknown, limit = MAX_BODY_DEPTH): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) throw errors.badRequest(`the request body nests deeper than ${limit} levels`);
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
}

/** The media type without parameters, lower-cased. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

const OBJECT_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** Decodes the body of a create or update (an object) into JSON. */
export function decodeObjectBody(contentType: string | undefined, body: Buffer): unknown {
  const type = mediaType(contentType) || 'application/json';
  let value: unknown;
  if (isProtobufContentType(type)) value = decodeProtobufBody(body).object;
  else if (type === 'application/json') value = parseJson(body);
  else if (type === 'application/yaml') value = parseYamlBody(body);
  else throw errors.unsupportedMediaType(type, OBJECT_TYPES);
  assertDepth(value);
  return value;
}

/** Decodes a server-side apply body: YAML or JSON (kubectl sends JSON under the YAML media type). */
export function decodeApplyBody(body: Buffer): unknown {
  const value = looksLikeJsonObject(body) ? (tryJson(body) ?? parseYamlBody(body)) : parseYamlBody(body);
  assertDepth(value);
  return value;
}

/** Decodes an optional DELETE body (DeleteOptions), JSON or protobuf. */
export function decodeDeleteOptions(contentType: string | undefined, body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  const value = decodeObjectBody(contentType, body);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw errors.badRequest('DeleteOptions must be a JSON object');
  return value as Record<string, unknown>;
}

/** The first non-blank byte is `{`: kubectl, helm and the agent send their apply patches as JSON. */
function looksLikeJsonObject(body: Buffer): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b;
  }
  return false;
}

/**
 * JSON.parse is some twenty times faster than the YAML parser on the same text, and JSON is YAML; a body
 * that only looks like JSON (a YAML flow mapping such as `{a: 1}`) falls back to the YAML parser.
 */
function tryJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw errors.badRequest('the request body is empty');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw errors.badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

function parseYamlBody(body: Buffer): unknown {
  if (body.length === 0) throw errors.badRequest('the request body is empty');
  try {
    return parseYaml(body.toString('utf8'), { maxAliasCount: 100 });
  } catch (e) {
    throw errors.badRequest(
      `the request body is not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`,
    );
  }
}
