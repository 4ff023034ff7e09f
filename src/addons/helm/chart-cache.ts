// The hub's chart store: each (repository, chart, version) is fetched once for the whole fleet —
// concurrent asks share one download — and kept by archive digest; index.yaml and OCI tags are re-read
// at most once per interval, so a re-published version is noticed without a fetch per reconcile.
import { createHash } from 'node:crypto';
import { readChartArchive } from '../../helm/archive.js';
import { buildChart, type Chart } from '../../helm/chart.js';
import { redactUrl } from '../remote/errors.js';
import { ChartFetchError } from './errors.js';
import { get, TransportError, type TransportOptions } from './http.js';
import { LruCache } from './lru.js';
import { OciClient, describeReference, ociReference, type RegistryAuth } from './oci.js';
import { archiveUrl, findEntry, indexUrl, parseIndex, type RepoIndex } from './repo-index.js';

/** What names a chart, with how to reach it (all resolved by the caller: Secrets read, templates done). */
export interface ChartRequest {
  repositoryURL: string;
  repositoryName?: string;
  chartName: string;
  chartVersion: string;
  auth?: RegistryAuth;
  /** PEM bundle (registryCredentialsConfig.ca, key ca.crt). */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  plainHTTP?: boolean;
}

export interface FetchedChart {
  chart: Chart;
  /** `sha256:<hex>` of the archive (for OCI: the chart layer's digest). */
  digest: string;
  /** The version fetched (a constraint resolves to one). */
  version: string;
  /** Where the archive came from (passwords masked). */
  url: string;
}

export interface ChartCacheOptions {
  /** How long an index.yaml (or an OCI tag's resolution) is trusted before it is read again. Default 5 min. */
  indexTtlMs?: number;
  /** Per exchange. Default 60 s. */
  timeoutMs?: number;
  /** Cap on an archive. Default 20 MiB (helm refuses charts above 100 MiB unpacked anyway). */
  maxChartBytes?: number;
  /** Cap on an index.yaml; public indexes reach tens of MiB. Default 64 MiB. */
  maxIndexBytes?: number;
  /** Charts kept in memory (least recently used go first). Default 64. */
  maxCharts?: number;
  now?: () => number;
}

interface Timed<T> {
  value?: T;
  at: number;
  inflight?: Promise<T>;
}

/** Counters for tests and metrics. */
export interface ChartCacheStats {
  indexFetches: number;
  archiveFetches: number;
  manifestFetches: number;
  charts: number;
}

export class ChartCache {
  private readonly ttlMs: number;
  private readonly timeoutMs: number;
  private readonly maxChartBytes: number;
  private readonly maxIndexBytes: number;
  private readonly now: () => number;
  private readonly oci: OciClient;
  private readonly indexes = new Map<string, Timed<RepoIndex>>();
  private readonly ociTags = new Map<string, Timed<{ layerDigest: string; tag: string }>>();
  /** Archives without an index digest are known by URL until downloaded. */
  private readonly digestByUrl = new Map<string, string>();
  private readonly charts: LruCache<Chart>;
  private readonly downloads = new Map<string, Promise<{ chart: Chart; digest: string }>>();
  private readonly counters = { indexFetches: 0, archiveFetches: 0, manifestFetches: 0 };

  constructor(options: ChartCacheOptions = {}) {
    this.ttlMs = options.indexTtlMs ?? 5 * 60_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxChartBytes = options.maxChartBytes ?? 20 * 1024 * 1024;
    this.maxIndexBytes = options.maxIndexBytes ?? 64 * 1024 * 1024;
    this.charts = new LruCache(options.maxCharts ?? 64);
    this.now = options.now ?? Date.now;
    this.oci = new OciClient(this.now);
  }

  get stats(): ChartCacheStats {
    return { ...this.counters, charts: this.charts.stats.size };
  }

