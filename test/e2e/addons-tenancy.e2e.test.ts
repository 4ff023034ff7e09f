// Profile tenancy end to end, as a matrix: a Profile in team-a reaches neither team-b's cluster nor its
// ConfigMaps, and cannot deliver Local. Each refusal is asserted as a user sees it with the real kubectl (the
// HTTP code from -v=6 and the message naming the field) or as the status field that says why; the admission
// rows are run by the team-a tenant and by the admin, to show the refusal is the hub's tenancy rule, not RBAC.
// Both clusters are sim clusters with real agents, so "nothing landed in team-b" is read in team-b's cluster,
// which receives team-b's own Profile over the same path.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { spawnSimFleet, type SimFleetProcess } from '../support/sim-fleet.js';
import { kubectl, type RunResult } from '../support/tools.js';
import {
  type AgentProcess,
  conditionOf,
  eventually,
  joinTokenOf,
  spawnAgentProcess,
} from '../support/agents.js';

const A = 'team-a';
const B = 'team-b';
/** Cluster name, namespace and sim cluster of each tenant's one cluster. */
const CLUSTER_A = { name: 'edge-a', namespace: A, sim: 'ten-0001' };
const CLUSTER_B = { name: 'edge-b', namespace: B, sim: 'ten-0002' };
const TENANT_USER = `system:serviceaccount:${A}:tenant`;
const SVELTOS = 'config.projectsveltos.io/v1beta1';
const FLEET = 'fleet.fleethub.io/v1alpha1';

type Who = 'tenant' | 'admin';
type Json = Record<string, unknown>;

let hub: HubProcess;
let fleet: SimFleetProcess;
let tenantToken = '';
const agents: AgentProcess[] = [];

/** kubectl against the hub as the admin or as the team-a tenant (its ServiceAccount token). */
function k(who: Who, args: string[], input?: string): Promise<RunResult> {
  const auth = who === 'tenant' ? ['--token', tenantToken] : [];
  return kubectl('v35', hub.kubeconfig, [...auth, ...args], input === undefined ? {} : { input });
}

async function ok(who: Who, args: string[], input?: string): Promise<string> {
  const r = await k(who, args, input);
  assert.equal(r.code, 0, `${who}: kubectl ${args.join(' ')}\n${r.stderr}`);
  return r.stdout;
}

/** kubectl in a sim cluster, as its owner would look. */
function inCluster(sim: string, args: string[]): Promise<RunResult> {
  return kubectl('v35', fleet.kubeconfig(sim), args);
}

const escape = (s: string): RegExp => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
const STATUS_TEXT = { 403: 'Forbidden', 422: 'Unprocessable Entity' } as const;

/**
 * Runs a kubectl write that must be refused: exit non-zero, the hub's HTTP code as kubectl -v=6 logs it,
 * and `message` verbatim in what kubectl prints.
 */
async function refused(
  who: Who,
  args: string[],
  code: 403 | 422,
  message: string,
  input?: string,
): Promise<void> {
  const r = await k(who, ['-v=6', ...args], input);
  const what = `${who}: kubectl ${args.join(' ')}`;
  assert.notEqual(r.code, 0, `${what} succeeded:\n${r.stdout}`);
  assert.match(r.stderr, escape(`${code} ${STATUS_TEXT[code]}`), `${what}: no HTTP ${code}\n${r.stderr}`);
  assert.match(r.stderr, escape(message), what);
}

function profile(name: string, namespace: string, spec: Json): string {
  return JSON.stringify({ apiVersion: SVELTOS, kind: 'Profile', metadata: { name, namespace }, spec });
}

function createProfile(who: Who, name: string, namespace: string, spec: Json): Promise<string> {
  return ok(who, ['create', '-f', '-'], profile(name, namespace, spec));
}

/** One field of a team-a Profile as stored, read by the tenant. */
function tenantProfileField(name: string, path: string): Promise<string> {
  return ok('tenant', ['-n', A, 'get', 'profile', name, '-o', `jsonpath={${path}}`]);
}

