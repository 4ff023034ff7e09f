import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nonResourceAttributes, resourceAttributes } from '../apiserver/authz-attributes.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../apiserver/types.js';
import {
  GROUP_BOOTSTRAPPERS,
  GROUP_CLUSTER_AGENTS,
  GROUP_HOST_AGENTS,
  RESOURCES,
  clusterAgentUser,
  hostAgentUser,
} from '../fleet/names.js';
import { openStore } from '../store/index.js';
import { waitFor } from '../controllers/testing/wait.js';
import { AgentAuthorizer, WorkClusterIndex } from './agent-authorizer.js';
import { bootstrapUser, csrNameFor, csrNameOwnedBy } from './bootstrap.js';
import { JOIN_TOKEN_USED_EXTRA } from './tokens.js';

const AUTH = 'system:authenticated';
const agentA: UserInfo = { username: clusterAgentUser('team', 'a'), groups: [GROUP_CLUSTER_AGENTS, AUTH] };
const agentB: UserInfo = { username: clusterAgentUser('team', 'b'), groups: [GROUP_CLUSTER_AGENTS, AUTH] };
const host1: UserInfo = { username: hostAgentUser('h1'), groups: [GROUP_HOST_AGENTS, AUTH] };
const boot: UserInfo = {
  username: bootstrapUser({ role: 'cluster', namespace: 'team', name: 'join-a' }),
  groups: [GROUP_BOOTSTRAPPERS, AUTH],
};
const used: UserInfo = { ...boot, extra: { [JOIN_TOKEN_USED_EXTRA]: ['true'] } };
const admin: UserInfo = { username: 'alice', groups: ['fleethub:admins', AUTH] };

const rbac: Authorizer = { authorize: () => ({ allowed: true, reason: 'rbac says yes' }) };
const works = new Map([
  ['team/w-a', 'a'],
  ['team/w-b', 'b'],
]);
const authz = new AgentAuthorizer(rbac, { clusterOf: (ns, name) => works.get(`${ns}/${name}`) });

type Row = [string, UserInfo, AuthorizationAttributes, boolean];

function res(
  user: UserInfo,
  verb: string,
  group: string,
  resource: string,
  namespace: string,
  name = '',
  subresource = '',
  selectors: { labelSelector?: string; fieldSelector?: string } = {},
): AuthorizationAttributes {
  return resourceAttributes(
    user,
    { verb, group, version: 'v1', resource, subresource, namespace, name },
    '',
    selectors,
  );
}

const W = 'work.open-cluster-management.io';
const F = 'fleet.fleethub.io';
const C = 'certificates.k8s.io';
const L = 'coordination.k8s.io';
const csrA = csrNameFor(agentA.username, 'x1');
const csrBoot = csrNameFor(boot.username, 'r1');

