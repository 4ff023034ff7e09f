// The hub's cache of policyRefs[].remoteURL content: one instance per hub process, one entry per (URL,
// credentials), refreshed at most every `interval` with ETag / If-Modified-Since, concurrent reads coalesced.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../store/types.js';
import { DurationError, parseGoDuration } from './duration.js';
import { RemoteError, remoteMessage } from './errors.js';
import { describeLimit, gunzipCapped, httpGet, type HttpGetResult } from './http.js';

/** `policyRefs[].remoteURL` as written in a ClusterProfile / Profile (Sveltos v1beta1). */
export interface RemoteURLRef {
  url: string;
  /** Go duration; default 5m. */
  interval?: string;
  /** Resolved by the caller into `RemoteCredentials`; named here only in messages. */
  secretRef?: { name?: string; namespace?: string };
  /** Instantiate per cluster; the caller's business, listed for completeness. */
  template?: boolean;
  insecureSkipTLSVerify?: boolean;
  /** Only meaningful for oci:// registries, which are not supported yet. */
  plainHTTP?: boolean;
}

/** The keys Sveltos reads from the remoteURL secret, decoded. */
export interface RemoteCredentials {
  token?: string;
  username?: string;
  password?: string;
  /** A PEM CA bundle (the key is named caFile in Sveltos, but holds the PEM itself). */
  caFile?: string;
}

export interface RemoteContent {
  /** The URL as written in the spec. */
  url: string;
  /** The document(s), UTF-8, decompressed. */
  body: string;
  /** sha256 of `body` (UTF-8), hex: changes exactly when the content does. */
  digest: string;
  etag?: string;
  lastModified?: string;
  /** When the server last confirmed `body` (a 200 or a 304), ms since the epoch by the cache's clock. */
  fetchedAt: number;
  /** Set when the latest refresh failed and `body` is the last good copy. */
  lastError?: RemoteError;
}

export interface RemoteContentCacheOptions {
  /** The clock, ms since the epoch; injectable so tests can step over intervals. */
  now?: () => number;
  /** Whole exchange, redirects included. Default 30 s. */
  timeoutMs?: number;
  /** Cap on the body, on the wire and once decompressed. Default 8 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /**
   * After a failed fetch, retry no sooner than this (or `interval`, if shorter). Default 30 s: soon
   * enough that a fixed server shows up quickly, rare enough that 10,000 reconciles don't hammer it.
   */
  retryAfterFailureMs?: number;
  userAgent?: string;
}

export const DEFAULT_INTERVAL = '5m';
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

interface Entry {
  /** The last good answer, without `lastError`. */
  content?: RemoteContent;
  lastError?: RemoteError;
  /** Start of the latest attempt (success or not); the interval counts from here. */
  lastAttemptAt?: number;
  lastUsedAt: number;
  inflight?: Promise<void>;
}

interface Resolved {
  key: string;
  intervalMs: number;
  headers: Record<string, string>;
  ca?: string;
}

