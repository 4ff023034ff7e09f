// The profile and summary controllers together on a real store: the seed's flannel profile becomes one
// ManifestWork per cluster with that cluster's pod CIDR; the work's Applied condition becomes Provisioned;
// failures (a missing ConfigMap, a template error) are in the summary's status; withdrawal deletes the work.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { FLEET_API_VERSION, RESOURCES, WORK_CLEANUP_FINALIZER } from '../../fleet/names.js';
import { FLANNEL_MANIFEST, SEED_FLANNEL_PATCH } from '../../testing/flannel-seed.js';
import type { KubeObject, Store } from '../../store/types.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { markApplied } from '../testing/agent.js';
import { waitFor } from '../testing/wait.js';

const CAPI_NAME = 'cluster.x-k8s.io/cluster-name';

async function createEdge(store: Store, name: string, cidr: string): Promise<void> {
  await createCluster(
    store,
    'team-a',
    name,
    { [CAPI_NAME]: name },
    { clusterNetwork: { pods: { cidrBlocks: [cidr] } } },
  );
}

function feature(summary: KubeObject | undefined): Record<string, string> | undefined {
  const status = (summary?.['status'] ?? {}) as { featureSummaries?: Record<string, string>[] };
  return status.featureSummaries?.find((f) => f['featureID'] === 'Resources');
}

const getSummary = (store: Store, name: string) =>
  store.get(SVELTOS_RESOURCES.clusterSummaries, 'team-a', name);
const getWork = (store: Store, name: string) => store.get(RESOURCES.manifestWorks, 'team-a', name);

