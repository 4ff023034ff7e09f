// Local ManifestWorks on a real in-process hub: a ClusterProfile's summary gets its ConfigMap applied to the
// hub through the hub's API (status Applied True, pruning, Foreground and Orphan deletion); a kind the hub
// does not serve and a Profile's summary are refused in status; the API refuses local works to everyone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import {
  LABEL_CLUSTER_SUMMARY,
  LABEL_LOCAL,
  RESOURCES,
  SYSTEM_NAMESPACE,
  WORK_API_VERSION,
  WORK_CLEANUP_FINALIZER,
} from '../../fleet/names.js';
import { hubConfig } from '../../hub/config.js';
import { startHub, type Hub } from '../../hub/hub.js';
import { KubeClient } from '../../kube/client.js';
import { KubeApiError, type ResourceRef } from '../../kube/types.js';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { findCondition, type Condition } from '../runtime/conditions.js';
import { ControllerManager } from '../runtime/manager.js';
import { sleep, waitFor } from '../testing/wait.js';
import { addonLocalController } from './addon-local.controller.js';
import { recordName } from './record.js';

const NS = 'team-a';
const CONFIGMAPS: ResourceRef = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
const NAMESPACES: ResourceRef = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
const WORKS: ResourceRef = {
  group: 'work.open-cluster-management.io',
  version: 'v1',
  resource: 'manifestworks',
  kind: 'ManifestWork',
  namespaced: true,
};

function configMap(name: string, data: Record<string, string> = { mode: 'on' }): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

async function createSummary(
  store: Store,
  name: string,
  ownerKind: 'ClusterProfile' | 'Profile',
): Promise<void> {
  await store.create(SVELTOS_RESOURCES.clusterSummaries, {
    apiVersion: SVELTOS_API_VERSION,
    kind: 'ClusterSummary',
    metadata: {
      name,
      namespace: NS,
      ownerReferences: [
        {
          apiVersion: SVELTOS_API_VERSION,
          kind: ownerKind,
          name: 'owner',
          uid: `uid-${name}`,
          controller: true,
        },
      ],
    },
    // No such Cluster: the hub's summary controller then only reports ClusterNotFound and leaves works alone.
    spec: { clusterNamespace: NS, clusterName: 'nowhere', clusterType: 'Capi', clusterProfileSpec: {} },
  });
}

function localWork(
  name: string,
  summary: string,
  manifests: KubeObject[],
  deleteOption?: { propagationPolicy: string },
): KubeObject {
  return {
    apiVersion: WORK_API_VERSION,
    kind: 'ManifestWork',
    metadata: {
      name,
      namespace: NS,
      labels: { [LABEL_LOCAL]: 'true', [LABEL_CLUSTER_SUMMARY]: summary, 'fleethub.io/feature': 'Resources' },
      finalizers: [WORK_CLEANUP_FINALIZER],
    },
    spec: { workload: { manifests }, ...(deleteOption ? { deleteOption } : {}) },
  };
}

function appliedOf(work: KubeObject | undefined): Condition | undefined {
  const status = work?.['status'] as { conditions?: Condition[] } | undefined;
  return findCondition(status?.conditions, 'Applied');
}

/** The work once its Applied condition answers its current generation. */
function answered(store: Store, name: string) {
  return async () => {
    const work = await store.get(RESOURCES.manifestWorks, NS, name);
    const applied = appliedOf(work);
    return work && applied?.observedGeneration === work.metadata.generation ? work : undefined;
  };
}

interface TestHub {
  hub: Hub;
  /** The hub's API as its admin. */
  api: KubeClient;
  stop(): Promise<void>;
}

