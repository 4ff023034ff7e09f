// Tiers and stop-matching end to end with real processes (hub, sim cluster, agent, kubectl): a platform
// ClusterProfile with a low tier takes an object a tenant Profile delivered, the tenant's summary names the
// winner, removing the winner hands the object back without it ever leaving the cluster, and a relabelled
// cluster loses what it no longer matches (WithdrawPolicies) or keeps it (LeavePolicies).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { joinSimCluster } from '../support/join-cluster.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import { type AgentProcess, eventually } from '../support/agents.js';

const NS = 'team-a';
const SIM = 't-0001';

let hub: HubProcess;
let fleet: SimFleetProcess;
const agents: AgentProcess[] = [];

const admin = (args: string[], input?: string): Promise<string> =>
  kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });

/** A ConfigMap on the hub holding `objects` (YAML documents) for a policyRef. */
function contentConfigMap(name: string, namespace: string, objects: string[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { 'content.yaml': objects.join('---\n') },
  });
}
const namespaceYaml = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
const settingsYaml = (namespace: string, from: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  from: ${from}\n`;

interface Live {
  uid: string;
  from: string;
  owner: string;
}

/** The `settings` ConfigMap in the sim cluster: its uid, what it says and who owns it; undefined if absent. */
async function settingsIn(namespace: string): Promise<Live | undefined> {
  const r = await kubectl('v35', fleet.kubeconfig(SIM), [
    '-n',
    namespace,
    'get',
    'configmap',
    'settings',
    '-o',
    'json',
    '--ignore-not-found',
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
  if (r.stdout.trim() === '') return undefined;
  const cm = JSON.parse(r.stdout) as {
    metadata: { uid: string; annotations?: Record<string, string> };
    data?: Record<string, string>;
  };
  return {
    uid: cm.metadata.uid,
    from: cm.data?.['from'] ?? '',
    owner: `${cm.metadata.annotations?.['projectsveltos.io/owner-kind']}/${cm.metadata.annotations?.['projectsveltos.io/owner-name']}`,
  };
}

async function summaryFeature(name: string): Promise<string> {
  return admin([
    '-n',
    NS,
    'get',
    'clustersummary',
    name,
    '-o',
    'jsonpath={.status.featureSummaries[?(@.featureID=="Resources")].status} {.status.featureSummaries[?(@.featureID=="Resources")].failureMessage}',
  ]);
}

before(async () => {
  hub = await startHubProcess();
  fleet = await spawnSimFleet(1, scratchDir('addons-tiers-fleet-'), { extraArgs: ['--name-prefix', 't-'] });
  await admin(['create', 'namespace', NS]);
  await admin(['create', 'namespace', 'platform']);
  agents.push(await joinSimCluster(hub, fleet, { name: 'edge-1', namespace: NS, sim: SIM }));
  await admin(['-n', NS, 'label', 'cluster', 'edge-1', 'addons=on']);
});

after(async () => {
  for (const a of agents) await a.stop();
  await fleet?.stop();
  await hub?.kill();
});

describe('tiers and stop-matching', () => {
  let first: Live;

  test('the tenant Profile delivers first', async () => {
    await admin(
      ['apply', '-f', '-'],
      contentConfigMap('tenant-content', NS, [namespaceYaml('app'), settingsYaml('app', 'tenant')]),
    );
    await admin(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'config.projectsveltos.io/v1beta1',
        kind: 'Profile',
        metadata: { name: 'tenant', namespace: NS },
        spec: {
          clusterSelector: { matchLabels: { addons: 'on' } },
          continueOnConflict: true,
          policyRefs: [{ kind: 'ConfigMap', name: 'tenant-content' }],
        },
      }),
    );
    first = await eventually('the tenant’s settings in the cluster', async () => {
      const live = await settingsIn('app');
      return live?.from === 'tenant' ? live : undefined;
    });
    assert.equal(first.owner, 'Profile/tenant');
  });

  test('a platform ClusterProfile with a lower tier takes the object; the tenant summary names it', async () => {
    await admin(
      ['apply', '-f', '-'],
      contentConfigMap('platform-settings', 'platform', [settingsYaml('app', 'platform')]),
    );
    await admin(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'config.projectsveltos.io/v1beta1',
        kind: 'ClusterProfile',
        metadata: { name: 'platform' },
        spec: {
          clusterSelector: {
            matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists' }],
          },
          tier: 10,
          syncMode: 'ContinuousWithDriftDetection',
          policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: 'platform-settings' }],
        },
      }),
    );
    const taken = await eventually('the platform’s settings in the cluster', async () => {
      const live = await settingsIn('app');
      return live?.from === 'platform' ? live : undefined;
    });
    assert.equal(taken.owner, 'ClusterProfile/platform');
    assert.equal(taken.uid, first.uid, 'taken over in place, not deleted and created again');
    assert.equal(
      await eventually('the conflict in the tenant summary', async () => {
        const out = await summaryFeature('p--tenant-capi-edge-1');
        return out.startsWith('Failed') ? out : undefined;
      }),
      "Failed ConfigMap app/settings is managed by ClusterProfile platform: its tier 10 is lower than this profile's 100",
    );
    await eventually('the platform summary Provisioned', async () =>
      (await summaryFeature('platform-capi-edge-1')).startsWith('Provisioned') ? true : undefined,
    );
  });

  test('removing the winner hands the object back without it leaving the cluster', async () => {
    await admin(['delete', 'clusterprofile', 'platform', '--wait=false']);
    // Watch the object through the hand-over: it must be there at every look, always the same object.
    const seen: (Live | undefined)[] = [];
    const back = await eventually('the tenant’s settings back', async () => {
      const live = await settingsIn('app');
      seen.push(live);
      return live?.from === 'tenant' ? live : undefined;
    });
    assert.ok(
      seen.every((l) => l?.uid === first.uid),
      `the object never went away: ${JSON.stringify(seen)}`,
    );
    assert.equal(back.owner, 'Profile/tenant');
    await eventually('the tenant summary Provisioned again', async () =>
      (await summaryFeature('p--tenant-capi-edge-1')).startsWith('Provisioned') ? true : undefined,
    );
    await eventually('the platform profile gone', async () => {
      const r = await kubectl('v35', hub.kubeconfig, ['get', 'clusterprofile', 'platform']);
      return r.code !== 0 && /NotFound|not found/.test(r.stderr) ? true : undefined;
    });
  });

  test('a relabelled cluster: WithdrawPolicies removes what was delivered, LeavePolicies leaves it', async () => {
    await admin(
      ['apply', '-f', '-'],
      contentConfigMap('kept-content', NS, [namespaceYaml('kept'), settingsYaml('kept', 'kept')]),
    );
    await admin(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'config.projectsveltos.io/v1beta1',
        kind: 'Profile',
        metadata: { name: 'kept', namespace: NS },
        spec: {
          clusterSelector: { matchLabels: { addons: 'on' } },
          stopMatchingBehavior: 'LeavePolicies',
          policyRefs: [{ kind: 'ConfigMap', name: 'kept-content' }],
        },
      }),
    );
    await eventually('the kept settings in the cluster', async () =>
      (await settingsIn('kept'))?.from === 'kept' ? true : undefined,
    );

    await admin(['-n', NS, 'label', 'cluster', 'edge-1', 'addons-']);
    await eventually('the tenant’s objects withdrawn', async () => {
      const ns = await kubectl('v35', fleet.kubeconfig(SIM), [
        'get',
        'namespace',
        'app',
        '--ignore-not-found',
      ]);
      return (await settingsIn('app')) === undefined && ns.stdout.trim() === '' ? true : undefined;
    });
    await eventually('both summaries gone', async () => {
      const out = await admin(['-n', NS, 'get', 'clustersummaries', '-o', 'name']);
      return out.trim() === '' ? true : undefined;
    });
    assert.equal((await settingsIn('kept'))?.from, 'kept', 'LeavePolicies: left in the cluster');
    const profile = JSON.parse(await admin(['-n', NS, 'get', 'profile', 'tenant', '-o', 'json'])) as {
      status?: { matchingClusters?: unknown[] };
    };
    assert.deepEqual(profile.status?.matchingClusters ?? [], []);
  });
});
