// maxUpdate on a real store with both add-on controllers and a simulated agent: ten clusters, a limit of 3
// (then "20%"), and a profile change. Sampled all along, never more than the limit of summaries carry the
// new spec without the agent having applied its content; the rest wait with the old spec, and all of them
// converge once the agent applies what it is given. Creation is limited the same way, as in Sveltos.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { appliedNow, markApplied } from '../testing/agent.js';
import { sleep, waitFor } from '../testing/wait.js';
import { maxUpdateLimit } from './addon-profile.controller.js';

const NS = 'fleet';
const CLUSTERS = Array.from({ length: 10 }, (_, i) => `edge-${String(i).padStart(2, '0')}`);

const content = (version: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: version, namespace: 'platform' },
  data: {
    'app.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: app\ndata:\n  version: ${version}\n`,
  },
});

type Manifest = KubeObject & { data?: Record<string, string> };
const versionInWork = (w: KubeObject | undefined): string | undefined =>
  (w?.['spec'] as { workload?: { manifests?: Manifest[] } } | undefined)?.workload?.manifests?.[0]?.data?.[
    'version'
  ];
const versionInSummary = (s: KubeObject): string | undefined =>
  (s['spec'] as { clusterProfileSpec?: { policyRefs?: { name?: string }[] } }).clusterProfileSpec
    ?.policyRefs?.[0]?.name;
const featureStatus = (s: KubeObject): string | undefined =>
  (
    s['status'] as { featureSummaries?: { featureID: string; status: string }[] } | undefined
  )?.featureSummaries?.find((f) => f.featureID === 'Resources')?.status;

interface Census {
  /** Summaries carrying `version` in their spec. */
  carrying: number;
  /** Of those, the ones whose work the agent applied with `version` in it. */
  applied: number;
  /** Of those, the ones whose status says Provisioned. */
  provisioned: number;
  summaries: number;
}

async function census(store: Store, version: string): Promise<Census> {
  const summaries = (await store.list(SVELTOS_RESOURCES.clusterSummaries, { namespace: NS })).items;
  const works = new Map(
    (await store.list(RESOURCES.manifestWorks, { namespace: NS })).items.map((w) => [
      w.metadata.name ?? '',
      w,
    ]),
  );
  const out: Census = { carrying: 0, applied: 0, provisioned: 0, summaries: summaries.length };
  for (const s of summaries) {
    if (versionInSummary(s) !== version) continue;
    out.carrying++;
    const work = works.get(`${s.metadata.name ?? ''}-resources`);
    if (work && appliedNow(work) && versionInWork(work) === version) out.applied++;
    if (featureStatus(s) === 'Provisioned') out.provisioned++;
  }
  return out;
}

/** The agent: applies every work whose current generation it has not applied yet. */
async function agentTick(store: Store): Promise<void> {
  for (const w of (await store.list(RESOURCES.manifestWorks, { namespace: NS })).items) {
    if (w.metadata.deletionTimestamp || appliedNow(w)) continue;
    try {
      await markApplied(store, w, new Date().toISOString());
    } catch (e) {
      if (!(isApiError(e) && e.code === 409)) throw e; // the hub rewrote it meanwhile: next tick
    }
  }
}

/**
 * Samples the fleet every few milliseconds while the agent applies, slowly, whatever it is given, until
 * every cluster carries `version`, applied and Provisioned. Returns the most summaries ever seen carrying
 * `version` without its content applied, and the fewest carrying it before the end.
 */
async function rollOut(
  store: Store,
  version: string,
): Promise<{ maxUnapplied: number; sawWaiting: boolean }> {
  let maxUnapplied = 0;
  let sawWaiting = false;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const c = await census(store, version);
      maxUnapplied = Math.max(maxUnapplied, c.carrying - c.applied);
      if (c.carrying < CLUSTERS.length && c.carrying - c.applied > 0) sawWaiting = true;
      await sleep(2);
    }
  })();
  try {
    await waitFor(
      async () => {
        await agentTick(store);
        await sleep(30); // the agent is not instant: batches show
        const c = await census(store, version);
        return (
          c.summaries === CLUSTERS.length &&
          c.provisioned === CLUSTERS.length &&
          c.applied === CLUSTERS.length
        );
      },
      `every cluster on ${version}`,
      20_000,
      1,
    );
  } finally {
    done = true;
    await sampler;
  }
  return { maxUnapplied, sawWaiting };
}

const progress = async (store: Store) =>
  ((await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))?.['status'] ?? {}) as {
    updatingClusters?: { hash?: string; clusters?: { name: string }[] };
    updatedClusters?: { hash?: string; clusters?: { name: string }[] };
    matchingClusters?: unknown[];
  };

async function changeProfile(store: Store, spec: Record<string, unknown>): Promise<void> {
  const p = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))!;
  await store.update(SVELTOS_RESOURCES.clusterProfiles, {
    ...p,
    spec: { ...(p['spec'] as object), ...spec },
  });
}

