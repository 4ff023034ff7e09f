// syncMode DryRun end to end with real processes: a DryRun ClusterProfile over a cluster where one of its
// ConfigMaps exists with other data and one does not yields a ClusterReport listing Update and Create,
// while kubectl shows nothing changed in the cluster; switching to Continuous applies and drops the report;
// back to DryRun, dropping an object from the content reports its Delete and deletes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import { type AgentProcess, eventually } from '../support/agents.js';
import { joinSimCluster } from '../support/join-cluster.js';
import { PREVIEW_CONTENT, previewProfile } from '../../src/testing/dryrun-preview.js';

const NS = 'team-a';
const SIM = 'dry-0001';
const REPORT = 'preview--capi--edge-1';

let hub: HubProcess;
let fleet: SimFleetProcess;
let agent: AgentProcess | undefined;

const admin = (args: string[], input?: string): Promise<string> =>
  kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });
const inCluster = (args: string[]) => kubectl('v35', fleet.kubeconfig(SIM), args);

/** `data.mode` of ConfigMap apps/<name> in the cluster; undefined when it does not exist. */
async function modeOf(name: string): Promise<string | undefined> {
  const r = await inCluster(['-n', 'apps', 'get', 'configmap', name, '-o', 'jsonpath={.data.mode}']);
  if (r.code !== 0) {
    assert.match(r.stderr, /NotFound|not found/, r.stderr);
    return undefined;
  }
  return r.stdout;
}

interface ResourceReport {
  resource: { kind: string; namespace?: string; name: string };
  action: string;
  message?: string;
}

async function report(): Promise<{ spec: Record<string, string>; reports?: ResourceReport[] } | undefined> {
  const r = await kubectl('v35', hub.kubeconfig, ['-n', NS, 'get', 'clusterreport', REPORT, '-o', 'json']);
  if (r.code !== 0) {
    assert.match(r.stderr, /NotFound|not found/, r.stderr);
    return undefined;
  }
  const obj = JSON.parse(r.stdout) as {
    spec: Record<string, string>;
    status?: { resourceReports?: ResourceReport[] };
  };
  return { spec: obj.spec, ...(obj.status?.resourceReports ? { reports: obj.status.resourceReports } : {}) };
}

const profile = (syncMode: string): string => JSON.stringify(previewProfile(syncMode));

/** Creates or replaces ConfigMap platform/apps on the hub: the profile's content. */
async function setContent(text: string): Promise<void> {
  const cm = await admin([
    '-n',
    'platform',
    'create',
    'configmap',
    'apps',
    '--from-literal',
    `apps.yaml=${text}`,
    '--dry-run=client',
    '-o',
    'json',
  ]);
  await admin(['apply', '-f', '-'], cm);
}

before(async () => {
  [hub, fleet] = await Promise.all([
    startHubProcess(),
    spawnSimFleet(1, scratchDir('dryrun-e2e-fleet-'), { extraArgs: ['--name-prefix', 'dry-'] }),
  ]);
  for (const ns of [NS, 'platform']) await admin(['create', 'namespace', ns]);
  agent = await joinSimCluster(hub, fleet, { name: 'edge-1', namespace: NS, sim: SIM });
  await setContent(PREVIEW_CONTENT);
  // In the cluster: the namespace, and `settings` with other data than the profile's.
  for (const args of [
    ['create', 'namespace', 'apps'],
    ['-n', 'apps', 'create', 'configmap', 'settings', '--from-literal', 'mode=green'],
  ]) {
    const r = await inCluster(args);
    assert.equal(r.code, 0, r.stderr);
  }
});

after(async () => {
  await agent?.stop();
  await fleet?.stop();
  await hub?.kill();
});

describe('DryRun and ClusterReport', () => {
  test('a DryRun profile reports Update and Create and changes nothing in the cluster', async () => {
    await admin(['apply', '-f', '-'], profile('DryRun'));
    const found = await eventually(
      'the ClusterReport with the dry run’s answer',
      async () => {
        const r = await report();
        return r?.reports && r.reports.length === 2 ? r : undefined;
      },
      30_000,
    );
    assert.deepEqual(found.spec, { clusterNamespace: NS, clusterName: 'edge-1', clusterType: 'Capi' });
    assert.deepEqual(
      found.reports?.map((r) => [r.resource.kind, r.resource.namespace, r.resource.name, r.action]),
      [
        ['ConfigMap', 'apps', 'settings', 'Update'],
        ['ConfigMap', 'apps', 'fresh', 'Create'],
      ],
    );
    assert.match(found.reports?.[0]?.message ?? '', /data\.mode/);
    // kubectl in the cluster: nothing changed.
    assert.equal(await modeOf('settings'), 'green');
    assert.equal(await modeOf('fresh'), undefined);
    // The listing shows the cluster and how many objects the report lists.
    const table = await admin(['-n', NS, 'get', 'clusterreports']);
    assert.match(table, new RegExp(`${REPORT}\\s+edge-1\\s+2\\s`));
  });

  test('switching to Continuous applies the content and deletes the report', async () => {
    await admin(['apply', '-f', '-'], profile('Continuous'));
    await eventually(
      'settings applied',
      async () => ((await modeOf('settings')) === 'blue' ? true : undefined),
      30_000,
    );
    assert.equal(await eventually('fresh created', () => modeOf('fresh'), 30_000), 'new');
    await eventually('the report deleted', async () => ((await report()) === undefined ? true : undefined));
  });

  test('back to DryRun at the same content: No Action; content that drops an object: Delete, nothing deleted', async () => {
    // Only the work's annotation changes (no new generation): the agent must still dry-run it.
    await admin(['apply', '-f', '-'], profile('DryRun'));
    const same = await eventually(
      'a report of no changes',
      async () => {
        const r = await report();
        return r?.reports?.length === 2 && r.reports.every((x) => x.action === 'No Action') ? r : undefined;
      },
      30_000,
    );
    assert.deepEqual(
      same.reports?.map((r) => r.resource.name),
      ['settings', 'fresh'],
    );
    const onlySettings = PREVIEW_CONTENT.slice(0, PREVIEW_CONTENT.indexOf('---')).replace(
      'mode: blue',
      'mode: red',
    );
    await setContent(onlySettings);
    const dropped = await eventually(
      'a report with the deletion',
      async () => {
        const r = await report();
        return r?.reports?.some((x) => x.action === 'Delete') ? r : undefined;
      },
      30_000,
    );
    assert.deepEqual(
      dropped.reports?.map((r) => [r.resource.name, r.action]),
      [
        ['settings', 'Update'],
        ['fresh', 'Delete'],
      ],
    );
    assert.equal(await modeOf('settings'), 'blue');
    assert.equal(await modeOf('fresh'), 'new');
  });

  test('deleting the DryRun profile changes nothing in the cluster, and its report goes', async () => {
    await admin(['delete', 'clusterprofile', 'preview']);
    await eventually('the report deleted', async () => ((await report()) === undefined ? true : undefined));
    await eventually('the summary gone', async () => {
      const out = await admin(['-n', NS, 'get', 'clustersummaries', '-o', 'name']);
      return out.trim() === '' ? true : undefined;
    });
    assert.equal(await modeOf('settings'), 'blue');
    assert.equal(await modeOf('fresh'), 'new');
  });
});
