import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../store/types.js';
import {
  encryptionKeyFilePath,
  envelopeKeyId,
  ensureKeyring,
  loadKeyring,
  reencryptAll,
  rotateKey,
  secretsCodec,
  setPrimaryKey,
  type Keyring,
} from './encryption.js';
import { memoryStore } from './test-support.js';

const PLAINTEXT = 'hunter2-very-secret-password';
const secret = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default' },
  type: 'Opaque',
  data: { password: Buffer.from(PLAINTEXT).toString('base64') },
  stringData: { token: PLAINTEXT },
});

function withDir(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fh-enc-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function assertNoPlaintext(stored: string): void {
  assert.ok(!stored.includes(PLAINTEXT), 'plaintext visible');
  assert.ok(!stored.includes(Buffer.from(PLAINTEXT).toString('base64')), 'base64 of plaintext visible');
  assert.ok(!stored.includes('Secret'), 'even the kind is hidden');
}

void test(
  'first start creates a 0600 key file; the same keys load again',
  withDir((dir) => {
    const a = ensureKeyring(dir);
    assert.equal(statSync(encryptionKeyFilePath(dir)).mode & 0o777, 0o600);
    const b = ensureKeyring(dir);
    assert.equal(b.primaryKeyId, a.primaryKeyId);
    const env = a.encrypt('x', 'secrets');
    assert.equal(b.decrypt(env, 'secrets').toString(), 'x');
  }),
);

void test(
  'codec: secrets round-trip, stored form has no plaintext; other resources stay plain JSON',
  withDir(async (dir) => {
    const keyring = ensureKeyring(dir);
    const { store, stored } = await memoryStore(secretsCodec(keyring, new Set(['secrets'])));
    await store.create('secrets', secret('db'));
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { a: 'b' },
    });
    const atRest = (await stored('secrets', 'default', 'db')) ?? '';
    assert.match(atRest, new RegExp(`^fhenc:v1:${keyring.primaryKeyId}:`));
    assertNoPlaintext(atRest);
    const back = await store.get('secrets', 'default', 'db');
    assert.deepEqual(back?.['stringData'], { token: PLAINTEXT });
    assert.deepEqual(JSON.parse((await stored('configmaps', 'default', 'c')) ?? '')['data'], { a: 'b' });
    await store.close();

    // Two encryptions of the same object differ (fresh data key and IV each time).
    const codec = secretsCodec(keyring, new Set(['secrets']));
    assert.notEqual(codec.encode('secrets', secret('db')), codec.encode('secrets', secret('db')));
  }),
);

