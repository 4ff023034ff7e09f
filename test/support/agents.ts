// End-to-end helpers for agents: a `fleethub agent` process with its output captured, polling until a
// condition holds, and reading conditions off objects fetched as JSON.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl } from './tools.js';
import { FLEETHUB_NODE_FLAGS } from './node-flags.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface AgentProcess {
  child: ChildProcess;
  stateDir: string;
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export interface AgentProcessOptions {
  hubUrl: string;
  caFile: string;
  stateDir: string;
  /** A cluster agent's kubeconfig; without it the agent runs with --host. */
  kubeconfig?: string;
  leaseSeconds: number;
  /** How the join token reaches the agent; none to start on a stored certificate. */
  token?: { env: string } | { file: string } | { flag: string };
  /** More environment (PATH is always passed, nothing else of the test's environment). */
  env?: Record<string, string>;
}

export function spawnAgentProcess(options: AgentProcessOptions): AgentProcess {
  const args = [
    ...FLEETHUB_NODE_FLAGS,
    join(root, 'bin', 'fleethub.js'),
    'agent',
    '--hub',
    options.hubUrl,
    '--ca-file',
    options.caFile,
    '--state-dir',
    options.stateDir,
    ...(options.kubeconfig ? ['--kubeconfig', options.kubeconfig] : ['--host']),
    '--lease-duration-seconds',
    String(options.leaseSeconds),
    '--log-level',
    'debug',
  ];
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env };
  const token = options.token;
  if (token && 'env' in token) env['FLEETHUB_JOIN_TOKEN'] = token.env;
  if (token && 'file' in token) args.push('--join-token-file', token.file);
  if (token && 'flag' in token) args.push('--join-token', token.flag);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stateDir: options.stateDir,
    output: () => out,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls `probe` every 200 ms until it returns a value (not undefined); fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The condition of `type` in an object's status, if any. */
export function conditionOf(obj: Record<string, unknown>, type: string): Condition | undefined {
  const conditions = (obj['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === type);
}

/** The join token from the Secret `<join>-token` in `namespace`, read with kubectl as an operator would. */
export async function joinTokenOf(kubeconfig: string, namespace: string, join: string): Promise<string> {
  const encoded = await eventually(`the token Secret of join ${join}`, async () => {
    const r = await kubectl('v35', kubeconfig, [
      '-n',
      namespace,
      'get',
      'secret',
      `${join}-token`,
      '-o',
      'jsonpath={.data.token}',
    ]);
    return r.code === 0 && r.stdout !== '' ? r.stdout : undefined;
  });
  return Buffer.from(encoded, 'base64').toString('utf8');
}
