// The function map Sveltos's addon-controller gives profile templates: libsveltos's SveltosFuncMap
// plus the per-render helpers over the TemplateResourceRefs objects (getResource, copy, setField …).

import { formatValue } from '../gotemplate/fmt.js';
import { helmFunctions } from '../helm/functions.js';
import { typeNameOf } from '../gotemplate/sprig/cast.js';
import { withSignature } from '../gotemplate/template.js';
import {
  type GoFunc,
  type GoMap,
  type GoValue,
  GoSizedInt,
  goInt64,
  goTypeName,
  isGoMap,
} from '../gotemplate/value.js';
import { parseYAML, toYaml } from '../gotemplate/yaml.js';

/**
 * Sveltos swallows most failures of these helpers into its log (V(LogInfo)); a caller that wants
 * to show them (the CLI) passes a sink. The messages are Sveltos's own.
 */
export interface SveltosFunctionOptions {
  log?: (message: string) => void;
}

const M = 'map[string]interface {}';
const S = 'string';
const I = 'interface {}';

/**
 * The per-render functions of addon-controller's instantiateTemplateValues
 * (controllers/template_instantiation.go), keyed by TemplateResourceRefs identifier.
 *
 * As in Sveltos the resource maps are shared, not copied: getResource, copy, setField and removeField
 * strip metadata.uid/resourceVersion/managedFields from the stored object in place, setField and
 * removeField edit it, and getResource hands out the stored map itself (so chainSetField on it changes
 * what later calls and `.MgmtResources` see). Pass fresh objects per render.
 */
export function sveltosFunctions(
  resources: ReadonlyMap<string, GoValue> | Record<string, GoValue>,
  options: SveltosFunctionOptions = {},
): Record<string, GoFunc> {
  const store = new Map<string, GoMap>();
  const entries = resources instanceof Map ? [...resources] : Object.entries(resources);
  for (const [id, obj] of entries) {
    if (!isGoMap(obj)) throw new TypeError(`resource ${id} is not an object (${goTypeName(obj)})`);
    store.set(id, obj);
  }
  const log = options.log ?? (() => undefined);
  const lookup = (id: GoValue): GoMap | undefined => {
    const u = store.get(id as string);
    if (u === undefined) log(`resource ${String(id)} does not exist`);
    return u;
  };

  return {
    // Unknown id: Go returns a nil map[string]interface{}; null is the value model's nearest (it prints
    // <no value> where Go prints map[], and toYaml gives "null" in both).
    getResource: withSignature((id) => {
      const u = lookup(id);
      return u === undefined ? null : resetFields(u);
    }, sig(S)),

    copy: withSignature((id) => {
      const u = lookup(id);
      return u === undefined ? '' : toYaml(resetFields(u));
    }, sig(S)),

    // Reads the stored object as it is: no resetFields here in Sveltos.
    getField: withSignature(
      (id, fields) => {
        const u = lookup(id);
        if (u === undefined) return '';
        const path = (fields as string).split('.');
        const found = nestedFieldNoCopy(u, path);
        if ('error' in found) {
          log(`failed with err ${found.error}`);
          return '';
        }
        if (!found.present) {
          log(`field ${fields as string} does not exist`);
          return '';
        }
        return deepCopyJSONValue(found.value);
      },
      sig(S, S),
    ),

    removeField: withSignature(
      (id, fields) => {
        const u = lookup(id);
        if (u === undefined) return '';
        removeNestedField(u, (fields as string).split('.'));
        return toYaml(resetFields(u));
      },
      sig(S, S),
    ),

    setField: withSignature(
      (id, fields, value) => {
        const u = lookup(id);
        if (u === undefined) return '';
        const err = setNestedField(u, value, (fields as string).split('.'));
        if (err !== undefined) {
          log(`failed with err ${err}`);
          return '';
        }
        return toYaml(resetFields(u));
      },
      sig(S, S, I),
    ),

    chainRemoveField: withSignature(
      (u, fields) => {
        if (u !== null) removeNestedField(u as GoMap, (fields as string).split('.'));
        return u;
      },
      sig(M, S),
    ),

    chainSetField: withSignature(
      (u, fields, value) => {
        const err = setNestedField(u as GoMap | null, value, (fields as string).split('.'));
        if (err !== undefined) {
          log(`failed with err ${err}`);
          return null;
        }
        return u;
      },
      sig(M, S, I),
    ),
  };
}

/**
 * The whole map a Sveltos template sees: sprig (sprig.FuncMap and TxtFuncMap hold the same functions,
 * so the projectsveltos.io/tex-template annotation changes nothing here), libsveltos's toYaml, fromYaml,
 * fromYamlArray, toJson, fromJson, fromJsonArray (the same code as helm's), and the resource helpers.
 * Differences from helmFunctions(): no include, tpl, required, fail, lookup, toYamlPretty or mustToYaml
 * (helm's own, Sveltos lacks them). Sveltos keeps sprig's env and expandenv; fleethub drops them, as
 * helm does, so a template cannot read the hub's environment (secrets, tokens). libsveltos's toToml and
 * fromToml are not implemented yet (helm mode lacks them too): templates using them fail to parse.
 */
export function sveltosFuncMap(
  resources: ReadonlyMap<string, GoValue> | Record<string, GoValue>,
  options: SveltosFunctionOptions = {},
): Record<string, GoFunc> {
  return Object.assign({ ...sharedHelmFunctions() }, sveltosFunctions(resources, options));
}

