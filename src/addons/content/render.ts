// The Resources feature of one (profile, cluster): sources read and instantiated for the cluster,
// patched, stamped, grouped by deploymentType, with a stable content hash and every failure listed.

import type { JsonObject } from '../../apiserver/patch/json.js';
import {
  ContentError,
  type ContentErrorCode,
  type ContentOrigin,
  type ObjectId,
  PatchError,
  TemplateInstantiationError,
  describeObject,
} from './errors.js';
import { type Patch, applyPatches, objectId, splitApiVersion } from './patches.js';
import {
  type Manifest,
  type SourceObject,
  isTemplateAnnotated,
  parseDocuments,
  sourceTexts,
} from './sources.js';
import {
  type IsNamespaced,
  type OwnerInfo,
  canonicalJson,
  sha256Hex,
  stampObject,
  withDefaultNamespace,
} from './stamp.js';
import { TemplateContext } from './template.js';

export type DeploymentType = 'Remote' | 'Local';

/** A policyRef as resolved by the caller (namespace already defaulted/forced, tier defaulted to 100). */
export interface SourceRef {
  kind: string;
  namespace: string;
  name: string;
  tier: number;
  deploymentType: DeploymentType;
}

/**
 * One policyRef's content: the ConfigMap/Secret itself (templated when annotated, or when
 * `templated` says so), a raw text such as a remoteURL body (templated when remoteURL.template), or
 * objects already parsed elsewhere (delivered as they are).
 */
export type ResourceSource =
  | { ref: SourceRef; object: SourceObject; templated?: boolean }
  | { ref: SourceRef; text: string; key?: string; templated?: boolean }
  | { ref: SourceRef; documents: readonly Manifest[] };

export interface RenderResourcesInput {
  /** In policyRefs order: the order objects are delivered in. */
  sources: readonly ResourceSource[];
  patches?: readonly Patch[];
  /** The fleethub Cluster object (`.Cluster` in templates). */
  cluster: JsonObject;
  /** templateResourceRefs objects by identifier (`.MgmtResources`, getResource …). */
  mgmtResources?: Record<string, JsonObject>;
  owner: OwnerInfo;
  /** Reason label value; `Resources` unless the caller renders another feature's manifests. */
  feature?: string;
  isNamespaced?: IsNamespaced;
}

/** One failure, structured for a ClusterSummary: which source or patch, which object, why. */
export interface RenderError {
  code: ContentErrorCode;
  message: string;
  source?: SourceRef;
  key?: string;
  document?: number;
  line?: number;
  column?: number;
  patchIndex?: number;
  object?: ObjectId;
}

export interface RenderResult {
  /** Stamped manifests in delivery order, per deploymentType; both empty when there are errors. */
  manifests: Record<DeploymentType, Manifest[]>;
  /** `sha256:` over the canonical JSON of `manifests`; '' when there are errors. */
  hash: string;
  /** Empty on success. Any error means nothing may be delivered: a partial CNI is worse than none. */
  errors: RenderError[];
  /** Patches that selected no object (informational: patches also serve the Helm and Kustomize features). */
  unmatchedPatches: number[];
}

interface Entry {
  ref: SourceRef;
  object: Manifest;
}

/**
 * Renders the Resources feature for one cluster. Pure and deterministic: the same input gives
 * byte-identical manifests and the same hash. Every source is attempted, so all broken sources are
 * reported together; patches run only over a complete set of objects.
 */
