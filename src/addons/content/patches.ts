// Sveltos/kustomize `patches`: each patch text is instantiated per cluster, read as a JSON 6902 op list
// or strategic-merge documents, and applied in list order to every object its target selects.

import { builtinPatchMeta, definePatchMeta, type KindPatchMeta } from '../../apiserver/patch/index.js';
import { applyJsonPatch, decodeJsonPatch } from '../../apiserver/patch/json-patch.js';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../apiserver/patch/json.js';
import { strategicMergePatch } from '../../apiserver/patch/strategic-merge-patch.js';
import { type LabelMatcher, parseLabelSelector } from '../../apiserver/selectors.js';
import { YAMLError, parseYAML } from '../../gotemplate/yaml.js';
import { ApiError } from '../../util/errors.js';
import { type ObjectId, PatchError, TemplateInstantiationError, describeObject } from './errors.js';
import { type Manifest, splitDocuments } from './sources.js';
import type { TemplateContext } from './template.js';

/** libsveltos PatchSelector: every field set must match; `name` is an anchored regular expression. */
export interface PatchSelector {
  group?: string;
  version?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

/** libsveltos Patch. */
export interface Patch {
  patch: string;
  target?: PatchSelector;
}

/** A patch read from its (instantiated) text. */
export type ParsedPatch =
  { type: 'json6902'; ops: JsonObject[] } | { type: 'strategic'; documents: JsonObject[] };

export interface PatchOutcome {
  /** The objects after every patch that applied, in their original order (minus `$patch: delete`d ones). */
  objects: Manifest[];
  /** For each of `objects`, its index in the input (so callers keep per-object data such as the source). */
  inputIndex: number[];
  /** One entry per patch (or per patch and object) that failed; a failed patch changes nothing. */
  errors: PatchError[];
  /** Indexes of patches that selected no object: not an error, since patches span features. */
  unmatched: number[];
}

/**
 * Parsed patches by their instantiated text: a profile's patch reads the same for most clusters, and
 * parsing its YAML was a third of a fleet-wide re-render. Appliers copy what they take from a parsed
 * patch, so one parse serves every cluster. Bounded; the oldest entry leaves first.
 */
const parsedPatches = new Map<string, ParsedPatch>();
const PARSED_PATCHES_MAX = 512;

function parsePatchMemo(text: string, index: number, hasTarget: boolean): ParsedPatch {
  const key = `${hasTarget ? 't' : 'u'}${text}`;
  let parsed = parsedPatches.get(key);
  if (parsed === undefined) {
    parsed = parsePatch(text, index, hasTarget);
    if (parsedPatches.size >= PARSED_PATCHES_MAX)
      parsedPatches.delete(parsedPatches.keys().next().value as string);
    parsedPatches.set(key, parsed);
  }
  return parsed;
}

// Kinds without built-in patch metadata (custom resources): kustomize merges maps and replaces lists.
const NO_PATCH_META: KindPatchMeta = definePatchMeta();

/**
 * Applies `patches` in order, each to all objects it selects (kustomize's order: a later patch sees an
 * earlier one's result, including labels it added). Inputs are not modified. Failures are collected,
 * not thrown, so a status can list every broken patch at once.
 */
export function applyPatches(
  objects: readonly Manifest[],
  patches: readonly Patch[],
  ctx: TemplateContext,
): PatchOutcome {
  let current: (Manifest | undefined)[] = objects.map((o) => cloneJson(o));
  const errors: PatchError[] = [];
  const unmatched: number[] = [];
  patches.forEach((patch, index) => {
    let parsed: ParsedPatch;
    let select: ((o: Manifest) => boolean) | undefined;
    try {
      const text = instantiatePatch(patch.patch, index, ctx);
      parsed = parsePatchMemo(text, index, patch.target !== undefined);
      select = patch.target ? compileSelector(patch.target, index) : undefined;
    } catch (e) {
      if (e instanceof PatchError) {
        errors.push(e);
        return;
      }
      throw e;
    }
    let matched = false;
    if (parsed.type === 'json6902') {
      const ops = parsed.ops;
      current = current.map((obj) => {
        if (obj === undefined || !select!(obj)) return obj;
        matched = true;
        return guard(obj, index, errors, () => requireObject(applyJsonPatch(obj, ops), obj, index));
      });
    } else {
      for (const doc of parsed.documents) {
        const matches = select ?? sameObject(doc);
        current = current.map((obj) => {
          if (obj === undefined || !matches(obj)) return obj;
          matched = true;
          return guard(obj, index, errors, () => mergeInto(obj, doc, select !== undefined, index));
        });
      }
    }
    if (!matched) unmatched.push(index);
  });
  const inputIndex = current.flatMap((o, i) => (o === undefined ? [] : [i]));
  return { objects: inputIndex.map((i) => current[i]!), inputIndex, errors, unmatched };
}

/** Reads an instantiated patch text: one JSON 6902 op list, or one or more strategic-merge documents. */
export function parsePatch(text: string, index: number, hasTarget: boolean): ParsedPatch {
  const values: JsonValue[] = [];
  for (const doc of splitDocuments(text)) {
    let v: JsonValue;
    try {
      v = parseYAML(doc) as JsonValue;
    } catch (e) {
      if (e instanceof YAMLError) throw invalid(index, `not valid YAML: ${e.message}`);
      throw e;
    }
    if (v !== null) values.push(v);
  }
  if (values.length === 0) throw invalid(index, 'the patch is empty');
  if (Array.isArray(values[0])) {
    if (values.length > 1) throw invalid(index, 'a JSON 6902 patch must be a single list of operations');
    if (!hasTarget) throw invalid(index, 'a JSON 6902 patch needs a target');
    try {
      const ops = decodeJsonPatch(values[0]);
      ops.forEach((op, i) => {
        if (typeof op['op'] !== 'string' || typeof op['path'] !== 'string')
          throw invalid(index, `operation ${i} needs a string "op" and "path"`);
      });
      return { type: 'json6902', ops };
    } catch (e) {
      if (e instanceof ApiError) throw invalid(index, e.message);
      throw e;
    }
  }
  const documents = values.map((v, i) => {
    if (!isJsonObject(v))
      throw invalid(
        index,
        `document ${i} is neither a JSON 6902 operation list nor a strategic-merge object`,
      );
    if (!hasTarget) {
      const meta = v['metadata'];
      if (
        typeof v['apiVersion'] !== 'string' ||
        typeof v['kind'] !== 'string' ||
        !isJsonObject(meta) ||
        typeof meta['name'] !== 'string'
      )
        throw invalid(
          index,
          `a strategic-merge patch without a target must name its object (apiVersion, kind, metadata.name)`,
        );
    }
    return v;
  });
  return { type: 'strategic', documents };
}

/** A predicate for `target`; throws PatchError(InvalidPatch) for a bad regex or selector. */
export function compileSelector(target: PatchSelector, index: number): (o: Manifest) => boolean {
  let nameRe: RegExp | undefined;
  if (target.name) {
    try {
      // kustomize anchors the expression: `cfg` selects only `cfg`, `kube-.*` every kube- object.
      nameRe = new RegExp(`^(?:${target.name})$`, 'u');
    } catch (e) {
      throw invalid(
        index,
        `target.name ${JSON.stringify(target.name)} is not a valid regular expression: ${(e as Error).message}`,
      );
    }
  }
  const labels = selector(target.labelSelector, 'labelSelector', index);
  const annotations = selector(target.annotationSelector, 'annotationSelector', index);
  return (o) => {
    const id = objectId(o);
    const [group, version] = splitApiVersion(id.apiVersion);
    if (target.group && target.group !== group) return false;
    if (target.version && target.version !== version) return false;
    if (target.kind && target.kind !== id.kind) return false;
    if (target.namespace && target.namespace !== (id.namespace ?? '')) return false;
    if (nameRe && !nameRe.test(id.name)) return false;
    if (labels && !labels(stringMap(metadataOf(o)['labels']))) return false;
    if (annotations && !annotations(stringMap(metadataOf(o)['annotations']))) return false;
    return true;
  };
}

/** apiVersion, kind, name and namespace of a manifest (what errors and kustomize ids are made of). */
export function objectId(o: Manifest): ObjectId {
  const md = metadataOf(o);
  const ns = md['namespace'];
  return {
    apiVersion: String(o['apiVersion'] ?? ''),
    kind: String(o['kind'] ?? ''),
    name: typeof md['name'] === 'string' ? md['name'] : '',
    ...(typeof ns === 'string' && ns !== '' ? { namespace: ns } : {}),
  };
}

/** `apps/v1` → [apps, v1]; `v1` → ['', v1]. */
export function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

function instantiatePatch(text: string, index: number, ctx: TemplateContext): string {
  try {
    return ctx.instantiate(text, { kind: 'Patch', name: `patches[${index}]` });
  } catch (e) {
    if (e instanceof TemplateInstantiationError)
      throw new PatchError(e.code as 'TemplateParseError', e.message, index, undefined, e);
    throw e;
  }
}

// kustomize's id match for an untargeted strategic-merge patch; "" and "default" namespaces are equal.
function sameObject(doc: JsonObject): (o: Manifest) => boolean {
  const want = objectId(doc);
  return (o) => {
    const id = objectId(o);
    return (
      id.apiVersion === want.apiVersion &&
      id.kind === want.kind &&
      id.name === want.name &&
      (id.namespace ?? 'default') === (want.namespace ?? 'default')
    );
  };
}

function mergeInto(obj: Manifest, doc: JsonObject, targeted: boolean, index: number): Manifest | undefined {
  const patch = cloneJson(doc);
  // `$patch: delete` at the top removes the object from the output, as kustomize does.
  if (patch['$patch'] === 'delete') return undefined;
  if (targeted) {
    // kustomize rewrites a targeted patch's identity to the target's, so it patches, never renames.
    patch['apiVersion'] = obj['apiVersion']!;
    patch['kind'] = obj['kind']!;
    const md = isJsonObject(patch['metadata']) ? patch['metadata'] : {};
    const objMd = metadataOf(obj);
    if (objMd['name'] !== undefined) md['name'] = objMd['name'];
    else delete md['name'];
    if (objMd['namespace'] !== undefined) md['namespace'] = objMd['namespace'];
    else delete md['namespace'];
    patch['metadata'] = md;
  }
  const [group] = splitApiVersion(String(obj['apiVersion']));
  const meta = builtinPatchMeta(group, String(obj['kind'])) ?? NO_PATCH_META;
  return requireObject(strategicMergePatch(obj, patch, meta), obj, index);
}

// Runs one patch on one object; a failure is recorded and leaves the object as it was.
function guard(
  obj: Manifest,
  index: number,
  errors: PatchError[],
  run: () => Manifest | undefined,
): Manifest | undefined {
  try {
    return run();
  } catch (e) {
    if (e instanceof PatchError) errors.push(e);
    else if (e instanceof ApiError) {
      const target = objectId(obj);
      errors.push(
        new PatchError(
          'PatchFailed',
          `patches[${index}] on ${describeObject(target)}: ${e.message}`,
          index,
          target,
        ),
      );
    } else throw e;
    return obj;
  }
}

function requireObject(v: JsonValue, before: Manifest, index: number): Manifest {
  const target = objectId(before);
  if (
    !isJsonObject(v) ||
    typeof v['apiVersion'] !== 'string' ||
    typeof v['kind'] !== 'string' ||
    !v['kind']
  ) {
    throw new PatchError(
      'PatchFailed',
      `patches[${index}] on ${describeObject(target)}: the result is not a Kubernetes object (apiVersion and kind must stay)`,
      index,
      target,
    );
  }
  return v;
}

function selector(text: string | undefined, field: string, index: number): LabelMatcher | undefined {
  if (!text) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (e) {
    if (e instanceof ApiError) throw invalid(index, `target.${field} ${JSON.stringify(text)}: ${e.message}`);
    throw e;
  }
}

function invalid(index: number, message: string): PatchError {
  return new PatchError('InvalidPatch', `patches[${index}]: ${message}`, index);
}

function metadataOf(o: JsonObject): JsonObject {
  const md = o['metadata'];
  return isJsonObject(md) ? md : {};
}

function stringMap(v: JsonValue | undefined): Record<string, string> | undefined {
  if (!isJsonObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}
