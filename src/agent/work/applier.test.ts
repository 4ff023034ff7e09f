// applyWork, refreshStatus and deleteWork against a simulated cluster over real HTTP (KubeClient):
// strategies, CRDs, feedback, pruning, dry runs, deletion options and drift detection end to end.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimCluster } from '../../sim/cluster.js';
import { SimServer } from '../../sim/server.js';
import { KubeClient } from '../../kube/client.js';
import type { ResourceRef } from '../../kube/types.js';
import type { KubeObject } from '../../store/types.js';
import { ANNOTATION_DRY_RUN } from '../../fleet/names.js';
import { applyWork, deleteWork, refreshStatus, type ApplyOutcome } from './applier.js';
import { isDrift } from './drift.js';
import type { AppliedRecord, ManifestConfigOption, ManifestWork, ManifestWorkStatus } from './types.js';

const CM: ResourceRef = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
const DEPLOY: ResourceRef = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};

function configMap(name: string, data: Record<string, string>, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function deployment(name: string, replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
      },
    },
  };
}

const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

const WIDGET: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default' },
  spec: { size: 3 },
};

let generation = 0;
function work(
  name: string,
  manifests: KubeObject[],
  extra: {
    configs?: ManifestConfigOption[];
    annotations?: Record<string, string>;
    status?: ManifestWorkStatus;
  } = {},
): ManifestWork {
  const w: ManifestWork = {
    apiVersion: 'work.open-cluster-management.io/v1',
    kind: 'ManifestWork',
    metadata: { name, namespace: 'c1', generation: ++generation, annotations: extra.annotations ?? {} },
    spec: { workload: { manifests } },
  };
  if (extra.configs) w.spec.manifestConfigs = extra.configs;
  if (extra.status) w.status = extra.status;
  return w;
}

function cond(conditions: { type: string; status: string }[] | undefined, type: string): string | undefined {
  return conditions?.find((c) => c.type === type)?.status;
}

function manifestCond(outcome: ApplyOutcome | ManifestWorkStatus, ordinal: number, type: string) {
  const status = 'status' in outcome ? outcome.status : outcome;
  return status.resourceStatus?.manifests?.[ordinal]?.conditions.find((c) => c.type === type);
}

