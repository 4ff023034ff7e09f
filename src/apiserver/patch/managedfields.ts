// metadata.managedFields bookkeeping: decoding and encoding entries like Kubernetes, and recording who owns
// what after a non-apply write (create, update, patch), including clients that rewrite managedFields.
import type { KubeObject, ManagedFieldsEntry } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { FieldSet, fieldPath, goJson } from './managedfields-set.js';
import { clone, compare, TypedValueError, type Comparison } from './managedfields-typed.js';
import { builtinTypeInfo, type KindTypeInfo } from './managedfields-types.js';

/** One manager's fields. Apply entries are one per manager; Update entries one per manager+version+subresource. */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Decoded managedFields: sets and times by manager identifier (see `managerIdentifier`). */
export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** A path prefix list, e.g. `[['status']]`: fields nobody can own through this endpoint. */
export type ResetFields = readonly (readonly string[])[];

/**
 * The fields a write may not own. Main resource of a kind with a status subresource: `status`. The
 * status subresource: everything but status (`spec`, `metadata`), as our store keeps only `.status`.
 */
export function resetFieldsFor(statusSubresource: boolean, subresource?: string): ResetFields {
  if (subresource === 'status') return [['spec'], ['metadata']];
  return statusSubresource ? [['status']] : [];
}

export function resetFieldSet(reset: ResetFields | undefined): FieldSet {
  return FieldSet.of(...(reset ?? []).map((p) => fieldPath(...p)));
}

/** Never owned by anyone: identity, server-set metadata, and managedFields itself. */
export const STRIPPED_FIELDS = FieldSet.of(
  fieldPath('apiVersion'),
  fieldPath('kind'),
  fieldPath('metadata'),
  fieldPath('metadata', 'name'),
  fieldPath('metadata', 'namespace'),
  fieldPath('metadata', 'creationTimestamp'),
  fieldPath('metadata', 'deletionTimestamp'),
  fieldPath('metadata', 'selfLink'),
  fieldPath('metadata', 'uid'),
  fieldPath('metadata', 'clusterName'),
  fieldPath('metadata', 'generation'),
  fieldPath('metadata', 'managedFields'),
  fieldPath('metadata', 'resourceVersion'),
);

export const MAX_UPDATE_MANAGERS = 10;
const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

// --- identifiers ---------------------------------------------------------------------------------------

/**
 * The key Kubernetes uses for a manager: the entry without fields and time, as Go's JSON (field order
 * manager, operation, apiVersion, subresource); Apply entries drop apiVersion so re-applies match.
 */
export function managerIdentifier(e: {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}): string {
  const id: Record<string, string> = {};
  if (e.manager) id['manager'] = e.manager;
  if (e.operation) id['operation'] = e.operation;
  if (e.apiVersion && e.operation !== 'Apply') id['apiVersion'] = e.apiVersion;
  if (e.subresource) id['subresource'] = e.subresource;
  // goJson sorts keys; Go keeps struct order, so build the string by hand.
  return `{${Object.entries(id)
    .map(([k, v]) => `"${k}":${goJson(v)}`)
    .join(',')}}`;
}

interface IdentifierFields {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

function parseIdentifier(id: string): IdentifierFields | undefined {
  try {
    const v = JSON.parse(id) as unknown;
    return v !== null && typeof v === 'object' ? (v as IdentifierFields) : undefined;
  } catch {
    return undefined;
  }
}

/** `"kubectl"`, `"kubectl-patch" using v1`, `"kubelet" with subresource "status" using v1`: as in conflicts. */
export function printManager(id: string): string {
  const e = parseIdentifier(id);
  if (!e) return JSON.stringify(id);
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s = `${s} using ${e.apiVersion ?? ''}`;
  return s;
}

export function updateManagerId(manager: string, apiVersion: string, subresource?: string): string {
  return managerIdentifier({ manager: manager || 'unknown', operation: 'Update', apiVersion, subresource });
}

export function applyManagerId(manager: string, subresource?: string): string {
  return managerIdentifier({ manager: manager || 'unknown', operation: 'Apply', subresource });
}

// --- time --------------------------------------------------------------------------------------------------

/** RFC 3339 in UTC with whole seconds, as metav1.Time serializes: `2026-11-29T16:22:34Z`. */
export function rfc3339Seconds(t: string | Date): string {
  const d = typeof t === 'string' ? new Date(t) : t;
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

// --- decode / encode ---------------------------------------------------------------------------------------

/** Decodes entries; throws an Error with Kubernetes' wording when an entry cannot be used. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new Error(`managed fields entry ${i} must be an object`);
    }
    const e = raw as ManagedFieldsEntry & Record<string, unknown>;
    if (e.operation !== 'Apply' && e.operation !== 'Update')
      throw new Error('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1)
      throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') {
      throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    }
    const id = managerIdentifier(e);
    const set =
      e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(e.fieldsV1);
    managed.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(id, typeof e.time === 'string' ? rfc3339Seconds(e.time) : undefined);
  });
  return managed;
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/** Entries in Kubernetes' order: Apply before Update, then oldest first, then manager, version, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const ident = parseIdentifier(id) ?? {};
    const entry: ManagedFieldsEntry = {};
    if (ident.manager) entry.manager = ident.manager;
    entry.operation = vs.applied ? 'Apply' : 'Update';
    entry.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = vs.set.toFieldsV1();
    if (ident.subresource) entry.subresource = ident.subresource;
    out.push(entry);
  }
  return sortManagedFields(out);
}

export function sortManagedFields(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
}

/** `[]` or `[{}]`: a client asking to clear managedFields. */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const only = entries[0] as unknown;
  return (
    entries.length === 1 &&
    only !== null &&
    typeof only === 'object' &&
    Object.values(only as object).every((v) => v === undefined)
  );
}

// --- validation --------------------------------------------------------------------------------------------

function isPrintable(ch: string): boolean {
  return !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch) && (ch === ' ' || !/\p{Zs}/u.test(ch));
}

