// fleethub's Kubernetes API client: plain node:http(s) over one keep-alive agent, JSON bodies, Status
// errors as KubeApiError, server-side apply, newline-delimited JSON watches and legacy discovery.
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import type { KubeObject } from '../store/types.js';
import { forEachConcurrently } from '../util/concurrency.js';
import { loadKubeconfig } from './kubeconfig.js';
import {
  KubeApiError,
  type ApplyOptions,
  type DeleteOptions,
  type KubeClientApi,
  type KubeConnection,
  type ListOptions,
  type ListResult,
  type PatchType,
  type ResourceRef,
  type WatchEnd,
  type WatchEventType,
  type WatchHandle,
  type WatchOptions,
  type WriteOptions,
} from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** Concurrent connections of the request pool; more requests queue in the agent. */
const MAX_SOCKETS = 16;
/** Bytes of a non-JSON error body quoted in a KubeApiError's message. */
const MAX_QUOTED_BODY = 500;

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** Methods sent again when a reused keep-alive connection turns out to be closed. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

const WATCH_EVENT_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Kubernetes' StatusReason for an HTTP code, for answers that carry no Status. */
const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

type Query = Record<string, string | number | boolean | undefined>;

/** Aggregated discovery (GA in Kubernetes 1.30): every group, version and resource in one answer. */
const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface RequestSpec {
  method: string;
  /** Below the server URL's own path prefix, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  /** Accept header, when not plain JSON (aggregated discovery). */
  accept?: string;
}

