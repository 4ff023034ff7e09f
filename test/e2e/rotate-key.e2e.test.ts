// `fleethub hub rotate-encryption-key`: a new primary key, every Secret re-encrypted under it at rest
// (objects and change log), and still readable after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startHubProcess } from '../support/hub.js';
import { kubectlOk } from '../support/tools.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function keyIdsAtRest(dbPath: string): Set<string> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT value FROM store_objects WHERE resource = 'secrets' UNION ALL SELECT value FROM store_log WHERE resource = 'secrets'",
      )
      .all() as { value: string }[];
    return new Set(rows.map((r) => r.value.split(':')[2] ?? 'plaintext'));
  } finally {
    db.close();
  }
}

test('rotating the encryption key re-encrypts every Secret and keeps it readable', async () => {
  let hub = await startHubProcess();
  await kubectlOk('v35', hub.kubeconfig, [
    'create',
    'secret',
    'generic',
    'db',
    '--from-literal=password=rotate-me',
  ]);
  await kubectlOk('v35', hub.kubeconfig, [
    'create',
    'secret',
    'generic',
    'api',
    '--from-literal=token=also-me',
  ]);
  assert.equal(await hub.stop(), 0);
  const dbPath = join(hub.dataDir, 'fleethub.db');
  const keyFile = join(hub.dataDir, 'encryption-keys.json');
  const before = JSON.parse(readFileSync(keyFile, 'utf8')) as { primary: string };
  assert.deepEqual([...keyIdsAtRest(dbPath)], [before.primary]);

  const rotated = spawnSync(
    process.execPath,
    [join(root, 'bin', 'fleethub.js'), 'hub', 'rotate-encryption-key', '--data-dir', hub.dataDir],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(rotated.status, 0, rotated.stderr);
  const after = JSON.parse(readFileSync(keyFile, 'utf8')) as { primary: string };
  assert.notEqual(after.primary, before.primary);
  assert.match(rotated.stderr, new RegExp(`new primary key ${after.primary}; re-encrypted 2 stored values`));
  assert.deepEqual([...keyIdsAtRest(dbPath)], [after.primary], 'objects and change log moved to the new key');

  hub = await startHubProcess({ dataDir: hub.dataDir });
  try {
    const value = await kubectlOk('v31', hub.kubeconfig, [
      'get',
      'secret',
      'db',
      '-o',
      'jsonpath={.data.password}',
    ]);
    assert.equal(Buffer.from(value, 'base64').toString(), 'rotate-me');
  } finally {
    await hub.stop();
  }
});