void test(
  'tampering, moving a value to another resource, or a foreign key fails with a clear 500',
  withDir((dir) => {
    const keyring = ensureKeyring(dir);
    const codec = secretsCodec(keyring, new Set(['secrets']));
    const env = codec.encode('secrets', secret('db'));
    const [head, payload] = [env.slice(0, env.lastIndexOf(':') + 1), env.slice(env.lastIndexOf(':') + 1)];
    const bytes = Buffer.from(payload, 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const tampered = head + bytes.toString('base64');
    assert.throws(
      () => codec.decode('secrets', tampered),
      (e: Error & { code?: number }) =>
        e.code === 500 && /failed authentication/.test(e.message) && !e.message.includes(PLAINTEXT),
    );
    assert.throws(() => codec.decode('configmaps', env), /failed authentication/);
    assert.throws(() => codec.decode('secrets', env.slice(0, 40)), /truncated|not a fleethub/);

    const otherDir = mkdtempSync(join(tmpdir(), 'fh-enc-'));
    try {
      const other = ensureKeyring(otherDir);
      assert.throws(() => other.decrypt(env, 'secrets'), /not in encryption-keys\.json/);
      // Same key id, different key material: authentication fails rather than returning garbage.
      const file = JSON.parse(readFileSync(encryptionKeyFilePath(otherDir), 'utf8'));
      file.keys[0].id = keyring.primaryKeyId;
      file.primary = keyring.primaryKeyId;
      writeFileSync(encryptionKeyFilePath(otherDir), JSON.stringify(file));
      assert.throws(() => loadKeyring(otherDir).decrypt(env, 'secrets'), /failed authentication/);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  }),
);

void test(
  'rotation: new writes use the new key, old values stay readable, re-encryption moves them',
  withDir(async (dir) => {
    const first = ensureKeyring(dir);
    const oldId = first.primaryKeyId;
    let keyring: Keyring = first;
    // The store's codec reads the current keyring through this indirection, like a restarted hub.
    const codec = secretsCodec(
      { encrypt: (p, c) => keyring.encrypt(p, c), decrypt: (e, c) => keyring.decrypt(e, c) },
      new Set(['secrets']),
    );
    const { store, stored } = await memoryStore(codec);
    await store.create('secrets', secret('a'));
    await store.create('secrets', secret('b'));

    const rotated = rotateKey(dir);
    keyring = rotated.keyring;
    assert.notEqual(rotated.keyId, oldId);
    assert.equal(keyring.primaryKeyId, rotated.keyId);
    assert.deepEqual(keyring.keyIds.sort(), [oldId, rotated.keyId].sort());

    assert.equal(envelopeKeyId((await stored('secrets', 'default', 'a')) ?? ''), oldId);
    assert.deepEqual((await store.get('secrets', 'default', 'a'))?.['stringData'], { token: PLAINTEXT });
    await store.create('secrets', secret('c'));
    assert.equal(envelopeKeyId((await stored('secrets', 'default', 'c')) ?? ''), rotated.keyId);

    const counts = await reencryptAll(store, keyring, ['secrets']);
    assert.deepEqual(counts, { secrets: 2 }, 'only the two old-key rows are rewritten');
    for (const name of ['a', 'b', 'c']) {
      const atRest = (await stored('secrets', 'default', name)) ?? '';
      assert.equal(envelopeKeyId(atRest), rotated.keyId);
      assertNoPlaintext(atRest);
    }
    assert.deepEqual(await reencryptAll(store, keyring, ['secrets']), { secrets: 0 }, 'idempotent');
    assert.equal((await store.list('secrets')).items.length, 3);
    await store.close();
  }),
);

void test(
  'plain JSON rows of a newly encrypted resource are readable and get encrypted by reencryptAll',
  withDir(async (dir) => {
    const keyring = ensureKeyring(dir);
    const { store, stored } = await memoryStore();
    await store.create('secrets', secret('legacy'));
    const codec = secretsCodec(keyring, new Set(['secrets']));
    assert.equal(
      codec.decode('secrets', (await stored('secrets', 'default', 'legacy')) ?? '').metadata.name,
      'legacy',
    );
    assert.deepEqual(await reencryptAll(store, keyring, ['secrets']), { secrets: 1 });
    assertNoPlaintext((await stored('secrets', 'default', 'legacy')) ?? '');
    await store.close();
  }),
);

void test(
  'a running hub picks up a key added by the rotate command when it meets a value under that key',
  withDir((dir) => {
    const running = ensureKeyring(dir);
    const { keyring: cli } = rotateKey(dir);
    const env = cli.encrypt('v', 'secrets');
    assert.equal(running.decrypt(env, 'secrets').toString(), 'v');
  }),
);

void test(
  'staged rotation: a key added without becoming primary is readable but unused until made primary',
  withDir((dir) => {
    const before = ensureKeyring(dir);
    const { keyId, keyring } = rotateKey(dir, { makePrimary: false });
    assert.equal(keyring.primaryKeyId, before.primaryKeyId);
    assert.equal(envelopeKeyId(keyring.encrypt('v', 'secrets')), before.primaryKeyId);
    const promoted = setPrimaryKey(dir, keyId);
    assert.equal(envelopeKeyId(promoted.encrypt('v', 'secrets')), keyId);
  }),
);

void test(
  'a replica without the key file refuses to start, and a broken key file is reported',
  withDir((dir) => {
    assert.throws(() => loadKeyring(dir), /missing: copy it/);
    writeFileSync(
      encryptionKeyFilePath(dir),
      JSON.stringify({ primary: 'x', keys: [{ id: 'x', secret: 'c2hvcnQ=' }] }),
    );
    assert.throws(() => loadKeyring(dir), /not 256 bits/);
  }),
);