export function renderResources(input: RenderResourcesInput): RenderResult {
  const ctx = new TemplateContext({
    cluster: input.cluster,
    ...(input.mgmtResources ? { mgmtResources: input.mgmtResources } : {}),
  });
  const errors: RenderError[] = [];
  const entries: Entry[] = [];
  for (const source of input.sources) {
    try {
      for (const object of readSource(source, ctx)) entries.push({ ref: source.ref, object });
    } catch (e) {
      if (e instanceof ContentError) errors.push(fromContentError(e, source.ref));
      else throw e;
    }
  }
  if (errors.length > 0) return failed(errors);

  // Patches see every object of the feature at once (kustomize order); each keeps its source.
  const patched = applyPatches(
    entries.map((e) => e.object),
    input.patches ?? [],
    ctx,
  );
  errors.push(...patched.errors.map((e) => fromContentError(e, undefined)));
  if (errors.length > 0) return failed(errors, patched.unmatched);
  const refs = patched.inputIndex.map((i) => entries[i]!.ref);

  const kept = resolveDuplicates(
    patched.objects.map((o, i) => ({ ref: refs[i]!, object: withDefaultNamespace(o, input.isNamespaced) })),
    errors,
  );
  if (errors.length > 0) return failed(errors, patched.unmatched);

  const manifests: Record<DeploymentType, Manifest[]> = { Remote: [], Local: [] };
  for (const { ref, object } of kept) {
    manifests[ref.deploymentType].push(
      stampObject(object, {
        feature: input.feature ?? 'Resources',
        reference: { kind: ref.kind, namespace: ref.namespace, name: ref.name, tier: ref.tier },
        owner: input.owner,
      }),
    );
  }
  return {
    manifests,
    hash: 'sha256:' + sha256Hex(canonicalJson({ Local: manifests.Local, Remote: manifests.Remote })),
    errors: [],
    unmatchedPatches: patched.unmatched,
  };
}

function readSource(source: ResourceSource, ctx: TemplateContext): Manifest[] {
  if ('documents' in source) return source.documents.map((d) => structuredClone(d));
  if ('object' in source) {
    const templated = source.templated ?? isTemplateAnnotated(source.object);
    const out: Manifest[] = [];
    // A source fails as a whole at its first broken key: it is one policyRef, one line in status.
    for (const { origin, text } of sourceTexts(source.object)) {
      out.push(...parseDocuments(templated ? ctx.instantiate(text, origin) : text, origin));
    }
    return out;
  }
  const origin: ContentOrigin = {
    kind: source.ref.kind,
    namespace: source.ref.namespace,
    name: source.ref.name,
    ...(source.key !== undefined ? { key: source.key } : {}),
  };
  return parseDocuments(source.templated ? ctx.instantiate(source.text, origin) : source.text, origin);
}

/**
 * One object per (deploymentType, group, kind, namespace, name): a lower policyRef tier wins, as
 * Sveltos resolves refs of one profile; the same tier is an error naming both sources rather than
 * a silent last-one-wins.
 */
function resolveDuplicates(entries: Entry[], errors: RenderError[]): Entry[] {
  const winner = new Map<string, number>();
  entries.forEach((e, i) => {
    const key = `${e.ref.deploymentType}|${identity(e.object)}`;
    const prev = winner.get(key);
    if (prev === undefined) {
      winner.set(key, i);
      return;
    }
    const p = entries[prev]!;
    if (e.ref.tier < p.ref.tier) winner.set(key, i);
    else if (e.ref.tier === p.ref.tier) {
      const id = objectId(e.object);
      errors.push({
        code: 'DuplicateObject',
        message:
          `${describeObject(id)} is produced by both ${describeRef(p.ref)} and ${describeRef(e.ref)} ` +
          `with tier ${e.ref.tier}; give one policyRef a lower tier or remove the object from one source`,
        source: e.ref,
        object: id,
      });
    }
  });
  const keep = new Set(winner.values());
  return entries.filter((_, i) => keep.has(i));
}

function identity(o: Manifest): string {
  const id = objectId(o);
  const [group] = splitApiVersion(id.apiVersion);
  return `${group}|${id.kind}|${id.namespace ?? ''}|${id.name}`;
}

function describeRef(r: SourceRef): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

function failed(errors: RenderError[], unmatched: number[] = []): RenderResult {
  return { manifests: { Remote: [], Local: [] }, hash: '', errors, unmatchedPatches: unmatched };
}

function fromContentError(e: ContentError, source: SourceRef | undefined): RenderError {
  const out: RenderError = { code: e.code, message: e.message };
  if (source) out.source = source;
  if (e.origin?.key !== undefined) out.key = e.origin.key;
  if (e.origin?.document !== undefined) out.document = e.origin.document;
  const tpl =
    e instanceof PatchError ? e.templateError : e instanceof TemplateInstantiationError ? e : undefined;
  if (tpl?.line !== undefined) out.line = tpl.line;
  if (tpl?.column !== undefined) out.column = tpl.column;
  if (e instanceof PatchError) {
    out.patchIndex = e.patchIndex;
    if (e.target) out.object = e.target;
  }
  return out;
}
