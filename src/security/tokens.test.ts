import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStore } from './test-support.js';
import { generateToken, hashToken, TOKENS_RESOURCE, TokenStore, tokenId } from './tokens.js';

void test('tokens: fh prefix, 256-bit secret part, distinct each time', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const { id, token } = generateToken();
    assert.match(token, /^fh_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.equal(tokenId(token), id);
    assert.equal(Buffer.from(token.slice(20), 'base64url').length, 32);
    seen.add(token);
  }
  assert.equal(seen.size, 100);
  assert.equal(tokenId('Bearer nonsense'), undefined);
});

void test('issue stores only the hash; authenticate returns the user; a wrong secret with a real id fails', async () => {
  const { store, atRest } = await memoryStore();
  const tokens = new TokenStore(store);
  const { token, id } = await tokens.issue({ username: 'alice', groups: ['fleethub:admins'] });
  const raw = atRest.join('\n');
  assert.ok(raw.includes(hashToken(token)));
  assert.ok(raw.includes(`"name":"${id}"`));
  assert.ok(!raw.includes(token.slice(20)), 'secret part of the token is not stored');
  assert.deepEqual(await tokens.authenticate(token), { username: 'alice', groups: ['fleethub:admins'] });

  const forged = `fh_${id}_${'A'.repeat(43)}`;
  assert.equal(await tokens.authenticate(forged), undefined);
  assert.equal(await tokens.authenticate('not-a-token'), undefined);
  await store.close();
});

void test('expired tokens stop working, also when a result was cached before', async () => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const { store } = await memoryStore();
  const tokens = new TokenStore(store, { now: () => now, cacheTtlMs: 60_000 });
  const { token, expiresAt } = await tokens.issue({ username: 'bob', expiresAt: new Date(now + 1000) });
  assert.equal(expiresAt, '2025-01-01T00:00:01.000Z');
  assert.equal((await tokens.authenticate(token))?.username, 'bob');
  now += 1000;
  assert.equal(await tokens.authenticate(token), undefined, 'cache never outlives the token');
  assert.equal(await tokens.purgeExpired(), 1);
  assert.equal((await store.list(TOKENS_RESOURCE)).items.length, 0);
  await store.close();
});

void test('revoked tokens stop working', async () => {
  const { store } = await memoryStore();
  const tokens = new TokenStore(store);
  const { token, id } = await tokens.issue({ username: 'carol' });
  assert.ok(await tokens.authenticate(token));
  assert.equal(await tokens.revoke(id), true);
  assert.equal(await tokens.authenticate(token), undefined);
  assert.equal(await tokens.revoke(id), false);
  await store.close();
});

void test('ServiceAccount tokens: Kubernetes user name and groups, expiry bounds, bound to the live ServiceAccount', async () => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const { store } = await memoryStore();
  const tokens = new TokenStore(store, { now: () => now, cacheTtlMs: 0 });
  const sa = await store.create('serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'deployer', namespace: 'team-a' },
  });

  await assert.rejects(
    tokens.issueServiceAccountToken(sa, { expirationSeconds: 599 }),
    (e: Error & { code?: number }) => e.code === 422 && /less than 10 minutes/.test(e.message),
  );
  const issued = await tokens.issueServiceAccountToken(sa, { expirationSeconds: 600 });
  assert.equal(issued.expiresAt, '2025-01-01T00:10:00.000Z');
  const user = await tokens.authenticate(issued.token);
  assert.deepEqual(user, {
    username: 'system:serviceaccount:team-a:deployer',
    uid: sa.metadata.uid,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a'],
    extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${issued.id}`] },
  });

  // Deleted and recreated under the same name: a different uid, so the old token is dead.
  await store.delete('serviceaccounts', 'team-a', 'deployer');
  assert.equal(await tokens.authenticate(issued.token), undefined);
  await store.create('serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'deployer', namespace: 'team-a' },
  });
  assert.equal(await tokens.authenticate(issued.token), undefined);

  const fresh = await tokens.issueServiceAccountToken(
    (await store.get('serviceaccounts', 'team-a', 'deployer'))!,
  );
  assert.equal(fresh.expiresAt, '2025-01-01T01:00:00.000Z', 'default one hour');
  now += 3600_000;
  assert.equal(await tokens.authenticate(fresh.token), undefined);
  await store.close();
});

void test('the cache answers repeated checks without the store, and is bounded', async () => {
  const { store } = await memoryStore();
  const tokens = new TokenStore(store, { cacheTtlMs: 60_000, cacheMaxEntries: 2 });
  const a = await tokens.issue({ username: 'a' });
  let gets = 0;
  const realGet = store.get.bind(store);
  store.get = async (...args) => {
    gets++;
    return realGet(...args);
  };
  await tokens.authenticate(a.token);
  await tokens.authenticate(a.token);
  await tokens.authenticate(a.token);
  assert.equal(gets, 1);
  const b = await tokens.issue({ username: 'b' });
  const c = await tokens.issue({ username: 'c' });
  await tokens.authenticate(b.token);
  await tokens.authenticate(c.token); // evicts a
  await tokens.authenticate(a.token);
  assert.equal(gets, 4);
  await store.close();
});
