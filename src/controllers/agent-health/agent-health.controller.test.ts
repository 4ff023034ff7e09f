import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_API_VERSION, RESOURCES } from '../../fleet/names.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { findCondition, type Condition } from '../runtime/conditions.js';
import { ControllerManager } from '../runtime/manager.js';
import { sleep, waitFor } from '../testing/wait.js';
import { agentHealthController } from './agent-health.controller.js';

function available(obj: KubeObject | undefined): Condition | undefined {
  return findCondition(
    (obj?.['status'] as { conditions?: Condition[] } | undefined)?.conditions,
    'Available',
  );
}

describe('agent health controller', () => {
  let store: Store;
  let manager: ControllerManager | undefined;
  before(async () => {
    store = await openStore({ url: 'memory:' });
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed', namespace: 'default' },
    });
  });
  afterEach(async () => {
    await manager?.stop();
    manager = undefined;
  });
  after(async () => {
    await store.close();
  });

  it('turns Available Unknown once 5 lease durations pass without renewal, on time', async () => {
    await store.create(RESOURCES.clusters, {
      apiVersion: FLEET_API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'team' },
      spec: {},
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'AgentReported',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    // leaseDurationSeconds 0.2 → grace 1 s.
    await store.create(RESOURCES.leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'fleethub-agent-c1', namespace: 'team' },
      spec: { renewTime: new Date().toISOString().replace('Z', '000Z'), leaseDurationSeconds: 0.2 },
    });
    await store.create(RESOURCES.hosts, {
      apiVersion: FLEET_API_VERSION,
      kind: 'Host',
      metadata: { name: 'h1' },
      spec: {},
    });
    const started = Date.now();
    manager = new ControllerManager({ store, leaderElection: false });
    manager.add(agentHealthController({ store }));
    manager.start();
    await sleep(500);
    assert.equal(available(await store.get(RESOURCES.clusters, 'team', 'c1'))?.status, 'True', 'fresh lease');
    const cluster = await waitFor(async () => {
      const c = await store.get(RESOURCES.clusters, 'team', 'c1');
      return available(c)?.status === 'Unknown' ? c : undefined;
    }, 'lease expiry');
    assert.ok(Date.now() - started < 2000, 'within the grace plus a little');
    assert.equal(available(cluster)?.reason, 'LeaseExpired');
    assert.match(available(cluster)?.message ?? '', /agent has not renewed its lease for \d+s/);

    // A Host without a lease gets one (agents may not create it), then reads as never connected.
    const lease = await waitFor(
      () => store.get(RESOURCES.leases, 'fleethub-system', 'fleethub-host-h1'),
      'host lease',
    );
    assert.equal((lease['spec'] as { holderIdentity: string }).holderIdentity, 'fleethub:host:h1');
    await store.update(RESOURCES.leases, {
      ...lease,
      spec: { ...(lease['spec'] as object), leaseDurationSeconds: 0.1 },
    });
    const host = await waitFor(async () => {
      const h = await store.get(RESOURCES.hosts, '', 'h1');
      return available(h)?.status === 'Unknown' ? h : undefined;
    }, 'host never connected');
    assert.equal(available(host)?.reason, 'AgentNotConnected');
  });
});
