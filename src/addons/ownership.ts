// One owner per object per cluster, decided on the hub from the ManifestWorks it already generated: a work
// holds exactly the objects its profile owns in that cluster, so the other works of a cluster are the index.
//
// Sveltos's rule (lib/deployer/conflicts.go), evaluated before delivery instead of at apply time: the lower
// tier wins; on a tie the current holder keeps the object (two claims racing in are settled by the older
// work). An object a profile wants but another holds is left out of its work and listed as an orphaning rule
// there, so the agent never deletes it when it changes hands — ownership moves without the object going away.
import { isJsonObject, type JsonObject } from '../apiserver/patch/json.js';
import { OWNER_KIND_ANNOTATION, OWNER_NAME_ANNOTATION, OWNER_TIER_ANNOTATION } from './content/stamp.js';

/**
 * Marks an object several profiles may deliver alike and none owns, such as the namespace a Helm release
 * is installed into: never a conflict, and never deleted when a profile lets it go.
 */
export const SHARED_ANNOTATION = 'fleethub.io/shared';

/** Sveltos's default tier, for profiles and policyRefs that name none. */
export const DEFAULT_TIER = 100;

/** group|kind|namespace|name: the identity of an object in one cluster (the version does not matter). */
export type ObjectKey = string;

/** An object as OCM's orphaning rules name it (group, resource, namespace, name). */
export interface ObjectIdentity {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespace: string;
  name: string;
}

export interface ProfileRef {
  kind: string;
  name: string;
  tier: number;
}

/** Another summary's work in the same cluster and the objects it delivers. */
export interface Holding {
  summary: string;
  /** The work's creation time (RFC 3339), to settle two claims that raced in. */
  since: string;
  objects: Map<ObjectKey, ProfileRef>;
}

/** An object this profile wants and may not deliver, and who has it. */
export interface Conflict {
  key: ObjectKey;
  object: ObjectIdentity;
  owner: ProfileRef;
}

export interface OwnershipInput {
  /** The summary deciding, its profile, and when its own work was created ('' when it has none yet). */
  self: { summary: string; since: string; profile: ProfileRef };
  desired: readonly JsonObject[];
  /** Objects the summary's stored work delivers now: on a tie these stay. */
  holding: ReadonlySet<ObjectKey>;
  others: readonly Holding[];
}

export interface OwnershipResult {
  owned: JsonObject[];
  conflicts: Conflict[];
}

const metadataOf = (obj: JsonObject): JsonObject => (isJsonObject(obj['metadata']) ? obj['metadata'] : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function identityOf(obj: JsonObject, resource?: string): ObjectIdentity {
  const apiVersion = text(obj['apiVersion']);
  const slash = apiVersion.indexOf('/');
  const kind = text(obj['kind']);
  const md = metadataOf(obj);
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind,
    resource: resource ?? guessResource(kind),
    namespace: text(md['namespace']),
    name: text(md['name']),
  };
}

export function keyOf(id: { group: string; kind: string; namespace: string; name: string }): ObjectKey {
  return `${id.group}|${id.kind}|${id.namespace}|${id.name}`;
}

export function objectKey(obj: JsonObject): ObjectKey {
  return keyOf(identityOf(obj));
}

/**
 * Kubernetes' UnsafeGuessKindToResource: the plural a kind's resource has unless its CRD says otherwise.
 * Only a fallback: the holder's work status, which the agent fills from discovery, names the real one.
 */
export function guessResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === '') return '';
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

export function isShared(obj: JsonObject): boolean {
  const annotations = metadataOf(obj)['annotations'];
  return isJsonObject(annotations) && typeof annotations[SHARED_ANNOTATION] === 'string';
}

/** The profile a delivered object names as its owner (Sveltos's owner annotations). */
export function ownerOf(obj: JsonObject): ProfileRef {
  const annotations = metadataOf(obj)['annotations'];
  const a = isJsonObject(annotations) ? annotations : {};
  const tier = Number(text(a[OWNER_TIER_ANNOTATION]) || DEFAULT_TIER);
  return {
    kind: text(a[OWNER_KIND_ANNOTATION]),
    name: text(a[OWNER_NAME_ANNOTATION]),
    tier: Number.isFinite(tier) ? tier : DEFAULT_TIER,
  };
}

/** Whether `a` keeps an object both deliver: the lower tier, else the older claim, else the name. */
function beats(a: { tier: number; since: string; summary: string }, b: typeof a): boolean {
  if (a.tier !== b.tier) return a.tier < b.tier;
  if (a.since !== b.since) return a.since !== '' && (b.since === '' || a.since < b.since);
  return a.summary < b.summary;
}

/** Splits what a summary wants into what it may deliver and what another profile has. */
export function resolveOwnership(input: OwnershipInput): OwnershipResult {
  const { self } = input;
  const owned: JsonObject[] = [];
  const conflicts: Conflict[] = [];
  for (const obj of input.desired) {
    if (isShared(obj)) {
      owned.push(obj);
      continue;
    }
    const key = objectKey(obj);
    let winner: { tier: number; since: string; summary: string; profile: ProfileRef } | undefined;
    for (const other of input.others) {
      const profile = other.objects.get(key);
      if (!profile) continue;
      const claim = { tier: profile.tier, since: other.since, summary: other.summary, profile };
      if (!winner || beats(claim, winner)) winner = claim;
    }
    const mine = { tier: self.profile.tier, since: self.since, summary: self.summary };
    // Not holding it yet, a tie goes to the holder; holding it too (a race), the older claim keeps it.
    const keep =
      !winner ||
      mine.tier < winner.tier ||
      (mine.tier === winner.tier && input.holding.has(key) && beats(mine, winner));
    if (keep) owned.push(obj);
    else conflicts.push({ key, object: identityOf(obj), owner: winner!.profile });
  }
  return { owned, conflicts };
}

/** What a losing summary says: the object and the profile that has it. */
export function describeConflict(c: Conflict, self: ProfileRef): string {
  const o = c.object;
  const what = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  const why =
    c.owner.tier < self.tier
      ? `its tier ${c.owner.tier} is lower than this profile's ${self.tier}`
      : `it was there first and the tiers are equal (${self.tier})`;
  return `${what} is managed by ${c.owner.kind} ${c.owner.name}: ${why}`;
}
