// deploymentType Local on a real store: a ClusterProfile's Local content becomes a work the hub applies to
// itself (no cluster label, so no agent takes it); the feature waits for it; a Profile's Local is refused.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { markApplied } from '../testing/agent.js';
import { waitFor } from '../testing/wait.js';

const NS = 'team-a';
const ALL = { matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists', values: [] }] };
const hubConfig = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hub-side\n  namespace: platform\ndata: {}\n`;
const clusterConfig = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-side\n  namespace: apps\ndata: {}\n`;

async function resourcesFeature(store: Store, name: string): Promise<Record<string, string> | undefined> {
  const s = await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, name);
  const f = (s?.['status'] as { featureSummaries?: Record<string, string>[] } | undefined)?.featureSummaries;
  return f?.find((x) => x['featureID'] === 'Resources');
}

describe('addon-summary controller: deploymentType Local', () => {
  const addons = useAddonControllers();
  let store: Store;
  before(async () => {
    store = addons.store;
    await createCluster(store, NS, 'edge-1', { 'cluster.x-k8s.io/cluster-name': 'edge-1' });
    for (const [name, text] of [
      ['hub-side', hubConfig],
      ['cluster-side', clusterConfig],
    ] as const)
      await store.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NS },
        data: { 'content.yaml': text },
      });
  });

  it('a ClusterProfile’s Local content goes to a work for the hub; the feature waits for both works', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'mixed' },
      spec: {
        clusterSelector: ALL,
        policyRefs: [
          { kind: 'ConfigMap', namespace: NS, name: 'hub-side', deploymentType: 'Local' },
          { kind: 'ConfigMap', namespace: NS, name: 'cluster-side' },
        ],
      },
    });
    const local = await waitFor(
      () => store.get(RESOURCES.manifestWorks, NS, 'mixed-capi-edge-1-local'),
      'the local work',
    );
    assert.equal(local.metadata.labels?.['fleethub.io/local'], 'true');
    assert.equal(local.metadata.labels?.['fleethub.io/cluster'], undefined, 'no agent may take it');
    const names = (w: KubeObject) =>
      (w['spec'] as { workload: { manifests: KubeObject[] } }).workload.manifests.map((m) => m.metadata.name);
    assert.deepEqual(names(local), ['hub-side']);
    const remote = (await store.get(RESOURCES.manifestWorks, NS, 'mixed-capi-edge-1-resources'))!;
    assert.deepEqual(names(remote), ['cluster-side']);

    await markApplied(store, remote);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await resourcesFeature(store, 'mixed-capi-edge-1'))?.['status'], 'Provisioning');
    await markApplied(store, local);
    await waitFor(
      async () => (await resourcesFeature(store, 'mixed-capi-edge-1'))?.['status'] === 'Provisioned',
      'Provisioned once the hub applied its part',
    );
  });

  it('a Profile’s summary never gets a local work', async () => {
    await store.create(SVELTOS_RESOURCES.profiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'Profile',
      metadata: { name: 'sneaky', namespace: NS },
      spec: {
        clusterSelector: ALL,
        policyRefs: [{ kind: 'ConfigMap', namespace: NS, name: 'hub-side', deploymentType: 'Local' }],
      },
    });
    const f = await waitFor(async () => {
      const x = await resourcesFeature(store, 'p--sneaky-capi-edge-1');
      return x?.['status'] === 'Failed' ? x : undefined;
    }, 'the refusal in status');
    assert.equal(f['failureReason'], 'LocalNotAllowed');
    assert.equal(await store.get(RESOURCES.manifestWorks, NS, 'p--sneaky-capi-edge-1-local'), undefined);
  });
});
