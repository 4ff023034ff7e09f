// dependsOn on a real store with both add-on controllers and a simulated agent: a profile's work is not
// created before the summary of its prerequisite for the same cluster is Provisioned, and its status says
// why in Sveltos's words; a prerequisite that does not select a cluster reaches it anyway while a
// dependent does (Sveltos's auto-deploy of dependencies), and leaves once none does. Plus the gate alone.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import type { CacheReader } from '../runtime/reconcile.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { markApplied } from '../testing/agent.js';
import { sleep, waitFor } from '../testing/wait.js';
import { dependencyGate, dependentsOf, isSummaryProvisioned } from './depends-on.js';

const NS = 'team-a';
const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'platform' },
  data: {
    'x.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata: {}\n`,
  },
});

const getSummary = (store: Store, name: string) => store.get(SVELTOS_RESOURCES.clusterSummaries, NS, name);
const getWork = (store: Store, summary: string) =>
  store.get(RESOURCES.manifestWorks, NS, `${summary}-resources`);
const statusOf = (s: KubeObject | undefined) =>
  (s?.['status'] ?? {}) as {
    dependencies?: string;
    featureSummaries?: {
      featureID: string;
      status: string;
      failureReason?: string;
      failureMessage?: string;
    }[];
  };

async function applyWork(store: Store, summary: string): Promise<void> {
  await markApplied(store, await waitFor(() => getWork(store, summary), `${summary}'s work`));
}

describe('addon-summary controller: dependsOn', () => {
  const addons = useAddonControllers();
  let store: Store;
  before(async () => {
    store = addons.store;
    await store.create('configmaps', configMap('base'));
    await store.create('configmaps', configMap('app'));
    for (const [name, labels] of [
      ['edge-1', { env: 'prod', base: 'yes' }],
      ['edge-2', { env: 'prod' }],
    ] as const)
      await createCluster(store, NS, name, labels);
  });

  it('the dependent delivers nothing before its prerequisite is Provisioned, and says why', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'app' },
      spec: {
        clusterSelector: { matchLabels: { env: 'prod', base: 'yes' } },
        dependsOn: ['base'],
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'app' }],
      },
    });
    const missing = await waitFor(async () => {
      const s = statusOf(await getSummary(store, 'app-capi-edge-1'));
      return s.dependencies ? s : undefined;
    }, "the dependent's status");
    assert.equal(
      missing.dependencies,
      'ClusterProfile base is a dependency. The ClusterSummary instance for this profile/cluster was not found',
    );
    assert.deepEqual(missing.featureSummaries, [
      {
        featureID: 'Resources',
        status: 'Provisioning',
        failureReason: 'DependencyNotDeployed',
        failureMessage: missing.dependencies,
      },
    ]);

    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'base' },
      spec: {
        clusterSelector: { matchLabels: { base: 'yes' } },
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'base' }],
      },
    });
    await waitFor(() => getWork(store, 'base-capi-edge-1'), "the prerequisite's work");
    const waiting = await waitFor(async () => {
      const s = statusOf(await getSummary(store, 'app-capi-edge-1'));
      return s.dependencies?.includes('not fully deployed') ? s : undefined;
    }, 'the dependent waiting for a summary that is not Provisioned');
    assert.equal(
      waiting.dependencies,
      'ClusterProfile base is a dependency and it is not fully deployed yet',
    );
    assert.equal(waiting.featureSummaries?.[0]?.failureMessage, waiting.dependencies);
    await sleep(100);
    assert.equal(
      await getWork(store, 'app-capi-edge-1'),
      undefined,
      'no work while the prerequisite is not there',
    );
    assert.equal(statusOf(await getSummary(store, 'base-capi-edge-1')).dependencies, 'no dependencies');

    await applyWork(store, 'base-capi-edge-1');
    await waitFor(async () => {
      const s = await getSummary(store, 'base-capi-edge-1');
      return s && isSummaryProvisioned(s);
    }, 'the prerequisite Provisioned');
    await waitFor(
      () => getWork(store, 'app-capi-edge-1'),
      "the dependent's work, once its prerequisite is there",
    );
    const ready = statusOf(await getSummary(store, 'app-capi-edge-1'));
    assert.equal(ready.dependencies, 'All dependencies deployed');
    assert.equal(ready.featureSummaries?.[0]?.status, 'Provisioning');
    assert.equal(ready.featureSummaries?.[0]?.failureMessage, undefined);
    await applyWork(store, 'app-capi-edge-1');
    await waitFor(
      async () =>
        statusOf(await getSummary(store, 'app-capi-edge-1')).featureSummaries?.[0]?.status === 'Provisioned',
      'the dependent Provisioned',
    );
  });

  it('a prerequisite reaches the clusters of its dependents, and leaves when they stop depending on it', async () => {
    // app now selects edge-2 too, which base does not select: base follows it there.
    const app = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))!;
    await store.update(SVELTOS_RESOURCES.clusterProfiles, {
      ...app,
      spec: { ...(app['spec'] as object), clusterSelector: { matchLabels: { env: 'prod' } } },
    });
    await waitFor(() => getSummary(store, 'base-capi-edge-2'), "the prerequisite's summary on edge-2");
    await waitFor(async () => {
      const base = await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'base');
      const matching = (base?.['status'] as { matchingClusters?: { name: string }[] } | undefined)
        ?.matchingClusters;
      return matching?.map((c) => c.name).join() === 'edge-1,edge-2';
    }, "edge-2 in the prerequisite's matchingClusters");
    assert.equal(await getWork(store, 'app-capi-edge-2'), undefined, 'edge-2 waits for base there');
    await applyWork(store, 'base-capi-edge-2');
    await waitFor(() => getWork(store, 'app-capi-edge-2'), "the dependent's work on edge-2");

    // No dependent left on edge-2: the prerequisite's summary there goes.
    const current = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))!;
    const { dependsOn: _dropped, ...spec } = current['spec'] as Record<string, unknown>;
    await store.update(SVELTOS_RESOURCES.clusterProfiles, { ...current, spec });
    await waitFor(async () => {
      const s = await getSummary(store, 'base-capi-edge-2');
      return !s || Boolean(s.metadata.deletionTimestamp);
    }, "the prerequisite's summary on edge-2 withdrawn");
    assert.ok(await getSummary(store, 'base-capi-edge-1'), 'edge-1 is base’s own');
    await waitFor(
      async () => statusOf(await getSummary(store, 'app-capi-edge-1')).dependencies === 'no dependencies',
      'no dependencies any more',
    );
  });

  it('removed together, a prerequisite withdraws after what depends on it', async () => {
    // app depends on base again, then both profiles go at once.
    const app = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))!;
    await store.update(SVELTOS_RESOURCES.clusterProfiles, {
      ...app,
      spec: { ...(app['spec'] as object), dependsOn: ['base'] },
    });
    await waitFor(
      async () =>
        statusOf(await getSummary(store, 'app-capi-edge-1')).dependencies === 'All dependencies deployed',
      'app depending on base again',
    );
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'base');
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'app');
    const appWork = await waitFor(async () => {
      const w = await getWork(store, 'app-capi-edge-1');
      return w?.metadata.deletionTimestamp ? w : undefined;
    }, "the dependent's work withdrawn");
    await waitFor(async () => {
      const f = statusOf(await getSummary(store, 'base-capi-edge-1')).featureSummaries?.[0];
      return f?.status === 'Removing' && /waiting for app-capi-edge-1/.test(f.failureMessage ?? '');
    }, 'the prerequisite saying it waits');
    const baseWork = await getWork(store, 'base-capi-edge-1');
    assert.ok(baseWork && !baseWork.metadata.deletionTimestamp, 'the prerequisite still delivered');
    // The agent lets the dependent's work go; its summary follows; then the prerequisite withdraws.
    await store.update(RESOURCES.manifestWorks, {
      ...appWork,
      metadata: { ...appWork.metadata, finalizers: [] },
    });
    await waitFor(async () => {
      const w = await getWork(store, 'base-capi-edge-1');
      return Boolean(w?.metadata.deletionTimestamp);
    }, "the prerequisite's work withdrawn after");
  });
});

