// The values of one helmCharts entry for one cluster, as Sveltos builds them: `values` instantiated and
// read as YAML, then every valuesFrom data value merged over it (plain ones first, then those of objects
// annotated projectsveltos.io/template, instantiated), later winning, maps merged key by key.
import type { JsonObject } from '../../apiserver/patch/json.js';
import type { GoMap } from '../../gotemplate/value.js';
import { loadValues, mergeMaps } from '../../helm/chart.js';
import {
  ContentError,
  TemplateInstantiationError,
  describeOrigin,
  type ContentOrigin,
} from '../content/errors.js';
import { isTemplateAnnotated, sourceTexts, type SourceObject } from '../content/sources.js';
import type { TemplateContext } from '../content/template.js';
import type { HelmFailureReason } from './errors.js';

/** `valuesFrom[]` as written in the spec (Sveltos ValueFrom). */
export interface ValueFromRef {
  kind: 'ConfigMap' | 'Secret' | string;
  namespace?: string;
  name: string;
  optional?: boolean;
}

/** Reads a ConfigMap or Secret on the hub; undefined when it does not exist. */
export type ReadObject = (
  kind: 'ConfigMap' | 'Secret',
  namespace: string,
  name: string,
) => Promise<SourceObject | JsonObject | undefined>;

/** A failure of one entry, with the field path already in the message. */
export class EntryError extends Error {
  override name = 'EntryError';
  constructor(
    readonly reason: HelmFailureReason,
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/**
 * A template failure re-worded to start with `field` (`spec.helmCharts[0].values: line 3: …`): the
 * content module names its origin its own way; the field path is what a user edits.
 */
export function templateFailure(
  e: TemplateInstantiationError,
  field: string,
  origin: ContentOrigin,
): EntryError {
  const own = describeOrigin(origin);
  const rest = e.message.startsWith(own) ? e.message.slice(own.length) : `: ${e.message}`;
  const where = origin.kind === 'HelmValues' ? field : `${field}: ${own}`;
  return new EntryError('TemplateInstantiationError', `${where}${rest}`, e.line);
}

/** Instantiates `text` for the cluster, failures named by `field`. */
export function instantiateField(
  ctx: TemplateContext,
  text: string,
  field: string,
  origin?: ContentOrigin,
): string {
  const at = origin ?? { kind: 'HelmValues', name: field };
  try {
    return ctx.instantiate(text, at);
  } catch (e) {
    if (e instanceof TemplateInstantiationError) throw templateFailure(e, field, at);
    throw e;
  }
}

function readYamlMap(text: string, field: string): GoMap {
  try {
    return loadValues(text);
  } catch (e) {
    throw new EntryError('RenderFailed', `${field}: the values are not a YAML map: ${(e as Error).message}`);
  }
}

export interface ValuesInput {
  /** `values` (YAML, a template). */
  values?: string;
  valuesFrom?: readonly ValueFromRef[];
  /** spec.helmCharts[i]: the prefix of every message. */
  field: string;
  /** Where a valuesFrom without namespace looks: the cluster's namespace. */
  defaultNamespace: string;
  ctx: TemplateContext;
  read: ReadObject;
}

/** The merged values (what `helm install` gets as user values). Throws EntryError. */
export async function instantiateValues(input: ValuesInput): Promise<GoMap> {
  const { ctx, field } = input;
  const valuesField = `${field}.values`;
  let result: GoMap = input.values
    ? readYamlMap(instantiateField(ctx, input.values, valuesField), valuesField)
    : {};
  const plain: { text: string; field: string }[] = [];
  const templated: { text: string; field: string; origin: ContentOrigin }[] = [];
  for (const [i, ref] of (input.valuesFrom ?? []).entries()) {
    const at = `${field}.valuesFrom[${i}]`;
    if (ref.kind !== 'ConfigMap' && ref.kind !== 'Secret')
      throw new EntryError(
        'InvalidReference',
        `${at}: kind ${ref.kind || '(none)'} is not ConfigMap or Secret`,
      );
    // name and namespace are templates too (Sveltos instantiates them with the cluster).
    const name = instantiateField(ctx, ref.name, `${at}.name`);
    const namespace = instantiateField(ctx, ref.namespace || input.defaultNamespace, `${at}.namespace`);
    const obj = await input.read(ref.kind, namespace, name);
    if (!obj) {
      if (ref.optional) continue;
      throw new EntryError('ReferenceNotFound', `${at}: ${ref.kind} ${namespace}/${name} not found`);
    }
    const source = { ...(obj as SourceObject), kind: ref.kind } as SourceObject;
    let texts;
    try {
      texts = sourceTexts(source);
    } catch (e) {
      if (e instanceof ContentError) throw new EntryError('InvalidReference', `${at}: ${e.message}`);
      throw e;
    }
    const isTemplate = isTemplateAnnotated(source);
    for (const t of texts) {
      if (isTemplate) templated.push({ text: t.text, field: at, origin: t.origin });
      else plain.push({ text: t.text, field: `${at}: ${describeOrigin(t.origin)}` });
    }
  }
  for (const p of plain) result = mergeMaps(result, readYamlMap(p.text, p.field));
  for (const t of templated) {
    const text = instantiateField(ctx, t.text, t.field, t.origin);
    result = mergeMaps(result, readYamlMap(text, `${t.field}: ${describeOrigin(t.origin)}`));
  }
  return result;
}
