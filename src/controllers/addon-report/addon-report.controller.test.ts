// The report controller with the profile and summary controllers on a real store: a DryRun profile's work
// gets a ClusterReport named and labelled as Sveltos's; the agent's dry-run answer (written here as the
// agent would) becomes resourceReports; the report goes when the profile stops being a dry run or is gone.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SVELTOS_API_VERSION, SVELTOS_RESOURCES } from '../../addons/api.js';
import { RESOURCES } from '../../fleet/names.js';
import type { KubeObject, Store } from '../../store/types.js';
import { createCluster, useAddonControllers } from '../testing/addons.js';
import { waitFor } from '../testing/wait.js';
import { PREVIEW_CONTENT, previewProfile } from '../../testing/dryrun-preview.js';
import { addonReportController, desiredReport, resourceReportsOf } from './addon-report.controller.js';

const CAPI_NAME = 'cluster.x-k8s.io/cluster-name';

const T0 = '2026-11-30T00:00:00Z';

function applied(status: string, reason: string, message: string, generation?: number) {
  return {
    type: 'Applied',
    status,
    reason,
    message,
    lastTransitionTime: T0,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

function manifest(ordinal: number, name: string, reason: string, message: string, status = 'True') {
  return {
    resourceMeta: {
      ordinal,
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'apps',
      name,
    },
    conditions: [applied(status, reason, message)],
  };
}

/** What the agent writes after dry-running the work at its current generation. */
function dryRunStatus(generation: number | undefined) {
  return {
    conditions: [applied('True', 'AppliedManifestWorkDryRun', 'Dry run of 2 resources', generation)],
    resourceStatus: {
      manifests: [
        manifest(0, 'settings', 'DryRunUpdate', 'Applying would change data.mode'),
        manifest(1, 'fresh', 'DryRunCreate', 'The object does not exist; applying would create it'),
      ],
      dryRunDeletions: [
        {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          resource: 'deployments',
          namespace: 'apps',
          name: 'old',
        },
      ],
    },
  };
}

const reportName = 'preview--capi--edge-1';
const getReport = (store: Store, name = reportName) =>
  store.get(SVELTOS_RESOURCES.clusterReports, 'team-a', name);
const getWork = (store: Store) =>
  store.get(RESOURCES.manifestWorks, 'team-a', 'preview-capi-edge-1-resources');
const reportsOf = (r: KubeObject | undefined) =>
  (r?.['status'] as { resourceReports?: Record<string, unknown>[] } | undefined)?.resourceReports;

async function writeWorkStatus(store: Store, status: unknown): Promise<void> {
  const work = (await getWork(store))!;
  await store.update(RESOURCES.manifestWorks, { ...work, status }, { subresource: 'status' });
}

async function setSyncMode(store: Store, syncMode: string): Promise<void> {
  const profile = (await store.get(SVELTOS_RESOURCES.clusterProfiles, '', 'preview'))!;
  await store.update(SVELTOS_RESOURCES.clusterProfiles, {
    ...profile,
    spec: { ...(profile['spec'] as object), syncMode },
  });
}

describe('addon-report controller', () => {
  const addons = useAddonControllers((s) => [addonReportController({ store: s })]);
  let store: Store;
  before(async () => {
    store = addons.store;
    await store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'apps', namespace: 'platform' },
      data: { 'apps.yaml': PREVIEW_CONTENT },
    });
    await createCluster(store, 'team-a', 'edge-1', { [CAPI_NAME]: 'edge-1' });
    await store.create(SVELTOS_RESOURCES.clusterProfiles, previewProfile('DryRun'));
  });

  it('a DryRun summary gets a ClusterReport named and labelled as Sveltos’s, empty until the agent answers', async () => {
    const report = await waitFor(() => getReport(store), 'the ClusterReport');
    assert.deepEqual(report.metadata.labels, {
      'projectsveltos.io/cluster-profile-name': 'preview',
      'projectsveltos.io/cluster-name': 'edge-1',
      'projectsveltos.io/cluster-type': 'Capi',
    });
    assert.deepEqual(report['spec'], {
      clusterNamespace: 'team-a',
      clusterName: 'edge-1',
      clusterType: 'Capi',
    });
    assert.deepEqual(
      report.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]),
      [['ClusterSummary', 'preview-capi-edge-1', true]],
    );
    assert.equal(reportsOf(report), undefined);
    assert.equal((await getWork(store))?.metadata.annotations?.['fleethub.io/dry-run'], 'true');
  });

  it('the agent’s dry-run answer becomes resourceReports: Update, Create, and Delete for what it would prune', async () => {
    const work = (await getWork(store))!;
    await writeWorkStatus(store, dryRunStatus(work.metadata.generation));
    const report = await waitFor(async () => {
      const r = await getReport(store);
      return reportsOf(r) ? r : undefined;
    }, 'resourceReports');
    assert.deepEqual(reportsOf(report), [
      {
        resource: { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'settings' },
        action: 'Update',
        message: 'Applying would change data.mode',
      },
      {
        resource: { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'apps', name: 'fresh' },
        action: 'Create',
        message: 'The object does not exist; applying would create it',
      },
      {
        resource: { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'apps', name: 'old' },
        action: 'Delete',
        message: 'No longer in the profile’s content; applying would delete it',
      },
    ]);
    // Level-triggered and idempotent: nothing changes, nothing is written again.
    const rv = report.metadata.resourceVersion;
    await writeWorkStatus(store, dryRunStatus(work.metadata.generation));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await getReport(store))?.metadata.resourceVersion, rv);
  });

  it('an answer for an older generation is not reported: the report waits for the current one', async () => {
    const work = (await getWork(store))!;
    await writeWorkStatus(store, dryRunStatus((work.metadata.generation ?? 1) - 1));
    await waitFor(async () => reportsOf(await getReport(store)) === undefined, 'the stale answer dropped');
  });

  it('switching the profile to Continuous deletes the report; back to DryRun brings it back', async () => {
    await setSyncMode(store, 'Continuous');
    await waitFor(async () => (await getReport(store)) === undefined, 'the report deleted');
    assert.equal((await getWork(store))?.metadata.annotations?.['fleethub.io/dry-run'], undefined);
    await setSyncMode(store, 'DryRun');
    await waitFor(() => getReport(store), 'the report back');
  });

  it('a report whose summary is gone is deleted', async () => {
    // A leftover (say, written before a restart) for a summary that no longer exists.
    await store.create(SVELTOS_RESOURCES.clusterReports, {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterReport',
      metadata: {
        name: 'gone--capi--edge-1',
        namespace: 'team-a',
        ownerReferences: [
          {
            apiVersion: SVELTOS_API_VERSION,
            kind: 'ClusterSummary',
            name: 'gone-capi-edge-1',
            uid: 'x',
            controller: true,
          },
        ],
      },
      spec: { clusterNamespace: 'team-a', clusterName: 'edge-1' },
    });
    await waitFor(
      async () => (await getReport(store, 'gone--capi--edge-1')) === undefined,
      'the leftover deleted',
    );
  });

  it('deleting the profile deletes the report while the summary waits for its work', async () => {
    assert.ok(await getReport(store));
    await store.delete(SVELTOS_RESOURCES.clusterProfiles, '', 'preview');
    await waitFor(async () => (await getReport(store)) === undefined, 'the report deleted');
  });
});