describe('addon-summary controller', () => {
  const addons = useAddonControllers();
  let store: Store;
  before(async () => {
    store = addons.store;
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'flannel', namespace: 'platform' },
      data: { 'kube-flannel.yml': FLANNEL_MANIFEST },
    });
    await createEdge(store, 'edge-1', '10.1.0.0/16');
    await createEdge(store, 'edge-2', '10.2.0.0/16');
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'flannel-cni' },
      spec: {
        clusterSelector: { matchExpressions: [{ key: CAPI_NAME, operator: 'Exists', values: [] }] },
        syncMode: 'ContinuousWithDriftDetection',
        tier: 100,
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'flannel' }],
        patches: [
          {
            patch: SEED_FLANNEL_PATCH,
            target: { kind: 'ConfigMap', name: 'kube-flannel-cfg', namespace: 'kube-flannel', version: 'v1' },
          },
        ],
      },
    });
  });

  it('each cluster’s work carries its own pod CIDR, stamped with its owner; drift correction stays on', async () => {
    for (const [cluster, cidr] of [
      ['edge-1', '10.1.0.0/16'],
      ['edge-2', '10.2.0.0/16'],
    ]) {
      const work = await waitFor(
        () => getWork(store, `flannel-cni-capi-${cluster}-resources`),
        `${cluster}'s work`,
      );
      const manifests = (work['spec'] as { workload: { manifests: KubeObject[] } }).workload.manifests;
      assert.deepEqual(
        manifests.map((m) => `${m.kind}/${m.metadata.name}`),
        ['Namespace/kube-flannel', 'ConfigMap/kube-flannel-cfg'],
      );
      const netConf = JSON.parse((manifests[1]!['data'] as Record<string, string>)['net-conf.json']!) as {
        Network: string;
      };
      assert.equal(netConf.Network, cidr);
      assert.equal(manifests[1]!.metadata.annotations?.['projectsveltos.io/owner-name'], 'flannel-cni');
      assert.equal(work.metadata.labels?.['fleethub.io/cluster'], cluster);
      assert.deepEqual(work.metadata.finalizers, [WORK_CLEANUP_FINALIZER]);
      assert.equal(work.metadata.annotations?.['fleethub.io/drift-correction'], undefined);
      assert.equal(
        feature(await getSummary(store, `flannel-cni-capi-${cluster}`))?.['status'],
        'Provisioning',
      );
    }
  });

  it('the agent’s Applied condition makes the feature Provisioned, with what was deployed', async () => {
    await markApplied(store, (await getWork(store, 'flannel-cni-capi-edge-1-resources'))!);
    const summary = await waitFor(async () => {
      const s = await getSummary(store, 'flannel-cni-capi-edge-1');
      return feature(s)?.['status'] === 'Provisioned' ? s : undefined;
    }, 'Provisioned');
    assert.deepEqual((summary['status'] as { deployedGVKs: unknown }).deployedGVKs, [
      { featureID: 'Resources', deployedGroupVersionKind: ['ConfigMap.v1.', 'Namespace.v1.'] },
    ]);
  });

  it('a template error and a missing ConfigMap are in the summary’s status, naming what and why', async () => {
    const cm = (await store.get('configmaps', 'platform', 'flannel'))!;
    await store.update('configmaps', {
      ...cm,
      metadata: { ...cm.metadata, annotations: { 'projectsveltos.io/template': 'ok' } },
      data: { 'kube-flannel.yml': `${FLANNEL_MANIFEST}  cluster: "{{ .Cluster.spec.nothere.x }}"\n` },
    });
    const failed = await waitFor(async () => {
      const f = feature(await getSummary(store, 'flannel-cni-capi-edge-2'));
      return f?.['status'] === 'Failed' ? f : undefined;
    }, 'the template failure');
    assert.equal(failed['failureReason'], 'TemplateInstantiationError');
    assert.match(failed['failureMessage']!, /ConfigMap platform\/flannel.*line 14/);

    await store.delete('configmaps', 'platform', 'flannel');
    await waitFor(async () => {
      const f = feature(await getSummary(store, 'flannel-cni-capi-edge-2'));
      return (
        f?.['failureReason'] === 'ReferenceNotFound' &&
        /ConfigMap platform\/flannel not found/.test(f['failureMessage']!)
      );
    }, 'the missing ConfigMap in status');
  });

  it('a cluster that stops matching: its summary deletes the work, and goes once the agent let it go', async () => {
    const cluster = (await store.get(RESOURCES.clusters, 'team-a', 'edge-1'))!;
    await store.update(RESOURCES.clusters, {
      ...cluster,
      metadata: { ...cluster.metadata, labels: {} },
    });
    const work = await waitFor(async () => {
      const w = await getWork(store, 'flannel-cni-capi-edge-1-resources');
      return w?.metadata.deletionTimestamp ? w : undefined;
    }, 'the work deleting');
    assert.ok(await getSummary(store, 'flannel-cni-capi-edge-1'), 'the summary waits for its work');
    // The agent removes what it applied, then its finalizer.
    await store.update(RESOURCES.manifestWorks, { ...work, metadata: { ...work.metadata, finalizers: [] } });
    await waitFor(
      async () => (await getSummary(store, 'flannel-cni-capi-edge-1')) === undefined,
      'the summary gone',
    );
  });

  it('a cluster whose agent is gone: the summary says it waits for that agent, and why', async () => {
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'flannel', namespace: 'platform' },
      data: { 'kube-flannel.yml': FLANNEL_MANIFEST },
    });
    await store.create(RESOURCES.clusters, {
      apiVersion: FLEET_API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'edge-9', namespace: 'team-a', labels: { [CAPI_NAME]: 'edge-9' } },
      spec: { clusterNetwork: { pods: { cidrBlocks: ['10.9.0.0/16'] } } },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'Unknown',
            reason: 'LeaseExpired',
            message: 'the agent has not renewed its Lease for 45s',
            lastTransitionTime: '2026-11-30T00:00:00Z',
          },
        ],
      },
    });
    const f = await waitFor(async () => {
      const x = feature(await getSummary(store, 'flannel-cni-capi-edge-9'));
      return x?.['failureReason'] === 'AgentUnreachable' ? x : undefined;
    }, 'the wait for the agent in status');
    assert.equal(f['status'], 'Provisioning');
    assert.equal(
      f['failureMessage'],
      'waiting for the agent of Cluster team-a/edge-9: Available is Unknown (LeaseExpired: the agent has not renewed its Lease for 45s); delivery resumes when it is back',
    );
  });
});
