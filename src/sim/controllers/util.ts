// Small pure helpers the fake controllers share: object field access, time formats, label selectors,
// pod state predicates, kube's pod-template hash and name suffixes, int-or-percent and condition upkeep.
import { hostAddress, parseCidr } from '../../util/ipv4.js';
import { createHash } from 'node:crypto';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../apiserver/selectors.js';
import type { KubeObject, OwnerReference } from '../../store/types.js';
import { stableStringify } from '../../util/json-text.js';

export type Json = Record<string, unknown>;

/** `obj[key]` as an object, created in place when absent (for building statuses). */
export function child(obj: Json, key: string): Json {
  const v = obj[key];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json;
  const created: Json = {};
  obj[key] = created;
  return created;
}

/** A nested field read that tolerates anything missing. */
export function field(obj: unknown, ...path: string[]): unknown {
  let v: unknown = obj;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Json)[p];
  }
  return v;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Json[]) : [];
}

export function spec(obj: KubeObject): Json {
  const s = obj['spec'];
  return typeof s === 'object' && s !== null ? (s as Json) : {};
}

export function status(obj: KubeObject): Json {
  const s = obj['status'];
  return typeof s === 'object' && s !== null ? (s as Json) : {};
}

export const nsOf = (obj: KubeObject): string => obj.metadata.namespace ?? '';
export const nameOf = (obj: KubeObject): string => obj.metadata.name ?? '';

/** metav1.Time: whole seconds, `Z`. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

export type Matcher = (labels: Record<string, string> | undefined) => boolean;

const NOTHING: Matcher = () => false;

/** metav1.LabelSelectorAsSelector; an invalid selector matches nothing instead of failing a sync. */
export function selectorMatcher(selector: unknown): Matcher {
  if (typeof selector !== 'object' || selector === null) return NOTHING;
  try {
    return labelSelectorFromObject(selector as LabelSelectorObject);
  } catch {
    return NOTHING;
  }
}

/** `{}` or no requirements at all: a selector that would match everything. */
export function selectorEmpty(selector: unknown): boolean {
  if (typeof selector !== 'object' || selector === null) return true;
  const s = selector as LabelSelectorObject;
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

// ---------------------------------------------------------------------------------------------------
// Pods.

export function podPhase(pod: KubeObject): string {
  return str(status(pod)['phase']) ?? 'Pending';
}

export function isTerminal(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Counts toward a controller's replicas: not finished and not being deleted (kube's FilterActivePods). */
export function isActive(pod: KubeObject): boolean {
  return !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
}

export function podCondition(pod: KubeObject, type: string): Json | undefined {
  return arr(status(pod)['conditions']).find((c) => c['type'] === type);
}

export function isPodReady(pod: KubeObject): boolean {
  return podCondition(pod, 'Ready')?.['status'] === 'True';
}

/** Ready for at least `minReadySeconds` at `now` (podutil.IsPodAvailable). */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = parseTime(podCondition(pod, 'Ready')?.['lastTransitionTime']);
  return since !== undefined && since + minReadySeconds * 1000 <= now;
}

/** When a ready pod becomes available, for a re-check; undefined when it already is or never will be. */
export function availableAt(pod: KubeObject, minReadySeconds: number): number | undefined {
  if (minReadySeconds <= 0 || !isPodReady(pod)) return undefined;
  const since = parseTime(podCondition(pod, 'Ready')?.['lastTransitionTime']);
  return since === undefined ? undefined : since + minReadySeconds * 1000;
}

// ---------------------------------------------------------------------------------------------------
// Owners.

export function controllerRef(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function controlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return controllerRef(obj)?.uid === owner.metadata.uid;
}

/** The controller reference an owner's controller puts on what it creates. */
export function controllerRefTo(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: nameOf(owner),
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

// ---------------------------------------------------------------------------------------------------
// Names and hashes.

/** k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no confusable digits. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** The suffix the API server appends to a generateName. */
export function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHANUMS[Math.floor(Math.random() * ALPHANUMS.length)]!;
  return s;
}

/** rand.SafeEncodeString: each byte mapped into the alphabet, as kube renders hashes in names. */
export function safeEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length]!;
  return out;
}

/** FNV-1a, 32 bit: the hash kube's ComputeHash uses. */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  const bytes = Buffer.from(s, 'utf8');
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export const POD_TEMPLATE_HASH = 'pod-template-hash';

/** The template as the controller compares it: without the hash label it adds itself. */
export function templateWithoutHash(template: unknown): Json {
  const t = structuredClone((template ?? {}) as Json);
  const labels = field(t, 'metadata', 'labels');
  if (labels && typeof labels === 'object') {
    Reflect.deleteProperty(labels, POD_TEMPLATE_HASH);
    if (Object.keys(labels).length === 0) delete (child(t, 'metadata') as Json)['labels'];
  }
  return t;
}

/**
 * controller.ComputeHash's shape: FNV-32a over the template (here canonical JSON rather than Go's
 * spew dump) plus the collision count, rendered with SafeEncodeString — 8 to 10 stable characters.
 */
export function templateHash(template: unknown, collisionCount = 0): string {
  let text = stableStringify(templateWithoutHash(template));
  if (collisionCount > 0) text += String(collisionCount);
  return safeEncode(String(fnv32a(text)));
}

/** Short opaque ids for containerID and imageID, stable per input. */
export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

// ---------------------------------------------------------------------------------------------------
// Numbers.

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaled(value: unknown, total: number, roundUp: boolean, fallback: number): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') {
    const m = /^(\d+)%$/.exec(value);
    if (m) {
      const v = (Number(m[1]) * total) / 100;
      return roundUp ? Math.ceil(v) : Math.floor(v);
    }
    const n = Number(value);
    if (Number.isInteger(n)) return n;
  }
  return fallback;
}

// ---------------------------------------------------------------------------------------------------
// Conditions.

/**
 * Sets a condition in a status' conditions list in place; `lastTransitionTime` moves only when the
 * status flips and, when the kind has one, `lastUpdateTime` only when anything else changed. Returns
 * whether the list changed.
 */
export function upsertCondition(
  st: Json,
  cond: { type: string; status: string; reason?: string; message?: string },
  nowText: string,
  options: { updateTime?: boolean; probeTime?: boolean } = {},
): boolean {
  const list = arr(st['conditions']);
  const existing = list.find((c) => c['type'] === cond.type);
  if (
    existing &&
    existing['status'] === cond.status &&
    (existing['reason'] ?? '') === (cond.reason ?? '') &&
    (existing['message'] ?? '') === (cond.message ?? '')
  ) {
    return false;
  }
  const next: Json = { type: cond.type, status: cond.status };
  if (options.probeTime) next['lastProbeTime'] = null;
  if (options.updateTime) next['lastUpdateTime'] = nowText;
  next['lastTransitionTime'] =
    existing && existing['status'] === cond.status ? (existing['lastTransitionTime'] ?? nowText) : nowText;
  if (cond.reason !== undefined) next['reason'] = cond.reason;
  if (cond.message !== undefined) next['message'] = cond.message;
  if (existing) list[list.indexOf(existing)] = next;
  else list.push(next);
  st['conditions'] = list;
  return true;
}

export function conditionOf(obj: KubeObject, type: string): Json | undefined {
  return arr(status(obj)['conditions']).find((c) => c['type'] === type);
}

// ---------------------------------------------------------------------------------------------------
// Networking.

/** The `i`-th host address of an IPv4 CIDR (1 = the first after the network address). */
export function cidrHost(cidr: string, i: number): string | undefined {
  try {
    return hostAddress(parseCidr(cidr), i);
  } catch {
    return undefined;
  }
}
