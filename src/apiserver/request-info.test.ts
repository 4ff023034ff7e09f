import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestInfo } from './request-info.js';

const q = (s = '') => new URLSearchParams(s);

test('namespaced resource paths carry namespace, resource, name and subresource', () => {
  assert.deepEqual(requestInfo('GET', '/api/v1/namespaces/team/configmaps/cm1', q()), {
    isResourceRequest: true,
    path: '/api/v1/namespaces/team/configmaps/cm1',
    verb: 'get',
    apiPrefix: 'api',
    group: '',
    version: 'v1',
    namespace: 'team',
    resource: 'configmaps',
    name: 'cm1',
    subresource: '',
  });
  const token = requestInfo('POST', '/api/v1/namespaces/team/serviceaccounts/sa/token', q());
  assert.equal(
    token.isResourceRequest && `${token.verb} ${token.resource}/${token.subresource}`,
    'create serviceaccounts/token',
  );
});

test('a namespace and its status subresource are cluster-scoped requests', () => {
  const ns = requestInfo('GET', '/api/v1/namespaces/team', q());
  assert.ok(ns.isResourceRequest);
  assert.equal(ns.namespace, '');
  assert.equal(ns.resource, 'namespaces');
  assert.equal(ns.name, 'team');
  const status = requestInfo('PUT', '/api/v1/namespaces/team/status', q());
  assert.ok(status.isResourceRequest);
  assert.deepEqual(
    [status.resource, status.name, status.subresource, status.namespace],
    ['namespaces', 'team', 'status', ''],
  );
});

test('verbs follow method, name and the watch parameter', () => {
  const verb = (m: string, p: string, s = '') => {
    const info = requestInfo(m, p, q(s));
    return info.isResourceRequest ? info.verb : `nonresource:${info.verb}`;
  };
  assert.equal(verb('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles'), 'list');
  assert.equal(verb('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', 'watch=true'), 'watch');
  assert.equal(verb('GET', '/api/v1/namespaces/a/secrets', 'watch=1'), 'watch');
  assert.equal(verb('DELETE', '/api/v1/namespaces/a/secrets'), 'deletecollection');
  assert.equal(verb('DELETE', '/api/v1/namespaces/a/secrets/s'), 'delete');
  assert.equal(verb('PATCH', '/api/v1/namespaces/a/secrets/s'), 'patch');
  assert.equal(verb('GET', '/apis/apps'), 'nonresource:get');
  assert.equal(verb('GET', '/version'), 'nonresource:get');
});
