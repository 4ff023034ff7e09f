import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../store/index.js';
import { AUDIT_RESOURCE } from './audit.js';
import { parseRetention, pruneAuditEvents } from './audit-retention.js';

const event = (ms: number, seq: number) => ({
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'AuditEvent',
  metadata: { name: `${String(ms).padStart(13, '0')}-${String(seq).padStart(6, '0')}-abcdef` },
  spec: { time: new Date(ms).toISOString(), verb: 'create' },
});

test('events older than the cutoff go, oldest first, across pages; newer ones stay', async () => {
  const store = await openStore({ url: 'memory:' });
  const day = 86_400_000;
  const now = Date.UTC(2026, 10, 29);
  for (let i = 0; i < 1200; i++) await store.create(AUDIT_RESOURCE, event(now - 40 * day + i * 1000, i));
  for (let i = 0; i < 3; i++) await store.create(AUDIT_RESOURCE, event(now - day + i, i));
  assert.equal(await pruneAuditEvents(store, new Date(now - 30 * day)), 1200);
  const left = await store.list(AUDIT_RESOURCE);
  assert.equal(left.items.length, 3);
  assert.equal(await pruneAuditEvents(store, new Date(now - 30 * day)), 0, 'a second pass finds nothing');
  await store.close();
});

test('retention durations', () => {
  assert.equal(parseRetention('30d'), 30 * 86_400_000);
  assert.equal(parseRetention('12h'), 12 * 3_600_000);
  assert.equal(parseRetention('0d'), 0);
  assert.throws(() => parseRetention('30 days'), /expected a duration/);
});
