// `fleethub template chart` against the real helm 4.1.4 binary, live: every render of the chart corpus
// run through both commands as processes; stdout, exit status and the error message must agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from '../support/hub.js';
import { runFleethub } from '../support/cli.js';
import { CHART_RENDERS, chartArgs } from '../gotemplate/corpus.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const home = scratchDir('fleethub-template-chart-');

function helm(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(join(root, '.tools', 'v35', 'helm'), ['template', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: home },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** helm's message without its log lines, `Error: ` and the --debug hint; ours without `fleethub: `. */
function helmMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !l.startsWith('level='))
    .join('\n')
    .replace(/^Error: /, '')
    .replace(/\n\nUse --debug flag to render out invalid YAML\n?$/, '')
    .trim();
}

for (const r of CHART_RENDERS) {
  test(`template chart ${r.name} prints what helm template prints`, () => {
    const args = chartArgs(r.args);
    const theirs = helm(args);
    const ours = runFleethub(['template', 'chart', ...args], home);
    assert.equal(ours.stdout, theirs.code === 0 ? theirs.stdout : '', ours.stderr);
    assert.equal(ours.code, theirs.code, ours.stderr);
    if (theirs.code !== 0)
      assert.equal(ours.stderr.replace(/^fleethub: /, '').trim(), helmMessage(theirs.stderr));
  });
}

test('template chart renders a packaged chart (.tgz) as helm renders it', () => {
  const pack = spawnSync(
    join(root, '.tools', 'v35', 'helm'),
    ['package', join(root, 'test', 'gotemplate', 'charts', 'webapp'), '-d', home],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home } },
  );
  assert.equal(pack.status, 0, pack.stderr);
  const tgz = join(home, 'webapp-1.2.0.tgz');
  const args = ['shop', tgz, '-n', 'team-a', '--set', 'backend.replicas=4', '--include-crds'];
  const theirs = helm(args);
  const ours = runFleethub(['template', 'chart', ...args], home);
  assert.equal(theirs.code, 0, theirs.stderr);
  assert.equal(ours.code, 0, ours.stderr);
  assert.equal(ours.stdout, theirs.stdout);
});
