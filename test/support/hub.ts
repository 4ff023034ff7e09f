// Starts real hub processes (`bin/fleethub.js hub`) on free loopback ports for end-to-end tests, and
// gives tests the admin kubeconfig, HTTPS requests and watch streams trusting the hub CA, and the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { FLEETHUB_NODE_FLAGS } from './node-flags.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

const scratch: string[] = [];
let cleanupRegistered = false;

/** A temporary directory removed when the test process exits (hub data dirs, client homes). */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.on('exit', () => {
      for (const d of scratch) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

export interface HubProcess {
  url: string;
  dataDir: string;
  kubeconfig: string;
  token: string;
  caPem: string;
  child: ChildProcess;
  /** Everything the process printed (JSON logs on stdout, banner on stderr). */
  output(): string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no clean shutdown, no lease release. */
  kill(): Promise<void>;
}

export interface StartHubOptions {
  dataDir?: string;
  database?: string;
  extraArgs?: string[];
}

export async function startHubProcess(options: StartHubOptions = {}): Promise<HubProcess> {
  const dataDir = options.dataDir ?? scratchDir('fleethub-hub-');
  const args = [
    join(root, 'bin', 'fleethub.js'),
    'hub',
    '--data-dir',
    dataDir,
    '--listen',
    '127.0.0.1:0',
    '--log-level',
    'debug',
  ];
  if (options.database) args.push('--database', options.database);
  args.push(...(options.extraArgs ?? []));
  // FLEETHUB_HUB_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the hub in benchmarks.
  const nodeArgs = (process.env['FLEETHUB_HUB_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...FLEETHUB_NODE_FLAGS, ...nodeArgs, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const banner = await new Promise<{ url: string; kubeconfig: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub did not start within 30 s:\n${out}`)), 30_000);
    const check = () => {
      const url = /listening on (https:\/\/\S+)/.exec(out)?.[1];
      const kubeconfig = /admin kubeconfig: (\S+)/.exec(out)?.[1];
      if (url && kubeconfig) {
        clearTimeout(timer);
        resolve({ url, kubeconfig });
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code} before starting:\n${out}`));
    });
  });
  const config = parse(readFileSync(banner.kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  return {
    url: banner.url,
    dataDir,
    kubeconfig: banner.kubeconfig,
    token: config.users[0]!.user.token,
    caPem: Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(),
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

/** One HTTPS request to the hub with the admin token (or `token`). */
export function hubRequest(
  hub: Pick<HubProcess, 'url' | 'token' | 'caPem'>,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
  token: string | null = hub.token,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, hub.url);
    const req = request(
      url,
      {
        method,
        ca: hub.caPem,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One line of a watch stream. */
export interface WatchEventLine {
  type: string;
  object: {
    metadata?: { name?: string; namespace?: string; resourceVersion?: string };
    data?: Record<string, string>;
    [field: string]: unknown;
  };
}

/** A raw watch stream from the hub: every event line received so far, in order. */
export interface WatchStream {
  readonly events: WatchEventLine[];
  /**
   * Waits for an event at index `from` (default 0) or later that matches `match`, for at most
   * `timeoutMs` (default 5 s) from now; rejects listing what arrived instead.
   */
  next(
    match: (e: WatchEventLine) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<{ index: number; event: WatchEventLine }>;
  close(): void;
}

/** Opens `path` (a `?watch=true` URL) with the admin token; resolves once the hub answers 200. */
export function openWatch(
  hub: Pick<HubProcess, 'url' | 'token' | 'caPem'>,
  path: string,
): Promise<WatchStream> {
  const events: WatchEventLine[] = [];
  const wake: (() => void)[] = [];
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, hub.url),
      { ca: hub.caPem, headers: { Authorization: `Bearer ${hub.token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          req.destroy();
          reject(new Error(`watch ${path} answered ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line) events.push(JSON.parse(line) as WatchEventLine);
          }
          for (const w of wake.splice(0)) w();
        });
        res.on('error', () => undefined);
        resolve({
          events,
          async next(match, { from = 0, timeoutMs = 5_000 } = {}) {
            const deadline = Date.now() + timeoutMs;
            for (;;) {
              const index = events.findIndex((e, i) => i >= from && match(e));
              if (index >= 0) return { index, event: events[index]! };
              const left = deadline - Date.now();
              if (left <= 0)
                throw new Error(
                  `no matching watch event within ${timeoutMs} ms; saw ${JSON.stringify(events.slice(from))}`,
                );
              await new Promise<void>((done) => {
                const timer = setTimeout(done, left);
                wake.push(() => {
                  clearTimeout(timer);
                  done();
                });
              });
            }
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
