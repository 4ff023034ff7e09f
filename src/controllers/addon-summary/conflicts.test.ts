// Tiers between profiles on a real store with both add-on controllers: a platform ClusterProfile with a low
// tier takes an object from a tenant Profile, the tenant's summary names the winner, and removing the winner
// hands the object back without the agent being told to delete it (an orphaning rule while it changes hands).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { waitFor } from '../testing/wait.js';

const NS = 'team-a';
const SELECT_ALL = {
  matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists', values: [] }],
};

function configMapWith(name: string, namespace: string, objects: string[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: Object.fromEntries(objects.map((o, i) => [`object-${i}.yaml`, o])),
  };
}
const settings = (value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: app\ndata:\n  from: ${value}\n`;
const extra = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tenant-extra\n  namespace: app\ndata: {}\n`;

type Manifest = KubeObject & { data?: Record<string, string> };
const manifests = (w: KubeObject | undefined): Manifest[] =>
  (w?.['spec'] as { workload?: { manifests?: Manifest[] } } | undefined)?.workload?.manifests ?? [];
const deleteOption = (w: KubeObject | undefined) => (w?.['spec'] as { deleteOption?: unknown })?.deleteOption;
const resources = (store: Store, name: string) => store.get(RESOURCES.manifestWorks, NS, `${name}-resources`);
async function feature(store: Store, name: string): Promise<Record<string, string> | undefined> {
  const s = await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, name);
  const status = (s?.['status'] ?? {}) as { featureSummaries?: Record<string, string>[] };
  return status.featureSummaries?.find((f) => f['featureID'] === 'Resources');
}

const TENANT = 'p--tenant-capi-edge-1';
const PLATFORM = 'platform-capi-edge-1';
const RIVAL = 'rival-capi-edge-1';
const SETTINGS_RULE = { group: '', resource: 'configmaps', namespace: 'app', name: 'settings' };

describe('addon-summary controller: tiers and conflicts', () => {
  const addons = useAddonControllers();
  let store: Store;
  before(async () => {
    store = addons.store;
    await createCluster(store, NS, 'edge-1', { 'cluster.x-k8s.io/cluster-name': 'edge-1' });
    await store.create('configmaps', configMapWith('tenant', NS, [settings('tenant'), extra]));
    await store.create('configmaps', configMapWith('platform', 'platform', [settings('platform')]));
    await store.create('configmaps', configMapWith('rival', 'platform', [settings('rival')]));
  });

  it('the first profile delivers the object', async () => {
    await store.create(SVELTOS_RESOURCES.profiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'Profile',
      metadata: { name: 'tenant', namespace: NS },
      spec: {
        clusterSelector: SELECT_ALL,
        policyRefs: [{ kind: 'ConfigMap', namespace: NS, name: 'tenant' }],
        continueOnConflict: true,
      },
    });
    const work = await waitFor(async () => {
      const w = await resources(store, TENANT);
      return manifests(w).length === 2 ? w : undefined;
    }, "the tenant's work");
    assert.deepEqual(deleteOption(work), { propagationPolicy: 'Foreground' });
  });

  it('a platform ClusterProfile with a lower tier takes it; the tenant summary names the winner', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'platform' },
      spec: {
        clusterSelector: SELECT_ALL,
        tier: 10,
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'platform' }],
      },
    });
    await waitFor(async () => manifests(await resources(store, PLATFORM)).length === 1, "platform's work");
    const tenantWork = await waitFor(async () => {
      const w = await resources(store, TENANT);
      return manifests(w).length === 1 ? w : undefined;
    }, 'the tenant giving the object up');
    assert.deepEqual(
      manifests(tenantWork).map((m) => m.metadata.name),
      ['tenant-extra'],
      'continueOnConflict: the rest is still delivered',
    );
    // The agent must not delete what changed hands when it drops it from the tenant's work.
    assert.deepEqual(deleteOption(tenantWork), {
      propagationPolicy: 'SelectivelyOrphan',
      selectivelyOrphans: { orphaningRules: [SETTINGS_RULE] },
    });
    const f = await waitFor(async () => {
      const x = await feature(store, TENANT);
      return x?.['status'] === 'Failed' ? x : undefined;
    }, 'the conflict in status');
    assert.equal(f['failureReason'], 'Conflict');
    assert.equal(
      f['failureMessage'],
      "ConfigMap app/settings is managed by ClusterProfile platform: its tier 10 is lower than this profile's 100",
    );
  });

  it('an equal tier arriving later loses to the holder and delivers nothing new (continueOnConflict false)', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'rival' },
      spec: {
        clusterSelector: SELECT_ALL,
        tier: 10,
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'rival' }],
      },
    });
    const f = await waitFor(async () => {
      const x = await feature(store, RIVAL);
      return x?.['failureReason'] === 'Conflict' ? x : undefined;
    }, "the rival's conflict");
    assert.match(
      f['failureMessage']!,
      /managed by ClusterProfile platform: it was there first and the tiers are equal \(10\)/,
    );
    assert.deepEqual(manifests(await resources(store, RIVAL)), []);
    assert.equal(manifests(await resources(store, PLATFORM))[0]!.data?.['from'], 'platform');
  });

  it('removing the winner hands the object over without deleting it', async () => {
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'rival');
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'platform');
    const leaving = await waitFor(async () => {
      const w = await resources(store, PLATFORM);
      return w?.metadata.deletionTimestamp ? w : undefined;
    }, "the platform's work deleting");
    assert.deepEqual(deleteOption(leaving), {
      propagationPolicy: 'SelectivelyOrphan',
      selectivelyOrphans: { orphaningRules: [SETTINGS_RULE] },
    });
    const tenantWork = await waitFor(async () => {
      const w = await resources(store, TENANT);
      return manifests(w).length === 2 ? w : undefined;
    }, 'the tenant taking the object back');
    assert.equal(manifests(tenantWork).find((m) => m.metadata.name === 'settings')?.data?.['from'], 'tenant');
    assert.deepEqual(deleteOption(tenantWork), { propagationPolicy: 'Foreground' });
    // The agent lets the deleted works go; the platform's summaries follow.
    for (const name of [PLATFORM, RIVAL]) {
      const w = await resources(store, name);
      if (w)
        await store.update(RESOURCES.manifestWorks, { ...w, metadata: { ...w.metadata, finalizers: [] } });
    }
    await waitFor(
      async () => (await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, PLATFORM)) === undefined,
      "the platform's summary gone",
    );
    const f = await waitFor(async () => {
      const x = await feature(store, TENANT);
      return x?.['failureReason'] === undefined ? x : undefined;
    }, 'the conflict cleared');
    assert.equal(f['status'], 'Provisioning');
  });
});
