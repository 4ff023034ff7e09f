// A kind's `admit` hook (mutating admission) runs on every write of the main resource — create, PUT,
// merge patch, server-side apply creating and updating — with the requesting user, before validation;
// never on /status.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { coreHubKinds } from '../kinds/builtin/index.js';
import { closed, kindSchema } from '../kinds/meta.js';
import type { AdmissionRequest, KindDefinition } from '../kinds/types.js';
import type { KubeObject } from '../store/types.js';
import { APPLY, MERGE_PATCH, startApi, type Json, type TestApi } from '../kinds/fleet/test-support.js';

const seen: { operation: string; user: string; oldSize?: unknown }[] = [];

const Gadget: KindDefinition = {
  group: 'example.fleethub.io',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  singular: 'gadget',
  namespaced: true,
  subresources: { status: true },
  schema: kindSchema('Gadget', 'example.fleethub.io/v1', {
    spec: Type.Optional(closed({ size: Type.Optional(Type.Integer({ minimum: 0 })) })),
    status: Type.Optional(closed({ phase: Type.Optional(Type.String()) })),
  }),
  admit(obj: KubeObject, request: AdmissionRequest) {
    seen.push({
      operation: request.operation,
      user: request.user.username,
      oldSize: (request.old?.spec as Json | undefined)?.size,
    });
    obj.metadata.labels = { ...obj.metadata.labels, 'example.fleethub.io/by': request.user.username };
    obj.metadata.annotations = { ...obj.metadata.annotations, 'example.fleethub.io/op': request.operation };
    // Runs before validation: what it writes is validated like what the client sent.
    const spec = obj.spec as Json | undefined;
    if (spec && spec.size === 13) spec.size = -1;
  },
};

let api: TestApi;
const base = '/apis/example.fleethub.io/v1/namespaces/default/gadgets';
const stamp = (o: Json) => [
  o.metadata.labels['example.fleethub.io/by'],
  o.metadata.annotations['example.fleethub.io/op'],
];

before(async () => {
  api = await startApi([...coreHubKinds, Gadget]);
});
after(async () => {
  await api?.close();
});

test('admit runs on create, PUT, merge patch and both kinds of server-side apply, with the user', async () => {
  seen.length = 0;
  const created = await api.call(
    'POST',
    base,
    { apiVersion: 'example.fleethub.io/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } },
    { user: 'alice' },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(stamp(created.body), ['alice', 'create']);

  const put = await api.call('PUT', `${base}/g1`, { ...created.body, spec: { size: 2 } }, { user: 'bob' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(stamp(put.body), ['bob', 'update']);

  const patched = await api.call(
    'PATCH',
    `${base}/g1`,
    { spec: { size: 3 } },
    { user: 'carol', contentType: MERGE_PATCH },
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual(stamp(patched.body), ['carol', 'update']);

  const applied = (size: number) => ({
    apiVersion: 'example.fleethub.io/v1',
    kind: 'Gadget',
    metadata: { name: 'g2' },
    spec: { size },
  });
  const applyCreate = await api.call('PATCH', `${base}/g2?fieldManager=t`, applied(4), {
    user: 'dave',
    contentType: APPLY,
  });
  assert.equal(applyCreate.status, 201, JSON.stringify(applyCreate.body));
  assert.deepEqual(stamp(applyCreate.body), ['dave', 'create']);
  const applyUpdate = await api.call('PATCH', `${base}/g2?fieldManager=t`, applied(5), {
    user: 'erin',
    contentType: APPLY,
  });
  assert.equal(applyUpdate.status, 200, JSON.stringify(applyUpdate.body));
  assert.deepEqual(stamp(applyUpdate.body), ['erin', 'update']);

  assert.deepEqual(seen, [
    { operation: 'create', user: 'alice', oldSize: undefined },
    { operation: 'update', user: 'bob', oldSize: 1 },
    { operation: 'update', user: 'carol', oldSize: 2 },
    { operation: 'create', user: 'dave', oldSize: undefined },
    { operation: 'update', user: 'erin', oldSize: 4 },
  ]);
  const stored = await api.store.get('gadgets.example.fleethub.io', 'default', 'g2');
  assert.deepEqual(stamp(stored as Json), ['erin', 'update']);
});

test('admit does not run on /status writes', async () => {
  seen.length = 0;
  const status = await api.call(
    'PATCH',
    `${base}/g1/status`,
    { status: { phase: 'Ready' } },
    { user: 'agent', contentType: MERGE_PATCH },
  );
  assert.equal(status.status, 200, JSON.stringify(status.body));
  assert.equal(status.body.status.phase, 'Ready');
  assert.deepEqual(stamp(status.body), ['carol', 'update']);
  assert.deepEqual(seen, []);
});

test('what admit writes is validated, and a refused write stores nothing', async () => {
  const bad = await api.call('PATCH', `${base}/g1`, { spec: { size: 13 } }, { contentType: MERGE_PATCH });
  assert.equal(bad.status, 422);
  assert.match(String(bad.body.message), /spec\.size/);
  const dryRun = await api.call(
    'POST',
    `${base}?dryRun=All`,
    { apiVersion: 'example.fleethub.io/v1', kind: 'Gadget', metadata: { name: 'g3' } },
    { user: 'frank' },
  );
  assert.equal(dryRun.status, 201);
  assert.deepEqual(stamp(dryRun.body), ['frank', 'create'], 'a dry run shows what admission would do');
  assert.equal(await api.store.get('gadgets.example.fleethub.io', 'default', 'g3'), undefined);
});
