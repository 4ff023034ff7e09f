// Starts `fleethub sim fleet` as a child process (so its memory is its own), waits for its start-up line and
// reads the child's resident memory from /proc; used by the client-node scale test and the sim benchmark.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLEETHUB_NODE_FLAGS } from './node-flags.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface SimFleetProcess {
  child: ChildProcess;
  url: string;
  /** What the process reported for starting every cluster (its own clock, from before the first cluster). */
  reportedStartMs: number;
  /** From spawn to the start-up line: node's own start, module loading and every cluster. */
  wallStartMs: number;
  kubeconfigDir: string;
  kubeconfig(name: string): string;
  /** SIGTERM, then wait for exit. */
  stop(): Promise<number | null>;
}

/** Resident set size of a process in bytes (Linux /proc), or NaN elsewhere. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) a process has used, in milliseconds (Linux /proc), or NaN elsewhere. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

export function simClusterName(i: number, prefix = 'sim-'): string {
  return `${prefix}${String(i).padStart(4, '0')}`;
}

export async function spawnSimFleet(
  clusters: number,
  kubeconfigDir: string,
  options: { extraArgs?: string[]; nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<SimFleetProcess> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...FLEETHUB_NODE_FLAGS,
      ...(options.nodeArgs ?? []),
      join(root, 'bin', 'fleethub.js'),
      'sim',
      'fleet',
      '--clusters',
      String(clusters),
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig-dir',
      kubeconfigDir,
      ...(options.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sim fleet printed no start-up line in time:\n${output}`)),
      options.timeoutMs ?? 120_000,
    );
    const onData = (d: Buffer): void => {
      output += d.toString();
      const m = /fleethub sim: (\d+) cluster\(s\) on (\S+) in (\d+) ms/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`sim fleet exited with ${code} before it served:\n${output}`));
    });
  });
  const wallStartMs = performance.now() - started;
  return {
    child,
    url: line[2]!,
    reportedStartMs: Number(line[3]),
    wallStartMs,
    kubeconfigDir,
    kubeconfig: (name) => join(kubeconfigDir, `${name}.kubeconfig`),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