describe('maxUpdate: the limit Sveltos reads', () => {
  it('a number is a number of clusters; a string is a percentage of the matching ones, rounded up', () => {
    assert.equal(maxUpdateLimit(3, 10), 3);
    assert.equal(maxUpdateLimit('30%', 10), 3);
    assert.equal(maxUpdateLimit('20%', 10), 2);
    assert.equal(maxUpdateLimit('25%', 10), 3, 'ceil(2.5)');
    assert.equal(maxUpdateLimit('1%', 10), 1, 'ceil(0.1)');
    assert.equal(maxUpdateLimit('100%', 10), 10);
    assert.equal(maxUpdateLimit('50', 10), 5, 'Sveltos reads every string as a percentage');
    assert.equal(maxUpdateLimit(0, 10), 0, '0: no limit');
    assert.equal(maxUpdateLimit('0%', 10), 0, '0%: no limit');
    assert.equal(maxUpdateLimit(undefined, 10), 0, 'unset: no limit');
    assert.equal(maxUpdateLimit('30%', 0), 0);
  });
});

describe('addon-profile controller: maxUpdate', () => {
  const addons = useAddonControllers();
  let store: Store;
  before(async () => {
    store = addons.store;
    for (const v of ['v1', 'v2', 'v3']) await store.create('configmaps', content(v));
    for (const name of CLUSTERS) await createCluster(store, NS, name, { ring: 'all' });
  });

  it('creation is limited too: 3 summaries, the next ones as those are Provisioned', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'app' },
      spec: {
        clusterSelector: { matchLabels: { ring: 'all' } },
        maxUpdate: 3,
        policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'v1' }],
      },
    });
    await waitFor(async () => (await census(store, 'v1')).carrying === 3, 'the first three summaries');
    await sleep(100);
    assert.equal((await census(store, 'v1')).summaries, 3, 'the other seven wait');
    const status = await progress(store);
    assert.equal(status.matchingClusters?.length, 10);
    assert.deepEqual(
      status.updatingClusters?.clusters?.map((c) => c.name),
      CLUSTERS.slice(0, 3),
    );
    assert.deepEqual(status.updatedClusters?.clusters, []);
    assert.equal(status.updatingClusters?.hash, status.updatedClusters?.hash);

    const seen = await rollOut(store, 'v1');
    assert.ok(
      seen.maxUnapplied <= 3,
      `at most 3 summaries without applied content (saw ${seen.maxUnapplied})`,
    );
    await waitFor(async () => (await progress(store)).updatingClusters === undefined, 'the progress cleared');
  });

  it('a profile change reaches 3 clusters at a time; the others keep the old spec meanwhile', async () => {
    await changeProfile(store, { policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'v2' }] });
    await waitFor(async () => (await census(store, 'v2')).carrying === 3, 'the first batch');
    await sleep(100);
    const first = await census(store, 'v2');
    assert.equal(first.carrying, 3, 'no summary beyond the limit while nothing is applied');
    assert.equal(first.provisioned, 0, 'a summary given the new spec is no longer Provisioned');
    assert.equal((await census(store, 'v1')).carrying, 7);
    const status = await progress(store);
    assert.equal(status.updatingClusters?.clusters?.length, 3);
    assert.ok(status.updatingClusters?.hash);

    const seen = await rollOut(store, 'v2');
    assert.ok(
      seen.maxUnapplied <= 3,
      `at most 3 summaries without applied content (saw ${seen.maxUnapplied})`,
    );
    assert.ok(seen.sawWaiting, 'the rollout went in batches');
    await waitFor(async () => (await progress(store)).updatingClusters === undefined, 'the progress cleared');
  });

  it('"20%" of ten clusters is 2 at a time', async () => {
    await changeProfile(store, {
      maxUpdate: '20%',
      policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'v3' }],
    });
    await waitFor(async () => (await census(store, 'v3')).carrying === 2, 'the first batch');
    await sleep(100);
    assert.equal((await census(store, 'v3')).carrying, 2);
    const seen = await rollOut(store, 'v3');
    assert.ok(
      seen.maxUnapplied <= 2,
      `at most 2 summaries without applied content (saw ${seen.maxUnapplied})`,
    );
    assert.ok(seen.sawWaiting);
  });

  it('without maxUpdate every summary gets the change at once', async () => {
    const p = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'app'))!;
    const { maxUpdate: _dropped, ...spec } = p['spec'] as Record<string, unknown>;
    await store.update(SVELTOS_RESOURCES.clusterProfiles, {
      ...p,
      spec: { ...spec, policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'v1' }] },
    });
    await waitFor(async () => (await census(store, 'v1')).carrying === 10, 'all ten at once');
    assert.equal((await progress(store)).updatingClusters, undefined);
  });
});
