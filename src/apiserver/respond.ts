// Writing responses: JSON bodies and Kubernetes Status objects, one place for headers.
import type { ServerResponse } from 'node:http';
import type { ApiError, Status } from '../util/errors.js';

export function writeJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

export function writeError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  const retry = error.details?.retryAfterSeconds;
  if (retry) headers['Retry-After'] = String(retry);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  writeJson(res, error.code, error.toStatus());
}

export function successStatus(details: Status['details'], code = 200): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
  if (details) status.details = details;
  return status;
}