export class RemoteContentCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly retryAfterFailureMs: number;
  private readonly userAgent: string;

  constructor(options: RemoteContentCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.retryAfterFailureMs = options.retryAfterFailureMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'fleethub-addons';
  }

  /**
   * The content behind `ref.url`, fetched when this cache holds none or `interval` has passed since the
   * last attempt. A failed refresh returns the last good copy with `lastError` set; with no good copy,
   * or when the ref itself is invalid, it throws the `RemoteError`.
   */
  async get(ref: RemoteURLRef, credentials?: RemoteCredentials): Promise<RemoteContent> {
    const resolved = this.resolve(ref, credentials);
    let entry = this.entries.get(resolved.key);
    if (!entry) {
      entry = { lastUsedAt: this.now() };
      this.entries.set(resolved.key, entry);
    }
    entry.lastUsedAt = this.now();
    if (!entry.inflight && this.due(entry, resolved.intervalMs)) {
      const e = entry;
      e.inflight = this.refresh(e, ref, resolved).finally(() => {
        e.inflight = undefined;
      });
    }
    if (entry.inflight) await entry.inflight;
    return this.answer(entry);
  }

  /** What `get` would return now, without fetching; undefined when nothing was ever fetched. */
  peek(ref: RemoteURLRef, credentials?: RemoteCredentials): RemoteContent | undefined {
    const entry = this.entries.get(this.resolve(ref, credentials).key);
    if (!entry?.content) return undefined;
    return this.answer(entry);
  }

  /** The error of the latest attempt for this ref, if it failed. */
  lastError(ref: RemoteURLRef, credentials?: RemoteCredentials): RemoteError | undefined {
    return this.entries.get(this.resolve(ref, credentials).key)?.lastError;
  }

  /** Forget entries no `get` asked for in `unusedForMs` (profiles deleted, URLs changed). Returns the count. */
  prune(unusedForMs: number): number {
    const cutoff = this.now() - unusedForMs;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (!entry.inflight && entry.lastUsedAt < cutoff) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.entries.size;
  }

  private answer(entry: Entry): RemoteContent {
    if (!entry.content) {
      // Only reachable after a failed first attempt: refresh always sets one of the two.
      throw entry.lastError!;
    }
    return entry.lastError ? { ...entry.content, lastError: entry.lastError } : entry.content;
  }

  private due(entry: Entry, intervalMs: number): boolean {
    if (entry.lastAttemptAt === undefined) return true;
    const wait = entry.lastError ? Math.min(intervalMs, this.retryAfterFailureMs) : intervalMs;
    return this.now() - entry.lastAttemptAt >= wait;
  }

  /** Validates the ref and credentials and derives the cache key; throws RemoteInvalidRef / RemoteUnsupported. */
  private resolve(ref: RemoteURLRef, credentials: RemoteCredentials | undefined): Resolved {
    const url = ref.url;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RemoteError('RemoteInvalidRef', url, remoteMessage(url, 'not a valid URL'));
    }
    if (parsed.protocol === 'oci:')
      throw new RemoteError(
        'RemoteUnsupported',
        url,
        remoteMessage(url, 'OCI artifacts are not supported yet; serve the manifests over http(s)'),
      );
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new RemoteError(
        'RemoteInvalidRef',
        url,
        remoteMessage(url, `scheme ${parsed.protocol} is not one of http, https, oci`),
      );
    let intervalMs: number;
    try {
      intervalMs = parseGoDuration(ref.interval || DEFAULT_INTERVAL, 'interval');
    } catch (e) {
      const why = e instanceof DurationError ? e.message : String(e);
      throw new RemoteError('RemoteInvalidRef', url, remoteMessage(url, why));
    }
    if (intervalMs < 0)
      throw new RemoteError(
        'RemoteInvalidRef',
        url,
        remoteMessage(url, `interval ${ref.interval} is negative`),
      );

    const headers: Record<string, string> = {};
    const secret = ref.secretRef?.name
      ? `secret ${ref.secretRef.namespace ? `${ref.secretRef.namespace}/` : ''}${ref.secretRef.name}`
      : 'credentials';
    const badCredentials = (why: string) =>
      new RemoteError('RemoteInvalidRef', url, remoteMessage(url, `${secret}: ${why}`));
    const c = credentials ?? {};
    if (c.token && (c.username || c.password))
      throw badCredentials('holds both token and username/password; keep one');
    if (c.token) headers.authorization = `Bearer ${c.token}`;
    else if (c.username || c.password) {
      if (!c.username || c.password === undefined)
        throw badCredentials('username and password must be given together');
      headers.authorization = basic(c.username, c.password);
    } else if (parsed.username) {
      // user:pass@host in the URL itself, as Go's client would send it.
      headers.authorization = basic(decodeURIComponent(parsed.username), decodeURIComponent(parsed.password));
    }
    if (c.caFile !== undefined && !c.caFile.includes('-----BEGIN CERTIFICATE-----'))
      throw badCredentials('key caFile holds no PEM certificate');

    // Everything that changes what the server may answer is in the key: a Profile without the secret
    // must never be served what another profile fetched with it.
    const key = createHash('sha256')
      .update(
        JSON.stringify([
          url,
          headers.authorization ?? '',
          c.caFile ?? '',
          ref.insecureSkipTLSVerify === true,
        ]),
      )
      .digest('hex');
    const out: Resolved = { key, intervalMs, headers };
    if (c.caFile) out.ca = c.caFile;
    return out;
  }

  private async refresh(entry: Entry, ref: RemoteURLRef, resolved: Resolved): Promise<void> {
    const startedAt = this.now();
    entry.lastAttemptAt = startedAt;
    const headers = { ...resolved.headers };
    if (entry.content?.etag) headers['if-none-match'] = entry.content.etag;
    if (entry.content?.lastModified) headers['if-modified-since'] = entry.content.lastModified;
    try {
      const res = await httpGet({
        url: ref.url,
        headers,
        ...(resolved.ca ? { ca: resolved.ca } : {}),
        insecureSkipTLSVerify: ref.insecureSkipTLSVerify === true,
        timeoutMs: this.timeoutMs,
        maxBytes: this.maxBytes,
        maxRedirects: this.maxRedirects,
        userAgent: this.userAgent,
      });
      const fetchedAt = this.now();
      if (res.status === 304) {
        if (!entry.content)
          throw new RemoteError(
            'RemoteFetchFailed',
            ref.url,
            remoteMessage(ref.url, 'HTTP 304 Not Modified to an unconditional request', res.finalUrl),
            304,
          );
        entry.content = { ...entry.content, fetchedAt, ...validatorsOf(res, entry.content) };
      } else {
        const body = await this.text(ref.url, res);
        const content: RemoteContent = {
          url: ref.url,
          body,
          digest: createHash('sha256').update(body, 'utf8').digest('hex'),
          fetchedAt,
        };
        if (res.etag) content.etag = res.etag;
        if (res.lastModified) content.lastModified = res.lastModified;
        entry.content = content;
      }
      entry.lastError = undefined;
    } catch (e) {
      entry.lastError =
        e instanceof RemoteError
          ? e
          : new RemoteError('RemoteFetchFailed', ref.url, remoteMessage(ref.url, String(e)));
    }
  }

  /** Body bytes to text: gzip files unwrapped (by magic, whatever the headers say), archives refused. */
  private async text(url: string, res: HttpGetResult): Promise<string> {
    let body = res.body;
    // A .gz served as-is, or gzip inside gzip: peel until it is no longer gzip (twice at most).
    for (let i = 0; i < 2 && isGzip(body); i++) {
      body = await gunzipCapped(body, { url, maxBytes: this.maxBytes }, res.finalUrl);
    }
    if (isGzip(body))
      throw new RemoteError(
        'RemoteUnsupported',
        url,
        remoteMessage(url, 'gzip nested more than twice', res.finalUrl),
      );
    if (isTar(body))
      throw new RemoteError(
        'RemoteUnsupported',
        url,
        remoteMessage(
          url,
          'tar archives are not supported yet; serve plain or gzipped YAML/JSON',
          res.finalUrl,
        ),
      );
    if (body.length > this.maxBytes)
      throw new RemoteError(
        'RemoteTooLarge',
        url,
        remoteMessage(url, `body is larger than the limit of ${describeLimit(this.maxBytes)}`, res.finalUrl),
      );
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw new RemoteError(
        'RemoteUnsupported',
        url,
        remoteMessage(url, 'body is not UTF-8 text (YAML or JSON expected)', res.finalUrl),
      );
    }
  }
}

