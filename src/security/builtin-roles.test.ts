import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/types.js';
import {
  ADMIN_ROLE,
  AUTOUPDATE_ANNOTATION,
  builtinClusterRoleBindings,
  builtinClusterRoles,
  ensureBuiltinRbac,
  OPERATOR_ROLE,
  VIEWER_ROLE,
} from './builtin-roles.js';
import { memoryStore } from './test-support.js';
import { checkBindingEscalation, checkRoleEscalation, uncoveredRules } from './rbac-escalation.js';
import { RBAC_RESOURCES, RbacIndex, type RequestAttributes } from './rbac.js';
import type { UserInfo } from './user.js';

const AUTH = 'system:authenticated';
const admin: UserInfo = { username: 'fleethub-admin', groups: ['fleethub:admins', AUTH] };
const operator: UserInfo = { username: 'olga', groups: ['ops', AUTH] };
const viewer: UserInfo = { username: 'vic', groups: ['viewers', AUTH] };
const nobody: UserInfo = { username: 'nina', groups: [AUTH] };

function index(): RbacIndex {
  const idx = new RbacIndex();
  for (const r of builtinClusterRoles()) idx.upsert(RBAC_RESOURCES.clusterRoles, r);
  for (const b of builtinClusterRoleBindings()) idx.upsert(RBAC_RESOURCES.clusterRoleBindings, b);
  idx.upsert(RBAC_RESOURCES.clusterRoleBindings, {
    metadata: { name: 'ops' },
    roleRef: { kind: 'ClusterRole', name: OPERATOR_ROLE },
    subjects: [{ kind: 'Group', name: 'ops' }],
  });
  idx.upsert(RBAC_RESOURCES.clusterRoleBindings, {
    metadata: { name: 'viewers' },
    roleRef: { kind: 'ClusterRole', name: VIEWER_ROLE },
    subjects: [{ kind: 'Group', name: 'viewers' }],
  });
  return idx;
}

/** `verb resource[.group][/sub] [ns/]name` → attributes. */
function req(verb: string, resource: string, where = ''): RequestAttributes {
  const [r, sub] = resource.split('/') as [string, string | undefined];
  const dot = r.indexOf('.');
  const [namespace, name] = where.includes('/') ? (where.split('/') as [string, string]) : ['', where];
  return {
    verb,
    resourceRequest: true,
    resource: dot < 0 ? r : r.slice(0, dot),
    apiGroup: dot < 0 ? '' : r.slice(dot + 1),
    subresource: sub ?? '',
    namespace,
    name,
  };
}
const path = (p: string): RequestAttributes => ({ verb: 'get', resourceRequest: false, path: p });

const F = 'fleet.fleethub.io';
const cases: [UserInfo, RequestAttributes, boolean][] = [
  // operator
  [operator, req('create', `clusters.${F}`), false],
  [operator, req('update', `clusters.${F}`, 'edge-1'), false],
  [operator, req('delete', `clusters.${F}`, 'edge-1'), false],
  [operator, req('list', `clusters.${F}`), true],
  [operator, req('get', `clusters.${F}`, 'edge-1'), true],
  [operator, req('get', `clusters.${F}/kubeconfig`, 'edge-1'), false],
  [operator, req('delete', `hosts.${F}`, 'h1'), false],
  [operator, req('create', `fleetclusterjoins.${F}`), false],
  [operator, req('create', `fleethostjoins.${F}`), false],
  [operator, req('get', 'secrets', 'default/db'), false],
  [operator, req('list', 'secrets'), false],
  [operator, req('watch', 'secrets', 'default/'), false],
  [operator, req('create', 'clusterprofiles.config.projectsveltos.io'), true],
  [operator, req('update', 'profiles.config.projectsveltos.io', 'team-a/p'), true],
  [operator, req('delete', 'manifestworks.work.open-cluster-management.io', 'edge-1/w'), true],
  [operator, req('patch', `fleetapps.${F}`, 'apps/a'), true],
  [operator, req('create', `fleetcharts.${F}`, 'apps/'), true],
  [operator, req('create', `fleetapproutes.${F}`, 'apps/'), true],
  [operator, req('create', 'eventtriggers.lib.projectsveltos.io'), true],
  [operator, req('create', 'eventreports.lib.projectsveltos.io'), false],
  [operator, req('update', 'clustersummaries.config.projectsveltos.io', 'ns/s'), false],
  [operator, req('create', 'rolebindings.rbac.authorization.k8s.io', 'team-a/'), false],
  [operator, req('update', 'clusterroles.rbac.authorization.k8s.io', ADMIN_ROLE), false],
  [operator, req('list', 'clusterrolebindings.rbac.authorization.k8s.io'), true],
  [operator, req('create', 'configmaps', 'default/'), false],
  [operator, req('watch', 'namespaces'), true],
  [operator, req('list', `auditevents.${F}`), false],
  [operator, req('create', 'serviceaccounts/token', 'default/sa'), false],
  // viewer
  [viewer, req('list', `clusters.${F}`), true],
  [viewer, req('get', 'manifestworks.work.open-cluster-management.io', 'edge-1/w'), true],
  [viewer, req('get', 'leases.coordination.k8s.io', 'kube-system/l'), true],
  [viewer, req('get', 'secrets', 'default/db'), false],
  [viewer, req('get', `clusters.${F}/kubeconfig`, 'edge-1'), false],
  [viewer, req('get', `clusters.${F}/status`, 'edge-1'), true],
  // admin
  [admin, req('create', `clusters.${F}`), true],
  [admin, req('get', 'secrets', 'default/db'), true],
  [admin, req('get', `clusters.${F}/kubeconfig`, 'edge-1'), true],
  [admin, req('list', `auditevents.${F}`), true],
  [admin, req('create', 'clusterrolebindings.rbac.authorization.k8s.io'), true],
  [admin, path('/metrics'), true],
  // everyone authenticated
  [nobody, req('create', 'selfsubjectaccessreviews.authorization.k8s.io'), true],
  [nobody, req('create', 'selfsubjectrulesreviews.authorization.k8s.io'), true],
  [nobody, req('create', 'selfsubjectreviews.authentication.k8s.io'), true],
  [nobody, req('create', 'subjectaccessreviews.authorization.k8s.io'), false],
  [nobody, path('/apis'), true],
  [nobody, path('/apis/fleet.fleethub.io/v1alpha1'), true],
  [nobody, path('/api/v1'), true],
  [nobody, path('/version'), true],
  [nobody, path('/openapi/v3'), true],
  [nobody, path('/healthz'), true],
  [nobody, path('/metrics'), false],
  [nobody, req('list', 'configmaps'), false],
  [nobody, req('list', 'namespaces'), false],
];