describe('ManifestWork applier against a simulated cluster', { concurrency: 1 }, () => {
  let server: SimServer;
  let client: KubeClient;
  let dir: string;

  before(async () => {
    const cluster = await SimCluster.start({
      name: 'c1',
      nodes: 1,
      controllers: {
        podStartDelayMs: 0,
        podStartJitterMs: 100,
        maxGracePeriodMs: 200,
        runOnceDurationMs: 300,
      },
    });
    server = new SimServer({ host: '127.0.0.1', port: 0, single: true });
    server.add(cluster);
    await server.listen();
    dir = mkdtempSync(join(tmpdir(), 'fleethub-work-'));
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, server.kubeconfig('c1'), { mode: 0o600 });
    client = KubeClient.fromKubeconfig(path);
  });

  after(async () => {
    client?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }

  let record: AppliedRecord;
  let full: ManifestWork;

  it('applies a Deployment, a ConfigMap, a CRD and a custom resource of it', async () => {
    full = work('app', [deployment('web', 2), configMap('settings', { mode: 'a' }), CRD, WIDGET], {
      configs: [
        {
          resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'default', name: 'web' },
          feedbackRules: [{ type: 'WellKnownStatus' }],
        },
      ],
    });
    const outcome = await applyWork(client, full);
    assert.deepEqual(
      outcome.manifests.map((m) => [m.meta.kind, m.action, m.error]),
      [
        ['Deployment', 'created', undefined],
        ['ConfigMap', 'created', undefined],
        ['CustomResourceDefinition', 'created', undefined],
        ['Widget', 'created', undefined],
      ],
    );
    assert.equal(cond(outcome.status.conditions, 'Applied'), 'True');
    assert.equal(cond(outcome.status.conditions, 'Available'), 'True');
    assert.equal(cond(outcome.status.conditions, 'Degraded'), 'False');
    const available = outcome.status.conditions?.find((c) => c.type === 'Available');
    assert.equal(available?.message, '4 of 4 resources are available');
    assert.equal(available?.observedGeneration, full.metadata.generation);
    assert.deepEqual(outcome.status.resourceStatus?.manifests?.[3]?.resourceMeta, {
      ordinal: 3,
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      resource: 'widgets',
      name: 'w1',
      namespace: 'default',
    });
    assert.equal(manifestCond(outcome, 0, 'Applied')?.reason, 'AppliedManifestComplete');
    assert.equal(manifestCond(outcome, 0, 'StatusFeedbackSynced')?.status, 'True');
    assert.equal(manifestCond(outcome, 1, 'StatusFeedbackSynced'), undefined);
    assert.equal(outcome.record.resources.length, 4);
    for (const r of outcome.record.resources) assert.ok(r.uid, `${r.kind} has a uid`);
    const cm = await client.get(CM, 'default', 'settings');
    assert.deepEqual(cm?.['data'], { mode: 'a' });
    assert.ok(
      cm?.metadata.managedFields?.some((f) => f.manager === 'fleethub-agent' && f.operation === 'Apply'),
    );
    record = outcome.record;
    full.status = outcome.status;

    // Applying the same work again changes nothing.
    const again = await applyWork(client, full, record);
    assert.deepEqual(
      again.manifests.map((m) => m.action),
      ['unchanged', 'unchanged', 'unchanged', 'unchanged'],
    );
    const t0 = full.status.conditions?.find((c) => c.type === 'Applied')?.lastTransitionTime;
    assert.equal(again.status.conditions?.find((c) => c.type === 'Applied')?.lastTransitionTime, t0);
    record = again.record;
  });

  it('reports the Deployment availableReplicas as feedback once its pods are available', async () => {
    const values = await until('AvailableReplicas=2', async () => {
      const status = await refreshStatus(client, full);
      const v = status.resourceStatus?.manifests?.[0]?.statusFeedback?.values ?? [];
      const ready = v.find((x) => x.name === 'AvailableReplicas');
      return ready?.fieldValue.integer === 2 ? v : undefined;
    });
    assert.deepEqual(
      values.map((v) => [v.name, v.fieldValue.type, v.fieldValue.integer]),
      [
        ['ReadyReplicas', 'Integer', 2],
        ['Replicas', 'Integer', 2],
        ['AvailableReplicas', 'Integer', 2],
      ],
    );
  });

  it('detects drift from a watch event, but not the echo of its own write', async () => {
    const live = (await client.get(DEPLOY, 'default', 'web'))!;
    // Status moved on since the apply (the controllers made pods available): not drift.
    assert.equal(isDrift(full, record, DEPLOY, 'MODIFIED', live).drift, false);
    const patched = await client.patch(DEPLOY, 'default', 'web', 'merge', { spec: { replicas: 5 } });
    const d = isDrift(full, record, DEPLOY, 'MODIFIED', patched);
    assert.equal(d.drift, true);
    assert.equal(d.reason, 'modified');
    const fixed = await applyWork(client, full, record);
    assert.equal(fixed.manifests[0]?.action, 'updated');
    const after = (await client.get(DEPLOY, 'default', 'web'))!;
    assert.equal((after['spec'] as { replicas: number }).replicas, 2);
    record = fixed.record;
    // The event of our own re-apply is an echo.
    assert.equal(isDrift(full, record, DEPLOY, 'MODIFIED', fixed.manifests[0]!.object!).drift, false);
    const off = { metadata: { annotations: { 'fleethub.io/drift-correction': 'false' } } };
    assert.equal(isDrift(off, record, DEPLOY, 'DELETED', after).drift, false);
    assert.equal(isDrift(full, record, DEPLOY, 'DELETED', after).drift, true);
  });

  it('prunes a manifest removed from the work', async () => {
    const smaller = work('app', [deployment('web', 2), CRD, WIDGET], { status: full.status });
    smaller.spec.manifestConfigs = full.spec.manifestConfigs;
    const outcome = await applyWork(client, smaller, record);
    assert.deepEqual(
      outcome.pruned.map((r) => `${r.kind}/${r.name}`),
      ['ConfigMap/settings'],
    );
    assert.equal(await client.get(CM, 'default', 'settings'), undefined);
    assert.equal(outcome.record.resources.length, 3);
    record = outcome.record;
    full = smaller;
    full.status = outcome.status;
  });

  it('does not prune an object a user recreated under the same name (another uid)', async () => {
    const w = work('recreated', [configMap('mine', { v: '1' }), configMap('keep', { v: '1' })]);
    const first = await applyWork(client, w);
    assert.ok(await client.delete(CM, 'default', 'mine'));
    await until('mine gone', async () => ((await client.get(CM, 'default', 'mine')) ? undefined : true));
    const users = await client.create(CM, configMap('mine', { owner: 'user' }));
    const outcome = await applyWork(client, work('recreated', [configMap('keep', { v: '1' })]), first.record);
    assert.deepEqual(outcome.pruned, []);
    assert.deepEqual(
      outcome.skipped.map((r) => r.name),
      ['mine'],
    );
    const still = await client.get(CM, 'default', 'mine');
    assert.equal(still?.metadata.uid, users.metadata.uid);
    assert.deepEqual(still?.['data'], { owner: 'user' });
    assert.deepEqual(
      outcome.record.resources.map((r) => r.name),
      ['keep'],
    );
  });

  it('reports a bad manifest as not applied and applies the others', async () => {
    const w = work('mixed', [
      configMap('good-1', { a: '1' }),
      {
        apiVersion: 'nowhere.example.com/v1',
        kind: 'Nothing',
        metadata: { name: 'x', namespace: 'default' },
      },
      configMap('good-2', { b: '2' }),
    ]);
    const outcome = await applyWork(client, w);
    assert.deepEqual(
      outcome.manifests.map((m) => m.action),
      ['created', 'failed', 'created'],
    );
    const bad = manifestCond(outcome, 1, 'Applied');
    assert.equal(bad?.status, 'False');
    assert.equal(bad?.reason, 'AppliedManifestFailed');
    assert.match(bad?.message ?? '', /Nothing/);
    assert.equal(manifestCond(outcome, 1, 'Available')?.status, 'Unknown');
    assert.equal(cond(outcome.status.conditions, 'Applied'), 'False');
    assert.equal(cond(outcome.status.conditions, 'Degraded'), 'True');
    assert.equal(cond(outcome.status.conditions, 'Available'), 'Unknown');
    assert.ok(await client.get(CM, 'default', 'good-1'));
    assert.ok(await client.get(CM, 'default', 'good-2'));
    assert.equal(outcome.record.resources.length, 2);
  });

  it('CreateOnly creates once and never overwrites', async () => {
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { resource: 'configmaps', namespace: 'default', name: 'seed' },
        updateStrategy: { type: 'CreateOnly' },
      },
    ];
    const first = await applyWork(client, work('seed', [configMap('seed', { v: 'hub-1' })], { configs }));
    assert.equal(first.manifests[0]?.action, 'created');
    await client.patch(CM, 'default', 'seed', 'merge', { data: { v: 'user' } });
    const second = await applyWork(
      client,
      work('seed', [configMap('seed', { v: 'hub-2' })], { configs }),
      first.record,
    );
    assert.equal(second.manifests[0]?.action, 'unchanged');
    assert.equal(manifestCond(second, 0, 'Applied')?.status, 'True');
    assert.deepEqual((await client.get(CM, 'default', 'seed'))?.['data'], { v: 'user' });
  });

  it('ReadOnly only reads, reports feedback, and never creates', async () => {
    const existing = await client.create(CM, configMap('external', { color: 'blue' }));
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { resource: 'configmaps', namespace: 'default', name: 'external' },
        updateStrategy: { type: 'ReadOnly' },
        feedbackRules: [{ type: 'JSONPaths', jsonPaths: [{ name: 'color', path: '.data.color' }] }],
      },
      {
        resourceIdentifier: { resource: 'configmaps', namespace: 'default', name: 'absent' },
        updateStrategy: { type: 'ReadOnly' },
      },
    ];
    const outcome = await applyWork(
      client,
      work('ro', [configMap('external', { color: 'red' }), configMap('absent', { a: '1' })], { configs }),
    );
    assert.equal(outcome.manifests[0]?.action, 'read');
    assert.deepEqual(outcome.status.resourceStatus?.manifests?.[0]?.statusFeedback?.values, [
      { name: 'color', fieldValue: { type: 'String', string: 'blue' } },
    ]);
    const after = await client.get(CM, 'default', 'external');
    assert.equal(after?.metadata.resourceVersion, existing.metadata.resourceVersion);
    assert.deepEqual(after?.['data'], { color: 'blue' });
    assert.equal(outcome.manifests[1]?.action, 'failed');
    assert.equal(manifestCond(outcome, 1, 'Available')?.status, 'False');
    assert.equal(await client.get(CM, 'default', 'absent'), undefined);
    assert.deepEqual(outcome.record.resources, []);
  });

  it('Update merges the manifest over the live object with a PUT', async () => {
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { resource: 'configmaps', namespace: 'default', name: 'upd' },
        updateStrategy: { type: 'Update' },
      },
    ];
    const first = await applyWork(client, work('upd', [configMap('upd', { a: '1' })], { configs }));
    assert.equal(first.manifests[0]?.action, 'created');
    await client.patch(CM, 'default', 'upd', 'merge', { data: { a: 'user', extra: 'x' } });
    const second = await applyWork(
      client,
      work('upd', [configMap('upd', { a: '2' })], { configs }),
      first.record,
    );
    assert.equal(second.manifests[0]?.action, 'updated');
    assert.deepEqual((await client.get(CM, 'default', 'upd'))?.['data'], { a: '2', extra: 'x' });
    const third = await applyWork(
      client,
      work('upd', [configMap('upd', { a: '2' })], { configs }),
      second.record,
    );
    assert.equal(third.manifests[0]?.action, 'unchanged');
  });

  it('ServerSideApply ignoreFields OnSpokePresent leaves a field the cluster changed', async () => {
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'default', name: 'scaled' },
        updateStrategy: {
          type: 'ServerSideApply',
          serverSideApply: { ignoreFields: [{ condition: 'OnSpokePresent', jsonPaths: ['.spec.replicas'] }] },
        },
      },
    ];
    const first = await applyWork(client, work('scaled', [deployment('scaled', 1)], { configs }));
    assert.equal(first.manifests[0]?.action, 'created');
    const live = (await client.get(DEPLOY, 'default', 'scaled'))!;
    assert.equal((live['spec'] as { replicas: number }).replicas, 1);
    await client.patch(
      DEPLOY,
      'default',
      'scaled',
      'merge',
      { spec: { replicas: 3 } },
      { fieldManager: 'hpa' },
    );
    const changed = deployment('scaled', 1);
    (changed.metadata as { labels?: Record<string, string> }).labels = { tier: 'web' };
    const second = await applyWork(client, work('scaled', [changed], { configs }), first.record);
    assert.equal(second.manifests[0]?.action, 'updated');
    const after = (await client.get(DEPLOY, 'default', 'scaled'))!;
    assert.equal((after['spec'] as { replicas: number }).replicas, 3);
    assert.equal(after.metadata.labels?.['tier'], 'web');
  });

  it('ServerSideApply without force reports a field conflict as ApplyConflict', async () => {
    await client.apply(CM, configMap('contested', { k: 'theirs' }), { fieldManager: 'someone-else' });
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { resource: 'configmaps', namespace: 'default', name: 'contested' },
        updateStrategy: { type: 'ServerSideApply', serverSideApply: { force: false } },
      },
    ];
    const outcome = await applyWork(
      client,
      work('contested', [configMap('contested', { k: 'ours' })], { configs }),
    );
    assert.equal(outcome.manifests[0]?.action, 'failed');
    assert.equal(manifestCond(outcome, 0, 'Applied')?.reason, 'ApplyConflict');
    assert.equal(manifestCond(outcome, 0, 'Available')?.status, 'True');
    assert.deepEqual((await client.get(CM, 'default', 'contested'))?.['data'], { k: 'theirs' });
    // The default (force) takes the field over.
    const forced = await applyWork(client, work('contested', [configMap('contested', { k: 'ours' })]));
    assert.equal(forced.manifests[0]?.action, 'updated');
    assert.deepEqual((await client.get(CM, 'default', 'contested'))?.['data'], { k: 'ours' });
  });

  it('a dry run changes nothing and says per manifest: Create, Update (which fields), No Action', async () => {
    await applyWork(
      client,
      work('dry-base', [configMap('dry-same', { k: 'v' }), configMap('dry-old', { k: 'v' })]),
    );
    const base = await applyWork(client, work('dry', [configMap('dry-same', { k: 'v' })]));
    const before = await client.get(CM, 'default', 'dry-same');
    const dry = work(
      'dry',
      [
        configMap('dry-same', { k: 'v' }),
        configMap('dry-changed', { k: 'new' }),
        configMap('dry-old', { k: 'v2' }),
      ],
      { annotations: { [ANNOTATION_DRY_RUN]: 'true' } },
    );
    const outcome = await applyWork(client, dry, base.record);
    assert.equal(outcome.dryRun, true);
    assert.deepEqual(
      outcome.manifests.map((m) => [m.meta.name, m.action, m.wouldChange, m.dryRun?.action]),
      [
        ['dry-same', 'unchanged', false, 'NoAction'],
        ['dry-changed', 'created', true, 'Create'],
        ['dry-old', 'updated', true, 'Update'],
      ],
    );
    assert.deepEqual(
      [0, 1, 2].map((i) => {
        const c = manifestCond(outcome, i, 'Applied');
        return [c?.status, c?.reason, c?.message];
      }),
      [
        ['True', 'DryRunNoAction', 'Applying would not change the object'],
        ['True', 'DryRunCreate', 'The object does not exist; applying would create it'],
        ['True', 'DryRunUpdate', 'Applying would change data.k'],
      ],
    );
    assert.equal(manifestCond(outcome, 1, 'Available')?.status, 'False');
    const applied = outcome.status.conditions?.find((c) => c.type === 'Applied');
    assert.equal(applied?.reason, 'AppliedManifestWorkDryRun');
    assert.equal(applied?.message, 'Dry run of 3 resources: 1 to create, 1 to update, 1 unchanged');
    // Nothing was deleted before, so nothing would be deleted.
    assert.equal(outcome.status.resourceStatus?.dryRunDeletions, undefined);
    assert.equal(await client.get(CM, 'default', 'dry-changed'), undefined);
    assert.deepEqual((await client.get(CM, 'default', 'dry-old'))?.['data'], { k: 'v' });
    assert.equal(
      (await client.get(CM, 'default', 'dry-same'))?.metadata.resourceVersion,
      before?.metadata.resourceVersion,
    );
    assert.deepEqual(outcome.record, base.record);

    // Dropping a manifest in a dry run reports the deletion in status without deleting.
    const dryPrune = work('dry', [configMap('dry-changed', { k: 'new' })], {
      annotations: { [ANNOTATION_DRY_RUN]: 'true' },
    });
    const pruning = await applyWork(client, dryPrune, base.record);
    assert.deepEqual(
      pruning.pruned.map((r) => r.name),
      ['dry-same'],
    );
    assert.deepEqual(pruning.status.resourceStatus?.dryRunDeletions, [
      {
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        namespace: 'default',
        name: 'dry-same',
      },
    ]);
    assert.equal(
      pruning.status.conditions?.find((c) => c.type === 'Applied')?.message,
      'Dry run of 1 resources: 1 to create; 1 to delete',
    );
    assert.ok(await client.get(CM, 'default', 'dry-same'));
    assert.deepEqual(pruning.record, base.record);

    // A status-only refresh keeps the deletions the dry run found (it does not dry-run again).
    const refreshed = await refreshStatus(client, { ...dryPrune, status: pruning.status });
    assert.deepEqual(
      refreshed.resourceStatus?.dryRunDeletions,
      pruning.status.resourceStatus?.dryRunDeletions,
    );
    assert.equal(manifestCond(refreshed, 0, 'Applied')?.reason, 'DryRunCreate');

    // The same change without a previous record (a work that never applied anything) deletes nothing.
    const fresh = await applyWork(client, dryPrune);
    assert.deepEqual(fresh.pruned, []);
    assert.equal(fresh.status.resourceStatus?.dryRunDeletions, undefined);

    // Applied for real, the deletions are gone from status.
    const real = await applyWork(
      client,
      work('dry', [configMap('dry-same', { k: 'v' })], { status: pruning.status }),
      base.record,
    );
    assert.equal(real.status.resourceStatus?.dryRunDeletions, undefined);
    assert.equal(manifestCond(real, 0, 'Applied')?.reason, 'AppliedManifestComplete');
  });

  it('a dry run reports Conflict for an object another Sveltos profile owns, Update when its tier wins', async () => {
    const owned = (name: string, kind: string, owner: string, tier: number, data: Record<string, string>) => {
      const cm = configMap(name, data);
      cm.metadata.annotations = {
        'projectsveltos.io/owner-kind': kind,
        'projectsveltos.io/owner-name': owner,
        'projectsveltos.io/owner-tier': String(tier),
      };
      return cm;
    };
    await client.create(CM, owned('c-theirs', 'ClusterProfile', 'other', 100, { k: 'theirs' }));
    await client.create(CM, owned('c-mine', 'ClusterProfile', 'mine', 100, { k: 'old' }));
    await client.create(CM, configMap('c-unowned', { k: 'someone' }));
    const dry = (tier: number) =>
      work(
        'conflicts',
        [
          owned('c-theirs', 'ClusterProfile', 'mine', tier, { k: 'ours' }),
          owned('c-mine', 'ClusterProfile', 'mine', tier, { k: 'old' }),
          owned('c-unowned', 'ClusterProfile', 'mine', tier, { k: 'ours' }),
        ],
        { annotations: { [ANNOTATION_DRY_RUN]: 'true' } },
      );
    const tie = await applyWork(client, dry(100));
    assert.deepEqual(
      tie.manifests.map((m) => m.dryRun?.action),
      ['Conflict', 'NoAction', 'Update'],
    );
    const conflict = manifestCond(tie, 0, 'Applied');
    assert.equal(conflict?.status, 'True');
    assert.equal(conflict?.reason, 'DryRunConflict');
    assert.match(
      conflict?.message ?? '',
      /deployed by ClusterProfile other \(tier 100\); ClusterProfile mine \(tier 100\)/,
    );
    assert.match(tie.status.conditions?.find((c) => c.type === 'Applied')?.message ?? '', /1 in conflict/);
    assert.match(
      manifestCond(tie, 2, 'Applied')?.message ?? '',
      /^Applying would change data\.k, metadata\.annotations/,
    );

    // A lower tier takes the object over, as in Sveltos: an Update that says so.
    const wins = await applyWork(client, dry(50));
    assert.equal(wins.manifests[0]?.dryRun?.action, 'Update');
    assert.match(
      manifestCond(wins, 0, 'Applied')?.message ?? '',
      /^Applying would take the object over from ClusterProfile other \(tier 100\) and change data\.k/,
    );
    assert.deepEqual((await client.get(CM, 'default', 'c-theirs'))?.['data'], { k: 'theirs' });
  });

  it('deleteWork with Orphan keeps the objects', async () => {
    const outcome = await applyWork(
      client,
      work('orphan', [configMap('o-1', { a: '1' }), configMap('o-2', { a: '2' })]),
    );
    const gone = await deleteWork(client, outcome.record, { propagationPolicy: 'Orphan' });
    assert.equal(gone.orphaned.length, 2);
    assert.deepEqual(gone.deleted, []);
    assert.ok(await client.get(CM, 'default', 'o-1'));
    assert.ok(await client.get(CM, 'default', 'o-2'));
  });

  it('deleteWork with SelectivelyOrphan keeps only the matched objects', async () => {
    const outcome = await applyWork(
      client,
      work('sel', [configMap('s-1', { a: '1' }), configMap('s-2', { a: '2' })]),
    );
    const gone = await deleteWork(client, outcome.record, {
      propagationPolicy: 'SelectivelyOrphan',
      selectivelyOrphans: { orphaningRules: [{ resource: 'configmaps', namespace: 'default', name: 's-1' }] },
    });
    assert.deepEqual(
      gone.orphaned.map((r) => r.name),
      ['s-1'],
    );
    assert.deepEqual(
      gone.deleted.map((r) => r.name),
      ['s-2'],
    );
    assert.ok(await client.get(CM, 'default', 's-1'));
    assert.equal(await client.get(CM, 'default', 's-2'), undefined);
  });

  it('deleteWork with Foreground removes everything and returns when gone', async () => {
    // Records the delete options sent: the simulator's API server does not act on propagationPolicy yet
    // (its GC collects dependents in the background), so Foreground is checked on the wire.
    const policies: (string | undefined)[] = [];
    const spy = Object.create(client) as KubeClient;
    spy.delete = (ref, ns, name, options) => {
      policies.push(options?.propagationPolicy);
      assert.ok(options?.preconditions?.uid, 'a uid precondition is sent');
      return client.delete(ref, ns, name, options);
    };
    const gone = await deleteWork(spy, record, { propagationPolicy: 'Foreground' }, { timeoutMs: 30_000 });
    assert.deepEqual(gone.remaining, []);
    assert.deepEqual(gone.errors, []);
    assert.deepEqual(policies, ['Foreground', 'Foreground', 'Foreground']);
    // Newest first: the custom resource goes before its CRD.
    assert.deepEqual(
      gone.deleted.map((r) => r.kind),
      ['Widget', 'CustomResourceDefinition', 'Deployment'],
    );
    assert.equal(await client.get(DEPLOY, 'default', 'web'), undefined);
    const PODS: ResourceRef = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
    await until('the pods of web gone', async () => {
      const pods = await client.list(PODS, { namespace: 'default', labelSelector: 'app=web' });
      return pods.items.length === 0 ? true : undefined;
    });
  });
});
