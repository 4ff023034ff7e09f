// Add-on delivery end to end with real processes: the seed's flannel ClusterProfile (its remoteURL pointed
// at a loopback copy) reaches every joined cluster through its agent, each with its own pod CIDR, a cluster
// joined later gets it too, and a ConfigMap a tenant deletes in the cluster comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { FLANNEL_MANIFEST, seedFlannelProfile } from '../../src/testing/flannel-seed.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import {
  type AgentProcess,
  conditionOf,
  eventually,
  joinTokenOf,
  spawnAgentProcess,
} from '../support/agents.js';

const NS = 'team-a';
const LEASE_SECONDS = 2;

let hub: HubProcess;
let fleet: SimFleetProcess;
let upstream: Server;
let upstreamUrl: string;
let fetches = 0;
const agents: AgentProcess[] = [];

async function admin(args: string[], input?: string): Promise<string> {
  return kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });
}

/** Joins sim cluster `simName` as Cluster `name` with its own pod CIDR, through its own agent process. */
async function joinCluster(name: string, simName: string, podCidr: string): Promise<void> {
  await admin(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'fleet.fleethub.io/v1alpha1',
      kind: 'FleetClusterJoin',
      metadata: { name, namespace: NS },
      spec: {
        clusterName: name,
        site: 'berlin',
        clusterNetwork: { pods: { cidrBlocks: [podCidr] }, services: { cidrBlocks: ['10.96.0.0/12'] } },
      },
    }),
  );
  const token = await joinTokenOf(hub.kubeconfig, NS, name);
  agents.push(
    spawnAgentProcess({
      hubUrl: hub.url,
      caFile: join(hub.dataDir, 'pki', 'ca.crt'),
      stateDir: scratchDir(`addons-agent-${name}-`),
      kubeconfig: fleet.kubeconfig(simName),
      leaseSeconds: LEASE_SECONDS,
      token: { env: token },
    }),
  );
  await eventually(`Cluster ${name} Available`, async () => {
    const c = JSON.parse(await admin(['-n', NS, 'get', 'cluster', name, '-o', 'json'])) as Record<
      string,
      unknown
    >;
    return conditionOf(c, 'Available')?.status === 'True' ? true : undefined;
  });
}

/** The Network flannel will use in a sim cluster, read with kubectl from the delivered ConfigMap. */
async function flannelNetwork(simName: string): Promise<string | undefined> {
  const r = await kubectl('v35', fleet.kubeconfig(simName), [
    '-n',
    'kube-flannel',
    'get',
    'configmap',
    'kube-flannel-cfg',
    '-o',
    'jsonpath={.data.net-conf\\.json}',
  ]);
  if (r.code !== 0 || !r.stdout) return undefined;
  return (JSON.parse(r.stdout) as { Network: string }).Network;
}

before(async () => {
  upstream = createServer((req, res) => {
    fetches++;
    if (req.url !== '/kube-flannel.yml') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/yaml', ETag: '"v0.28.2"' }).end(FLANNEL_MANIFEST);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/kube-flannel.yml`;
  hub = await startHubProcess();
  fleet = await spawnSimFleet(3, scratchDir('addons-e2e-fleet-'), { extraArgs: ['--name-prefix', 'a-'] });
  await admin(['create', 'namespace', NS]);
});

after(async () => {
  for (const a of agents) await a.stop();
  await fleet?.stop();
  await hub?.kill();
  upstream?.close();
});

describe('add-on delivery', () => {
  test('the seed flannel profile reaches every cluster with its own pod CIDR, and one joined later', async () => {
    await joinCluster('edge-1', 'a-0001', '10.1.0.0/16');
    await joinCluster('edge-2', 'a-0002', '10.2.0.0/16');
    await admin(['apply', '-f', '-'], seedFlannelProfile(upstreamUrl));
    for (const [sim, cidr] of [
      ['a-0001', '10.1.0.0/16'],
      ['a-0002', '10.2.0.0/16'],
    ] as const)
      assert.equal(await eventually(`flannel on ${sim}`, () => flannelNetwork(sim), 30_000), cidr);

    // The summary says so, as Sveltos's docs read it.
    await eventually('the summary Provisioned', async () => {
      const out = await admin([
        'get',
        'clustersummary',
        'flannel-cni-capi-edge-1',
        '-n',
        NS,
        '-o',
        'jsonpath={.status.featureSummaries[*].status}{"\\n"}{.status.deployedGVKs[*].deployedGroupVersionKind}',
      ]);
      return out.startsWith('Provisioned\n') && out.includes('ConfigMap.v1.') ? out : undefined;
    });
    // Fetched once for the fleet, not once per cluster.
    assert.equal(fetches, 1);

    await joinCluster('edge-3', 'a-0003', '10.3.0.0/16');
    assert.equal(
      await eventually('flannel on the new cluster', () => flannelNetwork('a-0003'), 30_000),
      '10.3.0.0/16',
    );
  });

  test('a ConfigMap deleted in the cluster comes back (ContinuousWithDriftDetection)', async () => {
    await kubectlOk('v35', fleet.kubeconfig('a-0002'), [
      '-n',
      'kube-flannel',
      'delete',
      'configmap',
      'kube-flannel-cfg',
    ]);
    const deleted = Date.now();
    assert.equal(
      await eventually('the ConfigMap back', () => flannelNetwork('a-0002'), 10_000),
      '10.2.0.0/16',
    );
    assert.ok(Date.now() - deleted < 10_000);
  });
});