interface RawResponse {
  status: number;
  statusText: string;
  body: Buffer;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The KubeApiError of a non-2xx answer: from its Status body, else from the HTTP status. */
function apiError(status: number, statusText: string, body: Buffer, what: string): KubeApiError {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const fallbackReason = REASONS[status] ?? (statusText || 'Unknown');
  if (isRecord(parsed) && parsed['kind'] === 'Status')
    return statusError(parsed, status, fallbackReason, what);
  const quoted = text.trim().slice(0, MAX_QUOTED_BODY);
  return new KubeApiError(
    status,
    fallbackReason,
    `${what}: ${status} ${statusText}${quoted ? `: ${quoted}` : ''}`,
    isRecord(parsed) ? parsed : undefined,
  );
}

/** A KubeApiError from a Status object (an error answer's body, or a watch's ERROR event). */
function statusError(
  status: Record<string, unknown>,
  fallbackCode: number,
  fallbackReason: string,
  what: string,
): KubeApiError {
  const code = typeof status['code'] === 'number' && status['code'] > 0 ? status['code'] : fallbackCode;
  const reason =
    typeof status['reason'] === 'string' && status['reason']
      ? status['reason']
      : (REASONS[code] ?? fallbackReason);
  const message =
    typeof status['message'] === 'string' && status['message']
      ? status['message']
      : `${what}: ${code} ${reason}`;
  return new KubeApiError(code, reason, message, status);
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `/api/v1` or `/apis/<group>/<version>`. */
function groupVersionPath(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/** The path of a collection (no name) or of one object, optionally a subresource of it. */
function resourcePath(
  ref: ResourceRef,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  let path = groupVersionPath(ref.group, ref.version);
  if (ref.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.resource}`;
  if (name !== undefined) {
    if (!name) throw new Error(`a ${ref.kind} needs a name`);
    path += `/${encodeURIComponent(name)}`;
    if (subresource) path += `/${subresource}`;
  }
  return path;
}

/** The namespace an object is written to: its own when the kind is namespaced (required), else none. */
function objectNamespace(ref: ResourceRef, obj: KubeObject): string | undefined {
  if (!ref.namespaced) return undefined;
  const ns = obj.metadata.namespace;
  if (!ns)
    throw new Error(`${ref.kind} "${obj.metadata.name ?? ''}" is namespaced but has no metadata.namespace`);
  return ns;
}

function objectName(ref: ResourceRef, obj: KubeObject): string {
  const name = obj.metadata.name;
  if (!name) throw new Error(`a ${ref.kind} needs metadata.name`);
  return name;
}

function asObject(value: unknown, what: string): KubeObject {
  if (!isRecord(value) || !isRecord(value['metadata']))
    throw new Error(`${what}: the server answered something that is not a Kubernetes object`);
  return value as KubeObject;
}

/** A running watch, so that close() can end it. */
interface RunningWatch {
  stop(): void;
}

/** Group versions read at once by apiVersions(). */
const DISCOVERY_CONCURRENCY = 3;

export class KubeClient implements KubeClientApi {
  private readonly url: URL;
  /** The server URL's path without a trailing slash (`/clusters/<name>` behind the simulator's fleet). */
  private readonly prefix: string;
  private readonly secure: boolean;
  private readonly timeoutMs: number;
  /**
   * The connection pool, kept alive, for requests and watches alike. A watch holds its connection for
   * minutes, so each running watch raises the pool's limit by one: ordinary requests keep MAX_SOCKETS
   * connections however many watches run. A watch starts on an idle connection when there is one (no
   * new TLS handshake: a thousand agents starting drift watches at once would otherwise be a thousand
   * handshakes), and a watch the server ends cleanly hands its connection back.
   */
  private readonly agent: http.Agent;
  private readonly watches = new Set<RunningWatch>();
  private readonly seenSockets = new WeakSet<object>();
  private opened = 0;
  private closed = false;
  /** Discovery: each groupVersion's served resources (top-level ones only). */
  private readonly discovery = new Map<string, Promise<ResourceRef[]>>();

  constructor(private readonly connection: KubeConnection) {
    let url: URL;
    try {
      url = new URL(connection.server);
    } catch {
      throw new Error(`not a valid Kubernetes server URL: ${connection.server}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error(`a Kubernetes server URL is http(s), not ${url.protocol} (${connection.server})`);
    this.url = url;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.secure = url.protocol === 'https:';
    this.timeoutMs = connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // One TLS context for every connection of this client: building it (parsing the CA, the key) per
    // connection is most of a new connection's cost, and agents open watches all the time.
    const context: tls.SecureContextOptions = {};
    if (connection.caPem) context.ca = connection.caPem;
    if (connection.certPem) context.cert = connection.certPem;
    if (connection.keyPem) context.key = connection.keyPem;
    const tlsOptions: https.AgentOptions = {
      rejectUnauthorized: !connection.insecureSkipTlsVerify,
      ...(this.secure ? { secureContext: tls.createSecureContext(context) } : {}),
    };
    if (this.secure) {
      this.agent = new https.Agent({
        ...tlsOptions,
        keepAlive: true,
        maxSockets: MAX_SOCKETS,
        scheduling: 'lifo',
      });
    } else {
      this.agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, scheduling: 'lifo' });
    }
  }

  /** A client for one context (default: the current one) of the kubeconfig file at `path`. */
  static fromKubeconfig(path: string, context?: string): KubeClient {
    return new KubeClient(loadKubeconfig(path, context));
  }

  /** The server URL this client talks to. */
  get server(): string {
    return this.connection.server;
  }

  /** How many connections this client has opened so far (requests and watches); for metrics and tests. */
  get connectionsOpened(): number {
    return this.opened;
  }

  // ---- HTTP ----

