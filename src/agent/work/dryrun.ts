// What a dry run found for one manifest, said precisely: Create, Update (naming the fields that would
// change), No Action, or Conflict when another Sveltos profile owns the live object.
import {
  OWNER_KIND_ANNOTATION,
  OWNER_NAME_ANNOTATION,
  OWNER_TIER_ANNOTATION,
} from '../../addons/content/stamp.js';
import type { KubeObject } from '../../store/types.js';
import { stableStringify } from '../../util/json-text.js';
import { comparable, isMap } from './objects.js';
import type { DryRunAction } from './types.js';

/** One manifest's dry-run verdict: the action and a message saying why (and what). */
export interface DryRunResult {
  action: DryRunAction;
  message: string;
}

/** How deep changed paths are named (`spec.template.spec` rather than every leaf below it). */
const MAX_DEPTH = 3;
/** How many changed paths a message names before it says "and N more". */
const MAX_PATHS = 6;
/** A longer path (a long annotation key) is cut: the message is for people, and it must stay small. */
const MAX_PATH_CHARS = 80;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * The paths at which `after` differs from `before`, descending into maps at most MAX_DEPTH levels;
 * lists and scalars are leaves. Server-owned fields (status, resourceVersion…) are not compared.
 */
export function changedPaths(before: KubeObject, after: KubeObject): string[] {
  const out: string[] = [];
  walk(comparable(before), comparable(after), '', 0, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, depth: number, out: string[]): void {
  if (stableStringify(a ?? null) === stableStringify(b ?? null)) return;
  if (!isMap(a) || !isMap(b) || depth >= MAX_DEPTH) {
    out.push(path || '.');
    return;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) walk(a[k], b[k], join(path, k), depth + 1, out);
}

/** `spec.replicas`; keys with dots or slashes (annotation names) in brackets, as kubectl's JSONPath. */
function join(path: string, key: string): string {
  if (PLAIN_KEY.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The paths for a message: at most MAX_PATHS, each at most MAX_PATH_CHARS, then how many more. */
export function describePaths(paths: readonly string[]): string {
  const named = paths
    .slice(0, MAX_PATHS)
    .map((p) => (p.length > MAX_PATH_CHARS ? `${p.slice(0, MAX_PATH_CHARS - 1)}…` : p));
  const more = paths.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}

interface Owner {
  kind: string;
  name: string;
  tier: number | undefined;
}

function ownerOf(obj: KubeObject | undefined): Owner | undefined {
  const a = obj?.metadata.annotations ?? {};
  const kind = a[OWNER_KIND_ANNOTATION];
  const name = a[OWNER_NAME_ANNOTATION];
  if (!kind || !name) return undefined;
  const tier = Number.parseInt(a[OWNER_TIER_ANNOTATION] ?? '', 10);
  return { kind, name, tier: Number.isFinite(tier) ? tier : undefined };
}

function describeOwner(o: Owner): string {
  return `${o.kind} ${o.name}${o.tier !== undefined ? ` (tier ${o.tier})` : ''}`;
}

/**
 * Whether the live object belongs to another Sveltos profile than the manifest's (both carry the owner
 * annotations and name different owners), and whether the manifest's profile would take it over: as in
 * Sveltos, a strictly lower tier wins; on a tie the current owner keeps it.
 */
function ownership(
  manifest: KubeObject,
  live: KubeObject | undefined,
): { current: Owner; claiming: Owner; takesOver: boolean } | undefined {
  const claiming = ownerOf(manifest);
  const current = ownerOf(live);
  if (!claiming || !current) return undefined;
  if (claiming.kind === current.kind && claiming.name === current.name) return undefined;
  const takesOver = claiming.tier !== undefined && current.tier !== undefined && claiming.tier < current.tier;
  return { current, claiming, takesOver };
}

/**
 * The verdict for one manifest. `live` is the object before (undefined: missing), `result` the
 * server's dry-run answer, `wouldChange` whether the dry-run write differs from `live`.
 */
export function dryRunVerdict(
  manifest: KubeObject,
  live: KubeObject | undefined,
  result: KubeObject | undefined,
  wouldChange: boolean,
): DryRunResult {
  if (!live) return { action: 'Create', message: 'The object does not exist; applying would create it' };
  const owners = ownership(manifest, live);
  if (owners && !owners.takesOver)
    return {
      action: 'Conflict',
      message: `The object is deployed by ${describeOwner(owners.current)}; ${describeOwner(owners.claiming)} would not take it over (a lower tier wins, a tie keeps the current owner)`,
    };
  if (!wouldChange) return { action: 'NoAction', message: 'Applying would not change the object' };
  const paths = result ? changedPaths(live, result) : [];
  const what = paths.length > 0 ? `change ${describePaths(paths)}` : 'change the object';
  const message = owners
    ? `Applying would take the object over from ${describeOwner(owners.current)} and ${what}`
    : `Applying would ${what}`;
  return { action: 'Update', message };
}