for (const [who, attrs, expected] of cases) {
  const what = attrs.resourceRequest
    ? `${attrs.verb} ${attrs.resource}${attrs.subresource ? '/' + attrs.subresource : ''}${attrs.apiGroup ? '.' + attrs.apiGroup : ''}`
    : `get ${attrs.path}`;
  void test(`builtin: ${who.username} ${expected ? 'may' : 'may not'} ${what}`, () => {
    assert.equal(index().authorize(who, attrs).allowed, expected);
  });
}

void test('builtin: the viewer can write nothing at all', () => {
  const idx = index();
  const viewerRole = builtinClusterRoles().find((r) => r.metadata.name === VIEWER_ROLE)!;
  const readable = viewerRole['rules'] as { apiGroups: string[]; resources: string[] }[];
  let checked = 0;
  for (const rule of readable) {
    for (const resource of rule.resources) {
      for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
        const [plural, sub] = resource.split('/') as [string, string | undefined];
        const attrs: RequestAttributes = {
          verb,
          resourceRequest: true,
          apiGroup: rule.apiGroups[0] ?? '',
          resource: plural,
          subresource: sub ?? '',
          namespace: 'default',
          name: 'x',
        };
        assert.equal(idx.authorize(viewer, attrs).allowed, false, `${verb} ${resource}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 100);
});

void test('builtin: a ServiceAccount gets operator rights in one namespace through an ordinary RoleBinding', () => {
  const idx = index();
  idx.upsert(RBAC_RESOURCES.roleBindings, {
    metadata: { namespace: 'team-a', name: 'ci-operator' },
    roleRef: { kind: 'ClusterRole', name: OPERATOR_ROLE },
    subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'team-a' }],
  });
  const ci: UserInfo = {
    username: 'system:serviceaccount:team-a:ci',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', AUTH],
  };
  assert.equal(
    idx.authorize(ci, req('create', 'profiles.config.projectsveltos.io', 'team-a/')).allowed,
    true,
  );
  assert.equal(
    idx.authorize(ci, req('create', 'profiles.config.projectsveltos.io', 'team-b/')).allowed,
    false,
  );
});

void test('builtin objects carry the bootstrapping label; ensureBuiltinRbac creates, restores, respects autoupdate=false', async () => {
  for (const o of [...builtinClusterRoles(), ...builtinClusterRoleBindings()]) {
    assert.equal(o.metadata.labels?.['fleethub.io/bootstrapping'], 'rbac-defaults');
  }
  const { store } = await memoryStore();
  const created = await ensureBuiltinRbac(store);
  assert.ok(created.includes(ADMIN_ROLE) && created.includes('fleethub:admins'));
  assert.deepEqual(await ensureBuiltinRbac(store), [], 'nothing to do the second time');

  await store.delete(RBAC_RESOURCES.clusterRoleBindings, '', 'fleethub:admins');
  const viewerRole = (await store.get(RBAC_RESOURCES.clusterRoles, '', VIEWER_ROLE))!;
  await store.update(RBAC_RESOURCES.clusterRoles, {
    ...viewerRole,
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  });
  assert.deepEqual((await ensureBuiltinRbac(store)).sort(), ['fleethub:admins', VIEWER_ROLE].sort());
  const restored = (await store.get(RBAC_RESOURCES.clusterRoles, '', VIEWER_ROLE))!;
  assert.deepEqual(
    restored['rules'],
    builtinClusterRoles().find((r) => r.metadata.name === VIEWER_ROLE)!['rules'],
  );

  const custom: KubeObject = {
    ...restored,
    metadata: { ...restored.metadata, annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } },
    rules: [],
  };
  await store.update(RBAC_RESOURCES.clusterRoles, custom);
  assert.deepEqual(await ensureBuiltinRbac(store), []);
  assert.deepEqual((await store.get(RBAC_RESOURCES.clusterRoles, '', VIEWER_ROLE))!['rules'], []);
  await store.close();
});

void test('escalation: an operator may not bind fleethub:admin, but may hand out the viewer role it covers', () => {
  const idx = index();
  const binding = (role: string): KubeObject => ({
    metadata: { namespace: 'team-a', name: 'b' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'User', name: 'friend' }],
  });
  const denied = checkBindingEscalation(idx, operator, binding(ADMIN_ROLE));
  assert.equal(denied?.code, 403);
  assert.match(
    denied?.message ?? '',
    /rolebindings\.rbac\.authorization\.k8s\.io "b" is forbidden: user "olga" .* not currently held/,
  );
  assert.equal(checkBindingEscalation(idx, operator, binding(VIEWER_ROLE)), undefined);
  assert.equal(checkBindingEscalation(idx, admin, binding(ADMIN_ROLE)), undefined);
  assert.equal(
    checkBindingEscalation(idx, admin, binding('nope')),
    undefined,
    'admins hold `bind` on every role',
  );
  assert.match(
    checkBindingEscalation(idx, operator, binding('nope'))?.message ?? '',
    /clusterrole.* "nope" not found/,
  );

  // The `bind` verb on exactly that role is enough.
  idx.upsert(RBAC_RESOURCES.clusterRoles, {
    metadata: { name: 'binder' },
    rules: [
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        resourceNames: [ADMIN_ROLE],
        verbs: ['bind'],
      },
    ],
  });
  idx.upsert(RBAC_RESOURCES.roleBindings, {
    metadata: { namespace: 'team-a', name: 'olga-binder' },
    roleRef: { kind: 'ClusterRole', name: 'binder' },
    subjects: [{ kind: 'User', name: 'olga' }],
  });
  assert.equal(checkBindingEscalation(idx, operator, binding(ADMIN_ROLE)), undefined);
});

void test('escalation: roles may only contain rules the author holds, unless it may escalate', () => {
  const idx = index();
  const roleWith = (rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[]) => ({
    kind: 'Role' as const,
    namespace: 'team-a',
    name: 'r',
    rules,
  });
  assert.equal(
    checkRoleEscalation(
      idx,
      operator,
      roleWith([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    ),
    undefined,
  );
  const denied = checkRoleEscalation(
    idx,
    operator,
    roleWith([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }]),
  );
  assert.match(
    denied?.message ?? '',
    /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["list"\]\}/,
  );
  assert.equal(
    checkRoleEscalation(idx, admin, roleWith([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }])),
    undefined,
  );
});

void test('escalation: rule coverage follows Kubernetes (subresource wildcards, resourceNames, URL prefixes)', () => {
  assert.deepEqual(
    uncoveredRules(
      [{ apiGroups: ['apps'], resources: ['*/status'], verbs: ['get'] }],
      [{ apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get'] }],
    ),
    [],
  );
  assert.equal(
    uncoveredRules(
      [{ apiGroups: ['apps'], resources: ['*/status'], verbs: ['get'] }],
      [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }],
    ).length,
    1,
  );
  assert.equal(
    uncoveredRules(
      [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }],
      [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    ).length,
    1,
    'a name-limited grant does not cover all names',
  );
  assert.deepEqual(
    uncoveredRules(
      [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }],
    ),
    [],
  );
  assert.deepEqual(
    uncoveredRules(
      [{ nonResourceURLs: ['/apis/*'], verbs: ['get'] }],
      [{ nonResourceURLs: ['/apis/x'], verbs: ['get'] }],
    ),
    [],
  );
  assert.equal(
    uncoveredRules(
      [{ nonResourceURLs: ['/apis/*'], verbs: ['get'] }],
      [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    ).length,
    1,
  );
});
