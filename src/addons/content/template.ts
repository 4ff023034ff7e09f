// Per-cluster instantiation of Sveltos templates: content annotated projectsveltos.io/template, remoteURL
// bodies with template: true, Helm values and patch text, through the Go engine with missingkey=error.

import type { JsonObject, JsonValue } from '../../apiserver/patch/json.js';
import {
  TemplateExecError,
  TemplateParseError,
  parseTemplate,
  type TemplateSet,
} from '../../gotemplate/template.js';
import { type GoMap, type GoValue, goInt64 } from '../../gotemplate/value.js';
import { sveltosFuncMap } from '../../sveltos/template-functions.js';
import { type ContentOrigin, TemplateInstantiationError, describeOrigin } from './errors.js';

/** What a template sees: `.Cluster` (the fleethub Cluster) and `.MgmtResources` (templateResourceRefs). */
export interface TemplateData {
  cluster: JsonObject;
  /** templateResourceRefs objects by identifier (for getResource, copy, setField …). */
  mgmtResources?: Record<string, JsonObject>;
}

/**
 * The data of one (profile, cluster) render. Sveltos hands every template of one deploy the same
 * resource maps, and its helpers edit them in place (setField, chainSetField on getResource's map), so
 * one context is shared by all templates of a render — in their order — and built from fresh copies so
 * that renders never leak into each other or into the caller's objects.
 */
export class TemplateContext {
  private readonly root: GoMap;
  private readonly resources: Record<string, GoValue>;

  constructor(data: TemplateData) {
    this.resources = {};
    for (const id of Object.keys(data.mgmtResources ?? {}).sort()) {
      this.resources[id] = toGoValue(data.mgmtResources![id]!);
    }
    this.root = { Cluster: toGoValue(data.cluster), MgmtResources: this.resources };
  }

  /**
   * Instantiates `text` for this cluster. Throws TemplateInstantiationError naming the origin, the
   * template line and the engine's message.
   */
  private parsed(name: string, text: string): TemplateSet {
    if (Object.keys(this.resources).length === 0) return sharedParse(name, text);
    return parseTemplate(name, text, { funcs: sveltosFuncMap(this.resources), missingKey: 'error' });
  }

  instantiate(text: string, origin: ContentOrigin): string {
    // Sveltos names templates <clusterNs>-<clusterName>-<requestor>; the origin is more useful in errors.
    const name = describeOrigin(origin);
    try {
      return this.parsed(name, text).execute(name, this.root);
    } catch (e) {
      if (e instanceof TemplateParseError || e instanceof TemplateExecError)
        throw templateError(e, name, origin);
      // Engine-internal failures (a JS stack overflow on pathological recursion) are still this
      // template's fault from the user's point of view: report them the same way.
      if (e instanceof Error) throw templateError(e, name, origin);
      throw e;
    }
  }
}

/**
 * Parsed templates of renders without MgmtResources, by name and text: the same content rendered for a
 * thousand clusters is parsed once (trees are immutable; execution keeps no state in the set). Renders
 * with MgmtResources bind their own getResource & co., so they parse their own.
 */
const PARSED_LIMIT = 512;
const parsedShared = new Map<string, TemplateSet>();
let sharedFuncs: ReturnType<typeof sveltosFuncMap> | undefined;

function sharedParse(name: string, text: string): TemplateSet {
  const key = `${name}\u0000${text}`;
  let set = parsedShared.get(key);
  if (set) {
    // Most recently used last: the Map's order is the eviction order.
    parsedShared.delete(key);
    parsedShared.set(key, set);
    return set;
  }
  sharedFuncs ??= sveltosFuncMap({});
  set = parseTemplate(name, text, { funcs: sharedFuncs, missingKey: 'error' });
  parsedShared.set(key, set);
  if (parsedShared.size > PARSED_LIMIT) parsedShared.delete(parsedShared.keys().next().value!);
  return set;
}

/**
 * Instantiates one text (Helm values, patch text: always templated, as Sveltos does). Pass a
 * TemplateContext to share MgmtResources edits with the render's other templates.
 */
export function instantiateString(
  text: string,
  data: TemplateData | TemplateContext,
  origin: ContentOrigin | string,
): string {
  const ctx = data instanceof TemplateContext ? data : new TemplateContext(data);
  return ctx.instantiate(text, typeof origin === 'string' ? { kind: 'Template', name: origin } : origin);
}

function templateError(e: Error, name: string, origin: ContentOrigin): TemplateInstantiationError {
  const code = e instanceof TemplateParseError ? 'TemplateParseError' : 'TemplateExecutionError';
  const reason = e.message;
  const pos = templatePosition(reason, name);
  const detail = pos ? reason.slice(pos.prefixLength) : reason;
  const where = pos ? ` line ${pos.line}` : '';
  const what = code === 'TemplateParseError' ? 'template does not parse' : 'template failed';
  return new TemplateInstantiationError(
    code,
    `${describeOrigin(origin)}:${where}: ${what}: ${detail}`,
    origin,
    reason,
    pos?.line,
    pos?.column,
  );
}

/**
 * The line (and column for execution errors) from Go's `template: NAME:LINE[:COL]: …` prefix; the
 * name is known, so a name with colons (a URL) cannot be misread. Errors raised inside a `define`d
 * template name that template instead; any name is accepted then.
 */
function templatePosition(
  message: string,
  name: string,
): { line: number; column?: number; prefixLength: number } | undefined {
  const own = `template: ${name}:`;
  const re = message.startsWith(own) ? /(\d+)(?::(\d+))?: /y : /template: .*?:(\d+)(?::(\d+))?: /y;
  const rest = message.startsWith(own) ? own.length : 0;
  re.lastIndex = rest;
  const m = re.exec(message);
  if (!m) return undefined;
  return {
    line: Number(m[1]),
    ...(m[2] !== undefined ? { column: Number(m[2]) } : {}),
    prefixLength: re.lastIndex,
  };
}

/**
 * A JSON value as an unstructured.Unstructured holds it after the apiserver's JSON: integers as int64
 * (so `{{ .Cluster.spec.x }}` prints 3, and typeOf says int64), other numbers float64.
 */
export function toGoValue(v: JsonValue): GoValue {
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) < 9223372036854775808 ? goInt64(BigInt(v)) : v;
  if (Array.isArray(v)) return v.map(toGoValue);
  if (v !== null && typeof v === 'object') {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) {
      // `__proto__` is a valid map key in Kubernetes data; plain assignment would change the prototype.
      Object.defineProperty(out, k, {
        value: toGoValue(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return v;
}
