// Pulling a Helm chart from an OCI registry (the distribution API's read side): the manifest of
// <path>/<chart>:<version>, its chart layer by digest, with the anonymous or basic bearer-token dance.
import { createHash } from 'node:crypto';
import { ChartFetchError } from './errors.js';
import { get, TransportError, type Answer, type TransportOptions } from './http.js';
import { findEntry, sortedVersions } from './repo-index.js';

export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
export const HELM_CHART_LAYER_MEDIA_TYPE = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';

export interface RegistryAuth {
  username: string;
  password: string;
}

export interface OciOptions extends TransportOptions {
  /** http:// instead of https:// (registryCredentialsConfig.plainHTTP). */
  plainHTTP?: boolean;
  auth?: RegistryAuth;
}

/** `oci://host[:port]/path` + chart + version → registry, repository and tag. */
export interface OciReference {
  registry: string;
  repository: string;
  tag: string;
}

/**
 * Where Sveltos (and `helm pull oci://…/<chart> --version v`) looks: the chart name appended to the
 * URL's path, the version as tag with `+` spelled `_` (OCI tags may not contain `+`).
 */
export function ociReference(repositoryURL: string, chartName: string, version: string): OciReference {
  let url: URL;
  try {
    url = new URL(repositoryURL);
  } catch {
    throw new ChartFetchError('InvalidChartRef', `${repositoryURL} is not a valid URL`, repositoryURL);
  }
  const path = [url.pathname, chartName]
    .join('/')
    .split('/')
    .filter((s) => s !== '')
    .join('/');
  if (url.host === '' || path === '')
    throw new ChartFetchError(
      'InvalidChartRef',
      `${repositoryURL}: an OCI chart reference needs a registry host and a repository path`,
      repositoryURL,
    );
  return { registry: url.host, repository: path, tag: version.replaceAll('+', '_') };
}

export function describeReference(ref: OciReference): string {
  return `oci://${ref.registry}/${ref.repository}:${ref.tag}`;
}

/** What a tag resolves to: the manifest's own digest and the chart layer's. */
export interface ResolvedChart {
  manifestDigest: string;
  layerDigest: string;
  /** The tag actually used (a constraint picks one from the tag list). */
  tag: string;
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** `Bearer realm="…",service="…",scope="…"` (quoted values may contain commas). */
export function parseChallenge(header: string): Challenge | undefined {
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[2]!.matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g))
    params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  return { scheme: m[1]!.toLowerCase(), params };
}

const basic = (auth: RegistryAuth): string =>
  'Basic ' + Buffer.from(`${auth.username}:${auth.password}`).toString('base64');

