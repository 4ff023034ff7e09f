// Turns a CRD into the KindDefinitions of its served versions. Definitions are shared between every
// registry (cluster) holding an identical CRD, so schemas compile and printers build once per process.
import { columnPrinter, type PrintableKind, type TablePrinter } from '../../apiserver/printers.js';
import { evaluateJsonPath } from '../../apiserver/jsonpath.js';
import type { KubeObject } from '../../store/types.js';
import type { KindDefinition, PrinterColumn } from '../types.js';
import {
  acceptedNamesOf,
  type CrdColumn,
  type CrdObject,
  type CrdSpec,
  type CrdVersion,
} from './definition.js';
import { customResourceSchema, defaulterFor } from './schema.js';

/** Distinct CRD specs remembered; a fleet installs the same few charts, so this rarely fills. */
const CACHE_LIMIT = 512;
const cache = new Map<string, KindDefinition[]>();

/** Cache key and change detector in one: a CRD's kinds depend on its spec only. */
export function specKey(crd: CrdObject): string {
  return JSON.stringify(crd.spec ?? {});
}

/**
 * The kinds a CRD serves, one per `served` version. Cached by spec: the same array (and objects) is
 * returned for equal specs, which is what lets a registry tell "unchanged" from "replace".
 */
export function kindsOfCrd(crd: CrdObject, key = specKey(crd)): KindDefinition[] {
  let kinds = cache.get(key);
  if (kinds) {
    // Most recently used last, so the oldest entry is the one dropped.
    cache.delete(key);
    cache.set(key, kinds);
    return kinds;
  }
  kinds = buildKinds(crd.spec ?? {});
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, kinds);
  return kinds;
}

function buildKinds(spec: CrdSpec): KindDefinition[] {
  const names = acceptedNamesOf(spec.names);
  const group = spec.group ?? '';
  if (!names.plural || !names.kind || !group) return [];
  return (spec.versions ?? []).filter((v) => v.served).map((v) => kindOfVersion(spec, v));
}

function kindOfVersion(spec: CrdSpec, version: CrdVersion): KindDefinition {
  const names = acceptedNamesOf(spec.names);
  const kind = names.kind!;
  const openAPIV3Schema = version.schema?.openAPIV3Schema;
  const def: PrintableKind = {
    group: spec.group!,
    version: version.name,
    kind,
    plural: names.plural!,
    singular: names.singular!,
    namespaced: spec.scope !== 'Cluster',
    schema: customResourceSchema(kind, openAPIV3Schema),
    printer: printerOf(version.additionalPrinterColumns ?? []),
  };
  if (names.shortNames?.length) def.shortNames = [...names.shortNames];
  if (names.categories?.length) def.categories = [...names.categories];
  if (typeof openAPIV3Schema?.description === 'string') def.description = openAPIV3Schema.description;
  if (version.subresources?.status) def.subresources = { status: true };
  const scale = version.subresources?.scale;
  if (scale) {
    def.scale = { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath };
    if (scale.labelSelectorPath) def.scale.labelSelectorPath = scale.labelSelectorPath;
  }
  const columns = (version.additionalPrinterColumns ?? []).map(printerColumnOf);
  if (columns.length) def.printerColumns = columns;
  const selectable = selectableFieldsOf(version.selectableFields ?? []);
  if (selectable) def.selectableFields = selectable;
  const defaults = defaulterFor(openAPIV3Schema);
  if (defaults) def.defaults = defaults;
  return def;
}

function printerColumnOf(c: CrdColumn): PrinterColumn {
  const column: PrinterColumn = {
    name: c.name,
    type: c.type as PrinterColumn['type'],
    jsonPath: c.jsonPath,
  };
  if (c.description) column.description = c.description;
  if (c.priority) column.priority = c.priority;
  if (c.format) column.format = c.format;
  return column;
}

/**
 * kube-apiserver's custom resource printer: Name plus the declared columns; only a CRD declaring none
 * gets Age. (printers.ts' column printer always adds Age, right for the hub's own kinds, not for CRDs.)
 */
function printerOf(declared: readonly CrdColumn[]): TablePrinter {
  const printer = columnPrinter(declared.map(printerColumnOf));
  if (declared.length === 0 || declared.some((c) => c.name === 'Age')) return printer;
  const columns = printer.columns.slice(0, -1);
  return { columns, cells: (obj, now) => printer.cells(obj, now).slice(0, -1) };
}

/** `spec.selectableFields[].jsonPath` `.spec.color` → field selector `spec.color`. */
function selectableFieldsOf(
  fields: readonly { jsonPath: string }[],
): Record<string, (obj: KubeObject) => string | undefined> | undefined {
  if (fields.length === 0) return undefined;
  const out: Record<string, (obj: KubeObject) => string | undefined> = {};
  for (const { jsonPath } of fields) {
    out[jsonPath.replace(/^\./, '')] = (obj) => {
      const value = evaluateJsonPath(jsonPath, obj)[0];
      return value === undefined || value === null ? undefined : String(value);
    };
  }
  return out;
}
