// The fleethub command line as a user runs it: a real process of bin/fleethub.js, its exit code and
// both output streams, so tests see what a terminal would show.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLEETHUB_NODE_FLAGS } from './node-flags.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `fleethub ARGS…` in `cwd` and waits for it. */
export function runFleethub(args: string[], cwd: string): CliResult {
  const r = spawnSync(process.execPath, [...FLEETHUB_NODE_FLAGS, join(root, 'bin', 'fleethub.js'), ...args], {
    encoding: 'utf8',
    cwd,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