/** One per hub: bearer tokens are kept (per registry, repository and credentials) until they expire. */
export class OciClient {
  private readonly tokens = new Map<string, { header: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Resolves `ref` to digests; a tag that is not there but a semver constraint picks the newest match. */
  async resolve(ref: OciReference, options: OciOptions): Promise<ResolvedChart> {
    const manifestUrl = (tag: string): string => `${this.base(ref, options)}/manifests/${tag}`;
    const accept = { accept: OCI_MANIFEST_MEDIA_TYPE };
    let tag = ref.tag;
    let answer = await this.request(ref, manifestUrl(tag), accept, options);
    if (answer.status === 404) {
      tag = await this.pickTag(ref, options);
      answer = await this.request(ref, manifestUrl(tag), accept, options);
    }
    this.check(answer, ref, 'manifest');
    let manifest: { layers?: { mediaType?: string; digest?: string }[] };
    try {
      manifest = JSON.parse(answer.body.toString('utf8')) as typeof manifest;
    } catch {
      throw new ChartFetchError(
        'InvalidChart',
        `${describeReference(ref)}: the manifest is not JSON`,
        answer.url,
      );
    }
    const layer = manifest.layers?.find((l) => l.mediaType === HELM_CHART_LAYER_MEDIA_TYPE);
    if (!layer?.digest)
      throw new ChartFetchError(
        'InvalidChart',
        `${describeReference(ref)} is not a Helm chart: its manifest has no layer of type ${HELM_CHART_LAYER_MEDIA_TYPE}`,
        answer.url,
      );
    const manifestDigest = 'sha256:' + createHash('sha256').update(answer.body).digest('hex');
    return { manifestDigest, layerDigest: layer.digest, tag };
  }

  /** The blob `digest` of `ref`'s repository, checked against the digest. */
  async blob(ref: OciReference, digest: string, options: OciOptions): Promise<Buffer> {
    const url = `${this.base(ref, options)}/blobs/${digest}`;
    const answer = await this.request(ref, url, {}, options);
    this.check(answer, ref, 'chart layer');
    const [algorithm, expected] = digest.split(':');
    if (algorithm !== 'sha256' || !expected)
      throw new ChartFetchError(
        'InvalidChart',
        `${describeReference(ref)}: unsupported digest ${digest}`,
        url,
      );
    const actual = createHash('sha256').update(answer.body).digest('hex');
    if (actual !== expected)
      throw new ChartFetchError(
        'DigestMismatch',
        `${describeReference(ref)}: the chart layer has digest sha256:${actual}, the manifest says ${digest}`,
        url,
      );
    return answer.body;
  }

  private base(ref: OciReference, options: OciOptions): string {
    return `${options.plainHTTP ? 'http' : 'https'}://${ref.registry}/v2/${ref.repository}`;
  }

  /** The tag to use when ref.tag does not exist: the newest a constraint accepts, else a clear 404. */
  private async pickTag(ref: OciReference, options: OciOptions): Promise<string> {
    const answer = await this.request(ref, `${this.base(ref, options)}/tags/list`, {}, options);
    let tags: string[] = [];
    if (answer.status === 200) {
      try {
        const parsed = JSON.parse(answer.body.toString('utf8')) as { tags?: unknown };
        if (Array.isArray(parsed.tags)) tags = parsed.tags.filter((t): t is string => typeof t === 'string');
      } catch {
        tags = [];
      }
    }
    const chart = ref.repository.split('/').pop() ?? ref.repository;
    if (tags.length === 0)
      throw new ChartFetchError(
        'ChartNotFound',
        `chart ${JSON.stringify(chart)} not found: ${describeReference(ref)} does not exist`,
        answer.url,
        404,
      );
    // The entry list is sorted the way an index's versions are; tags spell + as _.
    const entries = sortedVersions(
      tags.map((t) => ({ name: chart, version: t.replaceAll('_', '+'), urls: [] })),
    );
    const found = findEntry(
      { entries: new Map([[chart, entries]]) },
      chart,
      ref.tag.replaceAll('_', '+'),
      `oci://${ref.registry}/${ref.repository}`,
    );
    return found.version.replaceAll('+', '_');
  }

  private check(answer: Answer, ref: OciReference, what: string): void {
    if (answer.status >= 200 && answer.status < 300) return;
    const code = answer.status === 401 || answer.status === 403 ? 'Unauthorized' : 'DownloadFailed';
    throw new ChartFetchError(
      code,
      `${describeReference(ref)}: ${what}: HTTP ${answer.status}${code === 'Unauthorized' ? ' (the registry refused the credentials)' : ''}`,
      answer.url,
      answer.status,
    );
  }

  /** GET with the cached token; on a 401 answer the challenge (bearer token or basic) and retry once. */
  private async request(
    ref: OciReference,
    url: string,
    headers: Record<string, string>,
    options: OciOptions,
  ): Promise<Answer> {
    const key = `${ref.registry}/${ref.repository}|${options.auth ? createHash('sha256').update(basic(options.auth)).digest('hex') : ''}`;
    const cached = this.tokens.get(key);
    const withAuth = (h: string | undefined): Record<string, string> =>
      h ? { ...headers, authorization: h } : headers;
    let answer = await this.send(
      url,
      withAuth(cached && cached.expiresAt > this.now() ? cached.header : undefined),
      options,
      ref,
    );
    if (answer.status !== 401) return answer;
    const challenge = parseChallenge(String(answer.headers['www-authenticate'] ?? ''));
    let header: string | undefined;
    let lifetimeMs = 60_000;
    if (challenge?.scheme === 'bearer' && challenge.params['realm']) {
      const token = await this.token(ref, challenge, options);
      header = `Bearer ${token.token}`;
      lifetimeMs = token.lifetimeMs;
    } else if (options.auth) header = basic(options.auth);
    if (!header) return answer;
    // Keep a margin so a token never expires between our check and the registry's.
    this.tokens.set(key, { header, expiresAt: this.now() + Math.max(0, lifetimeMs - 10_000) });
    answer = await this.send(url, withAuth(header), options, ref);
    return answer;
  }

  private async token(
    ref: OciReference,
    challenge: Challenge,
    options: OciOptions,
  ): Promise<{ token: string; lifetimeMs: number }> {
    const realm = new URL(challenge.params['realm']!);
    if (challenge.params['service']) realm.searchParams.set('service', challenge.params['service']);
    realm.searchParams.set('scope', challenge.params['scope'] || `repository:${ref.repository}:pull`);
    const answer = await this.send(
      realm.toString(),
      options.auth ? { authorization: basic(options.auth) } : {},
      options,
      ref,
    );
    if (answer.status !== 200)
      throw new ChartFetchError(
        'Unauthorized',
        `${describeReference(ref)}: the token service ${realm.origin}${realm.pathname} answered HTTP ${answer.status}` +
          (options.auth ? ' (the registry refused the credentials)' : ' (the registry wants credentials)'),
        answer.url,
        answer.status,
      );
    let parsed: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(answer.body.toString('utf8')) as typeof parsed;
    } catch {
      parsed = {};
    }
    const token = typeof parsed.token === 'string' ? parsed.token : parsed.access_token;
    if (typeof token !== 'string' || token === '')
      throw new ChartFetchError(
        'Unauthorized',
        `${describeReference(ref)}: the token service sent no token`,
        answer.url,
      );
    const seconds = typeof parsed.expires_in === 'number' ? parsed.expires_in : 60;
    return { token, lifetimeMs: seconds * 1000 };
  }

  private async send(
    url: string,
    headers: Record<string, string>,
    options: OciOptions,
    ref: OciReference,
  ): Promise<Answer> {
    try {
      return await get(url, headers, options);
    } catch (e) {
      if (e instanceof TransportError)
        throw new ChartFetchError(
          'RepositoryUnavailable',
          `${describeReference(ref)}: ${e.url}: ${e.message}`,
          e.url,
        );
      throw e;
    }
  }
}