let helmBase: Record<string, GoFunc> | undefined;

/**
 * helm's map without HELM_ONLY, built once per process: every per-cluster render used to rebuild its
 * hundreds of closures (6 % of the hub's time in the 1,000-cluster bench). They hold no render state.
 */
function sharedHelmFunctions(): Record<string, GoFunc> {
  if (!helmBase) {
    const fns = helmFunctions();
    for (const name of HELM_ONLY) Reflect.deleteProperty(fns, name);
    helmBase = fns;
  }
  return helmBase;
}

/** Functions of helm's map that libsveltos's SveltosFuncMap does not have. */
export const HELM_ONLY: readonly string[] = [
  'include',
  'tpl',
  'required',
  'fail',
  'lookup',
  'toYamlPretty',
  'mustToYaml',
];

/**
 * A TemplateResourceRefs object from YAML or JSON text, numbers typed as unstructured.Unstructured
 * holds them after the API server's JSON: integers as int64, the rest float64.
 */
export function parseResource(text: string): GoMap {
  const v = parseYAML(text);
  if (!isGoMap(v)) throw new TypeError(`a resource must be a YAML or JSON object, got ${goTypeName(v)}`);
  return toUnstructuredNumbers(v) as GoMap;
}

// k8s.io/apimachinery/pkg/util/json turns a json.Number into int64 when ParseInt accepts it; Go's
// encoder prints integral float64s below 1e21 without exponent, so exactly those become int64.
function toUnstructuredNumbers(v: GoValue): GoValue {
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) < 9223372036854775808 ? goInt64(BigInt(v)) : v;
  if (Array.isArray(v)) return v.map(toUnstructuredNumbers);
  if (isGoMap(v)) {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = toUnstructuredNumbers(x);
    return out;
  }
  return v;
}

function sig(...params: string[]): { params: string[] } {
  return { params };
}

// Sveltos's resetFields: Unstructured.SetManagedFields(nil) / SetResourceVersion("") / SetUID("")
// each RemoveNestedField on the very map (SetUnstructuredContent does not copy).
function resetFields(u: GoMap): GoMap {
  removeNestedField(u, ['metadata', 'managedFields']);
  removeNestedField(u, ['metadata', 'resourceVersion']);
  removeNestedField(u, ['metadata', 'uid']);
  return u;
}

// unstructured.RemoveNestedField: stops quietly at a missing or non-map level.
function removeNestedField(obj: GoMap, fields: string[]): void {
  let m = obj;
  for (const field of fields.slice(0, -1)) {
    const x = own(m, field);
    if (!isPlainGoMap(x)) return;
    m = x;
  }
  Reflect.deleteProperty(m, fields[fields.length - 1]!);
}

/**
 * unstructured.SetNestedField: deep-copies the value first (a non-JSON value panics, which text/template
 * reports as the call's error), creates missing levels, and refuses to descend through a non-map,
 * returning that error (Sveltos logs it). A nil map panics on the first assignment, as in Go.
 */
function setNestedField(obj: GoMap | null, value: GoValue, fields: string[]): string | undefined {
  const copied = deepCopyJSONValue(value);
  if (obj === null) throw new Error('assignment to entry in nil map');
  let m = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    const field = fields[i]!;
    if (Object.prototype.hasOwnProperty.call(m, field)) {
      const val = m[field]!;
      if (!isPlainGoMap(val))
        return `value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`;
      m = val;
    } else {
      const created: GoMap = {};
      m[field] = created;
      m = created;
    }
  }
  m[fields[fields.length - 1]!] = copied;
  return undefined;
}

// unstructured.NestedFieldNoCopy: a nil level means "not found"; a non-map level is an error.
function nestedFieldNoCopy(
  obj: GoMap,
  fields: string[],
): { present: true; value: GoValue } | { present: false } | { error: string } {
  let val: GoValue = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null) return { present: false };
    if (!isPlainGoMap(val))
      return {
        error: `${jsonPath(fields.slice(0, i + 1))} accessor error: ${formatValue(val)} is of the type ${typeNameOf(val)}, expected map[string]interface{}`,
      };
    const field = fields[i]!;
    if (!Object.prototype.hasOwnProperty.call(val, field)) return { present: false };
    val = val[field]!;
  }
  return { present: true, value: val };
}

/**
 * runtime.DeepCopyJSONValue: only JSON-shaped values (int64, not a template literal's int) are copied;
 * anything else panics with "cannot deep copy T", which is why Sveltos documents `(int64 7)`.
 */
function deepCopyJSONValue(v: GoValue): GoValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof GoSizedInt && v.goType === 'int64') return v;
  if (typeof v === 'number') return v;
  if (Array.isArray(v)) {
    if (typeNameOf(v) !== '[]interface {}') throw new Error(`cannot deep copy ${typeNameOf(v)}`);
    return v.map(deepCopyJSONValue);
  }
  if (isPlainGoMap(v)) {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepCopyJSONValue(x);
    return out;
  }
  throw new Error(`cannot deep copy ${typeNameOf(v)}`);
}

/** A map[string]interface{} proper: Go's type switches do not match named map types (common.Values). */
function isPlainGoMap(v: GoValue | undefined): v is GoMap {
  return isGoMap(v) && typeNameOf(v) === M;
}

function own(m: GoMap, key: string): GoValue | undefined {
  return Object.prototype.hasOwnProperty.call(m, key) ? m[key] : undefined;
}

function jsonPath(fields: string[]): string {
  return '.' + fields.join('.');
}