const rows: Row[] = [
  [
    'A lists its works by label',
    agentA,
    res(agentA, 'list', W, 'manifestworks', 'team', '', '', { labelSelector: 'fleethub.io/cluster=a' }),
    true,
  ],
  [
    'A watches its works by label (in)',
    agentA,
    res(agentA, 'watch', W, 'manifestworks', 'team', '', '', { labelSelector: 'fleethub.io/cluster in (a)' }),
    true,
  ],
  ['A lists works without selector', agentA, res(agentA, 'list', W, 'manifestworks', 'team'), false],
  [
    'A lists B works',
    agentA,
    res(agentA, 'list', W, 'manifestworks', 'team', '', '', { labelSelector: 'fleethub.io/cluster=b' }),
    false,
  ],
  [
    'A lists works by a set incl. B',
    agentA,
    res(agentA, 'list', W, 'manifestworks', 'team', '', '', {
      labelSelector: 'fleethub.io/cluster in (a,b)',
    }),
    false,
  ],
  [
    'A lists works in another namespace',
    agentA,
    res(agentA, 'list', W, 'manifestworks', 'other', '', '', { labelSelector: 'fleethub.io/cluster=a' }),
    false,
  ],
  ['A gets its work', agentA, res(agentA, 'get', W, 'manifestworks', 'team', 'w-a'), true],
  [
    'A patches its work status',
    agentA,
    res(agentA, 'patch', W, 'manifestworks', 'team', 'w-a', 'status'),
    true,
  ],
  ['A gets B work', agentA, res(agentA, 'get', W, 'manifestworks', 'team', 'w-b'), false],
  [
    'A updates B work status',
    agentA,
    res(agentA, 'update', W, 'manifestworks', 'team', 'w-b', 'status'),
    false,
  ],
  ['A gets an unknown work', agentA, res(agentA, 'get', W, 'manifestworks', 'team', 'nope'), false],
  ['A deletes its work', agentA, res(agentA, 'delete', W, 'manifestworks', 'team', 'w-a'), false],
  ['A creates a work', agentA, res(agentA, 'create', W, 'manifestworks', 'team'), false],
  ['B gets its work', agentB, res(agentB, 'get', W, 'manifestworks', 'team', 'w-b'), true],
  ['A gets its lease', agentA, res(agentA, 'get', L, 'leases', 'team', 'fleethub-agent-a'), true],
  ['A updates its lease', agentA, res(agentA, 'update', L, 'leases', 'team', 'fleethub-agent-a'), true],
  ['A creates a lease (hub creates it)', agentA, res(agentA, 'create', L, 'leases', 'team'), false],
  ['A updates B lease', agentA, res(agentA, 'update', L, 'leases', 'team', 'fleethub-agent-b'), false],
  ['A gets its Cluster', agentA, res(agentA, 'get', F, 'clusters', 'team', 'a'), true],
  [
    'A watches its Cluster by name',
    agentA,
    res(agentA, 'watch', F, 'clusters', 'team', '', '', { fieldSelector: 'metadata.name=a' }),
    true,
  ],
  ['A lists Clusters', agentA, res(agentA, 'list', F, 'clusters', 'team'), false],
  ['A gets B Cluster', agentA, res(agentA, 'get', F, 'clusters', 'team', 'b'), false],
  ['A patches its Cluster status', agentA, res(agentA, 'patch', F, 'clusters', 'team', 'a', 'status'), true],
  ['A patches its Cluster spec', agentA, res(agentA, 'patch', F, 'clusters', 'team', 'a'), false],
  ['A patches B Cluster status', agentA, res(agentA, 'patch', F, 'clusters', 'team', 'b', 'status'), false],
  ['A reads secrets', agentA, res(agentA, 'get', '', 'secrets', 'team', 'a-token'), false],
  ['A lists namespaces', agentA, res(agentA, 'list', '', 'namespaces', ''), false],
  ['A creates a CSR', agentA, res(agentA, 'create', C, 'certificatesigningrequests', ''), true],
  ['A gets its CSR', agentA, res(agentA, 'get', C, 'certificatesigningrequests', '', csrA), true],
  [
    'A gets B CSR',
    agentA,
    res(agentA, 'get', C, 'certificatesigningrequests', '', csrNameFor(agentB.username, 'x1')),
    false,
  ],
  ['A lists CSRs', agentA, res(agentA, 'list', C, 'certificatesigningrequests', ''), false],
  [
    'A approves a CSR',
    agentA,
    res(agentA, 'update', C, 'certificatesigningrequests', '', csrA, 'approval'),
    false,
  ],
  ['A discovery', agentA, nonResourceAttributes(agentA, 'get', '/apis'), true],
  ['A openapi', agentA, nonResourceAttributes(agentA, 'get', '/openapi/v3'), true],
  ['A version', agentA, nonResourceAttributes(agentA, 'get', '/version'), true],
  ['A metrics', agentA, nonResourceAttributes(agentA, 'get', '/metrics'), false],
  ['A whoami', agentA, res(agentA, 'create', 'authentication.k8s.io', 'selfsubjectreviews', ''), true],
  ['host gets its Host', host1, res(host1, 'get', F, 'hosts', '', 'h1'), true],
  [
    'host watches its Host',
    host1,
    res(host1, 'watch', F, 'hosts', '', '', '', { fieldSelector: 'metadata.name=h1' }),
    true,
  ],
  ['host updates its Host status', host1, res(host1, 'update', F, 'hosts', '', 'h1', 'status'), true],
  ['host updates its Host spec', host1, res(host1, 'update', F, 'hosts', '', 'h1'), false],
  ['host gets another Host', host1, res(host1, 'get', F, 'hosts', '', 'h2'), false],
  [
    'host renews its lease',
    host1,
    res(host1, 'update', L, 'leases', 'fleethub-system', 'fleethub-host-h1'),
    true,
  ],
  [
    'host renews another lease',
    host1,
    res(host1, 'update', L, 'leases', 'fleethub-system', 'fleethub-host-h2'),
    false,
  ],
  ['host reads works', host1, res(host1, 'get', W, 'manifestworks', 'team', 'w-a'), false],
  ['host gets a Cluster', host1, res(host1, 'get', F, 'clusters', 'team', 'a'), false],
  ['bootstrap creates a CSR', boot, res(boot, 'create', C, 'certificatesigningrequests', ''), true],
  ['bootstrap gets its CSR', boot, res(boot, 'get', C, 'certificatesigningrequests', '', csrBoot), true],
  [
    'bootstrap watches its CSR',
    boot,
    res(boot, 'watch', C, 'certificatesigningrequests', '', '', '', {
      fieldSelector: `metadata.name=${csrBoot}`,
    }),
    true,
  ],
  ['bootstrap lists all CSRs', boot, res(boot, 'list', C, 'certificatesigningrequests', ''), false],
  ['bootstrap gets another CSR', boot, res(boot, 'get', C, 'certificatesigningrequests', '', csrA), false],
  ['bootstrap gets its Cluster', boot, res(boot, 'get', F, 'clusters', 'team', 'a'), false],
  ['bootstrap reads its token secret', boot, res(boot, 'get', '', 'secrets', 'team', 'join-a-token'), false],
  ['bootstrap discovery', boot, nonResourceAttributes(boot, 'get', '/api'), true],
  [
    'used bootstrap token reads its CSR',
    used,
    res(used, 'get', C, 'certificatesigningrequests', '', csrBoot),
    true,
  ],
  [
    'used bootstrap token creates a CSR',
    used,
    res(used, 'create', C, 'certificatesigningrequests', ''),
    false,
  ],
  [
    'agent name without agent group',
    { username: agentA.username, groups: [AUTH] },
    res(agentA, 'get', F, 'clusters', 'team', 'a'),
    false,
  ],
  [
    'agent group without agent name',
    { username: 'mallory', groups: [GROUP_CLUSTER_AGENTS, AUTH] },
    res(agentA, 'get', F, 'clusters', 'team', 'a'),
    false,
  ],
  [
    'agent with admin group is still confined',
    { ...agentA, groups: [...agentA.groups, 'fleethub:admins'] },
    res(agentA, 'delete', '', 'namespaces', '', 'team'),
    false,
  ],
  [
    'bootstrap group on another user',
    { username: 'eve', groups: [GROUP_BOOTSTRAPPERS, AUTH] },
    res(boot, 'create', C, 'certificatesigningrequests', ''),
    false,
  ],
  ['everyone else goes to RBAC', admin, res(admin, 'delete', '', 'namespaces', '', 'team'), true],
];

