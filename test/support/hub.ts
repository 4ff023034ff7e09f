// Starts real hub processes (`bin/fleethub.js hub`) on free loopback ports for end-to-end tests, and
// gives tests the admin kubeconfig, an HTTPS client trusting the hub CA, and the process to kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../..', import.meta.url));

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
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fleethub-hub-'));
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
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
