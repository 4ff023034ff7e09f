// Bearer tokens: generation, hashing, and a TokenStore that keeps only hashes (as objects of an internal
// resource) and authenticates tokens, including ServiceAccount tokens bound to a live ServiceAccount.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KubeObject, Store } from '../store/types.js';
import { errors, isApiError } from '../util/errors.js';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from './user.js';

/** Storage identity of token records; cluster-scoped, name = token id. Never served by the API. */
export const TOKENS_RESOURCE = 'tokens.internal.fleethub.io';
export const TOKEN_API_VERSION = 'internal.fleethub.io/v1';
export const TOKEN_KIND = 'Token';
const SERVICE_ACCOUNTS_RESOURCE = 'serviceaccounts';
/** Kubernetes' extra key naming the credential a request used; audit logs and `auth whoami` show it. */
export const CREDENTIAL_ID_EXTRA = 'authentication.kubernetes.io/credential-id';

const TOKEN_RE = /^fh_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const MIN_SA_TOKEN_SECONDS = 600;
const MAX_SA_TOKEN_SECONDS = 2 ** 32;
const DEFAULT_SA_TOKEN_SECONDS = 3600;
/** How long the record of a used, revoked or expired join token is kept to explain a rejected retry. */
const JOIN_TOMBSTONE_MS = 7 * 24 * 60 * 60 * 1000;

/** The 401 message for a join token that was used, revoked or has expired (agents show it as is). */
export const JOIN_TOKEN_REJECTED_MESSAGE =
  'join token is invalid, expired or already used: create a new FleetClusterJoin/FleetHostJoin and use its token';

/**
 * Extra key on the user of a used join token still inside its read grace: it may only read its own CSR
 * (the agent authorizer enforces that), e.g. to fetch the certificate its request was just given.
 */
export const JOIN_TOKEN_USED_EXTRA = 'fleethub.io/join-token-used';

/** Why a token stopped working before (or at) its expiry. */
export type RetiredReason = 'used' | 'revoked' | 'expired';

export interface BoundServiceAccount {
  namespace: string;
  name: string;
  uid: string;
}

/** `spec` of a token record. Holds the SHA-256 of the token, never the token. */
export interface TokenRecordSpec {
  hash: string;
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
  /** RFC 3339; absent = never expires. */
  expiresAt?: string;
  boundServiceAccount?: BoundServiceAccount;
  description?: string;
  /**
   * `join`: a one-time bootstrap token of a FleetClusterJoin/FleetHostJoin. Once retired (used, revoked,
   * expired) its record stays as a tombstone for a while, so a retry gets a clear 401 instead of a bare one.
   */
  purpose?: 'join';
  /** RFC 3339: set by `retire`; the token no longer authenticates (after `graceUntil`, when set). */
  retiredAt?: string;
  retiredReason?: RetiredReason;
  /** RFC 3339: a used join token authenticates until then, marked `JOIN_TOKEN_USED_EXTRA`. */
  graceUntil?: string;
}

export interface IssueTokenParams {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  expiresAt?: Date;
  boundServiceAccount?: BoundServiceAccount;
  description?: string;
  purpose?: 'join';
}

export interface IssuedToken {
  /** The plaintext: shown to its owner once, stored nowhere. */
  token: string;
  id: string;
  expiresAt?: string;
}

/**
 * A new token `fh_<16 hex id>_<43 base64url chars>`: the id (64 bits) names the record, the secret part
 * carries 256 random bits.
 */
export function generateToken(): { id: string; token: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `fh_${id}_${secret}` };
}

/** The record id of a well-formed token; undefined for anything else. */
export function tokenId(token: string): string | undefined {
  return TOKEN_RE.exec(token)?.[1];
}

/** `sha256:<hex>`. A plain hash suffices: tokens carry 256 random bits, so there is nothing to brute-force. */
export function hashToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface TokenStoreOptions {
  /** How long an authentication result is reused (also for revocations seen by other replicas); default 10 s. */
  cacheTtlMs?: number;
  /** Bound on cached results; oldest go first. Default 10000. */
  cacheMaxEntries?: number;
  /** For tests: current time in ms. */
  now?: () => number;
}

interface CacheEntry {
  user: UserInfo | undefined;
  /** Set for a retired or expired join token: the 401 message to give. */
  rejected?: string;
  until: number;
}

