// The node flags of the fleethub command (its shebang line), so hubs and simulators started by tests and
// benchmarks run as `fleethub` itself does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** `--max-semi-space-size=32` and the like, from `#!/usr/bin/env -S node <flags>` in bin/fleethub.js. */
export const FLEETHUB_NODE_FLAGS: readonly string[] = (() => {
  const shebang = readFileSync(join(root, 'bin', 'fleethub.js'), 'utf8').split('\n', 1)[0] ?? '';
  const words = shebang.replace(/^#!/, '').trim().split(/\s+/);
  const node = words.indexOf('node');
  return node < 0 ? [] : words.slice(node + 1);
})();
