// meta.k8s.io Table responses (what kubectl prints): Accept negotiation, `includeObject`, list metadata,
// and one-row Tables for watch events whose column definitions only the first event carries.
import { apiVersionOf, type KindDefinition } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { errors } from '../util/errors.js';
import { acceptsMediaType, parseAccept } from './accept.js';
import { printerFor, type TableColumnDefinition } from './printers.js';

export type TableVersion = 'v1' | 'v1beta1';
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/**
 * kube-apiserver answers Tables with plain `application/json` (clients read `kind: Table` from the body);
 * kubectl asks for them with `application/json;as=Table;v=v1;g=meta.k8s.io`.
 */
export const TABLE_CONTENT_TYPE = 'application/json';

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: `meta.k8s.io/${TableVersion}`;
  metadata: KubeObject['metadata'];
}

export interface TableRow {
  cells: unknown[];
  /** Per includeObject: PartialObjectMetadata (default), the whole object, or null. */
  object: PartialObjectMetadata | KubeObject | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: `meta.k8s.io/${TableVersion}`;
  metadata: TableListMeta;
  /** null on watch events after the first (the apiserver's NoHeaders); kubectl reuses the first ones. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  /** Default Metadata. */
  includeObject?: IncludeObject;
  /** The Table version the client asked for; default v1. */
  version?: TableVersion;
  /** Leave out column definitions (later watch events). */
  noHeaders?: boolean;
  /** Epoch ms that ages are computed against; default now. */
  now?: number;
}

/**
 * The Table version to answer with, or undefined for the plain object/list. Like kube-apiserver, the first
 * acceptable clause decides: a JSON clause `as=Table;g=meta.k8s.io;v=v1|v1beta1` means a Table, a JSON (or
 * wildcard) clause without `as` means plain; clauses we cannot produce (protobuf, other `as=`) are skipped.
 */
export function wantsTable(accept: string | undefined): TableVersion | undefined {
  for (const clause of parseAccept(accept)) {
    if (!acceptsMediaType(clause, 'application', 'json')) continue;
    const { as, g, v } = clause.params;
    if (as === undefined) return undefined;
    if (as === 'Table' && g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) return v;
  }
  return undefined;
}

/** `includeObject` from the query; 400 like the apiserver for anything else. */
export function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? '';
  if (value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

function rowObject(
  def: KindDefinition,
  obj: KubeObject,
  include: IncludeObject,
  version: TableVersion,
): TableRow['object'] {
  if (include === 'None') return null;
  if (include === 'Object') {
    // List items may be stored without kind/apiVersion; the embedded object must say what it is.
    const full: KubeObject = {
      apiVersion: obj.apiVersion ?? apiVersionOf(def),
      kind: obj.kind ?? def.kind,
      metadata: obj.metadata,
    };
    for (const [key, value] of Object.entries(obj)) if (!(key in full)) full[key] = value;
    return full;
  }
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

function buildTable(
  def: KindDefinition,
  items: readonly KubeObject[],
  metadata: TableListMeta,
  options: TableOptions,
): Table {
  const printer = printerFor(def);
  const version = options.version ?? 'v1';
  const include = options.includeObject ?? 'Metadata';
  const now = options.now ?? Date.now();
  const meta: TableListMeta = {};
  if (metadata.resourceVersion) meta.resourceVersion = metadata.resourceVersion;
  if (metadata.continue) meta.continue = metadata.continue;
  if (metadata.remainingItemCount !== undefined && metadata.remainingItemCount !== null)
    meta.remainingItemCount = metadata.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: meta,
    columnDefinitions: options.noHeaders ? null : printer.columns.map((c) => ({ ...c })),
    rows: items.map((obj) => ({
      cells: printer.cells(obj, now),
      object: rowObject(def, obj, include, version),
    })),
  };
}

/** A list as a Table; `metadata` is the list's (resourceVersion, continue, remainingItemCount). */
export function tableFromList(
  def: KindDefinition,
  items: readonly KubeObject[],
  metadata: TableListMeta,
  options: TableOptions = {},
): Table {
  return buildTable(def, items, metadata, options);
}

/** A single object (GET, or a watch event's object) as a one-row Table carrying its resourceVersion. */
export function tableFromObject(def: KindDefinition, obj: KubeObject, options: TableOptions = {}): Table {
  return buildTable(def, [obj], { resourceVersion: obj.metadata.resourceVersion }, options);
}

/**
 * Converts the objects of one watch stream: the first event's Table carries the column definitions, later
 * ones do not. `Status` objects (ERROR events) pass through unchanged, as the apiserver sends them.
 */
export function tableWatchConverter(
  def: KindDefinition,
  options: Omit<TableOptions, 'noHeaders'> = {},
): (obj: KubeObject) => Table | KubeObject {
  let headersSent = false;
  return (obj) => {
    if (obj.kind === 'Status') return obj;
    const table = tableFromObject(def, obj, {
      ...options,
      noHeaders: headersSent,
      now: options.now ?? Date.now(),
    });
    headersSent = true;
    return table;
  };
}
