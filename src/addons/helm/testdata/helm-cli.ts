// The real helm binary for the Helm feature's tests: `helm create` + `helm package` build the charts the
// tests serve, and `helm template` prints what our render must equal.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../../../test/support/hub.js';
import { run, toolPath, type RunResult } from '../../../../test/support/tools.js';

export const helmBin = (): string => toolPath('v35', 'helm');

export async function helmOk(args: string[], env?: Record<string, string>): Promise<string> {
  const r: RunResult = await run(helmBin(), args, { ...(env ? { env } : {}), timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

export interface PackagedChart {
  dir: string;
  /** The chart directory (as helm create wrote it, plus extra templates). */
  chartDir: string;
  /** The packaged archive's path. */
  tgz: string;
  data: Buffer;
}

/**
 * `helm create <name>` (with `extraTemplates` added and `version` set), packaged into a fresh
 * directory. Returns the archive's bytes.
 */
export async function createChart(
  name: string,
  version = '0.1.0',
  extraTemplates: Record<string, string> = {},
): Promise<PackagedChart> {
  const dir = scratchDir('fleethub-helm-');
  const chartDir = join(dir, name);
  await helmOk(['create', chartDir]);
  const chartYaml = join(chartDir, 'Chart.yaml');
  writeFileSync(chartYaml, readFileSync(chartYaml, 'utf8').replace(/^version: .*$/m, `version: ${version}`));
  for (const [file, text] of Object.entries(extraTemplates))
    writeFileSync(join(chartDir, 'templates', file), text);
  const out = join(dir, 'out');
  mkdirSync(out);
  await helmOk(['package', chartDir, '-d', out]);
  const tgz = join(out, `${name}-${version}.tgz`);
  return { dir, chartDir, tgz, data: readFileSync(tgz) };
}

/** `helm repo index` over a directory of archives: the index.yaml text (relative URLs unless `url`). */
export async function repoIndex(dir: string, url?: string): Promise<string> {
  await helmOk(['repo', 'index', dir, ...(url ? ['--url', url] : [])]);
  return readFileSync(join(dir, 'index.yaml'), 'utf8');
}
