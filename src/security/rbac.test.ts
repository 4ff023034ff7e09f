import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/types.js';
import {
  authorize,
  forbiddenError,
  forbiddenMessage,
  RBAC_RESOURCES,
  RbacIndex,
  requestAttributes,
  type PolicyRule,
  type RequestAttributes,
  type Subject,
} from './rbac.js';
import type { UserInfo } from './user.js';

const clusterRole = (name: string, rules: PolicyRule[]): KubeObject => ({
  kind: 'ClusterRole',
  metadata: { name },
  rules,
});
const role = (namespace: string, name: string, rules: PolicyRule[]): KubeObject => ({
  kind: 'Role',
  metadata: { namespace, name },
  rules,
});
const crb = (name: string, roleName: string, subjects: Subject[]): KubeObject => ({
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects,
});
const rb = (
  namespace: string,
  name: string,
  kind: 'Role' | 'ClusterRole',
  roleName: string,
  subjects: Subject[],
): KubeObject => ({
  kind: 'RoleBinding',
  metadata: { namespace, name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects,
});
const user = (username: string, ...groups: string[]): UserInfo => ({
  username,
  groups: [...groups, 'system:authenticated'],
});
const res = (
  verb: string,
  resource: string,
  namespace = '',
  extra: Partial<RequestAttributes> = {},
): RequestAttributes => {
  const [r, sub] = resource.split('/') as [string, string | undefined];
  const [plural, ...group] = r.split('.');
  return {
    verb,
    resourceRequest: true,
    resource: plural,
    apiGroup: group.join('.'),
    subresource: sub ?? '',
    namespace,
    ...extra,
  };
};
const url = (verb: string, path: string): RequestAttributes => ({ verb, resourceRequest: false, path });

function fixture(): RbacIndex {
  const index = new RbacIndex();
  // Bindings first, roles after: the index resolves role references when deciding.
  index.upsert(
    RBAC_RESOURCES.clusterRoleBindings,
    crb('readers', 'pod-reader', [{ kind: 'Group', name: 'readers' }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoleBindings,
    crb('status', 'status-writer', [{ kind: 'User', name: 'ctl' }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoleBindings,
    crb('health', 'health', [{ kind: 'Group', name: 'system:authenticated' }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoleBindings,
    crb('root', 'everything', [{ kind: 'User', name: 'root' }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoleBindings,
    crb('sa-no-ns', 'pod-reader', [{ kind: 'ServiceAccount', name: 'nons' }]),
  );
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-a', 'editors', 'Role', 'editor', [
      { kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'ci' },
    ]),
  );
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-a', 'logs', 'ClusterRole', 'log-reader', [{ kind: 'User', name: 'alice' }]),
  );
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-a', 'cm', 'ClusterRole', 'cm-one', [{ kind: 'Group', name: 'cm' }]),
  );
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-a', 'dangling', 'Role', 'missing', [{ kind: 'User', name: 'dan' }]),
  );
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-b', 'deployer', 'ClusterRole', 'pod-reader', [
      { kind: 'ServiceAccount', name: 'deploy', namespace: 'ops' },
    ]),
  );

  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('log-reader', [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('status-writer', [
      { apiGroups: ['apps'], resources: ['*/status'], verbs: ['update', 'patch'] },
    ]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('cm-one', [
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['app-config'],
        verbs: ['get', 'update', 'list', 'create'],
      },
    ]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('health', [{ nonResourceURLs: ['/healthz', '/logs/*'], verbs: ['get'] }]),
  );
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('everything', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
  );
  index.upsert(
    RBAC_RESOURCES.roles,
    role('team-a', 'editor', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'delete'] }]),
  );
  return index;
}

