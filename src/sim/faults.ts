// Fault injection for one simulated cluster: latency, error responses, expired and dropped watches,
// and the cluster going away, so the hub's agents and controllers can be tested against bad days.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../util/errors.js';
import { writeError } from '../apiserver/respond.js';

/** What is wrong with a cluster right now; every field is optional and off by default. */
export interface FaultSpec {
  /** Added before every response, in milliseconds. */
  latencyMs?: number;
  /** Share of requests (0–1) answered with `errorCode` instead of being served. */
  errorRate?: number;
  /** 429 (with Retry-After: 1), 500 or 503; default 503. */
  errorCode?: 429 | 500 | 503;
  /** The next N watches that resume from a resourceVersion get 410 Expired (clients must relist). */
  expireWatches?: number;
  /** Open watch streams are cut after this many milliseconds. */
  dropWatchesAfterMs?: number;
  /** The cluster is gone: connections are reset without an answer until this is cleared. */
  down?: boolean;
}

const FIELDS: Record<keyof FaultSpec, 'number' | 'boolean'> = {
  latencyMs: 'number',
  errorRate: 'number',
  errorCode: 'number',
  expireWatches: 'number',
  dropWatchesAfterMs: 'number',
  down: 'boolean',
};

/** Checks a fault document (from a flag or the admin endpoint); throws an ApiError naming the bad field. */
export function parseFaultSpec(input: unknown): FaultSpec {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw errors.badRequest('a fault spec is a JSON object');
  const spec: FaultSpec = {};
  for (const [key, value] of Object.entries(input)) {
    const type = FIELDS[key as keyof FaultSpec];
    if (!type) throw errors.badRequest(`unknown fault "${key}"; known: ${Object.keys(FIELDS).join(', ')}`);
    if (value === null) continue;
    if (typeof value !== type) throw errors.badRequest(`fault ${key} must be a ${type}`);
    if (type === 'number' && (!Number.isFinite(value) || (value as number) < 0))
      throw errors.badRequest(`fault ${key} must be a non-negative number`);
    (spec as Record<string, unknown>)[key] = value;
  }
  if (spec.errorRate !== undefined && spec.errorRate > 1)
    throw errors.badRequest('fault errorRate must be ≤ 1');
  if (spec.errorCode !== undefined && ![429, 500, 503].includes(spec.errorCode))
    throw errors.badRequest('fault errorCode must be 429, 500 or 503');
  return spec;
}

function isWatch(url: URL, path: string): boolean {
  return (
    url.searchParams.get('watch') === 'true' ||
    url.searchParams.get('watch') === '1' ||
    /\/watch\//.test(path)
  );
}

/** Applies a cluster's faults around the real handler. */
export class FaultInjector {
  spec: FaultSpec = {};

  /** Replaces the whole spec (the admin endpoint's PUT). */
  set(spec: FaultSpec): void {
    this.spec = { ...spec };
  }

  /**
   * Runs before the request is served: true when the fault answered (or dropped) it. `serve` is the real
   * handler, called here so watch drops can be armed around it.
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    serve: () => Promise<void>,
  ): Promise<void> {
    const spec = this.spec;
    if (spec.down) {
      req.socket.destroy();
      return;
    }
    if (spec.latencyMs) await new Promise((resolve) => setTimeout(resolve, spec.latencyMs));
    if (spec.errorRate && Math.random() < spec.errorRate) {
      const code = spec.errorCode ?? 503;
      if (code === 429) res.setHeader('Retry-After', '1');
      const error =
        code === 429
          ? new ApiError(
              429,
              'TooManyRequests',
              'the simulated cluster is throttling requests (fault injection)',
            )
          : code === 500
            ? errors.internal('the simulated cluster failed the request (fault injection)')
            : errors.serviceUnavailable('the simulated cluster is unavailable (fault injection)');
      writeError(res, error);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://sim');
    if (isWatch(url, path)) {
      const rv = url.searchParams.get('resourceVersion');
      // Watch-list resumes (sendInitialEvents with the last resourceVersion) expire the same way.
      if (spec.expireWatches && rv && rv !== '0') {
        spec.expireWatches--;
        // What kube-apiserver does for a compacted resourceVersion: 200, one ERROR event, end of stream.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'ERROR',
            object: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: `too old resource version: ${rv} (fault injection)`,
              reason: 'Expired',
              code: 410,
            },
          }) + '\n',
        );
        return;
      }
      if (spec.dropWatchesAfterMs !== undefined) {
        const timer = setTimeout(() => res.destroy(), spec.dropWatchesAfterMs);
        res.once('close', () => clearTimeout(timer));
      }
    }
    await serve();
  }
}