  /** The chart `req` names, from memory when this digest was fetched before. */
  async get(req: ChartRequest): Promise<FetchedChart> {
    let scheme: string;
    try {
      scheme = new URL(req.repositoryURL).protocol;
    } catch {
      throw new ChartFetchError(
        'InvalidChartRef',
        `repositoryURL ${JSON.stringify(req.repositoryURL)} is not a URL`,
        req.repositoryURL,
      );
    }
    if (scheme === 'oci:') return this.fromRegistry(req);
    if (scheme === 'http:' || scheme === 'https:') return this.fromRepository(req);
    throw new ChartFetchError(
      'InvalidChartRef',
      `repositoryURL ${req.repositoryURL}: ${scheme}// sources (Flux GitRepository, OCIRepository, Bucket) are not supported; use an http(s) chart repository or oci://`,
      req.repositoryURL,
    );
  }

  private transport(req: ChartRequest, maxBytes: number): TransportOptions {
    return {
      timeoutMs: this.timeoutMs,
      maxBytes,
      ...(req.ca ? { ca: req.ca } : {}),
      ...(req.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
    };
  }

  private async fromRepository(req: ChartRequest): Promise<FetchedChart> {
    const repo = req.repositoryURL;
    const chartName = httpChartName(req);
    const index = await this.index(req);
    const entry = findEntry(index, chartName, req.chartVersion, redactUrl(repo));
    const url = archiveUrl(entry, repo);
    const promised = entry.digest ? `sha256:${entry.digest.replace(/^sha256:/, '')}` : undefined;
    const known = promised ?? this.digestByUrl.get(url);
    const hit = known ? this.charts.get(known) : undefined;
    if (hit) return { chart: hit, digest: known!, version: entry.version, url: redactUrl(url) };
    const what = `chart ${JSON.stringify(chartName)} version ${entry.version}`;
    const got = await this.download(promised ?? url, async () => {
      this.counters.archiveFetches++;
      const data = await this.fetchOk(url, this.headers(req, url), req, this.maxChartBytes, what);
      const digest = 'sha256:' + createHash('sha256').update(data).digest('hex');
      if (promised && promised !== digest)
        throw new ChartFetchError(
          'DigestMismatch',
          `${what} from ${redactUrl(url)}: the archive has digest ${digest}, the index of ${redactUrl(repo)} says ${promised}`,
          redactUrl(url),
        );
      this.digestByUrl.set(url, digest);
      return { chart: loadArchive(data, what, url), digest };
    });
    return { ...got, version: entry.version, url: redactUrl(url) };
  }

  private async fromRegistry(req: ChartRequest): Promise<FetchedChart> {
    const ref = ociReference(req.repositoryURL, ociChartName(req), req.chartVersion);
    const options = {
      ...this.transport(req, this.maxChartBytes),
      ...(req.plainHTTP ? { plainHTTP: true } : {}),
      ...(req.auth ? { auth: req.auth } : {}),
    };
    const key = `${describeReference(ref)}|${authKey(req)}`;
    const resolved = await this.timed(this.ociTags, key, async () => {
      this.counters.manifestFetches++;
      return this.oci.resolve(ref, options);
    });
    const digest = resolved.layerDigest;
    const where = `${describeReference({ ...ref, tag: resolved.tag })}@${digest}`;
    const version = resolved.tag.replaceAll('_', '+');
    const hit = this.charts.get(digest);
    if (hit) return { chart: hit, digest, version, url: where };
    const got = await this.download(digest, async () => {
      this.counters.archiveFetches++;
      const data = await this.oci.blob(ref, digest, options);
      return { chart: loadArchive(data, `chart ${describeReference(ref)}`, where), digest };
    });
    return { ...got, version, url: where };
  }

  private async index(req: ChartRequest): Promise<RepoIndex> {
    const url = indexUrl(req.repositoryURL);
    return this.timed(this.indexes, `${url}|${authKey(req)}`, async () => {
      this.counters.indexFetches++;
      const body = await this.fetchOk(url, this.headers(req, url), req, this.maxIndexBytes, 'index');
      return parseIndex(body.toString('utf8'), redactUrl(url));
    });
  }

  /**
   * A value re-read at most every ttl; concurrent readers share one read. When a re-read fails the
   * last good value is kept (a repository blip must not fail every cluster), the error thrown otherwise.
   */
  private async timed<T>(map: Map<string, Timed<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let slot = map.get(key);
    if (!slot) map.set(key, (slot = { at: -Infinity }));
    if (slot.inflight) return slot.inflight;
    if (slot.value !== undefined && this.now() - slot.at < this.ttlMs) return slot.value;
    const s = slot;
    s.inflight = load()
      .then((value) => {
        s.value = value;
        s.at = this.now();
        return value;
      })
      .catch((e: unknown) => {
        if (s.value !== undefined) {
          // Try again after a tenth of the interval rather than on every call.
          s.at = this.now() - this.ttlMs * 0.9;
          return s.value;
        }
        map.delete(key);
        throw e;
      })
      .finally(() => {
        s.inflight = undefined;
      });
    return s.inflight;
  }

  private download(
    key: string,
    load: () => Promise<{ chart: Chart; digest: string }>,
  ): Promise<{ chart: Chart; digest: string }> {
    let p = this.downloads.get(key);
    if (!p) {
      p = load()
        .then((got) => {
          this.charts.set(got.digest, got.chart);
          return got;
        })
        .finally(() => this.downloads.delete(key));
      this.downloads.set(key, p);
    }
    return p;
  }

  private headers(req: ChartRequest, url: string): Record<string, string> {
    // Chart repositories take basic auth; only the repository's own origin sees it (as helm without
    // --pass-credentials).
    if (!req.auth || new URL(url).origin !== new URL(req.repositoryURL).origin) return {};
    const token = Buffer.from(`${req.auth.username}:${req.auth.password}`).toString('base64');
    return { authorization: `Basic ${token}` };
  }

  private async fetchOk(
    url: string,
    headers: Record<string, string>,
    req: ChartRequest,
    maxBytes: number,
    what: string,
  ): Promise<Buffer> {
    const shown = redactUrl(url);
    let answer;
    try {
      answer = await get(url, headers, this.transport(req, maxBytes));
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      const code = what === 'index' ? 'RepositoryUnavailable' : 'DownloadFailed';
      throw new ChartFetchError(code, `${what === 'index' ? 'index' : what} ${shown}: ${e.message}`, shown);
    }
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const status = answer.status;
    const code =
      status === 401 || status === 403
        ? 'Unauthorized'
        : what === 'index'
          ? 'RepositoryUnavailable'
          : 'DownloadFailed';
    const hint = what === 'index' && status === 404 ? ' (is repositoryURL a Helm chart repository?)' : '';
    throw new ChartFetchError(
      code,
      `${what === 'index' ? 'index' : what} ${shown}: HTTP ${status}${hint}`,
      shown,
      status,
    );
  }
}

function authKey(req: ChartRequest): string {
  const material = `${req.auth?.username ?? ''}\0${req.auth?.password ?? ''}\0${req.ca ?? ''}\0${req.insecureSkipTLSVerify ? 1 : 0}\0${req.plainHTTP ? 1 : 0}`;
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

/** `kyverno/kyverno` with repositoryName kyverno is chart kyverno (Sveltos's `repo/chart` form). */
export function httpChartName(req: Pick<ChartRequest, 'chartName' | 'repositoryName'>): string {
  const name = req.chartName;
  if (req.repositoryName && name.startsWith(`${req.repositoryName}/`))
    return name.slice(req.repositoryName.length + 1);
  return name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
}

/** For OCI the chart name is a path segment; a full `oci://…/chart` chart name is read as just `chart`. */
function ociChartName(req: ChartRequest): string {
  const name = req.chartName;
  if (!name.startsWith('oci://')) return name;
  return name.slice(name.lastIndexOf('/') + 1);
}

function loadArchive(data: Buffer, what: string, url: string): Chart {
  try {
    return buildChart(readChartArchive(data));
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
    throw new ChartFetchError(
      'InvalidChart',
      `${what} from ${redactUrl(url)} is not a loadable chart: ${e instanceof Error ? e.message : String(e)}${cause}`,
      redactUrl(url),
    );
  }
}
