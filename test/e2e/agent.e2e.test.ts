// Agents end to end with real processes: a hub, a simulated fleet and `fleethub agent` processes. Joining
// through FleetClusterJoin, facts, ManifestWork delivery with feedback, drift correction, pruning, deletion,
// confinement between clusters, bad tokens, a hub outage and an agent that stops.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { rssBytes, spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import {
  type AgentProcess,
  conditionOf,
  eventually,
  joinTokenOf,
  spawnAgentProcess,
} from '../support/agents.js';
import { renderKubeconfig } from '../../src/security/kubeconfig.js';

const NS = 'team-a';
const LEASE_SECONDS = 2;

let hub: HubProcess;
let fleet: SimFleetProcess;
const agents = new Map<string, AgentProcess>();

function startAgent(cluster: string, stateDir: string, token?: string, hubUrl = hub.url): AgentProcess {
  return spawnAgentProcess({
    hubUrl,
    caFile: join(hub.dataDir, 'pki', 'ca.crt'),
    stateDir,
    kubeconfig: fleet.kubeconfig(cluster),
    leaseSeconds: LEASE_SECONDS,
    ...(token !== undefined ? { token: { env: token } } : {}),
  });
}

async function admin(args: string[], input?: string): Promise<string> {
  return kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });
}

async function getJson(args: string[], kubeconfig = hub.kubeconfig): Promise<Record<string, unknown>> {
  return JSON.parse(await kubectlOk('v35', kubeconfig, [...args, '-o', 'json'])) as Record<string, unknown>;
}

function condition(obj: Record<string, unknown>, type: string): string | undefined {
  return conditionOf(obj, type)?.status;
}

/** A status feedback value of one manifest of a work, as OCM reports it. */
function feedbackValue(
  work: Record<string, unknown>,
  group: string,
  resource: string,
  name: string,
  valueName: string,
): unknown {
  type Manifest = {
    resourceMeta: { group: string; resource: string; name: string };
    statusFeedback?: { values?: { name: string; fieldValue: Record<string, unknown> }[] };
  };
  const manifests = ((work['status'] as { resourceStatus?: { manifests?: Manifest[] } } | undefined)
    ?.resourceStatus?.manifests ?? []) as Manifest[];
  const m = manifests.find(
    (x) =>
      x.resourceMeta.group === group && x.resourceMeta.resource === resource && x.resourceMeta.name === name,
  );
  const v = m?.statusFeedback?.values?.find((x) => x.name === valueName)?.fieldValue;
  return v === undefined ? undefined : (v['integer'] ?? v['string'] ?? v['boolean'] ?? v['jsonRaw']);
}

async function joinToken(name: string): Promise<string> {
  return joinTokenOf(hub.kubeconfig, NS, name);
}

async function createJoin(name: string, cluster: string, site: string): Promise<void> {
  await admin(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'fleet.fleethub.io/v1alpha1',
      kind: 'FleetClusterJoin',
      metadata: { name, namespace: NS },
      spec: { clusterName: cluster, site, labels: { env: 'test' } },
    }),
  );
}

/** A kubeconfig that authenticates to the hub with an agent's own certificate. */
function agentKubeconfig(agent: AgentProcess, name: string): string {
  const dir = scratchDir('agent-kubeconfig-');
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    path,
    renderKubeconfig({
      server: hub.url,
      caPem: hub.caPem,
      clientCertPem: readFileSync(join(agent.stateDir, 'client.crt'), 'utf8'),
      clientKeyPem: readFileSync(join(agent.stateDir, 'client.key'), 'utf8'),
      user: name,
      context: name,
    }),
  );
  return path;
}

const work = (manifests: unknown[], extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: 'work.open-cluster-management.io/v1',
    kind: 'ManifestWork',
    metadata: { name: 'app', namespace: NS, labels: { 'fleethub.io/cluster': 'alpha' } },
    spec: {
      workload: { manifests },
      manifestConfigs: [
        {
          resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'default', name: 'web' },
          feedbackRules: [{ type: 'WellKnownStatus' }],
        },
      ],
      ...extra,
    },
  });

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    },
  },
};
const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'default' },
  data: { a: '1' },
};
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
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
const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default' },
  spec: { size: 3 },
};

before(async () => {
  hub = await startHubProcess();
  fleet = await spawnSimFleet(2, scratchDir('agent-e2e-fleet-'), { extraArgs: ['--name-prefix', 'c-'] });
  await admin(['create', 'namespace', NS]);
});

after(async () => {
  for (const a of agents.values()) await a.stop();
  await fleet?.stop();
  await hub?.kill();
});

