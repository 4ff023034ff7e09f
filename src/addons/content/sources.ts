// Reads the manifests a policyRef points at: the texts of a ConfigMap's or Secret's data keys (or a
// remoteURL body) and the Kubernetes objects in them, one per `---` document, in a stable order.

import type { JsonObject, JsonValue } from '../../apiserver/patch/json.js';
import { YAMLError, parseYAML } from '../../gotemplate/yaml.js';
import { ContentError, type ContentOrigin, describeOrigin } from './errors.js';

/** The only Secret type Sveltos reads content from (libsveltos ClusterProfileSecretType). */
export const CLUSTER_PROFILE_SECRET_TYPE = 'addons.projectsveltos.io/cluster-profile';

/** Content annotated with it (any value) is a Go template instantiated per cluster. */
export const TEMPLATE_ANNOTATION = 'projectsveltos.io/template';

/** A manifest to deliver: a JSON object with apiVersion and kind (checked when read). */
export type Manifest = JsonObject;

/** The parts of a ConfigMap or Secret this module reads. */
export interface SourceObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** One data key's text and where it came from. */
export interface ContentText {
  origin: ContentOrigin;
  text: string;
}

/** Whether a ConfigMap/Secret asks for per-cluster instantiation (the annotation, whatever its value). */
export function isTemplateAnnotated(obj: SourceObject): boolean {
  const a = obj.metadata.annotations;
  return a !== undefined && Object.hasOwn(a, TEMPLATE_ANNOTATION);
}

/**
 * The texts of a ConfigMap's `data` or a Secret's `data` (base64) in sorted key order, so the same object
 * always yields the same order (Go's map order is random; sorting is the only stable choice). A Secret
 * must have the cluster-profile type. ConfigMap binaryData is not read, as in Sveltos; a Secret's
 * stringData (not yet folded into data by a store) is read and wins over data, as the apiserver does.
 */
export function sourceTexts(obj: SourceObject): ContentText[] {
  const kind = obj.kind ?? '';
  const base = { kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '' };
  const texts = new Map<string, string>();
  if (kind === 'ConfigMap') {
    for (const [key, value] of Object.entries(obj.data ?? {}))
      texts.set(key, requireString(value, base, key));
  } else if (kind === 'Secret') {
    if (obj.type !== CLUSTER_PROFILE_SECRET_TYPE) {
      throw new ContentError(
        'InvalidSecretType',
        `Secret ${base.namespace ? `${base.namespace}/` : ''}${base.name} has type ${JSON.stringify(obj.type ?? '')}; ` +
          `content Secrets must have type ${JSON.stringify(CLUSTER_PROFILE_SECRET_TYPE)}`,
        base,
      );
    }
    for (const [key, value] of Object.entries(obj.data ?? {})) {
      texts.set(key, decodeBase64(requireString(value, base, key), { ...base, key }));
    }
    for (const [key, value] of Object.entries(obj.stringData ?? {})) {
      texts.set(key, requireString(value, base, key));
    }
  } else {
    throw new ContentError(
      'InvalidSource',
      `${describeOrigin(base)}: content must come from a ConfigMap or a Secret`,
      base,
    );
  }
  return [...texts.keys()]
    .sort(compareStrings)
    .map((key) => ({ origin: { ...base, key }, text: texts.get(key)! }));
}

/** Every object of a ConfigMap/Secret, keys in sorted order, documents in order (no templating). */
export function documentsFromSource(obj: SourceObject): Manifest[] {
  return sourceTexts(obj).flatMap((t) => parseDocuments(t.text, t.origin));
}

/**
 * The objects in one text (a data value or a remoteURL body): documents split on `---` lines, empty
 * ones (blank or comments only) skipped, `kind: *List` objects with `items` expanded as Sveltos does.
 * Errors name the origin, key and 0-based document index.
 */
export function parseDocuments(text: string, origin: ContentOrigin): Manifest[] {
  const out: Manifest[] = [];
  splitDocuments(text).forEach((doc, index) => {
    const at: ContentOrigin = { ...origin, document: index };
    let value: JsonValue;
    try {
      // sigs.k8s.io/yaml's reading (YAML 1.1: `0755` is octal, `yes` is true), as kubectl and Sveltos read.
      value = parseYAML(doc) as JsonValue;
    } catch (e) {
      if (e instanceof YAMLError)
        throw new ContentError('InvalidYaml', `${describeOrigin(at)}: ${e.message}`, at);
      throw e;
    }
    if (value === null) return;
    const obj = requireKubeObject(value, at);
    const items = obj['items'];
    if (obj['kind'] !== undefined && String(obj['kind']).endsWith('List') && Array.isArray(items)) {
      items.forEach((item, i) => out.push(requireKubeObject(item, at, i)));
    } else out.push(obj);
  });
  return out;
}

/**
 * Splits a multi-document text on lines that start with `---` (then whitespace or nothing); what
 * follows the marker on its line belongs to the next document. A leading marker does not open an
 * empty document, a YAML stream's `...` end marker is dropped.
 */
export function splitDocuments(text: string): string[] {
  const docs: string[] = [];
  let current: string[] = [];
  let seenContent = false;
  for (const line of text.split(/\r?\n/)) {
    const m = /^---(?:[ \t]+(.*))?$/.exec(line);
    if (m) {
      if (seenContent || docs.length > 0) docs.push(current.join('\n'));
      current = m[1] !== undefined && m[1].trim() !== '' ? [m[1]] : [];
      seenContent = true;
      continue;
    }
    if (/^\.\.\.[ \t]*$/.test(line)) continue;
    current.push(line);
    if (line.trim() !== '' && !line.trimStart().startsWith('#')) seenContent = true;
  }
  docs.push(current.join('\n'));
  return docs;
}

function requireKubeObject(value: JsonValue, at: ContentOrigin, item?: number): Manifest {
  const where = item === undefined ? describeOrigin(at) : `${describeOrigin(at)} items[${item}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ContentError(
      'NotAKubernetesObject',
      `${where}: not a Kubernetes object (a ${Array.isArray(value) ? 'list' : typeof value === 'object' ? 'null' : typeof value}, expected a map with apiVersion and kind)`,
      at,
    );
  }
  const missing = ['apiVersion', 'kind'].filter((f) => typeof value[f] !== 'string' || value[f] === '');
  if (missing.length > 0) {
    throw new ContentError(
      'NotAKubernetesObject',
      `${where}: not a Kubernetes object (missing ${missing.join(' and ')})`,
      at,
    );
  }
  return value;
}

function requireString(value: unknown, base: ContentOrigin, key: string): string {
  if (typeof value !== 'string') {
    throw new ContentError('InvalidSource', `${describeOrigin({ ...base, key })}: value is not a string`, {
      ...base,
      key,
    });
  }
  return value;
}

function decodeBase64(value: string, at: ContentOrigin): string {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ContentError('InvalidSource', `${describeOrigin(at)}: data is not valid base64`, at);
  }
  return Buffer.from(compact, 'base64').toString('utf8');
}

// Code-unit order, like Go's sort.Strings on ASCII keys: independent of the host's locale.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
