// Content Secrets (type addons.projectsveltos.io/cluster-profile) on a real store with both add-on
// controllers: a change of one reaches the summary's ManifestWork by itself (no profile or cluster change),
// and the controllers' caches hold those Secrets only — a thousand Opaque Secrets add nothing to them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { CLUSTER_PROFILE_SECRET_TYPE } from '../../addons/content/sources.js';
import { FLEET_API_VERSION, RESOURCES } from '../../fleet/names.js';
import { builtinKinds } from '../../kinds/builtin/index.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { addonProfileController } from '../addon-profile/addon-profile.controller.js';
import { InformerSet } from '../runtime/informer.js';
import { AGENT_PRESENT } from '../testing/agent.js';
import { waitFor } from '../testing/wait.js';
import { addonSummaryController, CONTENT_SECRETS } from './addon-summary.controller.js';

const NS = 'team-a';
const SUMMARY = 'secret-content-capi-edge-1';
const WORK = `${SUMMARY}-resources`;

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const settings = (value: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: app\ndata:\n  value: ${value}\n`;

function contentSecret(value: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'content', namespace: 'platform' },
    type: CLUSTER_PROFILE_SECRET_TYPE,
    data: { 'settings.yaml': b64(settings(value)) },
  };
}

/** The `value` of the delivered settings ConfigMap, once the work exists. */
async function delivered(store: Store): Promise<string | undefined> {
  const work = await store.get(RESOURCES.manifestWorks, NS, WORK);
  const manifests =
    (work?.['spec'] as { workload?: { manifests?: KubeObject[] } } | undefined)?.workload?.manifests ?? [];
  return (manifests.find((m) => m.metadata.name === 'settings')?.['data'] as { value?: string } | undefined)
    ?.value;
}

async function feature(store: Store): Promise<Record<string, string> | undefined> {
  const s = await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, SUMMARY);
  const status = (s?.['status'] ?? {}) as { featureSummaries?: Record<string, string>[] };
  return status.featureSummaries?.find((f) => f['featureID'] === 'Resources');
}

describe('addon-summary controller: content Secrets', () => {
  let store: Store;
  // The manager's term, by hand: one shared informer set, whose caches the test can inspect.
  let informers: InformerSet;
  const abort = new AbortController();
  let runs: Promise<void>[];
  before(async () => {
    store = await openStore({ url: 'memory:' });
    setMaxListeners(0, abort.signal); // every worker listens on it, as in the manager's term
    informers = new InformerSet(store);
    runs = [
      addonProfileController({ store }).run(informers, abort.signal),
      addonSummaryController({ store, kinds: builtinKinds }).run(informers, abort.signal),
    ];
    informers.start();
    await store.create(RESOURCES.clusters, {
      apiVersion: FLEET_API_VERSION,
      kind: 'Cluster',
      metadata: { name: 'edge-1', namespace: NS, labels: { 'cluster.x-k8s.io/cluster-name': 'edge-1' } },
      spec: {},
      status: AGENT_PRESENT,
    });
  });
  after(async () => {
    abort.abort();
    await Promise.all(runs);
    informers.stop();
    await store.close();
  });

  it('a content Secret created after its profile is delivered', async () => {
    await store.create(SVELTOS_RESOURCES.clusterProfiles, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterProfile',
      metadata: { name: 'secret-content' },
      spec: {
        clusterSelector: {
          matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists', values: [] }],
        },
        policyRefs: [{ kind: 'Secret', namespace: 'platform', name: 'content' }],
      },
    });
    await waitFor(
      async () => (await feature(store))?.['failureReason'] === 'ReferenceNotFound',
      'the missing Secret in status',
    );
    await store.create(RESOURCES.secrets, contentSecret('one'));
    assert.equal(await waitFor(() => delivered(store), 'the work'), 'one');
  });

  it('a change of the Secret’s data reaches the work, with nothing else changing', async () => {
    const summaryBefore = await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, SUMMARY);
    const current = (await store.get(RESOURCES.secrets, 'platform', 'content'))!;
    await store.update(RESOURCES.secrets, { ...current, data: contentSecret('two')['data'] });
    await waitFor(async () => (await delivered(store)) === 'two', 'the changed content in the work');
    const summaryAfter = await store.get(SVELTOS_RESOURCES.clusterSummaries, NS, SUMMARY);
    assert.equal(
      summaryAfter?.metadata.generation,
      summaryBefore?.metadata.generation,
      'the summary’s spec did not change: the Secret’s event did it',
    );
  });

  it('a thousand Opaque Secrets are not cached; the content Secret is, alone', async () => {
    const secretsInformer = informers.informer(RESOURCES.secrets, { filter: CONTENT_SECRETS });
    const filtered = `${RESOURCES.secrets}?${CONTENT_SECRETS.name}`;
    assert.ok(!informers.resources().includes(RESOURCES.secrets), 'no informer holds Secrets unfiltered');
    assert.deepEqual(
      informers.resources().filter((k) => k.includes('?')),
      [filtered],
    );
    /** Objects held by every cache of the two controllers. */
    const cached = (): number =>
      informers
        .resources()
        .filter((k) => k !== filtered)
        .reduce((n, resource) => n + informers.list(resource).length, secretsInformer.list().length);
    const before = cached();
    const lastRV = await store.currentResourceVersion();
    for (let i = 0; i < 1000; i++) {
      await store.create(RESOURCES.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `tenant-${i}`, namespace: `tenant-${i % 10}` },
        type: 'Opaque',
        data: { password: b64(`secret-${i}`.repeat(20)) },
      });
    }
    const created = Number(await store.currentResourceVersion());
    // The informer has seen every one of those events (and dropped them): compare afterwards.
    await waitFor(
      () => Number(secretsInformer.lastSyncResourceVersion()) >= created,
      'the Secrets informer past the writes',
    );
    assert.ok(Number(lastRV) < created);
    assert.deepEqual(
      secretsInformer.list().map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
      ['platform/content'],
    );
    assert.equal(cached(), before, 'the caches hold no more objects than before');
  });

  it('deleting the content Secret is in the summary’s status', async () => {
    await store.delete(RESOURCES.secrets, 'platform', 'content');
    await waitFor(
      async () => (await feature(store))?.['failureReason'] === 'ReferenceNotFound',
      'the deleted Secret in status',
    );
  });
});