/** A ConfigMap on the hub whose one key is a ConfigMap to deliver into `default`. */
function content(name: string, namespace: string, delivers: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: {
      'cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${delivers}\n  namespace: default\ndata:\n  from: ${namespace}\n`,
    },
  });
}

async function jsonOf(who: Who, args: string[]): Promise<Json> {
  return JSON.parse(await ok(who, [...args, '-o', 'json'])) as Json;
}

/** status.matchingClusters of a Profile as namespace/name, once the controller has written a non-empty list. */
async function matching(namespace: string, name: string): Promise<string[]> {
  return eventually(`status.matchingClusters of ${namespace}/${name}`, async () => {
    const p = await jsonOf('admin', ['-n', namespace, 'get', 'profile', name]);
    const list = (p['status'] as { matchingClusters?: { namespace: string; name: string }[] } | undefined)
      ?.matchingClusters;
    return list?.length ? list.map((c) => `${c.namespace}/${c.name}`) : undefined;
  });
}

/** The `data.from` of ConfigMap default/<name> in a sim cluster, or undefined when it is not there. */
async function delivered(sim: string, name: string): Promise<string | undefined> {
  const r = await inCluster(sim, ['-n', 'default', 'get', 'configmap', name, '-o', 'jsonpath={.data.from}']);
  if (r.code !== 0) {
    assert.match(r.stderr, /NotFound|not found/, r.stderr);
    return undefined;
  }
  return r.stdout;
}

async function joinCluster(c: typeof CLUSTER_A): Promise<void> {
  await ok(
    'admin',
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: FLEET,
      kind: 'FleetClusterJoin',
      metadata: { name: c.name, namespace: c.namespace },
      // The same label on both clusters: a selector on it must still reach only the Profile's namespace.
      spec: { clusterName: c.name, site: 'berlin', labels: { env: 'shared' } },
    }),
  );
  const token = await joinTokenOf(hub.kubeconfig, c.namespace, c.name);
  agents.push(
    spawnAgentProcess({
      hubUrl: hub.url,
      caFile: join(hub.dataDir, 'pki', 'ca.crt'),
      stateDir: scratchDir(`tenancy-agent-${c.name}-`),
      kubeconfig: fleet.kubeconfig(c.sim),
      leaseSeconds: 2,
      token: { env: token },
    }),
  );
  await eventually(`Cluster ${c.namespace}/${c.name} Available`, async () => {
    const obj = await jsonOf('admin', ['-n', c.namespace, 'get', 'cluster', c.name]);
    return conditionOf(obj, 'Available')?.status === 'True' ? true : undefined;
  });
}

before(async () => {
  [hub, fleet] = await Promise.all([
    startHubProcess(),
    spawnSimFleet(2, scratchDir('tenancy-e2e-fleet-'), { extraArgs: ['--name-prefix', 'ten-'] }),
  ]);
  for (const ns of [A, B]) await ok('admin', ['create', 'namespace', ns]);
  await Promise.all([joinCluster(CLUSTER_A), joinCluster(CLUSTER_B)]);

  // There is no built-in tenant role: the tenant gets a Role in team-a over everything a Profile involves,
  // including writes to ClusterSummaries and ManifestWorks, so that refusing those is the hub's rule, not RBAC.
  // (A stream of objects, not a v1 List: kubectl validates a List against /openapi/v2, which the hub
  // does not serve.)
  const rbac = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tenant', namespace: A } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'tenant', namespace: A },
      rules: [
        {
          apiGroups: ['config.projectsveltos.io'],
          resources: ['profiles', 'clustersummaries'],
          verbs: ['*'],
        },
        { apiGroups: ['work.open-cluster-management.io'], resources: ['manifestworks'], verbs: ['*'] },
        { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['*'] },
        { apiGroups: ['fleet.fleethub.io'], resources: ['clusters'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'tenant', namespace: A },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant' },
      subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: A }],
    },
  ];
  await ok('admin', ['apply', '-f', '-'], rbac.map((o) => JSON.stringify(o)).join('\n'));
  tenantToken = (await ok('admin', ['-n', A, 'create', 'token', 'tenant', '--duration=10m'])).trim();

  // Content: team-a's own ConfigMap, and one that exists only in team-b.
  await ok('tenant', ['create', '-f', '-'], content('app', A, 'tenancy-from-team-a'));
  await ok('admin', ['create', '-f', '-'], content('only-in-b', B, 'tenancy-from-team-b'));
  // team-b's own Profile, so team-b's cluster demonstrably receives what is meant for it.
  await createProfile('admin', 'team-b-own', B, {
    clusterSelector: { matchLabels: { env: 'shared' } },
    policyRefs: [{ kind: 'ConfigMap', name: 'only-in-b' }],
  });
});