/** A cache over a fixed list of summaries. */
function cacheOf(summaries: KubeObject[]): CacheReader {
  return {
    get: (_r, namespace, name) =>
      summaries.find((s) => s.metadata.namespace === namespace && s.metadata.name === name),
    list: (_r, namespace) =>
      summaries.filter((s) => namespace === undefined || s.metadata.namespace === namespace),
    byLabel: (_r, key, value, namespace) =>
      summaries.filter(
        (s) =>
          s.metadata.labels?.[key] === value &&
          (namespace === undefined || s.metadata.namespace === namespace),
      ),
  };
}

function summary(
  profile: string,
  cluster: string,
  spec: Record<string, unknown>,
  features: { featureID: string; status: string }[] = [],
): KubeObject {
  return {
    apiVersion: SVELTOS_API_VERSION,
    kind: 'ClusterSummary',
    metadata: {
      name: `p--${profile}-capi-${cluster}`,
      namespace: NS,
      labels: { 'projectsveltos.io/profile-name': profile, 'projectsveltos.io/cluster-name': cluster },
    },
    spec: { clusterNamespace: NS, clusterName: cluster, clusterType: 'Capi', clusterProfileSpec: spec },
    status: { featureSummaries: features },
  };
}

describe('dependsOn gate (Profiles)', () => {
  const refs = { policyRefs: [{ kind: 'ConfigMap', name: 'x' }] };
  const provisioned = [{ featureID: 'Resources', status: 'Provisioned' }];

  it('looks for Profiles of the same namespace and cluster, and needs every feature the spec fills', () => {
    const app = summary('app', 'edge-1', { ...refs, dependsOn: ['db', 'net'] });
    const db = summary('db', 'edge-1', refs, provisioned);
    const netElsewhere = summary('net', 'edge-2', refs, provisioned);
    assert.deepEqual(dependencyGate(cacheOf([app, db, netElsewhere]), app), {
      ready: false,
      message:
        'Profile net is a dependency. The ClusterSummary instance for this profile/cluster was not found',
    });
    const netHelmMissing = summary('net', 'edge-1', { ...refs, helmCharts: [{}] }, provisioned);
    assert.equal(
      dependencyGate(cacheOf([app, db, netHelmMissing]), app).message,
      'Profile net is a dependency and it is not fully deployed yet',
    );
    const net = summary('net', 'edge-1', refs, provisioned);
    assert.deepEqual(dependencyGate(cacheOf([app, db, net]), app), {
      ready: true,
      message: 'All dependencies deployed',
    });
    assert.deepEqual(dependentsOf(db, cacheOf([app, db, net, netElsewhere])), [
      { namespace: NS, name: 'p--app-capi-edge-1' },
    ]);
    assert.deepEqual(dependencyGate(cacheOf([db]), db), { ready: true, message: 'no dependencies' });
  });
});
