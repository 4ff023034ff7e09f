// Typed errors of the add-on content pipeline and the "where" they point at (source, key, document),
// so a ClusterSummary's failureMessage can say what failed, for which resource, and why.

/** Machine codes of every content failure; the message is the human text shown in status. */
export type ContentErrorCode =
  /** A referenced Secret is not of type addons.projectsveltos.io/cluster-profile. */
  | 'InvalidSecretType'
  /** The referenced object is neither a ConfigMap nor a Secret, or its data is malformed. */
  | 'InvalidSource'
  /** A document is not valid YAML/JSON. */
  | 'InvalidYaml'
  /** A document parsed but is not a Kubernetes object (no apiVersion/kind, or not a map). */
  | 'NotAKubernetesObject'
  /** A Go template did not parse (unknown function, bad syntax). */
  | 'TemplateParseError'
  /** A Go template failed while executing (missing key, function error). */
  | 'TemplateExecutionError'
  /** A patch is not a JSON 6902 op list nor a strategic-merge document, or its target is invalid. */
  | 'InvalidPatch'
  /** A patch is well formed but does not apply to a target object. */
  | 'PatchFailed'
  /** Two sources of the same tier produce the same object. */
  | 'DuplicateObject';

/**
 * Where content came from. `kind` is ConfigMap, Secret, a remote URL's kind (the caller's choice), or
 * `Patch`/`HelmValues` for text that is only templated; `key` is the data key, `document` the 0-based
 * index of the document in that key's text (counting empty documents, as a reader counts `---`).
 */
export interface ContentOrigin {
  kind: string;
  namespace?: string;
  name: string;
  key?: string;
  document?: number;
}

/** `ConfigMap team-a/flannel key "kube-flannel.yml" document 2`: how messages name an origin. */
export function describeOrigin(o: ContentOrigin): string {
  let s = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  if (o.key !== undefined) s += ` key ${JSON.stringify(o.key)}`;
  if (o.document !== undefined) s += ` document ${o.document}`;
  return s;
}

/** Every failure of this library: a machine code, a human message, and the origin when known. */
export class ContentError extends Error {
  override name = 'ContentError';
  constructor(
    readonly code: ContentErrorCode,
    message: string,
    readonly origin?: ContentOrigin,
  ) {
    super(message);
  }
}

/**
 * A Go template that failed for one cluster. `reason` is the engine's own message (Go's wording,
 * `template: NAME:2:13: executing … map has no entry for key "x"`); `line`/`column` are 1-based.
 */
export class TemplateInstantiationError extends ContentError {
  override name = 'TemplateInstantiationError';
  constructor(
    code: 'TemplateParseError' | 'TemplateExecutionError',
    message: string,
    origin: ContentOrigin,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(code, message, origin);
  }
}

/** The object a patch was applied to, as messages name it. */
export interface ObjectId {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export function describeObject(o: ObjectId): string {
  return `${o.kind}.${o.apiVersion} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** A patch that is malformed or does not apply; `patchIndex` is its 0-based position in `patches`. */
export class PatchError extends ContentError {
  override name = 'PatchError';
  constructor(
    code: 'InvalidPatch' | 'PatchFailed' | 'TemplateParseError' | 'TemplateExecutionError',
    message: string,
    readonly patchIndex: number,
    readonly target?: ObjectId,
    /** The template failure when the patch text itself did not instantiate. */
    readonly templateError?: TemplateInstantiationError,
  ) {
    super(code, message, templateError?.origin ?? { kind: 'Patch', name: `patches[${patchIndex}]` });
  }
}