const sa = (ns: string, name: string): UserInfo =>
  user(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${ns}`);

const cases: [string, UserInfo, RequestAttributes, boolean][] = [
  [
    'group via ClusterRoleBinding, any namespace',
    user('x', 'readers'),
    res('get', 'pods', 'anywhere', { name: 'p' }),
    true,
  ],
  ['group via ClusterRoleBinding, across namespaces', user('x', 'readers'), res('list', 'pods'), true],
  ['verb not granted', user('x', 'readers'), res('create', 'pods', 'ns1'), false],
  [
    '`pods` does not cover pods/log',
    user('x', 'readers'),
    res('get', 'pods/log', 'ns1', { name: 'p' }),
    false,
  ],
  ['wrong API group', user('x', 'readers'), res('get', 'pods.example.com', 'ns1', { name: 'p' }), false],
  ['Role via RoleBinding in its namespace', user('alice'), res('create', 'configmaps', 'team-a'), true],
  [
    'RoleBinding does not reach other namespaces',
    user('alice'),
    res('create', 'configmaps', 'team-b'),
    false,
  ],
  ['RoleBinding does not reach across-namespace lists', user('alice'), res('list', 'configmaps'), false],
  [
    'ClusterRole via RoleBinding: subresource inside the namespace',
    user('alice'),
    res('get', 'pods/log', 'team-a', { name: 'p' }),
    true,
  ],
  [
    'ClusterRole via RoleBinding: not outside',
    user('alice'),
    res('get', 'pods/log', 'team-b', { name: 'p' }),
    false,
  ],
  [
    'ServiceAccount subject without namespace = binding namespace',
    sa('team-a', 'ci'),
    res('delete', 'configmaps', 'team-a', { name: 'c' }),
    true,
  ],
  [
    'same SA name in another namespace is someone else',
    sa('team-b', 'ci'),
    res('delete', 'configmaps', 'team-a', { name: 'c' }),
    false,
  ],
  ['SA of namespace ops bound in team-b', sa('ops', 'deploy'), res('watch', 'pods', 'team-b'), true],
  ['… only in team-b', sa('ops', 'deploy'), res('watch', 'pods', 'ops'), false],
  [
    'ClusterRoleBinding SA subject without namespace matches nobody',
    sa('default', 'nons'),
    res('get', 'pods', 'default', { name: 'p' }),
    false,
  ],
  [
    'resourceNames: the named object',
    user('x', 'cm'),
    res('get', 'configmaps', 'team-a', { name: 'app-config' }),
    true,
  ],
  [
    'resourceNames: update the named object',
    user('x', 'cm'),
    res('update', 'configmaps', 'team-a', { name: 'app-config' }),
    true,
  ],
  [
    'resourceNames: another object',
    user('x', 'cm'),
    res('get', 'configmaps', 'team-a', { name: 'other' }),
    false,
  ],
  ['resourceNames: list has no name', user('x', 'cm'), res('list', 'configmaps', 'team-a'), false],
  ['resourceNames: create without name', user('x', 'cm'), res('create', 'configmaps', 'team-a'), false],
  [
    '*/status covers deployments/status',
    user('ctl'),
    res('update', 'deployments.apps/status', 'ns1', { name: 'd' }),
    true,
  ],
  [
    '*/status does not cover the main resource',
    user('ctl'),
    res('update', 'deployments.apps', 'ns1', { name: 'd' }),
    false,
  ],
  ['*/status of another group', user('ctl'), res('update', 'pods/status', 'ns1', { name: 'p' }), false],
  [
    '*/status does not cover other subresources',
    user('ctl'),
    res('update', 'deployments.apps/scale', 'ns1', { name: 'd' }),
    false,
  ],
  ['nonResourceURL exact', user('anyone'), url('get', '/healthz'), true],
  ['nonResourceURL prefix*', user('anyone'), url('get', '/logs/kube-apiserver.log'), true],
  ['nonResourceURL not listed', user('anyone'), url('get', '/metrics'), false],
  ['nonResourceURL verb', user('anyone'), url('post', '/healthz'), false],
  ['resource rules do not grant paths', user('x', 'readers'), url('get', '/api/v1/pods'), false],
  [
    'wildcards: everything incl. subresources',
    user('root'),
    res('create', 'pods/exec', 'x', { name: 'p' }),
    true,
  ],
  [
    'wildcards: cluster-scoped in any group',
    user('root'),
    res('delete', 'clusters.fleet.fleethub.io', '', { name: 'c' }),
    true,
  ],
  ['wildcards: any path', user('root'), url('get', '/metrics'), true],
  [
    'dangling role reference grants nothing',
    user('dan'),
    res('get', 'configmaps', 'team-a', { name: 'c' }),
    false,
  ],
  ['unknown user', user('nobody'), res('get', 'pods', 'team-a', { name: 'p' }), false],
];

for (const [name, who, attrs, expected] of cases) {
  void test(`rbac: ${name}`, () => {
    assert.equal(fixture().authorize(who, attrs).allowed, expected);
  });
}

void test('rbac: reasons say which binding allowed, or which role was missing', () => {
  const index = fixture();
  assert.equal(
    index.authorize(user('alice'), res('create', 'configmaps', 'team-a')).reason,
    'RBAC: allowed by RoleBinding "editors/team-a" of Role "editor" to User "alice"',
  );
  assert.equal(
    index.authorize(user('x', 'readers'), res('list', 'pods')).reason,
    'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "readers"',
  );
  assert.equal(
    index.authorize(user('dan'), res('get', 'configmaps', 'team-a', { name: 'c' })).reason,
    'RBAC: role.rbac.authorization.k8s.io "missing" not found',
  );
});

void test('rbac: the index follows updates and deletions', () => {
  const index = fixture();
  const alice = user('alice');
  const bob = user('bob');
  index.upsert(
    RBAC_RESOURCES.roleBindings,
    rb('team-a', 'editors', 'Role', 'editor', [{ kind: 'User', name: 'bob' }]),
  );
  assert.equal(
    index.authorize(alice, res('create', 'configmaps', 'team-a')).allowed,
    false,
    'alice dropped from subjects',
  );
  assert.equal(index.authorize(bob, res('create', 'configmaps', 'team-a')).allowed, true);

  index.upsert(
    RBAC_RESOURCES.roles,
    role('team-a', 'editor', [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]),
  );
  assert.equal(
    index.authorize(bob, res('create', 'configmaps', 'team-a')).allowed,
    false,
    'role rules replaced',
  );
  assert.equal(index.authorize(bob, res('create', 'secrets', 'team-a')).allowed, true);

  index.remove(RBAC_RESOURCES.roleBindings, 'team-a', 'editors');
  assert.equal(index.authorize(bob, res('create', 'secrets', 'team-a')).allowed, false);

  index.remove(RBAC_RESOURCES.clusterRoles, '', 'pod-reader');
  assert.equal(index.authorize(user('x', 'readers'), res('list', 'pods')).allowed, false);
  index.remove('clusterrolebindings', '', 'root'); // bare plural works too
  assert.equal(index.authorize(user('root'), url('get', '/metrics')).allowed, false);
});

void test('rbac: rulesFor lists cluster-wide and namespace grants (SelfSubjectRulesReview)', () => {
  const index = fixture();
  const rules = index.rulesFor(user('alice'), 'team-a');
  assert.deepEqual(rules.resourceRules, [
    { verbs: ['create', 'delete'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
  ]);
  assert.deepEqual(rules.nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] }]);
  assert.equal(rules.incomplete, false);
  assert.deepEqual(index.rulesFor(user('alice'), 'team-b').resourceRules, []);
  const dan = index.rulesFor(user('dan'), 'team-a');
  assert.equal(dan.incomplete, true);
  assert.match(dan.evaluationError ?? '', /"missing" not found/);
  assert.deepEqual(index.rulesFor(user('x', 'cm'), 'team-a').resourceRules[0]?.resourceNames, ['app-config']);
});

void test('rbac: forbidden messages are the Kubernetes texts', () => {
  const v = sa('default', 'v');
  assert.equal(
    forbiddenMessage(v, res('create', 'configmaps', 'default')),
    'configmaps is forbidden: User "system:serviceaccount:default:v" cannot create resource "configmaps" in API group "" in the namespace "default"',
  );
  assert.equal(
    forbiddenMessage(user('op'), res('create', 'clusters.fleet.fleethub.io')),
    'clusters.fleet.fleethub.io is forbidden: User "op" cannot create resource "clusters" in API group "fleet.fleethub.io" at the cluster scope',
  );
  assert.equal(
    forbiddenMessage(user('op'), res('get', 'secrets', 'default', { name: 'db' })),
    'secrets "db" is forbidden: User "op" cannot get resource "secrets" in API group "" in the namespace "default"',
  );
  assert.equal(
    forbiddenMessage(user('op'), res('get', 'pods/log', 'ns', { name: 'p' })),
    'pods "p" is forbidden: User "op" cannot get resource "pods/log" in API group "" in the namespace "ns"',
  );
  assert.equal(
    forbiddenMessage(user('op'), url('get', '/metrics')),
    'forbidden: User "op" cannot get path "/metrics"',
  );
  assert.equal(
    forbiddenMessage(
      user('dan'),
      res('get', 'configmaps', 'team-a'),
      'RBAC: role.rbac.authorization.k8s.io "missing" not found',
    ),
    'configmaps is forbidden: User "dan" cannot get resource "configmaps" in API group "" in the namespace "team-a": RBAC: role.rbac.authorization.k8s.io "missing" not found',
  );
  const status = forbiddenError(
    user('op'),
    res('delete', 'clusters.fleet.fleethub.io', '', { name: 'edge' }),
  ).toStatus();
  assert.equal(status.code, 403);
  assert.equal(status.reason, 'Forbidden');
  assert.deepEqual(status.details, { kind: 'clusters', group: 'fleet.fleethub.io', name: 'edge' });
});

void test('rbac: one-off authorize() over plain object lists', () => {
  const objects = {
    clusterRoles: [clusterRole('r', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])],
    roleBindings: [rb('ns', 'b', 'ClusterRole', 'r', [{ kind: 'User', name: 'u' }])],
  };
  assert.equal(authorize(user('u'), res('get', 'configmaps', 'ns', { name: 'c' }), objects).allowed, true);
  assert.equal(
    authorize(user('u'), res('get', 'configmaps', 'other', { name: 'c' }), objects).allowed,
    false,
  );
});

void test('rbac: thousands of bindings stay fast (decisions touch only the user’s bindings)', () => {
  const index = new RbacIndex();
  index.upsert(
    RBAC_RESOURCES.clusterRoles,
    clusterRole('r', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
  );
  for (let i = 0; i < 5000; i++) {
    index.upsert(
      RBAC_RESOURCES.roleBindings,
      rb(`ns-${i % 100}`, `b-${i}`, 'ClusterRole', 'r', [{ kind: 'User', name: `user-${i}` }]),
    );
    index.upsert(
      RBAC_RESOURCES.clusterRoleBindings,
      crb(`c-${i}`, 'r', [{ kind: 'Group', name: `group-${i}` }]),
    );
  }
  const started = process.hrtime.bigint();
  let allowed = 0;
  for (let i = 0; i < 20_000; i++) {
    const n = i % 5000;
    if (
      index.authorize(user(`user-${n}`, 'x', 'y'), res('get', 'configmaps', `ns-${n % 100}`, { name: 'c' }))
        .allowed
    )
      allowed++;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(allowed, 20_000);
  assert.equal(
    index.authorize(user('user-1'), res('get', 'configmaps', 'ns-2', { name: 'c' })).allowed,
    false,
  );
  assert.ok(ms < 2000, `20k decisions took ${ms} ms`);
});

void test('rbac: attributes from the API server request info', () => {
  const index = fixture();
  const attrs = requestAttributes({
    isResourceRequest: true,
    path: '/api/v1/namespaces/team-a/configmaps',
    verb: 'create',
    group: '',
    resource: 'configmaps',
    subresource: '',
    name: '',
    namespace: 'team-a',
  });
  assert.equal(index.authorize(user('alice'), attrs).allowed, true);
  assert.equal(
    index.authorize(
      user('anyone'),
      requestAttributes({ isResourceRequest: false, path: '/healthz', verb: 'get' }),
    ).allowed,
    true,
  );
});