after(async () => {
  for (const a of agents) await a.stop();
  await fleet?.stop();
  await hub?.kill();
});

/** A summary's Resources feature, read as the Sveltos docs read it. */
async function resourcesFeature(namespace: string, summary: string): Promise<Json | undefined> {
  const r = await k('admin', ['-n', namespace, 'get', 'clustersummary', summary, '-o', 'json']);
  if (r.code !== 0) return undefined;
  const features = ((JSON.parse(r.stdout) as Json)['status'] as { featureSummaries?: Json[] } | undefined)
    ?.featureSummaries;
  return features?.find((f) => f['featureID'] === 'Resources');
}

describe('Profile tenancy (team-a cannot reach team-b, nor deliver Local)', () => {
  test('control: team-b’s own Profile reaches team-b’s cluster only', async () => {
    assert.deepEqual(await matching(B, 'team-b-own'), [`${B}/${CLUSTER_B.name}`]);
    assert.equal(
      await eventually('team-b content in team-b’s cluster', () =>
        delivered(CLUSTER_B.sim, 'tenancy-from-team-b'),
      ),
      B,
    );
  });

  test('the tenant CAN create a Profile in team-a; a selector both clusters match reaches team-a’s only', async () => {
    await createProfile('tenant', 'shared-sel', A, {
      clusterSelector: { matchLabels: { env: 'shared' } },
      policyRefs: [{ kind: 'ConfigMap', name: 'app' }],
    });
    // The reference left empty is stored as the Profile's namespace: what kubectl shows is what is read.
    assert.equal(await tenantProfileField('shared-sel', '.spec.policyRefs[0].namespace'), A);
    assert.deepEqual(await matching(A, 'shared-sel'), [`${A}/${CLUSTER_A.name}`]);
    assert.equal(
      await eventually('team-a content in team-a’s cluster', () =>
        delivered(CLUSTER_A.sim, 'tenancy-from-team-a'),
      ),
      A,
    );
    await eventually('the summary Provisioned', async () =>
      (await resourcesFeature(A, `p--shared-sel-capi-${CLUSTER_A.name}`))?.['status'] === 'Provisioned'
        ? true
        : undefined,
    );
    // No summary or work for team-a's Profile in team-b, and nothing of team-a's in team-b's cluster.
    for (const kind of ['clustersummaries', 'manifestworks'])
      assert.equal(
        await ok('admin', [
          '-n',
          B,
          'get',
          kind,
          '-l',
          'projectsveltos.io/profile-name=shared-sel',
          '-o',
          'name',
        ]),
        '',
        kind,
      );
    assert.equal(
      await ok('admin', ['-n', B, 'get', 'clustersummaries', '-o', 'jsonpath={.items[*].metadata.name}']),
      `p--team-b-own-capi-${CLUSTER_B.name}`,
    );
    assert.equal(await delivered(CLUSTER_B.sim, 'tenancy-from-team-a'), undefined);
  });

  test('a selector naming team-b’s tenant label still reaches only team-a’s cluster', async () => {
    await createProfile('tenant', 'tenant-label', A, {
      clusterSelector: {
        matchExpressions: [{ key: 'fleethub.io/tenant', operator: 'In', values: [B, A] }],
      },
    });
    assert.deepEqual(await matching(A, 'tenant-label'), [`${A}/${CLUSTER_A.name}`]);
  });

  test('a clusterRef with no namespace naming a cluster that exists only in team-b is not matched', async () => {
    await createProfile('tenant', 'refs', A, {
      clusterRefs: [
        { apiVersion: FLEET, kind: 'Cluster', name: CLUSTER_B.name },
        { apiVersion: FLEET, kind: 'Cluster', name: CLUSTER_A.name },
      ],
    });
    // Stored as team-a/edge-b, which does not exist; edge-a (the second ref) is there to know the
    // controller has looked.
    assert.equal(await tenantProfileField('refs', '.spec.clusterRefs[0].namespace'), A);
    assert.deepEqual(await matching(A, 'refs'), [`${A}/${CLUSTER_A.name}`]);
    assert.equal(
      await ok('admin', [
        '-n',
        B,
        'get',
        'clustersummaries',
        '-l',
        'projectsveltos.io/profile-name=refs',
        '-o',
        'name',
      ]),
      '',
    );
  });

  test('a policyRef with no namespace naming a ConfigMap that exists only in team-b is not read', async () => {
    await createProfile('tenant', 'borrow', A, {
      clusterSelector: { matchLabels: { env: 'shared' } },
      policyRefs: [{ kind: 'ConfigMap', name: 'only-in-b' }],
    });
    const feature = await eventually('the summary ReferenceNotFound', async () => {
      const f = await resourcesFeature(A, `p--borrow-capi-${CLUSTER_A.name}`);
      return f?.['failureReason'] ? f : undefined;
    });
    assert.equal(feature['status'], 'Failed');
    assert.equal(feature['failureReason'], 'ReferenceNotFound');
    assert.equal(feature['failureMessage'], `spec.policyRefs[0]: ConfigMap ${A}/only-in-b not found`);
    assert.equal(await delivered(CLUSTER_A.sim, 'tenancy-from-team-b'), undefined);
    // Nor may the tenant read it directly.
    await refused(
      'tenant',
      ['-n', B, 'get', 'configmap', 'only-in-b'],
      403,
      `configmaps "only-in-b" is forbidden: User "${TENANT_USER}" cannot get resource "configmaps" in API group "" in the namespace "${B}"`,
    );
  });

  const NOT_OWN = `Invalid value: "${B}": may only name the Profile's namespace ${A}`;
  /** Specs reaching out of team-a, each refused at admission with a 422 naming the field. */
  const crossNamespace: { row: string; spec: Json; field: string; detail: string }[] = [
    {
      row: 'clusterRefs naming team-b’s cluster',
      spec: { clusterRefs: [{ apiVersion: FLEET, kind: 'Cluster', namespace: B, name: CLUSTER_B.name }] },
      field: 'spec.clusterRefs[0].namespace',
      detail: NOT_OWN,
    },
    {
      row: 'policyRefs namespace team-b',
      spec: { policyRefs: [{ kind: 'ConfigMap', namespace: B, name: 'only-in-b' }] },
      field: 'spec.policyRefs[0].namespace',
      detail: NOT_OWN,
    },
    {
      row: 'deploymentType Local on a policyRef',
      spec: { policyRefs: [{ kind: 'ConfigMap', name: 'app', deploymentType: 'Local' }] },
      field: 'spec.policyRefs[0].deploymentType',
      detail: 'Forbidden: Local delivery is for ClusterProfiles only',
    },
    {
      row: 'remoteURL secretRef namespace team-b',
      spec: {
        policyRefs: [
          { remoteURL: { url: 'https://charts.example/x.yaml', secretRef: { namespace: B, name: 'creds' } } },
        ],
      },
      field: 'spec.policyRefs[0].remoteURL.secretRef.namespace',
      detail: NOT_OWN,
    },
    {
      row: 'helmCharts valuesFrom namespace team-b',
      spec: {
        helmCharts: [
          {
            repositoryURL: 'https://charts.example',
            repositoryName: 'example',
            chartName: 'example/app',
            chartVersion: '1.0.0',
            releaseName: 'app',
            releaseNamespace: 'app',
            valuesFrom: [{ kind: 'ConfigMap', namespace: B, name: 'only-in-b' }],
          },
        ],
      },
      field: 'spec.helmCharts[0].valuesFrom[0].namespace',
      detail: NOT_OWN,
    },
    {
      row: 'helmCharts from a Flux source in team-b',
      spec: {
        helmCharts: [
          {
            repositoryURL: `gitrepository://${B}/charts/app`,
            releaseName: 'app',
            releaseNamespace: 'app',
          },
        ],
      },
      field: 'spec.helmCharts[0].repositoryURL',
      detail: `Invalid value: "gitrepository://${B}/charts/app": may only name a Flux source in the Profile's namespace ${A}`,
    },
    {
      row: 'templateResourceRefs namespace team-b',
      spec: {
        templateResourceRefs: [
          {
            identifier: 'x',
            resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: B, name: 'only-in-b' },
          },
        ],
      },
      field: 'spec.templateResourceRefs[0].resource.namespace',
      detail: NOT_OWN,
    },
    {
      row: 'patchesFrom namespace team-b',
      spec: { patchesFrom: [{ kind: 'ConfigMap', namespace: B, name: 'only-in-b' }] },
      field: 'spec.patchesFrom[0].namespace',
      detail: NOT_OWN,
    },
    {
      row: 'kustomizationRefs namespace team-b',
      spec: { kustomizationRefs: [{ kind: 'ConfigMap', namespace: B, name: 'only-in-b' }] },
      field: 'spec.kustomizationRefs[0].namespace',
      detail: NOT_OWN,
    },
  ];

  for (const who of ['tenant', 'admin'] as const)
    for (const [i, { row, spec, field, detail }] of crossNamespace.entries()) {
      test(`${who}: ${row} → 422 naming ${field}`, async () => {
        const name = `out-${i}`;
        await refused(
          who,
          ['create', '-f', '-'],
          422,
          `The Profile "${name}" is invalid: ${field}: ${detail}`,
          profile(name, A, spec),
        );
        // The same on update: the tenant's working Profile cannot be patched out of team-a either.
        await refused(
          who,
          ['-n', A, 'patch', 'profile', 'shared-sel', '--type=merge', '-p', JSON.stringify({ spec })],
          422,
          `The Profile "shared-sel" is invalid: ${field}: ${detail}`,
        );
        assert.match((await k('admin', ['-n', A, 'get', 'profile', name])).stderr, /NotFound|not found/);
      });
    }

  test('tenant: no ClusterProfile, no Profile in team-b (403, RBAC)', async () => {
    const everyCluster = { clusterSelector: { matchLabels: { env: 'shared' } } };
    await refused(
      'tenant',
      ['create', '-f', '-'],
      403,
      `clusterprofiles.config.projectsveltos.io is forbidden: User "${TENANT_USER}" cannot create resource "clusterprofiles" in API group "config.projectsveltos.io" at the cluster scope`,
      JSON.stringify({
        apiVersion: SVELTOS,
        kind: 'ClusterProfile',
        metadata: { name: 'escape' },
        spec: everyCluster,
      }),
    );
    await refused(
      'tenant',
      ['create', '-f', '-'],
      403,
      `profiles.config.projectsveltos.io is forbidden: User "${TENANT_USER}" cannot create resource "profiles" in API group "config.projectsveltos.io" in the namespace "${B}"`,
      profile('escape', B, everyCluster),
    );
  });

  const SUMMARY = `p--shared-sel-capi-${CLUSTER_A.name}`;
  const WORK = `${SUMMARY}-resources`;
  const summaryWay = (op: string) =>
    `ClusterSummary ${SUMMARY} is written by the hub's add-on controllers only (${op} refused): change the ClusterProfile or Profile instead`;
  const workWay = `ManifestWork ${WORK} is generated by the hub from ClusterSummary ${SUMMARY}: change its profile instead`;
  /** Writes to what the hub generated in team-a: 403 naming the way out, though RBAC would allow them. */
  const generated: { row: string; args: string[]; message: string; input?: () => string }[] = [
    {
      row: 'edit the ClusterSummary',
      args: ['-n', A, 'label', 'clustersummary', SUMMARY, 'mine=yes'],
      message: summaryWay('update'),
    },
    {
      row: 'delete the ClusterSummary',
      args: ['-n', A, 'delete', 'clustersummary', SUMMARY],
      message: summaryWay('delete'),
    },
    {
      row: 'hand-craft a ClusterSummary for team-b’s cluster and content',
      args: ['create', '-f', '-'],
      message: `ClusterSummary p--forged-capi-${CLUSTER_B.name} is written by the hub's add-on controllers only (create refused)`,
      input: () =>
        JSON.stringify({
          apiVersion: SVELTOS,
          kind: 'ClusterSummary',
          metadata: { name: `p--forged-capi-${CLUSTER_B.name}`, namespace: A },
          spec: {
            clusterNamespace: B,
            clusterName: CLUSTER_B.name,
            clusterType: 'Capi',
            clusterProfileSpec: { policyRefs: [{ kind: 'ConfigMap', namespace: B, name: 'only-in-b' }] },
          },
        }),
    },
    {
      row: 'edit the generated ManifestWork',
      args: ['-n', A, 'label', 'manifestwork', WORK, 'mine=yes'],
      message: workWay,
    },
    {
      row: 'delete the generated ManifestWork',
      args: ['-n', A, 'delete', 'manifestwork', WORK],
      message: workWay,
    },
  ];

  test('the tenant’s RBAC would allow writing summaries and works in team-a', async () => {
    for (const resource of ['clustersummaries', 'manifestworks'])
      for (const verb of ['create', 'update', 'delete'])
        assert.equal(
          (await ok('tenant', ['-n', A, 'auth', 'can-i', verb, resource])).trim(),
          'yes',
          `${verb} ${resource}`,
        );
  });

  for (const who of ['tenant', 'admin'] as const)
    for (const { row, args, message, input } of generated)
      test(`${who}: ${row} → 403 naming the way out`, async () => {
        await refused(who, args, 403, message, input?.());
      });

  test('after every row: team-a’s delivery stands, team-b’s cluster holds team-b’s content only', async () => {
    assert.equal(await delivered(CLUSTER_A.sim, 'tenancy-from-team-a'), A);
    assert.equal((await resourcesFeature(A, SUMMARY))?.['status'], 'Provisioned');
    assert.ok(await jsonOf('admin', ['-n', A, 'get', 'manifestwork', WORK]));
    // Every delivered object in each cluster, by the Sveltos owner stamps: only its own namespace's Profile.
    for (const [sim, owner, name] of [
      [CLUSTER_A.sim, 'Profile/shared-sel', 'default/tenancy-from-team-a'],
      [CLUSTER_B.sim, 'Profile/team-b-own', 'default/tenancy-from-team-b'],
    ] as const) {
      const r = await inCluster(sim, ['get', 'configmaps', '-A', '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const items = (
        JSON.parse(r.stdout) as {
          items: { metadata: { name: string; namespace: string; annotations?: Record<string, string> } }[];
        }
      ).items;
      const stamped = items.flatMap(({ metadata: m }) => {
        const kind = m.annotations?.['projectsveltos.io/owner-kind'];
        const by = m.annotations?.['projectsveltos.io/owner-name'];
        return kind || by ? [`${m.namespace}/${m.name} by ${kind}/${by}`] : [];
      });
      assert.deepEqual(stamped, [`${name} by ${owner}`], sim);
    }
    assert.equal(await delivered(CLUSTER_B.sim, 'tenancy-from-team-a'), undefined);
    assert.equal(await delivered(CLUSTER_A.sim, 'tenancy-from-team-b'), undefined);
  });
});