describe('resourceReportsOf', () => {
  const work = (status: unknown): KubeObject => ({
    apiVersion: 'work.open-cluster-management.io/v1',
    kind: 'ManifestWork',
    metadata: { name: 'w', namespace: 'team-a', generation: 3 },
    status,
  });

  it('maps Conflict, No Action and a failed dry run (Error), in manifest order', () => {
    const reports = resourceReportsOf(
      work({
        conditions: [applied('False', 'AppliedManifestWorkFailed', 'Dry run: 1 of 3 manifests failed', 3)],
        resourceStatus: {
          manifests: [
            manifest(0, 'a', 'DryRunConflict', 'The object is deployed by ClusterProfile other (tier 100)'),
            manifest(1, 'b', 'DryRunNoAction', 'Applying would not change the object'),
            manifest(2, 'c', 'AppliedManifestFailed', 'Failed to apply manifest: invalid', 'False'),
          ],
        },
      }),
    );
    assert.deepEqual(
      reports?.map((r) => [r.resource.name, r.action]),
      [
        ['a', 'Conflict'],
        ['b', 'No Action'],
        ['c', 'Error'],
      ],
    );
  });

  it('reads an older agent’s AppliedManifestDryRun by its message and Available condition', () => {
    const legacy = (name: string, message: string, available: string) => ({
      resourceMeta: { ordinal: 0, group: '', version: 'v1', kind: 'ConfigMap', namespace: 'apps', name },
      conditions: [
        applied('True', 'AppliedManifestDryRun', message),
        { type: 'Available', status: available, reason: 'x', message: '', lastTransitionTime: T0 },
      ],
    });
    const reports = resourceReportsOf(
      work({
        conditions: [applied('True', 'AppliedManifestWorkDryRun', 'Dry run', 3)],
        resourceStatus: {
          manifests: [
            legacy('new', 'Dry run: applying would change the resource', 'False'),
            legacy('changed', 'Dry run: applying would change the resource', 'True'),
            legacy('same', 'Dry run: applying would not change the resource', 'True'),
          ],
        },
      }),
    );
    assert.deepEqual(
      reports?.map((r) => r.action),
      ['Create', 'Update', 'No Action'],
    );
  });

  it('a real apply’s status (the work just turned into a dry run) or none at all reports nothing yet', () => {
    assert.equal(resourceReportsOf(work(undefined)), undefined);
    assert.equal(
      resourceReportsOf(
        work({
          conditions: [applied('True', 'AppliedManifestWorkComplete', 'Apply manifest work complete', 3)],
          resourceStatus: {
            manifests: [manifest(0, 'a', 'AppliedManifestComplete', 'Apply manifest complete')],
          },
        }),
      ),
      undefined,
    );
    assert.equal(
      resourceReportsOf(
        work({
          conditions: [applied('False', 'AppliedManifestWorkFailed', 'failed', 3)],
          resourceStatus: {
            manifests: [
              manifest(0, 'a', 'AppliedManifestComplete', 'Apply manifest complete'),
              manifest(1, 'b', 'AppliedManifestFailed', 'Failed', 'False'),
            ],
          },
        }),
      ),
      undefined,
    );
  });

  it('a Profile’s report is p--<profile>--capi--<cluster>, labelled with the profile-name label', () => {
    const summary: KubeObject = {
      apiVersion: SVELTOS_API_VERSION,
      kind: 'ClusterSummary',
      metadata: {
        name: 'p--web-capi-edge-1',
        namespace: 'team-a',
        uid: 'u1',
        labels: {
          'projectsveltos.io/profile-name': 'web',
          'projectsveltos.io/cluster-name': 'edge-1',
          'projectsveltos.io/cluster-type': 'Capi',
        },
      },
      spec: { clusterNamespace: 'team-a', clusterName: 'edge-1', clusterType: 'Capi' },
    };
    const report = desiredReport(summary, work(undefined));
    assert.equal(report.metadata.name, 'p--web--capi--edge-1');
    assert.equal(report.metadata.labels?.['projectsveltos.io/profile-name'], 'web');
    assert.deepEqual(report['status'], {});
  });
});
