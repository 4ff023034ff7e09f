// One conditional GET over node's http/https: redirects, a deadline for the whole exchange, a size cap
// on the wire and after decompression, Content-Encoding decoded. Knows nothing about caching.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import { RemoteError, remoteMessage } from './errors.js';

const gunzipAsync = promisify<Buffer, ZlibOptions, Buffer>(gunzip);
const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);
const brotliAsync = promisify<Buffer, ZlibOptions, Buffer>(brotliDecompress);

export interface HttpGetOptions {
  /** The URL as written in the spec; named in every error. */
  url: string;
  /** Conditional and authorization headers; Authorization is dropped when a redirect leaves the origin. */
  headers: Record<string, string>;
  /** PEM CA bundle that replaces the system roots for https. */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

export interface HttpGetResult {
  status: number;
  /** Where the answer came from after redirects. */
  finalUrl: string;
  /** The body with its Content-Encoding removed (empty for 304). */
  body: Buffer;
  etag?: string;
  lastModified?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// Codes node's TLS layer uses for a certificate it does not accept; shown as a TLS failure so the
// user looks at caFile / insecureSkipTLSVerify rather than at the network.
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);

/** The size cap in words for messages: `8388608 bytes (8 MiB)`. */
export function describeLimit(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${bytes} bytes (${mib} MiB)` : `${bytes} bytes`;
}

/** GET `options.url`, following redirects, within one deadline. 2xx and 304 resolve; the rest rejects. */
export async function httpGet(options: HttpGetOptions): Promise<HttpGetResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let current = options.url;
  try {
    const origin = new URL(options.url).origin;
    for (let hop = 0; ; hop++) {
      const target = new URL(current);
      const headers: OutgoingHttpHeaders = {
        ...options.headers,
        'user-agent': options.userAgent,
        accept: '*/*',
        'accept-encoding': 'gzip, deflate, br',
      };
      // Credentials go to the origin the user named, never to wherever it redirects (as Go's client).
      if (target.origin !== origin) delete headers.authorization;
      const res = await send(target, headers, options, controller.signal, current);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.resume();
        const location = res.headers.location;
        if (!location)
          throw fail(options, `HTTP ${status} redirect without a Location header`, current, status);
        if (hop >= options.maxRedirects)
          throw fail(options, `stopped after ${options.maxRedirects} redirects`, current, status);
        const next = new URL(location, current);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new RemoteError(
            'RemoteUnsupported',
            options.url,
            remoteMessage(options.url, `redirect to unsupported scheme ${next.protocol}`, current),
          );
        current = next.toString();
        continue;
      }
      if (status === 304) {
        res.resume();
        return { status, finalUrl: current, body: Buffer.alloc(0), ...validators(res) };
      }
      if (status < 200 || status > 299) {
        res.resume();
        throw fail(
          options,
          `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`,
          current,
          status,
        );
      }
      const raw = await readBody(res, options, current);
      const body = await decodeContentEncoding(res.headers['content-encoding'], raw, options, current);
      return { status, finalUrl: current, body, ...validators(res) };
    }
  } catch (e) {
    if (e instanceof RemoteError) throw e;
    if (controller.signal.aborted) throw timeout(options, current);
    throw networkError(options, current, e);
  } finally {
    clearTimeout(timer);
  }
}

function validators(res: IncomingMessage): { etag?: string; lastModified?: string } {
  const out: { etag?: string; lastModified?: string } = {};
  const etag = res.headers.etag;
  const lastModified = res.headers['last-modified'];
  if (etag) out.etag = etag;
  if (lastModified) out.lastModified = lastModified;
  return out;
}

function send(
  target: URL,
  headers: OutgoingHttpHeaders,
  options: HttpGetOptions,
  signal: AbortSignal,
  current: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // agent: false, because a fetch every few minutes gains nothing from pooled sockets, and pooled
    // sockets would outlive the servers of short-lived tests.
    const common = { method: 'GET', headers, signal, agent: false as const };
    let req;
    try {
      req =
        target.protocol === 'https:'
          ? httpsRequest(target, {
              ...common,
              ...(options.ca ? { ca: options.ca } : {}),
              rejectUnauthorized: !options.insecureSkipTLSVerify,
            })
          : httpRequest(target, common);
    } catch (e) {
      reject(networkError(options, current, e));
      return;
    }
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

function readBody(res: IncomingMessage, options: HttpGetOptions, current: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      res.destroy();
      reject(tooLarge(options, current, `Content-Length ${declared}`));
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    res.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > options.maxBytes) {
        res.destroy();
        reject(tooLarge(options, current));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

async function decodeContentEncoding(
  encoding: string | undefined,
  raw: Buffer,
  options: HttpGetOptions,
  current: string,
): Promise<Buffer> {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  let body = raw;
  // Codings are listed in the order applied, so they come off in reverse.
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip')
      body = await decompress(gunzipAsync, body, options, current);
    else if (coding === 'deflate') body = await decompress(inflateAsync, body, options, current);
    else if (coding === 'br') body = await decompress(brotliAsync, body, options, current);
    else
      throw new RemoteError(
        'RemoteUnsupported',
        options.url,
        remoteMessage(options.url, `unsupported Content-Encoding ${JSON.stringify(coding)}`, current),
      );
  }
  return body;
}

/** Inflate with the size cap applied to the output, so a small bomb cannot fill memory. */
export async function decompress(
  fn: (b: Buffer, o: ZlibOptions) => Promise<Buffer>,
  body: Buffer,
  options: Pick<HttpGetOptions, 'url' | 'maxBytes'>,
  current: string,
): Promise<Buffer> {
  try {
    return await fn(body, { maxOutputLength: options.maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(options, current, 'once decompressed');
    throw new RemoteError(
      'RemoteFetchFailed',
      options.url,
      remoteMessage(options.url, `cannot decompress the body: ${(e as Error).message}`, current),
    );
  }
}

export const gunzipCapped = (
  body: Buffer,
  options: Pick<HttpGetOptions, 'url' | 'maxBytes'>,
  current: string,
): Promise<Buffer> => decompress(gunzipAsync, body, options, current);

function fail(options: HttpGetOptions, what: string, current: string, status?: number): RemoteError {
  return new RemoteError('RemoteFetchFailed', options.url, remoteMessage(options.url, what, current), status);
}

function tooLarge(options: Pick<HttpGetOptions, 'url' | 'maxBytes'>, current: string, detail?: string) {
  const what = `body is larger than the limit of ${describeLimit(options.maxBytes)}${detail ? ` (${detail})` : ''}`;
  return new RemoteError('RemoteTooLarge', options.url, remoteMessage(options.url, what, current));
}

function timeout(options: HttpGetOptions, current: string): RemoteError {
  const secs = options.timeoutMs / 1000;
  return new RemoteError(
    'RemoteTimeout',
    options.url,
    remoteMessage(options.url, `no complete answer within ${secs}s`, current),
  );
}

function networkError(options: HttpGetOptions, current: string, e: unknown): RemoteError {
  const err = e as NodeJS.ErrnoException;
  const message = err instanceof Error ? err.message : String(e);
  let what = message;
  if (err.code && TLS_CODES.has(err.code)) what = `TLS: ${message} (${err.code})`;
  // node's word for a response cut off by the peer; say what it means.
  else if (message === 'aborted') what = 'connection closed before the body was complete';
  return fail(options, what, current);
}
