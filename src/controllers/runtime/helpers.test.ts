import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { errors } from '../../util/errors.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
import {
  AlreadyOwnedError,
  controllerReferenceOf,
  ownedBy,
  ownerRequests,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owners.js';
import { isTerminalError, parseRequestKey, requestKey } from './reconcile.js';
import { retryOnConflict } from './retry.js';

function obj(kind: string, name: string, namespace?: string, uid = `${kind}-${name}-uid`): KubeObject {
  return { apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, metadata: { name, namespace, uid } };
}

describe('finalizers', () => {
  it('add and remove report whether they changed the object', () => {
    const o = obj('ConfigMap', 'c', 'ns');
    assert.equal(addFinalizer(o, 'fleethub.io/cleanup'), true);
    assert.equal(addFinalizer(o, 'fleethub.io/cleanup'), false);
    assert.ok(hasFinalizer(o, 'fleethub.io/cleanup'));
    assert.deepEqual(o.metadata.finalizers, ['fleethub.io/cleanup']);
    assert.equal(removeFinalizer(o, 'other'), false);
    assert.equal(removeFinalizer(o, 'fleethub.io/cleanup'), true);
    assert.equal(o.metadata.finalizers, undefined);
    assert.ok(!hasFinalizer(o, 'fleethub.io/cleanup'));
  });
});

describe('owner references', () => {
  it('setControllerReference adds one controller owner and refuses a second', () => {
    const child = obj('ConfigMap', 'c', 'ns');
    const a = obj('Deployment', 'a', 'ns');
    const b = obj('Deployment', 'b', 'ns');
    assert.equal(setControllerReference(a, child), true);
    assert.equal(setControllerReference(a, child), false);
    assert.deepEqual(controllerReferenceOf(child), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'a',
      uid: 'Deployment-a-uid',
      controller: true,
      blockOwnerDeletion: true,
    });
    assert.throws(
      () => setControllerReference(b, child),
      (e: unknown) => e instanceof AlreadyOwnedError && isTerminalError(e),
    );
    assert.equal(setOwnerReference(b, child), true);
    assert.equal(child.metadata.ownerReferences?.length, 2);
    assert.ok(ownedBy(child, a) && ownedBy(child, b));
    assert.equal(removeOwnerReference(a, child), true);
    assert.ok(!ownedBy(child, a));
  });

  it('refuses owners across namespaces and namespaced owners of cluster-scoped objects', () => {
    assert.throws(
      () => setControllerReference(obj('Deployment', 'a', 'ns1'), obj('ConfigMap', 'c', 'ns2')),
      /cross-namespace/,
    );
    assert.throws(
      () => setOwnerReference(obj('Deployment', 'a', 'ns1'), obj('Namespace', 'n')),
      /cluster-scoped/,
    );
    assert.equal(setControllerReference(obj('Namespace', 'n'), obj('ConfigMap', 'c', 'ns2')), true);
  });

  it('ownerRequests maps an owned object to its controller owner of the given kind', () => {
    const child = obj('ConfigMap', 'c', 'ns');
    setOwnerReference(obj('Deployment', 'plain', 'ns'), child);
    assert.deepEqual(ownerRequests(child, { group: 'apps', kind: 'Deployment', namespaced: true }), []);
    setControllerReference(obj('Deployment', 'boss', 'ns'), child);
    assert.deepEqual(ownerRequests(child, { group: 'apps', kind: 'Deployment', namespaced: true }), [
      { namespace: 'ns', name: 'boss' },
    ]);
    assert.deepEqual(ownerRequests(child, { group: '', kind: 'Deployment', namespaced: true }), []);
    assert.deepEqual(
      ownerRequests(child, { group: 'apps', kind: 'Deployment', namespaced: true }, false).length,
      2,
    );
  });
});

describe('request keys', () => {
  it('round-trip namespaced and cluster-scoped requests', () => {
    assert.equal(requestKey({ namespace: 'ns', name: 'a' }), 'ns/a');
    assert.equal(requestKey({ name: 'a' }), 'a');
    assert.deepEqual(parseRequestKey('ns/a'), { namespace: 'ns', name: 'a' });
    assert.deepEqual(parseRequestKey('a'), { name: 'a' });
  });
});

describe('retryOnConflict', () => {
  it('retries on 409 Conflict until the write goes through', async () => {
    let calls = 0;
    const result = await retryOnConflict(
      async () => {
        calls++;
        if (calls < 3) throw errors.conflict('configmaps', '', 'c');
        return 'written';
      },
      { delayMs: 1 },
    );
    assert.equal(result, 'written');
    assert.equal(calls, 3);
  });

  it('gives up after the last step and passes other errors straight through', async () => {
    let calls = 0;
    await assert.rejects(
      retryOnConflict(
        async () => {
          calls++;
          throw errors.conflict('configmaps', '', 'c');
        },
        { steps: 4, delayMs: 1 },
      ),
      { code: 409 },
    );
    assert.equal(calls, 4);
    calls = 0;
    await assert.rejects(
      retryOnConflict(
        async () => {
          calls++;
          throw errors.alreadyExists('configmaps', '', 'c'); // 409 but not a Conflict
        },
        { delayMs: 1 },
      ),
      { reason: 'AlreadyExists' },
    );
    assert.equal(calls, 1);
  });
});
