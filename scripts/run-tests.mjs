// Runs every compiled test file (dist/**/*.test.js) with node's test runner, which prints the summary.
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (entry.endsWith('.test.js')) files.push(relative(root, path));
  }
})(join(root, 'dist'));
const selected = files.filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))).sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Ten minutes a file: the 1,000-cluster client-node run takes about two and a half alone and has been seen
// past five on a loaded 2-core machine; a hang is still caught.
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=600000', ...selected],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