/** An in-process hub on a memory store with namespace team-a, and an admin client of its API. */
async function startTestHub(): Promise<TestHub> {
  const dir = mkdtempSync(join(tmpdir(), 'fleethub-local-'));
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const args = ['--data-dir', dir, '--listen', '127.0.0.1:0', '--database', 'memory:', '--log-level', 'warn'];
  const hub = await startHub(hubConfig(args), { logStream: sink });
  const api = KubeClient.fromKubeconfig(hub.kubeconfigPath);
  await api.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  return {
    hub,
    api,
    stop: async () => {
      api.close();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('local ManifestWorks on a real hub', () => {
  let hub: Hub;
  let api: KubeClient;
  let stop: () => Promise<void>;
  const cm = (name: string) => api.get(CONFIGMAPS, NS, name);
  const put = (work: KubeObject) => hub.store.create(RESOURCES.manifestWorks, work);

  before(async () => {
    ({ hub, api, stop } = await startTestHub());
    await createSummary(hub.store, 'platform-capi-edge-1', 'ClusterProfile');
    await createSummary(hub.store, 'p--tenant-capi-edge-1', 'Profile');
  });

  after(() => stop());

  it('applies a ClusterProfile’s local ConfigMaps to the hub, reports Applied True, prunes, keeps a record', async () => {
    const name = 'platform-capi-edge-1-local';
    await put(localWork(name, 'platform-capi-edge-1', [configMap('hub-settings'), configMap('hub-extra')]));
    const work = await waitFor(answered(hub.store, name), 'the local work applied');
    assert.equal(appliedOf(work)?.status, 'True', JSON.stringify(work['status']));
    assert.deepEqual((await cm('hub-settings'))?.['data'], { mode: 'on' });
    assert.ok(await cm('hub-extra'));
    // The record is kept on the hub, in fleethub-system.
    assert.ok(await hub.store.get(RESOURCES.secrets, SYSTEM_NAMESPACE, recordName(NS, name)));

    // A manifest dropped from the work is pruned from the hub; a changed one is applied.
    const stored = (await hub.store.get(RESOURCES.manifestWorks, NS, name))!;
    await hub.store.update(RESOURCES.manifestWorks, {
      ...stored,
      spec: { workload: { manifests: [configMap('hub-settings', { mode: 'off' })] } },
    });
    await waitFor(async () => (await cm('hub-extra')) === undefined, 'hub-extra pruned');
    await waitFor(async () => (await answered(hub.store, name)()) !== undefined, 'generation 2 answered');
    assert.deepEqual((await cm('hub-settings'))?.['data'], { mode: 'off' });
  });

  it('refuses a kind the hub does not serve, in the manifest’s and the work’s Applied condition', async () => {
    const name = 'platform-capi-edge-1-deploy';
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: { replicas: 1 },
    };
    await put(localWork(name, 'platform-capi-edge-1', [configMap('beside-deploy'), deployment]));
    const work = await waitFor(answered(hub.store, name), 'the work answered');
    const expected =
      'the hub does not serve apps/v1 Deployment (deploymentType Local delivers only kinds the hub serves)';
    const applied = appliedOf(work)!;
    assert.equal(applied.status, 'False');
    assert.ok(applied.message.includes(expected), applied.message);
    const manifests = (work['status'] as { resourceStatus: { manifests: { conditions: Condition[] }[] } })
      .resourceStatus.manifests;
    const perManifest = findCondition(manifests[1]!.conditions, 'Applied')!;
    assert.deepEqual(
      [perManifest.status, perManifest.reason, perManifest.message],
      ['False', 'KindNotServedByHub', expected],
    );
    // The served manifest beside it is applied all the same (errors stay per manifest, as in the agent).
    assert.equal(findCondition(manifests[0]!.conditions, 'Applied')?.status, 'True');
    assert.ok(await cm('beside-deploy'));
  });

  it('applies nothing for a Profile’s summary, or a summary that does not exist: LocalNotAllowed', async () => {
    await put(localWork('p--tenant-capi-edge-1-local', 'p--tenant-capi-edge-1', [configMap('from-tenant')]));
    await put(localWork('ghost-local', 'ghost', [configMap('from-ghost')]));
    const tenant = appliedOf(
      await waitFor(answered(hub.store, 'p--tenant-capi-edge-1-local'), 'tenant work refused'),
    )!;
    assert.deepEqual([tenant.status, tenant.reason], ['False', 'LocalNotAllowed']);
    assert.match(
      tenant.message,
      /belongs to Profile owner, not a ClusterProfile: only a ClusterProfile’s deploymentType Local content/,
    );
    const ghost = appliedOf(await waitFor(answered(hub.store, 'ghost-local'), 'ghost work refused'))!;
    assert.deepEqual([ghost.status, ghost.reason], ['False', 'LocalNotAllowed']);
    assert.match(ghost.message, /ClusterSummary team-a\/ghost does not exist/);
    assert.equal(await cm('from-tenant'), undefined);
    assert.equal(await cm('from-ghost'), undefined);
    // A refused work still goes when deleted (nothing to clean up), and work-release did not take it early.
    await hub.store.delete(RESOURCES.manifestWorks, NS, 'ghost-local');
    await waitFor(
      async () => !(await hub.store.get(RESOURCES.manifestWorks, NS, 'ghost-local')),
      'ghost work gone',
    );
  });

  it('deleting a work deletes what it applied (Foreground) or leaves it (Orphan), then lets the work go', async () => {
    await put(localWork('fg-local', 'platform-capi-edge-1', [configMap('fg')]));
    await put(
      localWork('orphan-local', 'platform-capi-edge-1', [configMap('kept')], { propagationPolicy: 'Orphan' }),
    );
    await waitFor(answered(hub.store, 'fg-local'), 'fg applied');
    await waitFor(answered(hub.store, 'orphan-local'), 'orphan applied');
    assert.ok(await cm('fg'));
    assert.ok(await cm('kept'));
    await hub.store.delete(RESOURCES.manifestWorks, NS, 'fg-local');
    await hub.store.delete(RESOURCES.manifestWorks, NS, 'orphan-local');
    for (const name of ['fg-local', 'orphan-local'])
      await waitFor(async () => !(await hub.store.get(RESOURCES.manifestWorks, NS, name)), `${name} gone`);
    assert.equal(await cm('fg'), undefined, 'Foreground: deleted with the work');
    assert.ok(await cm('kept'), 'Orphan: left on the hub');
    assert.equal(
      await hub.store.get(RESOURCES.secrets, SYSTEM_NAMESPACE, recordName(NS, 'fg-local')),
      undefined,
    );
    assert.equal(
      await hub.store.get(RESOURCES.secrets, SYSTEM_NAMESPACE, recordName(NS, 'orphan-local')),
      undefined,
    );
  });

  it('the API refuses local works to the admin: create, update, delete (403)', async () => {
    const refused = async (write: Promise<unknown>, operation: string) => {
      await assert.rejects(write, (e: unknown) => {
        assert.ok(e instanceof KubeApiError, String(e));
        assert.equal(e.code, 403);
        assert.match(e.message, new RegExp(`labelled fleethub\\.io/local: .*\\(${operation} refused\\)`));
        return true;
      });
    };
    await refused(
      api.create(WORKS, localWork('forged-local', 'platform-capi-edge-1', [configMap('forged')])),
      'create',
    );
    await put(localWork('held-local', 'platform-capi-edge-1', [configMap('held')]));
    const live = await waitFor(answered(hub.store, 'held-local'), 'held applied');
    await refused(api.update(WORKS, { ...live, spec: { workload: { manifests: [] } } }), 'update');
    await refused(api.delete(WORKS, NS, 'held-local'), 'delete');
    assert.equal(await cm('forged'), undefined);
    assert.ok(await hub.store.get(RESOURCES.manifestWorks, NS, 'held-local'));
  });
});

describe('drift on the hub, with a fast resync', () => {
  let hub: Hub;
  let api: KubeClient;
  let stopHub: () => Promise<void>;
  let store: Store;
  let manager: ControllerManager;

  before(async () => {
    ({ hub, api, stop: stopHub } = await startTestHub());
    // The works live in a store of their own (the hub's own controller never sees them); the objects go to
    // the hub through its API, as in production.
    store = await openStore({ url: 'memory:' });
    manager = new ControllerManager({ store, leaderElection: false });
    manager.add(
      addonLocalController({ store, client: KubeClient.fromKubeconfig(hub.kubeconfigPath), resyncMs: 100 }),
    );
    manager.start();
    await createSummary(store, 'platform-capi-edge-1', 'ClusterProfile');
  });

  after(async () => {
    await manager.stop();
    await store.close();
    await stopHub();
  });

  it('puts back a ConfigMap changed or deleted on the hub; not with drift correction off', async () => {
    await store.create(
      RESOURCES.manifestWorks,
      localWork('drift-local', 'platform-capi-edge-1', [configMap('watched')]),
    );
    const off = localWork('still-local', 'platform-capi-edge-1', [configMap('unwatched')]);
    off.metadata.annotations = { 'fleethub.io/drift-correction': 'false' };
    await store.create(RESOURCES.manifestWorks, off);
    await waitFor(answered(store, 'drift-local'), 'applied');
    await waitFor(answered(store, 'still-local'), 'applied');

    const live = (await api.get(CONFIGMAPS, NS, 'watched'))!;
    await api.update(CONFIGMAPS, { ...live, data: { mode: 'tampered' } });
    await waitFor(
      async () => ((await api.get(CONFIGMAPS, NS, 'watched'))?.['data'] as { mode?: string })?.mode === 'on',
      'the change put back',
    );
    await api.delete(CONFIGMAPS, NS, 'watched');
    await waitFor(
      async () => (await api.get(CONFIGMAPS, NS, 'watched')) !== undefined,
      'the ConfigMap put back',
    );

    await api.delete(CONFIGMAPS, NS, 'unwatched');
    await sleep(500);
    assert.equal(await api.get(CONFIGMAPS, NS, 'unwatched'), undefined, 'drift correction off: left as is');
  });
});
