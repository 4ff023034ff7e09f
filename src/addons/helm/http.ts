// The one HTTP exchange chart fetching needs: a GET that hands back any status with its headers (the
// OCI token dance reads a 401's WWW-Authenticate), following redirects, under a deadline and a size cap.
import { request as plainRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as tlsRequest } from 'node:https';
import { redactUrl } from '../remote/errors.js';

export interface TransportOptions {
  /** PEM bundle replacing the system roots (registryCredentialsConfig.ca). */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  /** Whole exchange, redirects included. */
  timeoutMs: number;
  maxBytes: number;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Where the answer came from after redirects. */
  url: string;
}

/** A network-level failure (no HTTP answer): the caller words it for its own error type. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 5;

/**
 * GET `url` and return whatever status comes back. `Authorization` is sent only to the origin of
 * `url`: registries redirect blob downloads to storage that must not see the registry's token.
 */
export async function get(
  url: string,
  headers: Record<string, string>,
  options: TransportOptions,
): Promise<Answer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const origin = new URL(url).origin;
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = new URL(current);
    const sent = { 'user-agent': 'fleethub-helm', ...headers };
    if (target.origin !== origin) delete (sent as Record<string, string>)['authorization'];
    let res: IncomingMessage;
    try {
      res = await open(target, sent, options, deadline);
    } catch (e) {
      throw new TransportError(describeFailure(e, deadline), redactUrl(current));
    }
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && status !== 304 && location) {
      res.resume();
      if (hop >= MAX_REDIRECTS)
        throw new TransportError(`stopped after ${MAX_REDIRECTS} redirects`, redactUrl(current));
      current = new URL(location, current).toString();
      continue;
    }
    const body = await collect(res, options.maxBytes, current, deadline);
    return { status, headers: res.headers, body, url: current };
  }
}

function open(
  target: URL,
  headers: Record<string, string>,
  options: TransportOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    // No keep-alive agent: fetches are rare (once per chart version for the fleet).
    const common = { method: 'GET', headers, signal, agent: false as const };
    const req =
      target.protocol === 'https:'
        ? tlsRequest(target, {
            ...common,
            ...(options.ca ? { ca: options.ca } : {}),
            rejectUnauthorized: !options.insecureSkipTLSVerify,
          })
        : plainRequest(target, common);
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

function collect(res: IncomingMessage, maxBytes: number, url: string, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    res.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        res.destroy();
        reject(new TransportError(`the answer is larger than ${maxBytes} bytes`, redactUrl(url)));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', (e) => reject(new TransportError(describeFailure(e, signal), redactUrl(url))));
  });
}

function describeFailure(e: unknown, deadline: AbortSignal): string {
  if (deadline.aborted) return 'no complete answer in time';
  const err = e as NodeJS.ErrnoException;
  const message = err instanceof Error ? err.message : String(e);
  return err.code && !message.includes(err.code) ? `${message} (${err.code})` : message;
}
