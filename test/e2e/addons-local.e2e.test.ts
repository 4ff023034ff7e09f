// deploymentType Local end to end with real processes: a ClusterProfile's Local content lands on the hub
// itself, per matching cluster and templated with it, through the hub's own API (audited); a kind the hub
// does not serve fails the summary with a clear message; deleting the profile removes what it put there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { joinSimCluster } from '../support/join-cluster.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import { type AgentProcess, eventually } from '../support/agents.js';

const NS = 'team-a';

let hub: HubProcess;
let fleet: SimFleetProcess;
const agents: AgentProcess[] = [];

const admin = (args: string[], input?: string): Promise<string> =>
  kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });

function content(name: string, documents: string[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'platform', annotations: { 'projectsveltos.io/template': 'ok' } },
    data: { 'content.yaml': documents.join('---\n') },
  });
}

function localProfile(name: string, ref: string): string {
  return JSON.stringify({
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name },
    spec: {
      clusterSelector: { matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists' }] },
      policyRefs: [{ kind: 'ConfigMap', namespace: 'platform', name: ref, deploymentType: 'Local' }],
    },
  });
}

async function resourcesFeature(summary: string): Promise<string> {
  return admin([
    '-n',
    NS,
    'get',
    'clustersummary',
    summary,
    '-o',
    'jsonpath={.status.featureSummaries[?(@.featureID=="Resources")].status} {.status.featureSummaries[?(@.featureID=="Resources")].failureMessage}',
  ]);
}

before(async () => {
  hub = await startHubProcess();
  fleet = await spawnSimFleet(1, scratchDir('addons-local-fleet-'), { extraArgs: ['--name-prefix', 'l-'] });
  await admin(['create', 'namespace', NS]);
  await admin(['create', 'namespace', 'platform']);
  agents.push(await joinSimCluster(hub, fleet, { name: 'edge-1', namespace: NS, sim: 'l-0001' }));
});

after(async () => {
  for (const a of agents) await a.stop();
  await fleet?.stop();
  await hub?.kill();
});

describe('deploymentType Local', () => {
  test('a ClusterProfile’s Local content lands on the hub, templated per cluster, and goes with it', async () => {
    await admin(
      ['apply', '-f', '-'],
      content('hub-side', [
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inventory-{{ .Cluster.metadata.name }}\n  namespace: platform\ndata:\n  cluster: "{{ .Cluster.metadata.namespace }}/{{ .Cluster.metadata.name }}"\n',
      ]),
    );
    await admin(['apply', '-f', '-'], localProfile('inventory', 'hub-side'));
    const value = await eventually('the ConfigMap on the hub', async () => {
      const r = await kubectl('v35', hub.kubeconfig, [
        '-n',
        'platform',
        'get',
        'configmap',
        'inventory-edge-1',
        '-o',
        'jsonpath={.data.cluster}',
      ]);
      return r.code === 0 && r.stdout !== '' ? r.stdout : undefined;
    });
    assert.equal(value, 'team-a/edge-1');
    await eventually('the summary Provisioned', async () =>
      (await resourcesFeature('inventory-capi-edge-1')).startsWith('Provisioned') ? true : undefined,
    );
    // Nothing of it reached the cluster: the agent never saw the local work.
    const inCluster = await kubectl('v35', fleet.kubeconfig('l-0001'), [
      '-n',
      'platform',
      'get',
      'configmap',
      'inventory-edge-1',
    ]);
    assert.notEqual(inCluster.code, 0);

    await admin(['delete', 'clusterprofile', 'inventory']);
    await eventually('the ConfigMap gone from the hub', async () => {
      const r = await kubectl('v35', hub.kubeconfig, [
        '-n',
        'platform',
        'get',
        'configmap',
        'inventory-edge-1',
      ]);
      return r.code !== 0 && /NotFound|not found/.test(r.stderr) ? true : undefined;
    });
  });

  test('a kind the hub does not serve fails the summary, saying so', async () => {
    await admin(
      ['apply', '-f', '-'],
      content('not-served', [
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: platform\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers: [{name: web, image: nginx}]\n',
      ]),
    );
    await admin(['apply', '-f', '-'], localProfile('not-served', 'not-served'));
    const out = await eventually(
      'the failure in the summary',
      async () => {
        const o = await resourcesFeature('not-served-capi-edge-1');
        return o.startsWith('Failed') ? o : undefined;
      },
      60_000,
    );
    assert.match(
      out,
      /on the hub: .*the hub does not serve apps\/v1 Deployment \(deploymentType Local delivers only kinds the hub serves\)/,
    );
  });

  test('nobody writes a local work through the API, not even the admin', async () => {
    const r = await kubectl('v35', hub.kubeconfig, ['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'work.open-cluster-management.io/v1',
        kind: 'ManifestWork',
        metadata: { name: 'sneaky', namespace: NS, labels: { 'fleethub.io/local': 'true' } },
        spec: { workload: { manifests: [] } },
      }),
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Forbidden|forbidden/);
    assert.match(r.stderr, /fleethub\.io\/local/);
  });
});
