// The profile controller on a real store: matching Clusters get one ClusterSummary each (also clusters
// created later), relabelled ones lose it, Profiles stay in their namespace, OneTime summaries keep their
// first spec, and a deleted profile goes after its summaries.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { FLEET_API_VERSION, RESOURCES } from '../../fleet/names.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { ControllerManager } from '../runtime/manager.js';
import { waitFor } from '../testing/wait.js';
import { addonProfileController } from './addon-profile.controller.js';

const CAPI_NAME = 'cluster.x-k8s.io/cluster-name';

async function createCluster(store: Store, namespace: string, name: string, labels: Record<string, string>) {
  await store.create(RESOURCES.clusters, {
    apiVersion: FLEET_API_VERSION,
    kind: 'Cluster',
    metadata: { name, namespace, labels },
    spec: {},
  });
}

async function summaryNames(store: Store): Promise<string[]> {
  const list = await store.list(SVELTOS_RESOURCES.clusterSummaries);
  return list.items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();
}

function matching(profile: KubeObject | undefined): string[] {
  const status = (profile?.['status'] ?? {}) as { matchingClusters?: { namespace: string; name: string }[] };
  return (status.matchingClusters ?? []).map((c) => `${c.namespace}/${c.name}`);
}

describe('addon-profile controller', () => {
  let store: Store;
  let manager: ControllerManager;
  before(async () => {
    store = await openStore({ url: 'memory:' });
    manager = new ControllerManager({ store, leaderElection: false });
    manager.add(addonProfileController({ store }));
    manager.start();
  });
  after(async () => {
    await manager.stop();
    await store.close();
  });

  it('a ClusterProfile reaches every matching cluster, also one created later, and leaves a relabelled one', async () => {
    await createCluster(store, 'team-a', 'edge-1', { [CAPI_NAME]: 'edge-1' });
    await createCluster(store, 'team-b', 'edge-2', { [CAPI_NAME]: 'edge-2' });
    await createCluster(store, 'team-b', 'byo', {});
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'flannel-cni' },
      spec: {
        clusterSelector: { matchExpressions: [{ key: CAPI_NAME, operator: 'Exists', values: [] }] },
        syncMode: 'ContinuousWithDriftDetection',
        policyRefs: [{ remoteURL: { url: 'https://example.com/kube-flannel.yml', interval: '10m' } }],
      },
    });
    await waitFor(
      async () =>
        (await summaryNames(store)).join() ===
        'team-a/flannel-cni-capi-edge-1,team-b/flannel-cni-capi-edge-2',
      'one summary per matching cluster',
    );
    const summary = await store.get(SVELTOS_RESOURCES.clusterSummaries, 'team-a', 'flannel-cni-capi-edge-1');
    assert.deepEqual(summary?.['spec'], {
      clusterNamespace: 'team-a',
      clusterName: 'edge-1',
      clusterType: 'Capi',
      clusterProfileSpec: {
        clusterSelector: { matchExpressions: [{ key: CAPI_NAME, operator: 'Exists', values: [] }] },
        syncMode: 'ContinuousWithDriftDetection',
        policyRefs: [{ remoteURL: { url: 'https://example.com/kube-flannel.yml', interval: '10m' } }],
      },
    });
    assert.equal(summary?.metadata.labels?.['projectsveltos.io/cluster-profile-name'], 'flannel-cni');
    assert.equal(summary?.metadata.ownerReferences?.[0]?.kind, 'ClusterProfile');
    await waitFor(
      async () =>
        matching(await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'flannel-cni')).join() ===
        'team-a/edge-1,team-b/edge-2',
      'status.matchingClusters',
    );

    // A cluster created next month is matched without any per-cluster wiring.
    await createCluster(store, 'team-a', 'edge-3', { [CAPI_NAME]: 'edge-3' });
    await waitFor(
      async () => (await summaryNames(store)).includes('team-a/flannel-cni-capi-edge-3'),
      'the new cluster’s summary',
    );
    // Relabelled so it no longer matches: its summary goes.
    const edge2 = (await store.get(RESOURCES.clusters, 'team-b', 'edge-2'))!;
    await store.update(RESOURCES.clusters, { ...edge2, metadata: { ...edge2.metadata, labels: {} } });
    await waitFor(
      async () => !(await summaryNames(store)).includes('team-b/flannel-cni-capi-edge-2'),
      'the relabelled cluster’s summary to go',
    );
  });

  it('a Profile reaches only clusters of its own namespace; spec changes reach summaries unless OneTime', async () => {
    for (const [name, syncMode] of [
      ['tools', 'Continuous'],
      ['once', 'OneTime'],
    ] as const) {
      await store.create(SVELTOS_RESOURCES.profiles, {
        apiVersion: SVELTOS_API_VERSION,
        kind: 'Profile',
        metadata: { name, namespace: 'team-b' },
        spec: { clusterSelector: { matchLabels: { tier: 'all' } }, syncMode, tier: 100 },
      });
    }
    await createCluster(store, 'team-b', 'mine', { tier: 'all' });
    await createCluster(store, 'team-a', 'theirs', { tier: 'all' });
    await waitFor(async () => {
      const names = await summaryNames(store);
      return names.includes('team-b/p--tools-capi-mine') && names.includes('team-b/p--once-capi-mine');
    }, 'the Profiles’ summaries');
    assert.ok(
      !(await summaryNames(store)).some((n) => n.includes('theirs')),
      'no summary in another namespace',
    );

    for (const name of ['tools', 'once']) {
      const p = (await store.get(SVELTOS_RESOURCES.profiles, 'team-b', name))!;
      await store.update(SVELTOS_RESOURCES.profiles, { ...p, spec: { ...(p['spec'] as object), tier: 50 } });
    }
    const tierOf = async (name: string) =>
      (
        (await store.get(SVELTOS_RESOURCES.clusterSummaries, 'team-b', name))?.['spec'] as {
          clusterProfileSpec: { tier: number };
        }
      ).clusterProfileSpec.tier;
    await waitFor(async () => (await tierOf('p--tools-capi-mine')) === 50, 'the Continuous summary updated');
    assert.equal(await tierOf('p--once-capi-mine'), 100, 'OneTime keeps the spec it was created with');
  });

  it('a deleted profile takes its summaries with it, then goes', async () => {
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'flannel-cni');
    await waitFor(
      async () => !(await summaryNames(store)).some((n) => n.includes('flannel-cni')),
      'the profile’s summaries to go',
    );
    await waitFor(
      async () => (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'flannel-cni')) === undefined,
      'the profile to go',
    );
  });
});
