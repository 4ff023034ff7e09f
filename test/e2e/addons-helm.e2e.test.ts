// Helm charts end to end with real processes: a chart made with `helm create`, served from a loopback chart
// repository, installed by a ClusterProfile with per-cluster templated values, lands in each sim cluster as
// the objects the real `helm template` prints for that cluster's values — and no helm release exists there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createChart, helmOk, repoIndex } from '../../src/addons/helm/testdata/helm-cli.js';
import { serveFiles, type Served } from '../../src/addons/helm/testdata/servers.js';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { joinSimCluster } from '../support/join-cluster.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectlOk, run, toolPath } from '../support/tools.js';
import { type AgentProcess, eventually } from '../support/agents.js';

const NS = 'team-a';
const CLUSTERS = [
  { name: 'edge-1', sim: 'h-0001', replicas: '2' },
  { name: 'edge-2', sim: 'h-0002', replicas: '3' },
];

let hub: HubProcess;
let fleet: SimFleetProcess;
let repo: Served;
let chartTgz: string;
const agents: AgentProcess[] = [];

const admin = (args: string[], input?: string): Promise<string> =>
  kubectlOk('v35', hub.kubeconfig, args, input === undefined ? {} : { input });

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every field `want` has, `have` has with the same value (what the cluster adds — defaults, status — aside). */
function missing(want: unknown, have: unknown, path = ''): string[] {
  if (isObj(want)) {
    if (!isObj(have)) return [path || '.'];
    return Object.entries(want).flatMap(([k, v]) => missing(v, have[k], `${path}.${k}`));
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return [path];
    return want.flatMap((v, i) => missing(v, have[i], `${path}[${i}]`));
  }
  return want === have ? [] : [`${path}: ${JSON.stringify(want)} != ${JSON.stringify(have)}`];
}

before(async () => {
  const chart = await createChart('web', '0.1.0');
  chartTgz = chart.tgz;
  const index = await repoIndex(join(chart.dir, 'out'));
  repo = await serveFiles(
    new Map<string, Buffer | string>([
      ['/index.yaml', index],
      ['/web-0.1.0.tgz', chart.data],
    ]),
  );
  hub = await startHubProcess();
  fleet = await spawnSimFleet(CLUSTERS.length, scratchDir('addons-helm-fleet-'), {
    extraArgs: ['--name-prefix', 'h-'],
  });
  await admin(['create', 'namespace', NS]);
  for (const c of CLUSTERS) {
    agents.push(await joinSimCluster(hub, fleet, { name: c.name, namespace: NS, sim: c.sim }));
    await admin(['-n', NS, 'label', 'cluster', c.name, `web-replicas=${c.replicas}`]);
  }
});

after(async () => {
  for (const a of agents) await a.stop();
  await fleet?.stop();
  await hub?.kill();
  await repo?.close();
});

describe('Helm charts', () => {
  test('a helm create chart lands in each cluster as helm template renders it for that cluster', async () => {
    await admin(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'config.projectsveltos.io/v1beta1',
        kind: 'ClusterProfile',
        metadata: { name: 'web' },
        spec: {
          clusterSelector: { matchExpressions: [{ key: 'web-replicas', operator: 'Exists' }] },
          syncMode: 'ContinuousWithDriftDetection',
          helmCharts: [
            {
              repositoryURL: repo.base,
              repositoryName: 'loopback',
              chartName: 'web',
              chartVersion: '0.1.0',
              releaseName: 'web',
              releaseNamespace: 'apps',
              helmChartAction: 'Install',
              values: [
                'replicaCount: {{ index .Cluster.metadata.labels "web-replicas" }}',
                'podAnnotations:',
                '  fleet.cluster: "{{ .Cluster.metadata.name }}"',
              ].join('\n'),
            },
          ],
        },
      }),
    );

    for (const c of CLUSTERS) {
      const summary = `web-capi-${c.name}`;
      await eventually(
        `${summary} Provisioned`,
        async () => {
          const out = await admin([
            '-n',
            NS,
            'get',
            'clustersummary',
            summary,
            '-o',
            'jsonpath={.status.featureSummaries[?(@.featureID=="Helm")].status}',
          ]);
          return out === 'Provisioned' ? true : undefined;
        },
        60_000,
      );
      const cluster = JSON.parse(await admin(['-n', NS, 'get', 'cluster', c.name, '-o', 'json'])) as {
        status?: { kubernetesVersion?: string };
      };
      const expected = parseAllDocuments(
        await helmOk([
          'template',
          'web',
          chartTgz,
          '-n',
          'apps',
          '--no-hooks',
          '--kube-version',
          cluster.status?.kubernetesVersion ?? 'v1.35.0',
          '--set',
          `replicaCount=${c.replicas}`,
          '--set',
          `podAnnotations.fleet\\.cluster=${c.name}`,
        ]),
      )
        .map((d) => d.toJS() as Obj | null)
        .filter((d): d is Obj => d !== null);
      assert.deepEqual(expected.map((o) => o['kind']).sort(), ['Deployment', 'Service', 'ServiceAccount']);
      for (const want of expected) {
        const md = want['metadata'] as { name: string };
        const live = JSON.parse(
          await kubectlOk('v35', fleet.kubeconfig(c.sim), [
            '-n',
            'apps',
            'get',
            String(want['kind']).toLowerCase(),
            md.name,
            '-o',
            'json',
          ]),
        ) as Obj;
        assert.deepEqual(missing(want, live), [], `${c.name}: ${String(want['kind'])} ${md.name}`);
      }
      // Rendered on the hub and delivered as manifests: no helm release in the cluster.
      const list = await run(toolPath('v35', 'helm'), [
        'list',
        '-A',
        '-o',
        'json',
        '--kubeconfig',
        fleet.kubeconfig(c.sim),
      ]);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(JSON.parse(list.stdout), []);

      const releases = JSON.parse(
        await admin([
          '-n',
          NS,
          'get',
          'clustersummary',
          summary,
          '-o',
          'jsonpath={.status.helmReleaseSummaries}',
        ]),
      ) as Obj[];
      assert.equal(releases.length, 1);
      assert.equal(releases[0]!['releaseName'], 'web');
      assert.equal(releases[0]!['releaseNamespace'], 'apps');
      assert.equal(releases[0]!['chartVersion'], '0.1.0');
      assert.equal(releases[0]!['status'], 'Managing');
      assert.match(String(releases[0]!['delivery']), /rendered on the hub .* no helm release in the cluster/);
      assert.match(String(releases[0]!['valuesHash']), /^[A-Za-z0-9+/]{43}=$/);
    }
    // The chart was fetched once for the fleet.
    assert.equal(repo.log.filter((l) => l === 'GET /web-0.1.0.tgz').length, 1);
  });
});
