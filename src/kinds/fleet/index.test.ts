// The hub serves the fleet API (discovery, OpenAPI, kubectl's names); simulated clusters do not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinKinds, clusterKinds, coreHubKinds } from '../builtin/index.js';
import { KindRegistry } from '../registry.js';
import { fleetKinds } from './index.js';
import { sveltosKinds } from '../sveltos/index.js';
import { useTestApi, type Json } from './test-support.js';

const api = useTestApi(builtinKinds);

test('the hub serves the fleet kinds; a simulated cluster serves none of them', () => {
  assert.deepEqual(builtinKinds, [...coreHubKinds, ...fleetKinds, ...sveltosKinds]);
  assert.equal(new KindRegistry(builtinKinds).all().length, builtinKinds.length);
  // The fleet API lives on the hub only (AuditEvent, in the same group, is every server's audit log).
  assert.deepEqual(
    clusterKinds
      .filter(
        (k) =>
          fleetKinds.includes(k) ||
          k.group === 'work.open-cluster-management.io' ||
          (k.group === 'fleet.fleethub.io' && k.kind !== 'AuditEvent'),
      )
      .map((k) => k.kind),
    [],
  );
  for (const k of coreHubKinds) assert.ok(clusterKinds.includes(k), k.kind);
});

test('discovery lists each kind with its scope, short names, categories and status subresource', async () => {
  const resources = async (groupVersion: string) => {
    const reply = await api.call('GET', `/apis/${groupVersion}`);
    assert.equal(reply.status, 200, groupVersion);
    return Object.fromEntries(
      (reply.body.resources as Json[]).map((r) => [
        r.name,
        [r.kind, r.namespaced, r.shortNames ?? [], r.categories ?? []],
      ]),
    );
  };
  assert.deepEqual(await resources('fleet.fleethub.io/v1alpha1'), {
    clusters: ['Cluster', true, [], ['fleet']],
    'clusters/status': ['Cluster', true, [], []],
    fleetclusterjoins: ['FleetClusterJoin', true, ['fcj'], ['fleet']],
    'fleetclusterjoins/status': ['FleetClusterJoin', true, [], []],
    hosts: ['Host', false, [], ['fleet']],
    'hosts/status': ['Host', false, [], []],
    fleethostjoins: ['FleetHostJoin', false, ['fhj'], ['fleet']],
    'fleethostjoins/status': ['FleetHostJoin', false, [], []],
    auditevents: ['AuditEvent', false, [], []],
  });
  assert.deepEqual(await resources('work.open-cluster-management.io/v1'), {
    manifestworks: ['ManifestWork', true, ['mw'], ['fleet']],
    'manifestworks/status': ['ManifestWork', true, [], []],
  });
  assert.deepEqual(await resources('certificates.k8s.io/v1'), {
    certificatesigningrequests: ['CertificateSigningRequest', false, ['csr'], []],
    'certificatesigningrequests/status': ['CertificateSigningRequest', false, [], []],
  });
});

test('OpenAPI v3 documents publish the schemas (enums, embedded manifests) for kubectl explain', async () => {
  const fleet = await api.call('GET', '/openapi/v3/apis/fleet.fleethub.io/v1alpha1');
  assert.equal(fleet.status, 200);
  const schemas = (fleet.body.components as Json).schemas as Json;
  const cluster = Object.entries(schemas).find(([name]) => name.endsWith('.Cluster'))?.[1] as Json;
  assert.ok(cluster, Object.keys(schemas).join(', '));
  assert.ok(JSON.stringify(cluster).includes('cidrBlocks'));
  const join = Object.entries(schemas).find(([name]) => name.endsWith('.FleetClusterJoin'))?.[1] as Json;
  assert.ok(JSON.stringify(join).includes('"enum":["Pending","Ready","Used","Expired"]'));

  const work = await api.call('GET', '/openapi/v3/apis/work.open-cluster-management.io/v1');
  assert.equal(work.status, 200);
  const text = JSON.stringify(work.body);
  assert.ok(text.includes('"x-kubernetes-embedded-resource":true'));
  assert.ok(text.includes('"enum":["Update","CreateOnly","ServerSideApply","ReadOnly"]'));
});
