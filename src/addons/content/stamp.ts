// The metadata Sveltos stamps on every object it deploys (reason label, reference/owner annotations, the
// content hash) and the `default` namespace for namespaced objects that name none.

import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject, type JsonValue } from '../../apiserver/patch/json.js';
import type { Manifest } from './sources.js';

export const REASON_LABEL = 'projectsveltos.io/reason';
export const REFERENCE_KIND_ANNOTATION = 'projectsveltos.io/reference-kind';
export const REFERENCE_NAME_ANNOTATION = 'projectsveltos.io/reference-name';
export const REFERENCE_NAMESPACE_ANNOTATION = 'projectsveltos.io/reference-namespace';
export const REFERENCE_TIER_ANNOTATION = 'projectsveltos.io/reference-tier';
export const OWNER_KIND_ANNOTATION = 'projectsveltos.io/owner-kind';
export const OWNER_NAME_ANNOTATION = 'projectsveltos.io/owner-name';
export const OWNER_TIER_ANNOTATION = 'projectsveltos.io/owner-tier';
export const HASH_ANNOTATION = 'projectsveltos.io/hash';

/** The ConfigMap/Secret/remote source that contained the object, and its policyRef tier. */
export interface ReferenceInfo {
  kind: string;
  namespace: string;
  name: string;
  tier: number;
}

/** The ClusterProfile/Profile deploying the object, and its tier. */
export interface OwnerInfo {
  kind: string;
  name: string;
  tier: number;
}

export interface StampOptions {
  /** The feature id Sveltos puts in the reason label: Resources, Helm, Kustomize. */
  feature: string;
  reference: ReferenceInfo;
  owner: OwnerInfo;
}

/** Whether a kind is namespaced; undefined when the caller does not know the kind (then nothing is changed). */
export type IsNamespaced = (apiVersion: string, kind: string) => boolean | undefined;

/**
 * A copy of `obj` with namespace `default` when the kind is namespaced and names no namespace (Sveltos
 * does this at apply). Unknown kinds are left alone: guessing wrong would make a cluster-scoped
 * object namespaced, or the other way round.
 */
export function withDefaultNamespace(obj: Manifest, isNamespaced: IsNamespaced | undefined): Manifest {
  if (isNamespaced === undefined) return obj;
  const md = isJsonObject(obj['metadata']) ? obj['metadata'] : {};
  const ns = md['namespace'];
  if (typeof ns === 'string' && ns !== '') return obj;
  if (isNamespaced(String(obj['apiVersion']), String(obj['kind'])) !== true) return obj;
  return { ...obj, metadata: { ...md, namespace: 'default' } };
}

/**
 * A copy of `obj` with Sveltos's reason label, reference and owner annotations and, last, the hash
 * annotation over everything else: what is delivered is exactly what was hashed (plus the hash).
 */
export function stampObject(obj: Manifest, opts: StampOptions): Manifest {
  const md = isJsonObject(obj['metadata']) ? obj['metadata'] : {};
  const labels: JsonObject = { ...(isJsonObject(md['labels']) ? md['labels'] : {}) };
  labels[REASON_LABEL] = opts.feature;
  const annotations: JsonObject = { ...(isJsonObject(md['annotations']) ? md['annotations'] : {}) };
  annotations[REFERENCE_KIND_ANNOTATION] = opts.reference.kind;
  annotations[REFERENCE_NAME_ANNOTATION] = opts.reference.name;
  annotations[REFERENCE_NAMESPACE_ANNOTATION] = opts.reference.namespace;
  annotations[REFERENCE_TIER_ANNOTATION] = String(opts.reference.tier);
  annotations[OWNER_KIND_ANNOTATION] = opts.owner.kind;
  annotations[OWNER_NAME_ANNOTATION] = opts.owner.name;
  annotations[OWNER_TIER_ANNOTATION] = String(opts.owner.tier);
  // A hash the source itself carried would be stale; drop it before hashing.
  Reflect.deleteProperty(annotations, HASH_ANNOTATION);
  const stamped: Manifest = { ...obj, metadata: { ...md, labels, annotations } };
  annotations[HASH_ANNOTATION] = objectHash(stamped);
  return stamped;
}

/**
 * `sha256:<hex>` of the object's canonical JSON without the hash annotation. Normalization: object
 * members sorted by key (UTF-16 code units), arrays in order, no whitespace, JSON.stringify's string
 * escaping and number form; an annotations map left empty by removing the hash counts as absent,
 * so hashing a stamped object and its unstamped-hash twin agree.
 */
export function objectHash(obj: Manifest): string {
  const md = isJsonObject(obj['metadata']) ? obj['metadata'] : undefined;
  let subject: Manifest = obj;
  if (md && isJsonObject(md['annotations']) && Object.hasOwn(md['annotations'], HASH_ANNOTATION)) {
    const annotations = { ...md['annotations'] };
    Reflect.deleteProperty(annotations, HASH_ANNOTATION);
    const metadata: JsonObject = { ...md, annotations };
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
    subject = { ...obj, metadata };
  }
  return 'sha256:' + sha256Hex(canonicalJson(subject));
}

/** JSON with object keys in sorted order: equal values give byte-identical text. */
export function canonicalJson(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(v[k]!)).join(',') + '}';
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
