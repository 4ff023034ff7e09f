import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../store/index.js';
import { ensureKeyring, secretsCodec } from './encryption.js';

const PLAINTEXT = 'correct-horse-battery-staple';

void test('Secrets stored through the real SQLite store never appear in plaintext in any database file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fh-at-rest-'));
  try {
    const codec = secretsCodec(ensureKeyring(dir), new Set(['secrets']));
    const url = `sqlite:${join(dir, 'fleethub.db')}`;
    let store = await openStore({ url, codec, compactionIntervalMs: 0 });
    const created = await store.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'default' },
      stringData: { password: PLAINTEXT },
    });
    await store.update('secrets', {
      ...created,
      data: { password: Buffer.from(PLAINTEXT).toString('base64') },
      stringData: { password: `${PLAINTEXT}-2` },
    });
    await store.close();

    const files = readdirSync(dir).filter((f) => f.startsWith('fleethub.db'));
    assert.ok(files.length > 0);
    for (const f of files) {
      const bytes = readFileSync(join(dir, f));
      assert.equal(bytes.indexOf(PLAINTEXT), -1, `plaintext in ${f}`);
      assert.equal(
        bytes.indexOf(Buffer.from(PLAINTEXT).toString('base64')),
        -1,
        `base64 of plaintext in ${f}`,
      );
    }

    store = await openStore({ url, codec, compactionIntervalMs: 0 });
    const back = await store.get('secrets', 'default', 'db');
    assert.deepEqual(back?.['stringData'], { password: `${PLAINTEXT}-2` });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
