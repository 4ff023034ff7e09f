// RFC 7386 JSON merge patch (`application/merge-patch+json`): objects merge member by member, `null`
// deletes a member, anything else (arrays included) replaces the target value wholesale.
import {
  cloneJson,
  deleteMember,
  getMember,
  isJsonObject,
  setMember,
  type JsonObject,
  type JsonValue,
} from './json.js';

/**
 * Applies `patch` to `target` and returns the result; neither input is modified.
 * Like the real apiserver (evanphx/json-patch), `null` members inside objects that land in the result
 * as new values are dropped too, so a merge patch never stores an explicit `null` member.
 */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  return merge(target === undefined ? undefined : cloneJson(target), cloneJson(patch));
}

// Works in place on private copies made by mergePatch.
function merge(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return pruneNulls(patch);
  const result: JsonObject = isJsonObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) deleteMember(result, key);
    else setMember(result, key, merge(getMember(result, key), value));
  }
  return result;
}

/** Drops null object members at any depth; null array elements are values and stay. */
function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) setMember(out, k, pruneNulls(x));
  return out;
}
