// Lease renewals against a real API server (a simulated cluster): one update per renewal, and a fresh read
// only after someone else changed or deleted the Lease.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimCluster } from '../sim/cluster.js';
import { SimServer } from '../sim/server.js';
import { KubeClient } from '../kube/client.js';
import type { KubeClientApi } from '../kube/types.js';
import { LEASE_REF, LeaseRenewer, renewIntervalMs } from './lease.js';

let sim: SimServer;
let client: KubeClient;
let dir: string;

before(async () => {
  const cluster = await SimCluster.start({ name: 'leases', nodes: 1 });
  sim = new SimServer({ host: '127.0.0.1', port: 0 });
  sim.add(cluster);
  await sim.listen();
  dir = mkdtempSync(join(tmpdir(), 'fleethub-lease-'));
  writeFileSync(join(dir, 'kubeconfig'), sim.kubeconfig('leases'), { mode: 0o600 });
  client = KubeClient.fromKubeconfig(join(dir, 'kubeconfig'));
});

after(async () => {
  client.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The client, with every call it receives counted by method name. */
function counting(): { api: KubeClientApi; calls: string[] } {
  const calls: string[] = [];
  const api = new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as KubeClientApi;
  return { api, calls };
}

describe('LeaseRenewer', () => {
  test('creates the Lease, then renews it with one update each time; a conflict costs one read', async () => {
    const { api, calls } = counting();
    const target = { namespace: 'default', name: 'agent-a', holderIdentity: 'agent-a', durationSeconds: 60 };
    const renewer = new LeaseRenewer(() => api, target);
    await renewer.renew(new Date('2026-01-01T00:00:00Z'));
    await renewer.renew(new Date('2026-01-01T00:00:30Z'));
    await renewer.renew(new Date('2026-01-01T00:01:00Z'));
    assert.deepEqual(calls, ['get', 'create', 'update', 'update']);
    const lease = await client.get(LEASE_REF, 'default', 'agent-a');
    assert.equal((lease?.['spec'] as { renewTime: string }).renewTime, '2026-01-01T00:01:00.000000Z');

    // Someone else writes the Lease: our next update conflicts, the one after reads it first.
    await client.update(LEASE_REF, {
      ...lease!,
      spec: { ...(lease!['spec'] as object), holderIdentity: 'x' },
    });
    calls.length = 0;
    await assert.rejects(renewer.renew(new Date('2026-01-01T00:01:30Z')), /conflict|modified/i);
    await renewer.renew(new Date('2026-01-01T00:02:00Z'));
    assert.deepEqual(calls, ['update', 'get', 'update']);
    const renewed = await client.get(LEASE_REF, 'default', 'agent-a');
    assert.deepEqual(
      [
        (renewed?.['spec'] as { holderIdentity: string }).holderIdentity,
        (renewed?.['spec'] as { renewTime: string }).renewTime,
      ],
      ['agent-a', '2026-01-01T00:02:00.000000Z'],
    );
  });

  test('renewals come every half of the duration', () => {
    assert.equal(renewIntervalMs(60), 30_000);
    assert.equal(renewIntervalMs(2), 1_000);
  });
});
