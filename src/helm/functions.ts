// The function map helm gives chart templates: sprig (less env/expandenv, which helm removes) plus
// helm's own toYaml/fromYaml/toJson/fromJson, include, tpl, required, fail and lookup.
import { sprigFunctions } from '../gotemplate/sprig/index.js';
import { GoFuncError, type TemplateSet } from '../gotemplate/template.js';
import { fromJson, fromJsonArray, toJson, toPrettyJson, toRawJson } from '../gotemplate/json.js';
import { fromYaml, fromYamlArray, toYaml, toYamlPretty } from '../gotemplate/yaml.js';
import type { GoFunc, GoValue } from '../gotemplate/value.js';

/** helm's name for templates rendered by `tpl`, as its error messages show. */
export const TPL_TEMPLATE_NAME = 'gotpl';

function isEmptyValue(v: GoValue | undefined): boolean {
  return v === undefined || v === null || v === '';
}

export function helmFunctions(): Record<string, GoFunc> {
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
        throw new GoFuncError(String(parsed.Error));
      return parsed;
    },
    fromJson: (s: GoValue) => fromJson(typeof s === 'string' ? s : String(s)),
    fromJsonArray: (s: GoValue) => fromJsonArray(typeof s === 'string' ? s : String(s)),
    required(message: GoValue, value: GoValue) {
      if (isEmptyValue(value)) throw new GoFuncError(String(message));
      return value;
    },
    fail(message: GoValue) {
      throw new GoFuncError(String(message));
    },
    // `helm template` has no cluster to look in: lookup always finds nothing.
    lookup: () => ({}),
    include(this: TemplateSet, name: GoValue, data: GoValue) {
      return this.execute(String(name), data);
    },
    tpl(this: TemplateSet, text: GoValue, data: GoValue) {
      return this.executeString(TPL_TEMPLATE_NAME, String(text), data).replaceAll('<no value>', '');
    },
  } satisfies Record<string, GoFunc>);
  return fns;
}