describe('agent authorizer', () => {
  for (const [title, user, attrs, allowed] of rows) {
    it(`${allowed ? 'allows' : 'denies'}: ${title}`, () => {
      const decision = authz.authorize({ ...attrs, user });
      assert.equal(decision.allowed, allowed, decision.reason);
      if (!allowed) assert.ok(decision.reason, 'a denial says why');
    });
  }

  it('CSR names belong to exactly one requester', () => {
    assert.ok(csrNameOwnedBy('fleethub-join.team.join-a.r1', boot.username));
    assert.ok(!csrNameOwnedBy('fleethub-join.team.join-a.b.r1', boot.username), 'suffix without dots');
    assert.ok(!csrNameOwnedBy('fleethub-join.team.join-a.', boot.username), 'non-empty suffix');
    const dotted = bootstrapUser({ role: 'cluster', namespace: 'team', name: 'join-a.b' });
    assert.ok(csrNameOwnedBy('fleethub-join.team.join-a.b.r1', dotted));
    assert.ok(!csrNameOwnedBy('fleethub-join.team.join-a.b.r1', boot.username));
  });

  it('indexes the cluster label of works from the store, following changes', async () => {
    const store = await openStore({ url: 'memory:' });
    const work = (name: string, cluster?: string) => ({
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'ManifestWork',
      metadata: {
        name,
        namespace: 'team',
        ...(cluster ? { labels: { 'fleethub.io/cluster': cluster } } : {}),
      },
      spec: {},
    });
    await store.create(RESOURCES.manifestWorks, work('w1', 'a'));
    const index = new WorkClusterIndex({ store, pageSize: 1 });
    index.start();
    await index.waitForSync();
    assert.equal(index.clusterOf('team', 'w1'), 'a');
    await store.create(RESOURCES.manifestWorks, work('w2', 'b'));
    await store.create(RESOURCES.manifestWorks, work('w3'));
    await waitFor(() => index.clusterOf('team', 'w2') === 'b', 'w2 indexed');
    assert.equal(index.clusterOf('team', 'w3'), undefined);
    await store.delete(RESOURCES.manifestWorks, 'team', 'w1');
    await waitFor(() => index.clusterOf('team', 'w1') === undefined, 'w1 removed');
    index.stop();
    await store.close();
  });
});