export class TokenStore {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly ttl: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    options: TokenStoreOptions = {},
  ) {
    this.ttl = options.cacheTtlMs ?? 10_000;
    this.maxEntries = options.cacheMaxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Stores the hash of a new token for `params` and returns the plaintext, once. */
  async issue(params: IssueTokenParams): Promise<IssuedToken> {
    const { id, token } = generateToken();
    const spec: TokenRecordSpec = {
      hash: hashToken(token),
      username: params.username,
      groups: params.groups ?? [],
    };
    if (params.uid !== undefined) spec.uid = params.uid;
    if (params.extra !== undefined) spec.extra = params.extra;
    if (params.expiresAt !== undefined) spec.expiresAt = params.expiresAt.toISOString();
    if (params.boundServiceAccount !== undefined) spec.boundServiceAccount = params.boundServiceAccount;
    if (params.description !== undefined) spec.description = params.description;
    if (params.purpose !== undefined) spec.purpose = params.purpose;
    const record: KubeObject = {
      apiVersion: TOKEN_API_VERSION,
      kind: TOKEN_KIND,
      metadata: { name: id },
      spec,
    };
    await this.store.create(TOKENS_RESOURCE, record);
    const issued: IssuedToken = { token, id };
    if (spec.expiresAt !== undefined) issued.expiresAt = spec.expiresAt;
    return issued;
  }

  /**
   * A TokenRequest: a token for the given (stored) ServiceAccount, valid `expirationSeconds` (default
   * 3600, at least 600), which stops working when the ServiceAccount is deleted or recreated.
   */
  async issueServiceAccountToken(
    serviceAccount: KubeObject,
    options: { expirationSeconds?: number } = {},
  ): Promise<IssuedToken & { expiresAt: string }> {
    const { namespace, name, uid } = serviceAccount.metadata;
    if (!namespace || !name || !uid)
      throw errors.internal('a ServiceAccount token needs a stored ServiceAccount');
    const seconds = options.expirationSeconds ?? DEFAULT_SA_TOKEN_SECONDS;
    if (!Number.isInteger(seconds) || seconds < MIN_SA_TOKEN_SECONDS || seconds > MAX_SA_TOKEN_SECONDS) {
      throw errors.invalid('TokenRequest', 'authentication.k8s.io', name, [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.expirationSeconds',
          message:
            seconds < MIN_SA_TOKEN_SECONDS
              ? `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`
              : `Invalid value: ${seconds}: may not specify a duration larger than 2^32 seconds`,
        },
      ]);
    }
    const { id, token } = generateToken();
    const expiresAt = new Date(this.now() + seconds * 1000).toISOString();
    const spec: TokenRecordSpec = {
      hash: hashToken(token),
      username: serviceAccountUsername(namespace, name),
      uid,
      groups: serviceAccountGroups(namespace),
      extra: { [CREDENTIAL_ID_EXTRA]: [`JTI=${id}`] },
      expiresAt,
      boundServiceAccount: { namespace, name, uid },
    };
    await this.store.create(TOKENS_RESOURCE, {
      apiVersion: TOKEN_API_VERSION,
      kind: TOKEN_KIND,
      metadata: { name: id },
      spec,
    });
    return { token, id, expiresAt };
  }

  /**
   * The user a token stands for; undefined when unknown, wrong, expired, revoked or its ServiceAccount is
   * gone. A join token that was used, revoked or expired (its tombstone is still there) throws a 401
   * ApiError saying so (`JOIN_TOKEN_REJECTED_MESSAGE`), so the agent can tell the operator what to do.
   */
  async authenticate(token: string): Promise<UserInfo | undefined> {
    const id = tokenId(token);
    if (id === undefined) return undefined;
    const hash = hashToken(token);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) {
      if (cached.rejected !== undefined) throw errors.unauthorized(cached.rejected);
      return cached.user;
    }

    const { user, expiresAtMs, rejected } = await this.lookup(id, hash, now);
    this.remember(hash, user, Math.min(now + this.ttl, expiresAtMs ?? Infinity), rejected);
    if (rejected !== undefined) throw errors.unauthorized(rejected);
    return user;
  }

  /**
   * Makes a token stop working now while keeping its record (for join tokens, a tombstone explaining later
   * 401s until it is purged). Idempotent; false when there is no record. Other replicas notice within the
   * cache TTL, so callers that need one-time use check their own state too.
   */
  async retire(id: string, reason: RetiredReason, options: { graceMs?: number } = {}): Promise<boolean> {
    this.cache.clear();
    for (let attempt = 0; ; attempt++) {
      const record = await this.store.get(TOKENS_RESOURCE, '', id);
      if (!record) return false;
      const spec = record['spec'] as TokenRecordSpec | undefined;
      if (!spec) return false;
      let nextSpec: TokenRecordSpec;
      if (spec.retiredAt !== undefined) {
        // Already retired; a revocation (join deleted, expired) still ends a used token's read grace.
        if (reason === 'used' || spec.graceUntil === undefined) return true;
        nextSpec = { ...spec };
        delete nextSpec.graceUntil;
      } else {
        nextSpec = { ...spec, retiredAt: new Date(this.now()).toISOString(), retiredReason: reason };
        if (options.graceMs) nextSpec.graceUntil = new Date(this.now() + options.graceMs).toISOString();
      }
      const next: KubeObject = { ...record, spec: nextSpec };
      try {
        await this.store.update(TOKENS_RESOURCE, next);
        this.cache.clear();
        return true;
      } catch (e) {
        if (isApiError(e) && e.code === 404) return false;
        if (!(isApiError(e) && e.code === 409) || attempt >= 4) throw e;
      }
    }
  }

  /** Deletes a token record; false when there was none. Other replicas notice within the cache TTL. */
  async revoke(id: string): Promise<boolean> {
    this.cache.clear();
    try {
      await this.store.delete(TOKENS_RESOURCE, '', id);
      return true;
    } catch (e) {
      if (isApiError(e) && e.code === 404) return false;
      throw e;
    }
  }

  /** Removes records of expired tokens and of tokens whose ServiceAccount is gone; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.now();
    const { items } = await this.store.list(TOKENS_RESOURCE);
    let removed = 0;
    for (const item of items) {
      const spec = item['spec'] as TokenRecordSpec | undefined;
      let dead = !spec || (spec.expiresAt !== undefined && Date.parse(spec.expiresAt) <= now);
      if (spec?.purpose === 'join') {
        // Tombstones explain rejected retries for a week after the token stopped working.
        const endedMs = Math.min(
          spec.expiresAt !== undefined ? Date.parse(spec.expiresAt) : Infinity,
          spec.retiredAt !== undefined ? Date.parse(spec.retiredAt) : Infinity,
        );
        dead = endedMs + JOIN_TOMBSTONE_MS <= now;
      }
      if (!dead && spec?.boundServiceAccount)
        dead = !(await this.serviceAccountLive(spec.boundServiceAccount));
      if (dead && item.metadata.name && (await this.revoke(item.metadata.name))) removed++;
    }
    return removed;
  }

  private async lookup(
    id: string,
    hash: string,
    now: number,
  ): Promise<{ user: UserInfo | undefined; expiresAtMs?: number; rejected?: string }> {
    const record = await this.store.get(TOKENS_RESOURCE, '', id);
    const spec = record?.['spec'] as TokenRecordSpec | undefined;
    if (!spec || typeof spec.hash !== 'string' || !hashesEqual(spec.hash, hash)) return { user: undefined };
    const expiresAtMs = spec.expiresAt !== undefined ? Date.parse(spec.expiresAt) : undefined;
    const expired = expiresAtMs !== undefined && !(expiresAtMs > now);
    const graceMs = spec.graceUntil !== undefined ? Date.parse(spec.graceUntil) : undefined;
    if (spec.purpose === 'join' && !expired && graceMs !== undefined && graceMs > now) {
      // Used, but inside the read grace: the agent may still fetch its certificate, nothing else.
      const user: UserInfo = {
        username: spec.username,
        groups: [...(spec.groups ?? [])],
        extra: { ...(spec.extra ?? {}), [JOIN_TOKEN_USED_EXTRA]: ['true'] },
      };
      return { user, expiresAtMs: graceMs };
    }
    if (spec.purpose === 'join' && (expired || spec.retiredAt !== undefined))
      return { user: undefined, rejected: JOIN_TOKEN_REJECTED_MESSAGE };
    if (spec.retiredAt !== undefined) return { user: undefined };
    if (expired) return { user: undefined };
    if (spec.boundServiceAccount && !(await this.serviceAccountLive(spec.boundServiceAccount))) {
      return { user: undefined };
    }
    const user: UserInfo = { username: spec.username, groups: [...(spec.groups ?? [])] };
    if (spec.uid !== undefined) user.uid = spec.uid;
    if (spec.extra !== undefined) user.extra = spec.extra;
    return expiresAtMs !== undefined ? { user, expiresAtMs } : { user };
  }

  private async serviceAccountLive(bound: BoundServiceAccount): Promise<boolean> {
    const sa = await this.store.get(SERVICE_ACCOUNTS_RESOURCE, bound.namespace, bound.name);
    return !!sa && sa.metadata.uid === bound.uid && !sa.metadata.deletionTimestamp;
  }

  private remember(hash: string, user: UserInfo | undefined, until: number, rejected?: string): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.delete(hash);
    this.cache.set(hash, rejected !== undefined ? { user, until, rejected } : { user, until });
  }
}