function validatorsOf(res: HttpGetResult, previous: RemoteContent): { etag?: string; lastModified?: string } {
  // A 304 may carry fresh validators; otherwise the previous ones still hold.
  const out: { etag?: string; lastModified?: string } = {};
  const etag = res.etag ?? previous.etag;
  const lastModified = res.lastModified ?? previous.lastModified;
  if (etag) out.etag = etag;
  if (lastModified) out.lastModified = lastModified;
  return out;
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

function isGzip(b: Buffer): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** POSIX/GNU tar: "ustar" at offset 257 of the first header block. */
function isTar(b: Buffer): boolean {
  return b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';
}

/**
 * The credentials in a remoteURL secret (`data` base64, `stringData` plain, as the API server would
 * merge them). Unknown keys are ignored, as in Sveltos.
 */
export function credentialsFromSecret(secret: KubeObject): RemoteCredentials {
  const out: RemoteCredentials = {};
  const data = (secret.data ?? {}) as Record<string, string>;
  const stringData = (secret.stringData ?? {}) as Record<string, string>;
  for (const key of ['token', 'username', 'password', 'caFile'] as const) {
    const plain = stringData[key];
    const encoded = data[key];
    if (plain !== undefined) out[key] = plain;
    else if (encoded !== undefined) out[key] = Buffer.from(encoded, 'base64').toString('utf8');
  }
  return out;
}
