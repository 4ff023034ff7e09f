import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { KindRegistry } from './registry.js';
import { builtinKinds } from './builtin/index.js';

test('kinds are found by URL and by apiVersion/kind, and only stored kinds count for namespace cleanup', () => {
  const registry = new KindRegistry(builtinKinds);
  assert.equal(registry.byUrl('rbac.authorization.k8s.io', 'v1', 'roles')?.kind, 'Role');
  assert.equal(registry.byApiVersionKind('coordination.k8s.io/v1', 'Lease')?.plural, 'leases');
  const namespaced = registry.namespacedResources();
  assert.ok(namespaced.includes('configmaps') && namespaced.includes('leases.coordination.k8s.io'));
  assert.ok(!namespaced.includes('namespaces'));
});

test('the REST facade path /api/v1/k8s-clusters cannot be taken by a resource', () => {
  const registry = new KindRegistry();
  assert.throws(
    () =>
      registry.add({
        group: '',
        version: 'v1',
        kind: 'K8sCluster',
        plural: 'k8s-clusters',
        singular: 'k8s-cluster',
        namespaced: false,
        schema: Type.Object({}),
      }),
    /reserved for the hub's REST facade/,
  );
});

test('registry changes bump its version and notify listeners (discovery rebuilds on it)', () => {
  const registry = new KindRegistry();
  let calls = 0;
  registry.onChange(() => calls++);
  const before = registry.version;
  registry.add(builtinKinds[0]!);
  assert.equal(registry.version, before + 1);
  assert.equal(calls, 1);
});

test('remove takes a kind out (only the registered definition) and bumps the version', () => {
  const registry = new KindRegistry(builtinKinds);
  const lease = registry.byUrl('coordination.k8s.io', 'v1', 'leases')!;
  let changes = 0;
  registry.onChange(() => changes++);
  const before = registry.version;
  assert.equal(registry.remove({ ...lease }), false);
  assert.equal(registry.remove(lease), true);
  assert.equal(registry.byUrl('coordination.k8s.io', 'v1', 'leases'), undefined);
  assert.equal(registry.byApiVersionKind('coordination.k8s.io/v1', 'Lease'), undefined);
  assert.ok(!registry.hasGroupVersion('coordination.k8s.io', 'v1'));
  assert.equal(registry.version, before + 1);
  assert.equal(changes, 1);
  registry.add(lease);
  assert.equal(registry.byApiVersionKind('coordination.k8s.io/v1', 'Lease'), lease);
});