  private headers(contentType?: string, length?: number): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {
      Accept: 'application/json',
      'User-Agent': 'fleethub-kube-client',
    };
    if (this.connection.token) headers['Authorization'] = `Bearer ${this.connection.token}`;
    if (contentType) headers['Content-Type'] = contentType;
    if (length !== undefined) headers['Content-Length'] = length;
    return headers;
  }

  private requestOptions(
    method: string,
    pathAndQuery: string,
    headers: http.OutgoingHttpHeaders,
    agent: http.Agent,
  ): http.RequestOptions {
    return {
      protocol: this.url.protocol,
      // URL keeps IPv6 literals bracketed; the socket wants the bare address.
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port || (this.secure ? 443 : 80),
      path: `${this.prefix}${pathAndQuery}`,
      method,
      headers,
      agent,
    };
  }

  private startRequest(options: http.RequestOptions, onResponse: (res: http.IncomingMessage) => void) {
    const req = this.secure ? https.request(options, onResponse) : http.request(options, onResponse);
    req.on('socket', (socket) => {
      if (!this.seenSockets.has(socket)) {
        this.seenSockets.add(socket);
        this.opened++;
      }
    });
    return req;
  }

  /** One non-watch request; resolves with any HTTP answer, rejects on network errors and timeouts. */
  private send(spec: RequestSpec, retried = false): Promise<RawResponse> {
    const what = `${spec.method} ${this.connection.server}${spec.path}`;
    if (this.closed) return Promise.reject(new Error(`${what}: the client is closed`));
    const body = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body), 'utf8');
    const headers = this.headers(
      body ? (spec.contentType ?? 'application/json') : undefined,
      body ? body.length : undefined,
    );
    if (spec.accept) headers['Accept'] = spec.accept;
    const options = this.requestOptions(
      spec.method,
      `${spec.path}${queryString(spec.query)}`,
      headers,
      this.agent,
    );
    return new Promise<RawResponse>((resolve, reject) => {
      let settled = false;
      const fail = (e: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      };
      const req = this.startRequest(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (e) =>
          fail(new Error(`${what}: the answer from ${this.server} broke off: ${e.message}`, { cause: e })),
        );
        res.on('close', () => {
          if (!res.complete) fail(new Error(`${what}: the answer from ${this.server} broke off`));
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          resolve({
            status,
            statusText: res.statusMessage ?? http.STATUS_CODES[status] ?? '',
            body: Buffer.concat(chunks),
          });
        });
      });
      const timer = setTimeout(() => {
        const e = new Error(`${what}: no answer from ${this.server} within ${this.timeoutMs} ms`);
        fail(e);
        req.destroy(e);
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed while idle fails at once on reuse; an idempotent
        // request is sent once more, on a fresh connection.
        if (
          !settled &&
          !retried &&
          req.reusedSocket &&
          (e.code === 'ECONNRESET' || e.code === 'EPIPE') &&
          IDEMPOTENT.has(spec.method)
        ) {
          settled = true;
          clearTimeout(timer);
          resolve(this.send(spec, true));
          return;
        }
        fail(
          new Error(`${what}: cannot reach the Kubernetes API server ${this.server}: ${e.message}`, {
            cause: e,
          }),
        );
      });
      req.end(body);
    });
  }

  /** A request whose 2xx answer is JSON; anything else throws KubeApiError. */
  private async call(spec: RequestSpec): Promise<unknown> {
    const res = await this.send(spec);
    const what = `${spec.method} ${this.connection.server}${spec.path}`;
    if (res.status < 200 || res.status > 299) throw apiError(res.status, res.statusText, res.body, what);
    const text = res.body.toString('utf8');
    if (!text) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`${what}: the answer is not JSON: ${text.slice(0, MAX_QUOTED_BODY)}`);
    }
  }

  private async callObject(spec: RequestSpec): Promise<KubeObject> {
    return asObject(await this.call(spec), `${spec.method} ${this.connection.server}${spec.path}`);
  }

  // ---- discovery ----

  private async fetchResources(group: string, version: string): Promise<ResourceRef[]> {
    let list: unknown;
    try {
      list = await this.call({ method: 'GET', path: groupVersionPath(group, version) });
    } catch (e) {
      // An unknown group version serves nothing (yet: its CRD may be on the way).
      if (e instanceof KubeApiError && e.code === 404) return [];
      throw e;
    }
    const resources =
      isRecord(list) && Array.isArray(list['resources']) ? (list['resources'] as unknown[]) : [];
    const refs: ResourceRef[] = [];
    for (const r of resources) {
      if (!isRecord(r)) continue;
      const name = r['name'];
      const kind = r['kind'];
      if (typeof name !== 'string' || typeof kind !== 'string' || name.includes('/')) continue;
      refs.push({ group, version, resource: name, kind, namespaced: r['namespaced'] === true });
    }
    return refs;
  }

  /** The cached resource list of a group version, fetched when absent or when `refresh`. */
  private resources(group: string, version: string, refresh = false): Promise<ResourceRef[]> {
    const key = group ? `${group}/${version}` : version;
    let cached = this.discovery.get(key);
    if (!cached || refresh) {
      const fetched = this.fetchResources(group, version);
      cached = fetched;
      this.discovery.set(key, fetched);
      // A failed fetch is not cached: the next call asks again.
      fetched.catch(() => {
        if (this.discovery.get(key) === fetched) this.discovery.delete(key);
      });
    }
    return cached;
  }

  async resourceFor(apiVersion: string, kind: string): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    if (!version) throw new Error(`not an apiVersion: "${apiVersion}"`);
    const key = group ? `${group}/${version}` : version;
    const wasCached = this.discovery.has(key);
    let found = (await this.resources(group, version)).find((r) => r.kind === kind);
    // A miss in an older list may be a kind served since (a CRD just created): ask the server once more.
    if (!found && wasCached)
      found = (await this.resources(group, version, true)).find((r) => r.kind === kind);
    if (!found)
      throw new KubeApiError(
        404,
        'NotFound',
        `no resource for ${apiVersion} ${kind} on ${this.connection.server}`,
      );
    return { ...found };
  }

  async apiVersions(): Promise<string[]> {
    return (await this.aggregatedApiVersions()) ?? this.perGroupVersionApiVersions();
  }

  /** The same list from the older discovery documents: a request per group version. */
  private async perGroupVersionApiVersions(): Promise<string[]> {
    const [core, groups] = await Promise.all([
      this.call({ method: 'GET', path: '/api' }),
      this.call({ method: 'GET', path: '/apis' }),
    ]);
    const groupVersions: { group: string; version: string }[] = [];
    if (isRecord(core) && Array.isArray(core['versions']))
      for (const v of core['versions'] as unknown[])
        if (typeof v === 'string') groupVersions.push({ group: '', version: v });
    if (isRecord(groups) && Array.isArray(groups['groups']))
      for (const g of groups['groups'] as unknown[]) {
        if (!isRecord(g) || typeof g['name'] !== 'string' || !Array.isArray(g['versions'])) continue;
        for (const v of g['versions'] as unknown[])
          if (isRecord(v) && typeof v['version'] === 'string')
            groupVersions.push({ group: g['name'], version: v['version'] });
      }
    const out = new Set<string>();
    // A few at a time: in parallel they would each open a connection (and a TLS handshake) of their own.
    await forEachConcurrently(groupVersions, DISCOVERY_CONCURRENCY, async ({ group, version }) => {
      const gv = group ? `${group}/${version}` : version;
      out.add(gv);
      let refs: ResourceRef[];
      try {
        refs = await this.resources(group, version, true);
      } catch (e) {
        // One unavailable group (an aggregated API that is down) does not hide the others, as in helm.
        if (e instanceof KubeApiError) return;
        throw e;
      }
      for (const r of refs) out.add(`${gv}/${r.kind}`);
    });
    return [...out].sort();
  }

  /**
   * Every group version and kind from aggregated discovery (two requests, as kubectl reads it), or
   * undefined when the server answers in the older form and each group version must be read alone.
   */
  private async aggregatedApiVersions(): Promise<string[] | undefined> {
    const accept = `${AGGREGATED_DISCOVERY};q=1.0, application/json;q=0.9`;
    const answers = await Promise.all([
      this.call({ method: 'GET', path: '/api', accept }),
      this.call({ method: 'GET', path: '/apis', accept }),
    ]);
    const out = new Set<string>();
    for (const answer of answers) {
      if (!isRecord(answer) || answer['kind'] !== 'APIGroupDiscoveryList' || !Array.isArray(answer['items']))
        return undefined;
      for (const group of answer['items'] as unknown[]) {
        if (!isRecord(group) || !Array.isArray(group['versions'])) continue;
        const name = isRecord(group['metadata']) ? group['metadata']['name'] : undefined;
        const groupName = typeof name === 'string' ? name : '';
        for (const v of group['versions'] as unknown[]) {
          if (!isRecord(v) || typeof v['version'] !== 'string') continue;
          const gv = groupName ? `${groupName}/${v['version']}` : v['version'];
          out.add(gv);
          for (const r of Array.isArray(v['resources']) ? (v['resources'] as unknown[]) : []) {
            const kind = isRecord(r) && isRecord(r['responseKind']) ? r['responseKind']['kind'] : undefined;
            if (typeof kind === 'string' && kind) out.add(`${gv}/${kind}`);
          }
        }
      }
    }
    return [...out].sort();
  }

  async serverVersion(): Promise<string> {
    const info = await this.call({ method: 'GET', path: '/version' });
    if (!isRecord(info) || typeof info['gitVersion'] !== 'string')
      throw new Error(`GET ${this.connection.server}/version: the answer has no gitVersion`);
    return info['gitVersion'];
  }

  // ---- objects ----

  async get(ref: ResourceRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.callObject({ method: 'GET', path: resourcePath(ref, namespace, name) });
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 404) return undefined;
      throw e;
    }
  }

  async list(ref: ResourceRef, options: ListOptions = {}): Promise<ListResult> {
    const path = resourcePath(ref, options.namespace);
    const answer = await this.call({
      method: 'GET',
      path,
      query: {
        labelSelector: options.labelSelector || undefined,
        fieldSelector: options.fieldSelector || undefined,
        limit: options.limit || undefined,
        continue: options.continue || undefined,
        resourceVersion: options.resourceVersion,
      },
    });
    if (!isRecord(answer) || !Array.isArray(answer['items']))
      throw new Error(`GET ${this.connection.server}${path}: the answer is not a list`);
    const metadata = isRecord(answer['metadata']) ? answer['metadata'] : {};
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    // Items of a list carry no apiVersion/kind on the wire; fill them in so each stands alone.
    const items = (answer['items'] as unknown[]).map((item) => {
      const obj = asObject(item, `GET ${this.connection.server}${path}`);
      return { ...obj, apiVersion: obj.apiVersion ?? apiVersion, kind: obj.kind ?? ref.kind };
    });
    const result: ListResult = {
      items,
      resourceVersion: typeof metadata['resourceVersion'] === 'string' ? metadata['resourceVersion'] : '',
    };
    if (typeof metadata['continue'] === 'string' && metadata['continue'])
      result.continue = metadata['continue'];
    return result;
  }

  async create(ref: ResourceRef, obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.callObject({
      method: 'POST',
      path: resourcePath(ref, objectNamespace(ref, obj)),
      query: { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
      body: obj,
    });
  }

  async update(
    ref: ResourceRef,
    obj: KubeObject,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    return this.callObject({
      method: 'PUT',
      path: resourcePath(ref, objectNamespace(ref, obj), objectName(ref, obj), options.subresource),
      query: { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
      body: obj,
    });
  }

  async patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    return this.callObject({
      method: 'PATCH',
      path: resourcePath(ref, namespace, name, options.subresource),
      query: { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
    });
  }

  async apply(ref: ResourceRef, obj: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    return this.callObject({
      method: 'PATCH',
      path: resourcePath(ref, objectNamespace(ref, obj), objectName(ref, obj)),
      query: {
        fieldManager: options.fieldManager,
        force: options.force ? 'true' : undefined,
        dryRun: options.dryRun ? 'All' : undefined,
      },
      // JSON is YAML: the apply body needs no YAML serialiser.
      body: obj,
      contentType: 'application/apply-patch+yaml',
    });
  }

  async delete(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<boolean> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.propagationPolicy) body['propagationPolicy'] = options.propagationPolicy;
    if (options.preconditions) body['preconditions'] = options.preconditions;
    if (options.dryRun) body['dryRun'] = ['All'];
    try {
      await this.call({ method: 'DELETE', path: resourcePath(ref, namespace, name), body });
      return true;
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 404) return false;
      throw e;
    }
  }

  // ---- watch ----

  watch(
    ref: ResourceRef,
    options: WatchOptions,
    onEvent: (type: WatchEventType, obj: KubeObject) => void,
  ): WatchHandle {
    const path = resourcePath(ref, options.namespace);
    const what = `watch ${this.connection.server}${path}`;
    if (this.closed)
      return {
        stop: () => undefined,
        done: Promise.resolve({ reason: 'error', error: new Error(`${what}: the client is closed`) }),
      };
    let resolveDone!: (end: WatchEnd) => void;
    const done = new Promise<WatchEnd>((resolve) => (resolveDone = resolve));
    let ended = false;
    const running: RunningWatch = { stop: () => finish({ reason: 'closed' }) };
    this.agent.maxSockets += 1;
    // Called only from events of `req`, declared below, or by stop(), after this method returned.
    // `clean`: the server ended the stream properly, so its connection may serve again.
    const finish = (end: WatchEnd, clean = false): void => {
      if (ended) return;
      ended = true;
      this.watches.delete(running);
      this.agent.maxSockets -= 1;
      if (!clean) req.destroy();
      resolveDone(end);
    };
    this.watches.add(running);

    const query = queryString({
      watch: '1',
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : undefined,
      timeoutSeconds: options.timeoutSeconds,
      labelSelector: options.labelSelector || undefined,
      fieldSelector: options.fieldSelector || undefined,
    });
    const requestOptions = this.requestOptions('GET', `${path}${query}`, this.headers(), this.agent);

    /** One line of the stream: an event, or an ERROR carrying a Status. */
    const onLine = (line: string): void => {
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        finish({
          reason: 'error',
          error: new Error(`${what}: not a watch event: ${line.slice(0, MAX_QUOTED_BODY)}`),
        });
        return;
      }
      if (!isRecord(event) || typeof event['type'] !== 'string' || !isRecord(event['object'])) {
        finish({
          reason: 'error',
          error: new Error(`${what}: not a watch event: ${line.slice(0, MAX_QUOTED_BODY)}`),
        });
        return;
      }
      const type = event['type'];
      const object = event['object'];
      if (type === 'ERROR') {
        const error = statusError(object, 500, 'InternalError', what);
        finish(error.code === 410 ? { reason: 'expired', error } : { reason: 'error', error });
        return;
      }
      if (!WATCH_EVENT_TYPES.has(type)) return; // a type this client does not know: skip it
      try {
        onEvent(type as WatchEventType, object as KubeObject);
      } catch (e) {
        finish({ reason: 'error', error: e instanceof Error ? e : new Error(String(e)) });
      }
    };

    const start = (retried: boolean): http.ClientRequest => {
      let answered = false;
      const request = this.startRequest(requestOptions, (res) => {
        answered = true;
        onResponse(res);
      });
      request.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed while idle fails at once on reuse: start once more.
        if (
          !ended &&
          !retried &&
          !answered &&
          request.reusedSocket &&
          (e.code === 'ECONNRESET' || e.code === 'EPIPE')
        ) {
          req = start(true);
          return;
        }
        finish({
          reason: 'error',
          error: new Error(`${what}: cannot reach the Kubernetes API server ${this.server}: ${e.message}`, {
            cause: e,
          }),
        });
      });
      request.end();
      return request;
    };

    const onResponse = (res: http.IncomingMessage): void => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', () => undefined);
        res.on('end', () => {
          const error = apiError(status, res.statusMessage ?? '', Buffer.concat(chunks), what);
          finish(error.code === 410 ? { reason: 'expired', error } : { reason: 'error', error }, true);
        });
        return;
      }
      // Decoding as UTF-8 keeps characters split across chunks whole; lines split across chunks wait here.
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk: string) => {
        pending += chunk;
        let newline: number;
        while (!ended && (newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line) onLine(line);
        }
      });
      res.on('end', () => {
        const last = pending.trim();
        pending = '';
        if (last && !ended) onLine(last);
        finish({ reason: 'closed' }, res.complete);
      });
      // A stream cut after it started (the server restarting, a proxy's idle timeout) is an ordinary end
      // of a watch, as in client-go: the caller watches again from its last version.
      res.on('error', () => finish({ reason: 'closed' }));
      res.on('close', () => finish({ reason: 'closed' }));
    };
    let req = start(false);
    return { stop: running.stop, done };
  }

  close(): void {
    this.closed = true;
    for (const w of [...this.watches]) w.stop();
    this.agent.destroy();
  }
}
