import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  buildDiscovery,
  compareKubeVersions,
  DISCOVERY_CONTENT_TYPES,
  layoutRegistry,
  negotiateDiscovery,
  versionInfo,
  type ServedKind,
} from './discovery.js';

const schema = Type.Object({});

const deployments: ServedKind = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  schema,
  subresources: { status: true },
  extraSubresources: [
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['update', 'get', 'patch'] },
  ],
};

const serviceAccounts: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  schema,
  extraSubresources: [
    { name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
  ],
};

const namespaces: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  schema,
  subresources: { status: true },
};

const kind = (group: string, version: string, k: string, extra: Partial<ServedKind> = {}): ServedKind => ({
  group,
  version,
  kind: k,
  plural: `${k.toLowerCase()}s`,
  singular: k.toLowerCase(),
  namespaced: true,
  schema,
  ...extra,
});

const kubectlAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

void test('aggregated /apis has exactly the shape kube-apiserver sends (research §1.2 example)', () => {
  const expected = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},
 "items":[{"metadata":{"name":"apps","creationTimestamp":null},
  "versions":[{"version":"v1","freshness":"Current","resources":[
   {"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},
    "scope":"Namespaced","singularResource":"deployment","shortNames":["deploy"],"categories":["all"],
    "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],
    "subresources":[
     {"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},
     {"subresource":"status","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"verbs":["get","patch","update"]}]}]}]}]}`.replace(
    /\s+/g,
    '',
  );
  const layout = layoutRegistry([deployments, namespaces]);
  assert.equal(JSON.stringify(aggregatedDiscovery(layout, 'apis')), expected);
  // v2beta1 is the same document under another apiVersion.
  const beta = aggregatedDiscovery(layout, 'apis', 'v2beta1');
  assert.equal(beta.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  assert.equal(JSON.stringify({ ...beta, apiVersion: 'apidiscovery.k8s.io/v2' }), expected);
});

void test('aggregated /api holds the core group only, without a group name', () => {
  const layout = layoutRegistry([deployments, namespaces, serviceAccounts]);
  const doc = aggregatedDiscovery(layout, 'api');
  assert.equal(doc.items.length, 1);
  assert.deepEqual(doc.items[0]!.metadata, { creationTimestamp: null });
  const resources = doc.items[0]!.versions[0]!.resources;
  assert.deepEqual(
    resources.map((r) => [r.resource, r.scope]),
    [
      ['namespaces', 'Cluster'],
      ['serviceaccounts', 'Namespaced'],
    ],
  );
  assert.deepEqual(resources[1]!.subresources, [
    {
      subresource: 'token',
      responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      verbs: ['create'],
    },
  ]);
});

void test('negotiateDiscovery follows the first acceptable Accept clause', () => {
  assert.equal(negotiateDiscovery(kubectlAccept), 'v2');
  assert.equal(
    negotiateDiscovery(
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
    ),
    'v2beta1',
  );
  assert.equal(
    negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer'),
    'v2',
  );
  assert.equal(negotiateDiscovery('application/json'), 'legacy');
  assert.equal(negotiateDiscovery('*/*'), 'legacy');
  assert.equal(negotiateDiscovery(undefined), 'legacy');
  // Protobuf cannot be produced: skipped, the JSON aggregated clause after it wins.
  assert.equal(
    negotiateDiscovery(
      'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    ),
    'v2',
  );
  // An unknown discovery version is skipped; q-values reorder.
  assert.equal(
    negotiateDiscovery(
      'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json',
    ),
    'legacy',
  );
  assert.equal(
    negotiateDiscovery(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json',
    ),
    'legacy',
  );
});

void test('legacy APIResourceList lists subresources with their own kinds and sorted verbs', () => {
  const layout = layoutRegistry([serviceAccounts, namespaces]);
  const list = apiResourceList(layout, 'v1')!;
  assert.equal(list.kind, 'APIResourceList');
  assert.equal(list.groupVersion, 'v1');
  assert.deepEqual(
    list.resources.map((r) => r.name),
    ['namespaces', 'namespaces/status', 'serviceaccounts', 'serviceaccounts/token'],
  );
  const [ns, nsStatus, sa, token] = list.resources;
  assert.deepEqual(ns!.shortNames, ['ns']);
  assert.equal(ns!.namespaced, false);
  assert.equal(ns!.singularName, 'namespace');
  assert.deepEqual(ns!.verbs, [
    'create',
    'delete',
    'deletecollection',
    'get',
    'list',
    'patch',
    'update',
    'watch',
  ]);
  assert.deepEqual(nsStatus, {
    name: 'namespaces/status',
    singularName: '',
    namespaced: false,
    kind: 'Namespace',
    verbs: ['get', 'patch', 'update'],
  });
  assert.equal(sa!.kind, 'ServiceAccount');
  // kubectl drain and create token need group/version on subresources of another kind.
  assert.deepEqual(token, {
    name: 'serviceaccounts/token',
    singularName: '',
    namespaced: true,
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenRequest',
    verbs: ['create'],
  });
  assert.equal(apiResourceList(layout, 'apps/v1'), undefined);
});

void test('create-only kinds advertise just create and have no storage version', () => {
  const review = kind('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', {
    namespaced: false,
    verbs: ['create'],
  });
  const [entry] = apiResourceList(layoutRegistry([review]), 'authorization.k8s.io/v1')!.resources;
  assert.deepEqual(entry!.verbs, ['create']);
  assert.equal(entry!.storageVersionHash, undefined);
});

void test('groups: Kubernetes ones in the apiserver order, then ours alphabetically; versions by stability', () => {
  const layout = layoutRegistry([
    kind('zeta.example.com', 'v1', 'Z'),
    kind('coordination.k8s.io', 'v1', 'Lease'),
    kind('alpha.example.com', 'v1alpha1', 'A'),
    kind('alpha.example.com', 'v1', 'A'),
    kind('alpha.example.com', 'v2beta1', 'A'),
    kind('alpha.example.com', 'v1beta2', 'A'),
    kind('rbac.authorization.k8s.io', 'v1', 'Role'),
    deployments,
    namespaces,
  ]);
  assert.deepEqual(
    layout.core?.versions.map((v) => v.groupVersion),
    ['v1'],
  );
  assert.deepEqual(
    layout.groups.map((g) => g.group),
    ['apps', 'rbac.authorization.k8s.io', 'coordination.k8s.io', 'alpha.example.com', 'zeta.example.com'],
  );
  const list = apiGroupList(layout);
  const alpha = list.groups.find((g) => g.name === 'alpha.example.com')!;
  assert.deepEqual(
    alpha.versions.map((v) => v.version),
    ['v1', 'v2beta1', 'v1beta2', 'v1alpha1'],
  );
  assert.deepEqual(alpha.preferredVersion, { groupVersion: 'alpha.example.com/v1', version: 'v1' });
  assert.deepEqual(apiGroup(layout, 'apps'), {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'apps',
    versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
  });
  assert.equal(apiGroup(layout, 'nope.example.com'), undefined);
  assert.deepEqual(apiVersions(layout, '10.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  });
});

void test('compareKubeVersions orders GA > beta > alpha, then non-Kubernetes versions by name', () => {
  const sorted = ['foo', 'v1alpha1', 'v2', 'v1beta1', 'v1', 'v11alpha2', 'bar', 'v1beta2', 'v12'].sort(
    compareKubeVersions,
  );
  assert.deepEqual(sorted, ['v12', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});

void test('two kinds serving the same plural in one group-version are a registry error', () => {
  assert.throws(
    () => layoutRegistry([kind('a.io', 'v1', 'X'), kind('a.io', 'v1', 'X')]),
    /two kinds serve xs in a.io\/v1/,
  );
});

void test('/version: semver fields, emulation fields from 1.33 on', () => {
  const v = versionInfo();
  assert.equal(v.gitVersion, 'v1.35.0');
  assert.equal(v.major, '1');
  assert.equal(v.minor, '35');
  assert.equal(v.emulationMinor, '35');
  assert.equal(v.minCompatibilityMinor, '34');
  assert.equal(v.compiler, 'gc');
  assert.match(v.gitCommit, /^[0-9a-f]{40}$/);
  for (const key of ['buildDate', 'goVersion', 'platform', 'gitTreeState'])
    assert.ok((v as unknown as Record<string, string>)[key]);
  const old = versionInfo({ gitVersion: 'v1.31.9' });
  assert.equal(old.minor, '31');
  assert.equal('emulationMajor' in old, false);
  assert.equal('emulationMajor' in versionInfo({ emulationFields: false }), false);
  assert.throws(() => versionInfo({ gitVersion: '1.35' }), /not a Kubernetes semver/);
});

void test('buildDiscovery answers every discovery path with the Content-Type clients key off', () => {
  const discovery = buildDiscovery([deployments, namespaces, serviceAccounts], {
    version: { gitVersion: 'v1.34.2' },
  });
  const version = discovery.respond('/version')!;
  assert.equal(version.headers['Content-Type'], 'application/json');
  assert.equal(JSON.parse(version.body).gitVersion, 'v1.34.2');

  const apis = discovery.respond('/apis', kubectlAccept)!;
  assert.equal(apis.status, 200);
  assert.equal(
    apis.headers['Content-Type'],
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  );
  assert.equal(JSON.parse(apis.body).items[0].metadata.name, 'apps');
  const beta = discovery.respond(
    '/api',
    'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  )!;
  assert.equal(beta.headers['Content-Type'], DISCOVERY_CONTENT_TYPES.v2beta1);
  assert.equal(JSON.parse(beta.body).apiVersion, 'apidiscovery.k8s.io/v2beta1');

  // Revalidation: same ETag → 304 without a body.
  const again = discovery.respond('/apis', kubectlAccept, apis.headers.ETag)!;
  assert.equal(again.status, 304);
  assert.equal(again.body, '');

  const legacyApi = discovery.respond('/api', 'application/json')!;
  assert.equal(legacyApi.headers['Content-Type'], 'application/json');
  assert.equal(JSON.parse(legacyApi.body).kind, 'APIVersions');
  assert.equal(JSON.parse(discovery.respond('/apis/', undefined)!.body).kind, 'APIGroupList');
  assert.equal(JSON.parse(discovery.respond('/apis/apps')!.body).kind, 'APIGroup');
  assert.equal(JSON.parse(discovery.respond('/apis/apps/v1')!.body).groupVersion, 'apps/v1');
  assert.equal(JSON.parse(discovery.respond('/api/v1')!.body).groupVersion, 'v1');
  for (const path of ['/api/v2', '/apis/nope', '/apis/apps/v9', '/apis/apps/v1/deployments', '/healthz']) {
    assert.equal(discovery.respond(path), undefined, path);
  }
});

void test('adding a kind changes the aggregated document and its ETag', () => {
  const before = buildDiscovery([deployments]).respond('/apis', kubectlAccept)!;
  const after = buildDiscovery([deployments, kind('fleet.example.io', 'v1', 'Widget')]).respond(
    '/apis',
    kubectlAccept,
  )!;
  assert.notEqual(before.headers.ETag, after.headers.ETag);
  assert.deepEqual(
    JSON.parse(after.body).items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['apps', 'fleet.example.io'],
  );
});
