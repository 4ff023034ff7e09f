import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '../util/errors.js';
import { deleteIfPresent } from './delete-if-present.js';
import { openStore } from './index.js';

void test('deleteIfPresent: true when it deleted, false when the object was already gone', async () => {
  const store = await openStore({ url: 'memory:' });
  try {
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
    });
    assert.equal(await deleteIfPresent(store, 'configmaps', 'ns', 'a'), true);
    assert.equal(await store.get('configmaps', 'ns', 'a'), undefined);
    assert.equal(await deleteIfPresent(store, 'configmaps', 'ns', 'a'), false);
  } finally {
    await store.close();
  }
});

void test('deleteIfPresent: any other failure is the caller’s', async () => {
  const refusing = { delete: () => Promise.reject(errors.forbidden('no')) };
  await assert.rejects(deleteIfPresent(refusing, 'configmaps', 'ns', 'a'), /no/);
});