function validateManagerName(name: string, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(name, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
      field,
    });
  }
  let pos = 0;
  for (const ch of name) {
    if (!isPrintable(ch)) {
      const cp = ch.codePointAt(0)!;
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(name)}: invalid character U+${hex} (at position ${pos})`,
        field,
      });
    }
    pos += Buffer.byteLength(ch, 'utf8');
  }
  return causes;
}

/**
 * ObjectMeta validation of `metadata.managedFields` (422 causes for the caller's `errors.invalid`):
 * operation Apply|Update, fieldsType FieldsV1, printable manager names, short subresources.
 */
export function validateManagedFields(entries: unknown, field = 'metadata.managedFields'): StatusCause[] {
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) {
    return [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be a list', field }];
  }
  const causes: StatusCause[] = [];
  entries.forEach((raw: unknown, i) => {
    const f = `${field}[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: must be an object', field: f });
      return;
    }
    const e = raw as Record<string, unknown>;
    if (e['operation'] === undefined || e['operation'] === '') {
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: `${f}.operation`,
      });
    } else if (e['operation'] !== 'Apply' && e['operation'] !== 'Update') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(e['operation'])}: supported values: "Apply", "Update"`,
        field: `${f}.operation`,
      });
    }
    if (e['fieldsType'] !== undefined && e['fieldsType'] !== '' && e['fieldsType'] !== 'FieldsV1') {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(e['fieldsType'])}: must be \`FieldsV1\``,
        field: `${f}.fieldsType`,
      });
    }
    if (typeof e['manager'] === 'string') causes.push(...validateManagerName(e['manager'], `${f}.manager`));
    const sub = e['subresource'];
    if (typeof sub === 'string' && sub.length > MAX_SUBRESOURCE_NAME_LENGTH) {
      causes.push({
        reason: 'FieldValueTooLong',
        message: `Too long: may not be more than ${MAX_SUBRESOURCE_NAME_LENGTH} bytes`,
        field: `${f}.subresource`,
      });
    }
    if (e['fieldsV1'] !== undefined && e['fieldsV1'] !== null) {
      try {
        FieldSet.fromFieldsV1(e['fieldsV1']);
      } catch (err) {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${(err as Error).message}`,
          field: `${f}.fieldsV1`,
        });
      }
    }
  });
  return causes;
}

/**
 * Checks the `fieldManager` query parameter (PatchOptions/CreateOptions/UpdateOptions). Apply requires it.
 * Wrap the causes as `errors.invalid('PatchOptions', 'meta.k8s.io', '', causes)`.
 */
export function validateFieldManagerParam(fieldManager: string | undefined, isApply: boolean): StatusCause[] {
  if (!fieldManager) {
    return isApply
      ? [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ]
      : [];
  }
  return validateManagerName(fieldManager, 'fieldManager');
}

/**
 * The manager of a non-apply write: the `fieldManager` parameter, else the User-Agent up to its first `/`
 * (printable characters only, at most 128 bytes): `kubectl/v1.35.2 (linux/amd64)` → `kubectl`.
 */
export function fieldManagerFor(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  for (const ch of prefix) {
    if (!isPrintable(ch)) continue;
    if (Buffer.byteLength(out + ch, 'utf8') > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

/** `apps/v1` → `apps`, `v1` → ``. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

// --- ownership after a write --------------------------------------------------------------------------------

export function withoutManagedFields(obj: KubeObject): KubeObject {
  const copy = clone(obj);
  if (copy.metadata) delete copy.metadata.managedFields;
  return copy;
}

/** The comparison restricted to fields this endpoint may own. */
export function filterComparison(c: Comparison, reset: FieldSet): Comparison {
  if (reset.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(reset),
    modified: c.modified.recursiveDifference(reset),
    removed: c.removed.recursiveDifference(reset),
  };
}

/**
 * Applies a change's effect on other managers: fields it changed or added leave their sets (`taken`), fields
 * it removed leave every set; managers left with nothing are dropped. `skip` is the writer itself.
 */
export function takeOwnership(managed: Managed, skip: string, taken: FieldSet, removed: FieldSet): void {
  for (const [id, vs] of [...managed.fields]) {
    if (id === skip) continue;
    const set = vs.set.difference(taken).difference(removed);
    if (set.isEmpty()) managed.fields.delete(id);
    else managed.fields.set(id, { ...vs, set });
  }
}

/** Merges the oldest Update entries into `ancient-changes` buckets beyond ten Update managers. */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort(
    (a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = updateManagerId('ancient-changes', vs.apiVersion);
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    managed.fields.set(bucket, {
      set: vs.set.union(managed.fields.get(bucket)!.set),
      apiVersion: vs.apiVersion,
      applied: false,
    });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}

/**
 * Records a non-apply change from `before` to `after` (both without managedFields) for manager `id`:
 * the manager gains what changed, others lose it. Mutates `managed`.
 */
export function trackUpdate(
  managed: Managed,
  before: unknown,
  after: unknown,
  id: string,
  apiVersion: string,
  now: string,
  typeInfo: KindTypeInfo,
  reset: FieldSet,
): void {
  const cmp = filterComparison(compare(before, after, typeInfo.root), reset);
  const changed = cmp.modified.union(cmp.added);
  // Like Kubernetes, the writer's own earlier entry is treated as any other owner first, then merged back.
  takeOwnership(managed, '', changed, cmp.removed);
  const own = changed.recursiveDifference(reset).difference(STRIPPED_FIELDS);
  if (!own.isEmpty()) {
    const previous = managed.fields.get(id);
    managed.fields.set(id, { set: previous ? own.union(previous.set) : own, apiVersion, applied: false });
    managed.times.set(id, now);
  }
  capUpdateManagers(managed);
}

export interface RecordUpdateOptions {
  /** The stored object before the write; undefined on create. */
  live: KubeObject | undefined;
  /** The object about to be stored (after patching and create-time defaults), as the client left it. */
  updated: KubeObject;
  /** From `fieldManagerFor(param, userAgent)`. */
  manager: string;
  /** The version the client wrote in, e.g. `apps/v1`. */
  apiVersion: string;
  now: string | Date;
  subresource?: string;
  typeInfo?: KindTypeInfo;
  resetFields?: ResetFields;
}

/**
 * The managedFields to store after a create, update or non-apply patch. A client-supplied non-empty list in
 * `updated` replaces the live one (undecodable → the live one is kept); `[]` clears it. An existing object
 * without managedFields stays untracked until the next apply, as in Kubernetes.
 */
export function recordUpdate(o: RecordUpdateOptions): ManagedFieldsEntry[] {
  const typeInfo = o.typeInfo ?? builtinTypeInfo(groupOf(o.apiVersion), o.updated.kind ?? '');
  const liveEntries = o.live?.metadata?.managedFields;
  let managed: Managed;
  if (o.subresource) {
    managed = decodeOrEmpty(liveEntries);
  } else {
    const given = o.updated.metadata?.managedFields;
    if (isResetManagedFields(given)) {
      managed = emptyManaged();
    } else {
      let decoded: Managed | undefined;
      try {
        decoded = decodeManagedFields(given);
      } catch {
        decoded = undefined;
      }
      managed = decoded && decoded.fields.size > 0 ? decoded : decodeOrEmpty(liveEntries);
    }
  }
  if (managed.fields.size === 0 && o.live) return [];

  const before = o.live ? withoutManagedFields(o.live) : clone(typeInfo.zero ?? { metadata: {} });
  try {
    trackUpdate(
      managed,
      before,
      withoutManagedFields(o.updated),
      updateManagerId(o.manager, o.apiVersion, o.subresource),
      o.apiVersion,
      rfc3339Seconds(o.now),
      typeInfo,
      resetFieldSet(o.resetFields),
    );
  } catch (e) {
    // An object we cannot type (duplicate keys in live data) keeps its previous managedFields.
    if (e instanceof TypedValueError) return liveEntries ? clone(liveEntries) : [];
    throw e;
  }
  return encodeManagedFields(managed);
}
