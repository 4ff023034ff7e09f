// What `npm start` shows: a hub started with `--demo-fleet 12` lists 12 clusters on 3 sites, all Available,
// with the real kubectl; restarted on the same data dir, the demo agents re-attach with their stored certificates.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { FLEETHUB_NODE_FLAGS } from '../support/node-flags.js';
import { kubectlOk } from '../support/tools.js';
import { eventually } from '../support/agents.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const NS = 'demo';
const CLUSTERS = 12;
const SITES = ['berlin', 'madrid', 'paris'];

let hub: HubProcess;
let dataDir: string;

/**
 * The hub's flags from package.json's "start" script, minus the data dir and the listen address. Its node
 * flags must be the fleethub command's own (its shebang), which startHubProcess passes too.
 */
function npmStartFlags(): string[] {
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  const command = ['node', ...FLEETHUB_NODE_FLAGS, 'bin/fleethub.js', 'hub'];
  assert.deepEqual(words.slice(0, command.length), command, pkg.scripts.start);
  const flags: string[] = [];
  for (let i = command.length; i < words.length; i++) {
    if (words[i] === '--data-dir' || words[i] === '--listen') i++;
    else flags.push(words[i]!);
  }
  return flags;
}

/** Starts the hub as `npm start` does and waits for the demo fleet's line (printed once all agents run). */
async function startDemoHub(listen: string): Promise<HubProcess> {
  const h = await startHubProcess({ dataDir, extraArgs: [...npmStartFlags(), '--listen', listen] });
  await eventually(
    'the demo fleet line',
    async () => (/demo fleet: \d+ simulated clusters/.test(h.output()) ? true : undefined),
    45_000,
  ).catch(async (e: Error) => {
    await h.kill();
    throw new Error(`${e.message}\nhub output:\n${h.output().slice(-4000)}`);
  });
  return h;
}

interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    labels?: Record<string, string>;
    creationTimestamp: string;
  };
  spec?: Record<string, unknown>;
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    kubernetesVersion?: string;
    nodeCount?: number;
  };
}

async function list(args: string[]): Promise<Obj[]> {
  return (JSON.parse(await kubectlOk('v35', hub.kubeconfig, [...args, '-o', 'json'])) as { items: Obj[] })
    .items;
}

const available = (o: Obj): string | undefined =>
  o.status?.conditions?.find((c) => c.type === 'Available')?.status;

/** The clusters once all 12 are Available=True. */
function allAvailable(): Promise<Obj[]> {
  return eventually('12 clusters Available=True', async () => {
    const clusters = await list(['get', 'clusters', '-A']);
    return clusters.length === CLUSTERS && clusters.every((c) => available(c) === 'True')
      ? clusters
      : undefined;
  });
}

const uids = (objs: Obj[]): string[] => objs.map((o) => `${o.metadata.name}=${o.metadata.uid}`).sort();

before(async () => {
  dataDir = scratchDir('fleethub-demo-');
  hub = await startDemoHub('127.0.0.1:0');
});

after(async () => {
  await hub?.stop();
});

describe('npm start: a hub with a demo fleet', () => {
  let firstClusters: Obj[];
  let firstJoins: Obj[];
  let firstCsrs: Obj[];

  test('`kubectl get clusters -A` lists 12 clusters on 3 sites, all Available', async (t) => {
    const started = Date.now();
    firstClusters = await allAvailable();
    t.diagnostic(`all Available ${Date.now() - started} ms after the demo fleet line`);
    assert.deepEqual(
      firstClusters.map((c) => c.metadata.name).sort(),
      Array.from({ length: CLUSTERS }, (_, i) => `demo-${String(i + 1).padStart(4, '0')}`),
    );
    const perSite = new Map<string, number>();
    for (const c of firstClusters) {
      assert.equal(c.metadata.namespace, NS);
      const site = c.spec?.['site'] as string;
      assert.equal(c.metadata.labels?.['fleet.site'], site);
      perSite.set(site, (perSite.get(site) ?? 0) + 1);
      assert.match(c.status?.kubernetesVersion ?? '', /^v1\.\d+\.\d+/);
      assert.ok((c.status?.nodeCount ?? 0) >= 1, `${c.metadata.name} reports nodes`);
    }
    assert.deepEqual([...perSite.keys()].sort(), SITES);
    assert.deepEqual([...perSite.values()], [4, 4, 4]);

    // The human table, as a user types it: the printer columns and one row per cluster.
    const table = await kubectlOk('v35', hub.kubeconfig, ['get', 'clusters', '-A']);
    const lines = table.trimEnd().split('\n');
    assert.match(lines[0]!, /^NAMESPACE\s+NAME\s+SITE\s+AVAILABLE\s+VERSION\s+NODES\s+AGE$/);
    assert.equal(lines.length, 1 + CLUSTERS, table);
    for (const line of lines.slice(1))
      assert.match(line, /^demo\s+demo-\d{4}\s+(berlin|paris|madrid)\s+True\s+v1\.\S+\s+\d+\s+\S+$/, line);

    // Joined through the real flow: one FleetClusterJoin per cluster, Used by an approved CSR.
    firstJoins = await list(['-n', NS, 'get', 'fleetclusterjoins']);
    assert.equal(firstJoins.length, CLUSTERS);
    assert.ok(
      firstJoins.every((j) => j.status?.phase === 'Used'),
      JSON.stringify(firstJoins.map((j) => j.status?.phase)),
    );
    firstCsrs = await list(['get', 'certificatesigningrequests']);
    assert.equal(firstCsrs.length, CLUSTERS);
    assert.equal(hub.output().match(/"msg":"joined the hub"/g)?.length, CLUSTERS, 'each demo agent joined');
  });

  test('restarted on the same data dir, the clusters come back Available without new joins', async (t) => {
    const port = new URL(hub.url).port;
    assert.equal(await hub.stop(), 0);
    const restartedAt = Date.now();
    hub = await startDemoHub(`127.0.0.1:${port}`);
    assert.doesNotMatch(hub.output(), /hub exited/);
    // The demo agents run again: each renews its Lease after the restart. Only the agent's own
    // certificate may renew it, so this shows every agent re-attached.
    await eventually('every demo agent Lease renewed after the restart', async () => {
      const leases = (await list(['-n', NS, 'get', 'leases'])).filter((l) =>
        l.metadata.name.startsWith('fleethub-agent-demo-'),
      );
      const renewed = leases.filter(
        (l) => Date.parse((l.spec as { renewTime?: string }).renewTime ?? '') >= restartedAt,
      );
      return leases.length === CLUSTERS && renewed.length === CLUSTERS ? true : undefined;
    });
    t.diagnostic(`all Leases renewed ${Date.now() - restartedAt} ms after the stop`);
    const clusters = await allAvailable();
    assert.deepEqual(uids(clusters), uids(firstClusters), 'the same Cluster objects');
    // No new joins: the same joins and certificate requests, and no agent joined again.
    assert.deepEqual(uids(await list(['-n', NS, 'get', 'fleetclusterjoins'])), uids(firstJoins));
    assert.deepEqual(uids(await list(['get', 'certificatesigningrequests'])), uids(firstCsrs));
    assert.doesNotMatch(hub.output(), /joined the hub/);
    const running = hub.output().match(/"msg":"agent running"/g) ?? [];
    assert.equal(running.length, CLUSTERS, 'each demo agent says it runs');
    const table = await kubectlOk('v35', hub.kubeconfig, ['get', 'clusters', '-A']);
    assert.equal(table.match(/\sTrue\s/g)?.length, CLUSTERS, table);
  });
});
