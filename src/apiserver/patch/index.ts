// PATCH request bodies: picks the patch format from the Content-Type and applies it to the live object,
// answering like the apiserver (415 for unknown types and for strategic merge on custom resources).
import type { KubeObject } from '../../store/types.js';
import { ApiError, errors } from '../../util/errors.js';
import { applyJsonPatch } from './json-patch.js';
import { describeJson, isJsonObject, parseJsonBody, type JsonObject, type JsonValue } from './json.js';
import { mergePatch } from './merge-patch.js';
import type { KindPatchMeta } from './patch-meta.js';
import { strategicMergePatch } from './strategic-merge-patch.js';

export { builtinPatchMeta } from './builtin-patch-meta.js';
export { applyJsonPatch, decodeJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
export { mergePatch } from './merge-patch.js';
export {
  definePatchMeta,
  mountPatchMeta,
  type FieldPatchMeta,
  type KindPatchMeta,
  type PatchMetaNode,
  type PatchMetaTable,
  type PatchStrategy,
} from './patch-meta.js';
export { strategicMergePatch } from './strategic-merge-patch.js';
export type { JsonObject, JsonValue } from './json.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const TYPES: Record<string, PatchType> = {
  [JSON_PATCH]: 'json',
  [MERGE_PATCH]: 'merge',
  [STRATEGIC_MERGE_PATCH]: 'strategic',
  [APPLY_PATCH]: 'apply',
};

/** `application/merge-patch+json; charset=utf-8` → 'merge'; undefined when not a patch type at all. */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const base = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return Object.hasOwn(TYPES, base) ? TYPES[base] : undefined;
}

/** The media types a PATCH accepts, in the apiserver's order: custom resources lack strategic merge. */
export function acceptedPatchTypes(strategicMerge: boolean): string[] {
  return strategicMerge
    ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
}

/**
 * Applies a json, merge or strategic merge patch body to `original` and returns the new object
 * (`original` is not modified). `kindPatchMeta` is the kind's strategic-merge metadata; without it
 * (custom resources) strategic merge is a 415. Server-side apply is not handled here.
 * Errors: 415 unknown type; 400 body not JSON / malformed; 422 a patch that does not apply.
 */
export function applyPatch(
  contentType: string | undefined,
  original: KubeObject,
  patchBody: string | Uint8Array,
  kindPatchMeta?: KindPatchMeta,
): KubeObject {
  const type = patchTypeOf(contentType);
  const accepted = acceptedPatchTypes(kindPatchMeta !== undefined);
  if (type === undefined || (type === 'strategic' && !kindPatchMeta)) {
    throw errors.unsupportedMediaType(contentType ?? '', accepted);
  }
  if (type === 'apply') throw errors.internal('server-side apply patches are not applied by applyPatch');

  const body = parseJsonBody(patchBody);
  const doc = original as unknown as JsonObject;
  let result: JsonValue;
  switch (type) {
    case 'json':
      result = applyJsonPatch(doc, body);
      break;
    case 'merge':
      result = mergePatch(doc, requireObject(body, 'merge patch'));
      break;
    case 'strategic':
      result = strategicMergePatch(doc, requireObject(body, 'strategic merge patch'), kindPatchMeta!);
      break;
  }
  return asKubeObject(result);
}

function requireObject(body: JsonValue, what: string): JsonObject {
  if (!isJsonObject(body)) {
    throw errors.badRequest(`invalid JSON patch: a ${what} must be a JSON object, got ${describeJson(body)}`);
  }
  return body;
}

/** Whatever a patch did, the result must still be an object with object metadata to be stored. */
function asKubeObject(result: JsonValue): KubeObject {
  if (!isJsonObject(result)) {
    throw new ApiError(422, 'Invalid', 'the patched document is not a JSON object', {});
  }
  const metadata = result['metadata'];
  if (metadata === undefined || metadata === null) result['metadata'] = {};
  else if (!isJsonObject(metadata)) {
    throw new ApiError(422, 'Invalid', 'the patched document has a metadata that is not a JSON object', {});
  }
  return result as unknown as KubeObject;
}
