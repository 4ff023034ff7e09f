// The function map helm gives chart templates: sprig (less env/expandenv, which helm removes) plus
// helm's own toYaml/fromYaml/toJson/fromJson/toToml/fromToml, include, tpl, required, fail and lookup.
import { sprigFunctions } from '../gotemplate/sprig/index.js';
import type { TemplateSet } from '../gotemplate/template.js';
import { isStackOverflow, withSignature } from '../gotemplate/exec.js';
import { fromJson, fromJsonArray, toJson, toPrettyJson, toRawJson } from '../gotemplate/json.js';
import { fromYaml, fromYamlArray, toYaml, toYamlPretty } from '../gotemplate/yaml.js';
import { fromToml, toToml } from '../gotemplate/toml.js';
import type { GoFunc, GoValue } from '../gotemplate/value.js';
import { quote } from '../gotemplate/fmt.js';

/** helm's name for templates rendered by `tpl`, as its error messages show. */
export const TPL_TEMPLATE_NAME = 'gotpl';

/** helm marks messages of required/fail so its error formatter can show them without Go's trace. */
function warnWrap(message: string): string {
  return `HELM_ERR_START${message}HELM_ERR_END`;
}

function isEmptyValue(v: GoValue | undefined): boolean {
  return v === undefined || v === null || v === '';
}

/** helm's recursionMaxNums: how deep `include` may nest one template in itself. */
const INCLUDE_RECURSION_LIMIT = 1000;

export function helmFunctions(): Record<string, GoFunc> {
  // Per function map, so per template set; every include undoes its count, so renders never share one.
  const included = new Map<string, number>();
  const fns: Record<string, GoFunc> = { ...sprigFunctions() };
  // helm deletes these from sprig's map: templates must not read the renderer's environment.
  delete fns.env;
  delete fns.expandenv;
  Object.assign(fns, {
    toYaml: (v: GoValue) => toYaml(v),
    toYamlPretty: (v: GoValue) => toYamlPretty(v),
    fromYaml: (s: GoValue) => fromYaml(typeof s === 'string' ? s : String(s)),
    fromYamlArray: (s: GoValue) => fromYamlArray(typeof s === 'string' ? s : String(s)),
    toJson: (v: GoValue) => toJson(v),
    toPrettyJson: (v: GoValue) => toPrettyJson(v),
    toRawJson: (v: GoValue) => toRawJson(v),
    // sprig's must* forms report failures as errors; our encoders only fail on values no template builds.
    mustToJson: (v: GoValue) => toJson(v),
    mustToPrettyJson: (v: GoValue) => toPrettyJson(v),
    mustToRawJson: (v: GoValue) => toRawJson(v),
    mustToYaml: (v: GoValue) => toYaml(v),
    mustFromJson(s: GoValue) {
      const parsed = fromJson(typeof s === 'string' ? s : String(s));
      if (
        parsed !== null &&
        typeof parsed === 'object' &&
        !Array.isArray(parsed) &&
        'Error' in parsed &&
        Object.keys(parsed).length === 1
      )
        throw new Error(String(parsed.Error));
      return parsed;
    },
    fromJson: (s: GoValue) => fromJson(typeof s === 'string' ? s : String(s)),
    fromJsonArray: (s: GoValue) => fromJsonArray(typeof s === 'string' ? s : String(s)),
    // helm 4.1.4 has no mustToToml; toToml returns the encoder's error text instead of failing.
    toToml: (v: GoValue) => toToml(v),
    // fromToml's parameter is a Go string: text/template refuses other arguments before the call.
    fromToml: withSignature((s: GoValue) => fromToml(String(s)), { params: ['string'] }),
    required(message: GoValue, value: GoValue) {
      if (isEmptyValue(value)) throw new Error(warnWrap(String(message)));
      return value;
    },
    fail(message: GoValue) {
      throw new Error(warnWrap(String(message)));
    },
    // `helm template` has no cluster to look in: lookup always finds nothing.
    lookup: () => ({}),
    include(this: TemplateSet, name: GoValue, data: GoValue) {
      const n = String(name);
      const depth = included.get(n) ?? 0;
      // helm stops a template including itself after 1000 levels; JavaScript's stack may end sooner.
      const nested = (): Error =>
        new Error(`rendering template has a nested reference name: ${n}: unable to execute template`);
      if (depth > INCLUDE_RECURSION_LIMIT) throw nested();
      included.set(n, depth + 1);
      try {
        return this.execute(n, data);
      } catch (e) {
        if (isStackOverflow(e)) throw nested();
        throw e;
      } finally {
        included.set(n, depth);
      }
    },
    tpl(this: TemplateSet, text: GoValue, data: GoValue) {
      const source = String(text);
      // helm wraps both failures in its own words (so its error formatter shows Go's chain as is).
      const overlay = this.overlay();
      try {
        overlay.parse(TPL_TEMPLATE_NAME, source);
      } catch (e) {
        throw new Error(`cannot parse template ${quote(source)}: ${(e as Error).message}`);
      }
      try {
        return overlay.execute(TPL_TEMPLATE_NAME, data).replaceAll('<no value>', '');
      } catch (e) {
        throw new Error(`error during tpl function execution for ${quote(source)}: ${(e as Error).message}`);
      }
    },
  } satisfies Record<string, GoFunc>);
  return fns;
}