describe('agents', () => {
  test('join: the token becomes a certificate, the Cluster appears Available with facts', async () => {
    await createJoin('alpha', 'alpha', 'berlin');
    const joinObj = await eventually('the join to be Ready', async () => {
      const j = await getJson(['-n', NS, 'get', 'fleetclusterjoin', 'alpha']);
      return (j['status'] as { command?: string } | undefined)?.command ? j : undefined;
    });
    const command = (joinObj['status'] as { command: string }).command;
    assert.match(command, /fleethub agent --hub https:\/\//);
    const token = await joinToken('alpha');
    assert.equal(command.includes(token), false, 'the token is never in status');
    const agent = startAgent('c-0001', scratchDir('agent-alpha-'), token);
    agents.set('alpha', agent);
    const cluster = await eventually('Cluster alpha Available', async () => {
      const c = await getJson(['-n', NS, 'get', 'cluster', 'alpha']);
      return condition(c, 'Available') === 'True' ? c : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}\nagent output:\n${agent.output().slice(-4000)}`);
    });
    const status = cluster['status'] as {
      kubernetesVersion: string;
      nodeCount: number;
      capabilities: { apiVersions: string[] };
      clusterNetwork: { pods: { cidrBlocks: string[] }; services: { cidrBlocks: string[] } };
    };
    assert.match(status.kubernetesVersion, /^v1\.\d+\.\d+/);
    assert.ok(status.nodeCount >= 1);
    assert.ok(status.capabilities.apiVersions.includes('apps/v1/Deployment'));
    assert.deepEqual(status.clusterNetwork.services.cidrBlocks, ['10.43.0.0/16']);
    await eventually('spec.clusterNetwork filled from the facts', async () => {
      const c = await getJson(['-n', NS, 'get', 'cluster', 'alpha']);
      const net = (c['spec'] as { clusterNetwork?: typeof status.clusterNetwork }).clusterNetwork;
      return net?.services?.cidrBlocks?.[0] === '10.43.0.0/16' && (net.pods?.cidrBlocks.length ?? 0) > 0
        ? true
        : undefined;
    });
    const labels = (cluster['metadata'] as { labels: Record<string, string> }).labels;
    assert.equal(labels['fleethub.io/tenant'], NS);
    assert.equal(labels['fleet.site'], 'berlin');
    assert.equal(labels['env'], 'test');
  });

  test('a ManifestWork lands in its cluster, reports feedback, and drift is corrected', async () => {
    await admin(['apply', '-f', '-'], work([crd, widget, deployment, configMap]));
    const alpha = fleet.kubeconfig('c-0001');
    await eventually('the Deployment in cluster c-0001', async () =>
      (await kubectl('v35', alpha, ['get', 'deployment', 'web'])).code === 0 ? true : undefined,
    );
    await kubectlOk('v35', alpha, ['get', 'configmap', 'settings']);
    await eventually('the Widget', async () =>
      (await kubectl('v35', alpha, ['get', 'widgets.example.com', 'w1'])).code === 0 ? true : undefined,
    );
    assert.equal((await kubectl('v35', fleet.kubeconfig('c-0002'), ['get', 'deployment', 'web'])).code, 1);
    let lastStatus: unknown;
    await eventually('availableReplicas in the feedback', async () => {
      const w = await getJson(['-n', NS, 'get', 'manifestwork', 'app']);
      lastStatus = w['status'];
      return feedbackValue(w, 'apps', 'deployments', 'web', 'AvailableReplicas') === 2 ? true : undefined;
    }).catch((e: Error) => {
      throw new Error(
        `${e.message}\nlast status: ${JSON.stringify(lastStatus)}\n${agents.get('alpha')!.output().slice(-3000)}`,
      );
    });
    await kubectlOk('v35', alpha, ['delete', 'deployment', 'web', '--wait=false']);
    const started = Date.now();
    await eventually(
      'the Deployment restored',
      async () => {
        const r = await kubectl('v35', alpha, [
          'get',
          'deployment',
          'web',
          '-o',
          'jsonpath={.metadata.deletionTimestamp}',
        ]);
        return r.code === 0 && r.stdout === '' ? true : undefined;
      },
      10_000,
    );
    assert.ok(Date.now() - started < 10_000);
  });

  test('a manifest removed from the work is pruned; deleting the work removes the rest', async () => {
    const alpha = fleet.kubeconfig('c-0001');
    await admin(['apply', '-f', '-'], work([crd, widget, deployment]));
    await eventually('the ConfigMap pruned', async () =>
      (await kubectl('v35', alpha, ['get', 'configmap', 'settings'])).code === 1 ? true : undefined,
    );
    await admin(['-n', NS, 'delete', 'manifestwork', 'app', '--timeout=30s']);
    await eventually('the Deployment removed', async () =>
      (await kubectl('v35', alpha, ['get', 'deployment', 'web'])).code === 1 ? true : undefined,
    );
  });

  test('with deleteOption Orphan the resources stay', async () => {
    const alpha = fleet.kubeconfig('c-0001');
    await admin(['apply', '-f', '-'], work([configMap], { deleteOption: { propagationPolicy: 'Orphan' } }));
    await eventually('the ConfigMap', async () =>
      (await kubectl('v35', alpha, ['get', 'configmap', 'settings'])).code === 0 ? true : undefined,
    );
    await admin(['-n', NS, 'delete', 'manifestwork', 'app', '--timeout=30s']);
    await kubectlOk('v35', alpha, ['get', 'configmap', 'settings']);
  });

  test('an agent cannot see or touch another cluster’s works (403)', async () => {
    await createJoin('beta', 'beta', 'paris');
    const beta = startAgent('c-0002', scratchDir('agent-beta-'), await joinToken('beta'));
    agents.set('beta', beta);
    await eventually('Cluster beta Available', async () =>
      condition(await getJson(['-n', NS, 'get', 'cluster', 'beta']), 'Available') === 'True'
        ? true
        : undefined,
    );
    await admin(['apply', '-f', '-'], work([configMap]));
    const asBeta = agentKubeconfig(beta, 'beta');
    for (const args of [
      ['-n', NS, 'get', 'manifestworks', '-l', 'fleethub.io/cluster=alpha'],
      ['-n', NS, 'get', 'manifestworks'],
      ['-n', NS, 'get', 'manifestwork', 'app'],
      [
        '-n',
        NS,
        'get',
        'manifestworks',
        '-l',
        'fleethub.io/cluster=alpha',
        '--watch',
        '--request-timeout=2s',
      ],
      [
        '-n',
        NS,
        'patch',
        'manifestwork',
        'app',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{}}',
      ],
      ['-n', NS, 'patch', 'cluster', 'alpha', '--subresource=status', '--type=merge', '-p', '{"status":{}}'],
      ['-n', NS, 'get', 'secrets'],
    ]) {
      const r = await kubectl('v35', asBeta, args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, /Forbidden|forbidden/, `${args.join(' ')}: ${r.stderr}`);
    }
    await kubectlOk('v35', asBeta, ['-n', NS, 'get', 'manifestworks', '-l', 'fleethub.io/cluster=beta']);
    await kubectlOk('v35', asBeta, ['-n', NS, 'get', 'cluster', 'beta']);
    // Its own work: the status and the cleanup finalizer are the agent's to write, the spec is not.
    await admin(
      ['apply', '-f', '-'],
      work([configMap]).replace('"alpha"', '"beta"').replace('"app"', '"beta-app"'),
    );
    const rewrite = await kubectl('v35', asBeta, [
      '-n',
      NS,
      'patch',
      'manifestwork',
      'beta-app',
      '--type=merge',
      '-p',
      '{"spec":{"workload":{"manifests":[]}}}',
    ]);
    assert.notEqual(rewrite.code, 0);
    assert.match(
      rewrite.stderr,
      /an agent may change only the status and the fleethub.io\/agent-cleanup finalizer of a ManifestWork, not spec/,
    );
    await eventually('beta’s work Applied by its agent', async () =>
      condition(await getJson(['-n', NS, 'get', 'manifestwork', 'beta-app']), 'Applied') === 'True'
        ? true
        : undefined,
    );
    await admin(['-n', NS, 'delete', 'manifestwork', 'beta-app', '--wait=true', '--timeout=20s']);
  });

  test('bad, reused and mismatched join tokens: clear errors, no Cluster created', async () => {
    const bad = startAgent(
      'c-0002',
      scratchDir('agent-bad-'),
      'fh_0000000000000000_notarealtokennotarealtokennotarealtoken0123',
    );
    assert.notEqual(await bad.exited, 0);
    assert.match(bad.output(), /join token is invalid, expired or already used|Unauthorized/);
    const reused = startAgent('c-0002', scratchDir('agent-reused-'), await joinToken('alpha'));
    assert.notEqual(await reused.exited, 0);
    assert.match(reused.output(), /join token is invalid, expired or already used|Unauthorized/);
    const clusters = JSON.parse(await admin(['-n', NS, 'get', 'clusters', '-o', 'json'])) as {
      items: unknown[];
    };
    assert.equal(clusters.items.length, 2);
    // Both attempts are in the audit log (written in batches, so wait for them): the unknown token as a
    // failed authentication with its id, the spent one as a denial of its bootstrap user.
    type Events = {
      items: {
        spec: { responseCode: number; user: { username: string }; annotations?: Record<string, string> };
      }[];
    };
    await eventually('both attempts in the audit log', async () => {
      const events = JSON.parse(await admin(['get', 'auditevents', '-o', 'json'])) as Events;
      const bad = events.items.some(
        (e) =>
          e.spec.responseCode === 401 &&
          e.spec.annotations?.['authentication.fleethub.io/token-id'] === '0000000000000000',
      );
      const reusedAudited = events.items.some(
        (e) =>
          e.spec.responseCode === 403 &&
          e.spec.user.username.startsWith('fleethub:bootstrap:cluster:team-a:alpha'),
      );
      return bad && reusedAudited ? true : undefined;
    });
  });

  test('the hub is away for a minute while the cluster drifts; after its restart the agent converges, each change applied once', async () => {
    const alpha = fleet.kubeconfig('c-0001');
    const agent = agents.get('alpha')!;
    await eventually('the ConfigMap of the current work', async () =>
      (await kubectl('v35', alpha, ['get', 'configmap', 'settings'])).code === 0 ? true : undefined,
    );
    const port = new URL(hub.url).port;
    const dataDir = hub.dataDir;
    await hub.stop();
    const outageStart = Date.now();
    // Drift correction needs no hub: the agent watches its cluster and holds the applied record itself.
    await kubectlOk('v35', alpha, ['delete', 'configmap', 'settings']);
    await eventually(
      'the ConfigMap restored while the hub is down',
      async () =>
        (await kubectl('v35', alpha, ['get', 'configmap', 'settings'])).code === 0 ? true : undefined,
      20_000,
    );
    await new Promise((r) => setTimeout(r, Math.max(0, 60_000 - (Date.now() - outageStart))));
    hub = await startHubProcess({ dataDir, extraArgs: ['--listen', `127.0.0.1:${port}`] });
    const logFrom = agent.output().length;
    await admin(
      ['apply', '-f', '-'],
      // A kind the work did not have: its drift watch starts now, from the version of the apply.
      work([
        configMap,
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'extra', namespace: 'default' } },
      ]),
    );
    const generation = Number(
      await admin(['-n', NS, 'get', 'manifestwork', 'app', '-o', 'jsonpath={.metadata.generation}']),
    );
    // The agent's backoff is capped at 30 s, so it is back within that after the hub.
    await eventually(
      'the ConfigMap, the ServiceAccount and the work Applied at its new generation',
      async () => {
        const a = await kubectl('v35', alpha, ['get', 'configmap', 'settings']);
        const b = await kubectl('v35', alpha, ['get', 'serviceaccount', 'extra']);
        const w = await getJson(['-n', NS, 'get', 'manifestwork', 'app']);
        const applied = (
          (w['status'] as { conditions?: { type: string; status: string; observedGeneration?: number }[] })
            ?.conditions ?? []
        ).find((c) => c.type === 'Applied');
        return a.code === 0 &&
          b.code === 0 &&
          applied?.status === 'True' &&
          applied.observedGeneration === generation
          ? true
          : undefined;
      },
      60_000,
    );
    // Let any duplicate show up before counting.
    await new Promise((r) => setTimeout(r, 3_000));
    const applies = agent
      .output()
      .slice(logFrom)
      .split('\n')
      .filter((line) => line.includes('"msg":"work applied"') && line.includes('"work":"app"'))
      .map((line) => (JSON.parse(line) as { generation: number }).generation);
    assert.equal(
      applies.filter((g) => g === generation).length,
      1,
      `generation ${generation} applied once; applies seen: ${applies.join(', ')}\n${agent.output().slice(logFrom)}`,
    );
  });

  test('an idle agent process stays light', async (t) => {
    // The goal: < 64 MB idle. This agent has joined, applied works with a CRD, a Deployment and
    // ConfigMaps, corrected drift and lived through a hub outage; measured about 53 MiB (56 MB).
    const alpha = agents.get('alpha')!;
    await new Promise((r) => setTimeout(r, 2_000));
    const rss = rssBytes(alpha.child.pid!);
    t.diagnostic(`agent RSS ${(rss / 2 ** 20).toFixed(1)} MiB`);
    assert.ok(rss < 64e6, `agent RSS ${(rss / 1e6).toFixed(1)} MB (goal < 64 MB)`);
  });

  test('a stopped agent: its Cluster goes Available=Unknown within the grace', async () => {
    await agents.get('beta')!.stop();
    const stopped = Date.now();
    await eventually(
      'Cluster beta Available=Unknown',
      async () =>
        condition(await getJson(['-n', NS, 'get', 'cluster', 'beta']), 'Available') === 'Unknown'
          ? true
          : undefined,
      5 * LEASE_SECONDS * 1000 + 10_000,
    );
    assert.ok(Date.now() - stopped <= 5 * LEASE_SECONDS * 1000 + 10_000);
  });
});
