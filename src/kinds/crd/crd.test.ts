// CRDs end to end over HTTP (memory store, real port): a CRD's kind is served the moment the CRD is
// written, custom resources validate, print and patch like kube's, and deleting the CRD takes it all away.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiServer } from '../../apiserver/server.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { builtinKinds } from '../builtin/index.js';
import { KindRegistry } from '../registry.js';
import { CrdKinds } from './crd-kinds.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking parsed JSON in tests
type Json = any;

let server: Server;
let store: Store;
let registry: KindRegistry;
let crdKinds: CrdKinds;
let base: string;

const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

const widgetsCrd = (extraVersions: object[] = []) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget.',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10, description: 'How big.' },
                  color: { type: 'string', default: 'grey', enum: ['grey', 'red', 'blue'] },
                  replicas: { type: 'integer' },
                  port: { 'x-kubernetes-int-or-string': true },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, replicas: { type: 'integer' } },
              },
            },
          },
        },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        ],
        selectableFields: [{ jsonPath: '.spec.color' }],
      },
      ...extraVersions,
    ],
  },
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

before(async () => {
  store = await openStore({ url: 'memory:' });
  await store.create('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  registry = new KindRegistry(builtinKinds);
  crdKinds = new CrdKinds(store, registry);
  await crdKinds.start();
  const api = new ApiServer({ registry, store });
  server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  crdKinds?.stop();
  server?.close();
  await store?.close();
});

const groupNames = (list: { items?: { metadata: { name: string } }[] }) =>
  (list.items ?? []).map((g) => g.metadata.name);

test('a CRD is refused with 422 and causes when its names, versions or scope are wrong', async () => {
  const bad = widgetsCrd() as Json;
  bad.metadata.name = 'gadgets.example.com';
  bad.spec.scope = 'Global';
  bad.spec.versions.push({ name: 'v2', served: false, storage: true });
  delete bad.spec.names.kind;
  const { status, json } = await call('POST', CRDS, bad);
  assert.equal(status, 422);
  assert.equal(json.reason, 'Invalid');
  const fields = (json.details.causes as { field: string; message: string }[]).map((c) => c.field).sort();
  assert.deepEqual(fields, ['metadata.name', 'spec.names.kind', 'spec.scope', 'spec.versions']);
  assert.match(JSON.stringify(json.details.causes), /must be spec\.names\.plural\+\\"\.\\"\+spec\.group/);
  assert.match(JSON.stringify(json.details.causes), /exactly one version marked as storage version/);
  assert.equal(registry.byUrl('example.com', 'v1', 'widgets'), undefined);
});

test('creating a CRD serves its kind at once: discovery (both forms), group-version and OpenAPI', async () => {
  const created = await call('POST', CRDS, widgetsCrd());
  assert.equal(created.status, 201);
  const statusOf = created.json.status;
  assert.deepEqual(
    statusOf.conditions.map((c: Json) => [c.type, c.status, c.reason]),
    [
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ],
  );
  assert.deepEqual(statusOf.acceptedNames, {
    plural: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    shortNames: ['wd'],
    categories: ['all'],
  });
  assert.deepEqual(statusOf.storedVersions, ['v1']);

  const aggregated = await call('GET', '/apis', undefined, { accept: AGGREGATED });
  const group = aggregated.json.items.find((g: Json) => g.metadata.name === 'example.com');
  const widgets = group.versions[0].resources.find((r: Json) => r.resource === 'widgets');
  assert.equal(widgets.scope, 'Namespaced');
  assert.deepEqual(widgets.shortNames, ['wd']);
  assert.deepEqual(
    widgets.subresources.map((s: Json) => s.subresource),
    ['scale', 'status'],
  );
  const legacy = await call('GET', '/apis', undefined, { accept: 'application/json' });
  assert.ok(
    groupNames({ items: legacy.json.groups.map((g: Json) => ({ metadata: { name: g.name } })) }).includes(
      'example.com',
    ),
  );
  const gv = await call('GET', '/apis/example.com/v1');
  assert.deepEqual(
    gv.json.resources.map((r: Json) => r.name),
    ['widgets', 'widgets/scale', 'widgets/status'],
  );
  const root = await call('GET', '/openapi/v3');
  assert.ok('apis/example.com/v1' in root.json.paths);
  const doc = await call('GET', '/openapi/v3/apis/example.com/v1');
  const schema = doc.json.components.schemas['com.example.v1.Widget'];
  assert.equal(schema.properties.spec.properties.size.description, 'How big.');
  assert.equal(schema.properties.spec.properties.port['x-kubernetes-int-or-string'], true);
  // Listing CRDs uses the default printer: NAME, CREATED AT.
  const crdTable = await call('GET', CRDS, undefined, { accept: TABLE });
  assert.deepEqual(
    crdTable.json.columnDefinitions.map((c: Json) => c.name),
    ['Name', 'Created At'],
  );
});

test('custom resources: create with schema defaults, validation, get, list, Table, field selector', async () => {
  const w1 = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
  const created = await call('POST', WIDGETS, w1);
  assert.equal(created.status, 201);
  assert.equal(created.json.spec.color, 'grey');
  assert.equal(created.json.metadata.generation, 1);

  const tooBig = await call('POST', WIDGETS, { ...w1, metadata: { name: 'w2' }, spec: { size: 11 } });
  assert.equal(tooBig.status, 422);
  assert.equal(tooBig.json.details.causes[0].field, 'spec.size');
  const badEnum = await call('POST', WIDGETS, {
    ...w1,
    metadata: { name: 'w2' },
    spec: { size: 1, color: 'pink' },
  });
  assert.equal(badEnum.status, 422);
  const strict = await call('POST', `${WIDGETS}?fieldValidation=Strict`, {
    ...w1,
    metadata: { name: 'w2' },
    spec: { size: 2, bogus: 1 },
  });
  assert.equal(strict.status, 400);
  assert.match(strict.json.message, /unknown field "spec\.bogus"/);
  const open = await call('POST', WIDGETS, {
    ...w1,
    metadata: { name: 'w2' },
    spec: { size: 2, color: 'red', port: 'http', extra: { anything: [1, { a: 2 }] }, labels: { a: 'b' } },
  });
  assert.equal(open.status, 201);
  assert.deepEqual(open.json.spec.extra, { anything: [1, { a: 2 }] });

  const got = await call('GET', `${WIDGETS}/w1`);
  assert.equal(got.json.kind, 'Widget');
  const list = await call('GET', WIDGETS);
  assert.equal(list.json.kind, 'WidgetList');
  assert.deepEqual(
    list.json.items.map((i: Json) => [i.kind, i.metadata.name]),
    [
      ['Widget', 'w1'],
      ['Widget', 'w2'],
    ],
  );
  const table = await call('GET', WIDGETS, undefined, { accept: TABLE });
  assert.equal(table.json.kind, 'Table');
  // As kube-apiserver: Name and the declared columns; Age only when a CRD declares no columns.
  assert.deepEqual(
    table.json.columnDefinitions.map((c: Json) => [c.name, c.type, c.priority]),
    [
      ['Name', 'string', 0],
      ['Size', 'integer', 0],
      ['Color', 'string', 1],
      ['Phase', 'string', 0],
    ],
  );
  assert.deepEqual(table.json.rows[0].cells, ['w1', 3, 'grey', null]);
  const red = await call('GET', `${WIDGETS}?fieldSelector=spec.color%3Dred`);
  assert.deepEqual(
    red.json.items.map((i: Json) => i.metadata.name),
    ['w2'],
  );
  const all = await call('GET', '/apis/example.com/v1/widgets');
  assert.equal(all.json.items.length, 2);
});

test('status goes through its subresource only; strategic merge is 415, merge and apply work', async () => {
  const ignored = await call(
    'PATCH',
    `${WIDGETS}/w1`,
    { status: { phase: 'Ignored' } },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  assert.equal(ignored.status, 200);
  assert.equal(ignored.json.status, undefined);
  const set = await call(
    'PATCH',
    `${WIDGETS}/w1/status`,
    { status: { phase: 'Ready' } },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  assert.equal(set.status, 200);
  assert.equal(set.json.status.phase, 'Ready');
  assert.equal(set.json.metadata.generation, 1);

  // The CRD itself is a built-in type: strategic merge is fine there (helm 3 upgrades send it).
  const crdSmp = await call(
    'PATCH',
    `${CRDS}/widgets.example.com`,
    { metadata: { labels: { team: 'a' } } },
    { 'content-type': 'application/strategic-merge-patch+json' },
  );
  assert.equal(crdSmp.status, 200);
  assert.equal(crdSmp.json.metadata.labels.team, 'a');
  const smp = await call(
    'PATCH',
    `${WIDGETS}/w1`,
    { spec: { size: 4 } },
    {
      'content-type': 'application/strategic-merge-patch+json',
    },
  );
  assert.equal(smp.status, 415);
  assert.equal(smp.json.reason, 'UnsupportedMediaType');

  const merged = await call(
    'PATCH',
    `${WIDGETS}/w1`,
    { spec: { size: 4 } },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  assert.equal(merged.json.spec.size, 4);
  assert.equal(merged.json.metadata.generation, 2);
  const applied = await call(
    'PATCH',
    `${WIDGETS}/w3?fieldManager=test`,
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: { size: 5 } },
    { 'content-type': 'application/apply-patch+yaml' },
  );
  assert.equal(applied.status, 201);
  assert.equal(applied.json.spec.color, 'grey');
});

test("scale: an autoscaling/v1 Scale read from and written to the CRD's replica paths", async () => {
  const created = await call('POST', WIDGETS, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'scaled' },
    spec: { size: 1, replicas: 2 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const scale = await call('GET', `${WIDGETS}/scaled/scale`);
  assert.equal(scale.status, 200);
  assert.equal(scale.json.kind, 'Scale');
  assert.equal(scale.json.apiVersion, 'autoscaling/v1');
  assert.equal(scale.json.spec.replicas, 2);
  // kubectl scale sends a merge patch of the Scale.
  const patched = await call(
    'PATCH',
    `${WIDGETS}/scaled/scale`,
    { spec: { replicas: 5 } },
    { 'content-type': 'application/merge-patch+json' },
  );
  assert.equal(patched.status, 200);
  assert.equal(patched.json.spec.replicas, 5);
  const widget = await call('GET', `${WIDGETS}/scaled`);
  assert.equal(widget.json.spec.replicas, 5);
  assert.equal(widget.json.metadata.generation, 2);
  const negative = await call(
    'PATCH',
    `${WIDGETS}/scaled/scale`,
    { spec: { replicas: -1 } },
    { 'content-type': 'application/merge-patch+json' },
  );
  assert.equal(negative.status, 422);
});

test('updating a CRD replaces its kinds: a new served version appears in discovery', async () => {
  const live = await call('GET', `${CRDS}/widgets.example.com`);
  const v2 = {
    name: 'v2',
    served: true,
    storage: false,
    schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  };
  const next = { ...live.json, spec: { ...live.json.spec, versions: [...live.json.spec.versions, v2] } };
  const updated = await call('PUT', `${CRDS}/widgets.example.com`, next);
  assert.equal(updated.status, 200);
  const group = await call('GET', '/apis/example.com');
  assert.deepEqual(
    group.json.versions.map((v: Json) => v.version),
    ['v2', 'v1'],
  );
  const v2list = await call('GET', '/apis/example.com/v2/namespaces/default/widgets');
  assert.equal(v2list.status, 200);
  // No declared columns: Name and Age.
  const table = await call('GET', '/apis/example.com/v2/namespaces/default/widgets', undefined, {
    accept: TABLE,
  });
  assert.deepEqual(
    table.json.columnDefinitions.map((c: Json) => c.name),
    ['Name', 'Age'],
  );
});

test('a CRD created by server-side apply gets its status too; cluster scope is honoured', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.tools.example.org' },
    spec: {
      group: 'tools.example.org',
      scope: 'Cluster',
      names: { plural: 'gizmos', kind: 'Gizmo' },
      versions: [
        { name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };
  const applied = await call('PATCH', `${CRDS}/gizmos.tools.example.org?fieldManager=helm&force=false`, crd, {
    'content-type': 'application/apply-patch+yaml',
  });
  assert.equal(applied.status, 201);
  assert.equal(applied.json.status.conditions[1].type, 'Established');
  assert.equal(applied.json.status.acceptedNames.listKind, 'GizmoList');
  const g = await call('POST', '/apis/tools.example.org/v1alpha1/gizmos', {
    apiVersion: 'tools.example.org/v1alpha1',
    kind: 'Gizmo',
    metadata: { name: 'g1' },
  });
  assert.equal(g.status, 201);
  assert.equal(g.json.metadata.namespace, undefined);
});

test('deleting a CRD takes its kind out of discovery and deletes its custom resources', async () => {
  await store.update('widgets.example.com', {
    ...(await store.get('widgets.example.com', 'default', 'w2'))!,
    metadata: {
      ...(await store.get('widgets.example.com', 'default', 'w2'))!.metadata,
      finalizers: ['example.com/hold'],
    },
  });
  const deleted = await call('DELETE', `${CRDS}/widgets.example.com`);
  assert.equal(deleted.status, 200);
  const aggregated = await call('GET', '/apis', undefined, { accept: AGGREGATED });
  assert.ok(!groupNames(aggregated.json).includes('example.com'));
  assert.ok(groupNames(aggregated.json).includes('tools.example.org'));
  const legacy = await call('GET', '/apis');
  assert.ok(!legacy.json.groups.some((g: Json) => g.name === 'example.com'));
  assert.equal((await call('GET', '/apis/example.com/v1')).status, 404);
  const root = await call('GET', '/openapi/v3');
  assert.ok(!('apis/example.com/v1' in root.json.paths));
  assert.equal((await call('GET', `${WIDGETS}/w1`)).status, 404);
  await crdKinds.settled();
  assert.deepEqual((await store.list('widgets.example.com')).items, []);
});

test('a CRD written straight to the store gets its kinds and its status; a new storage version is recorded', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'cogs.example.net' },
    spec: {
      group: 'example.net',
      scope: 'Namespaced',
      names: { plural: 'cogs', kind: 'Cog' },
      versions: [{ name: 'v1', served: true, storage: true }],
    },
  };
  await store.create('customresourcedefinitions.apiextensions.k8s.io', crd);
  assert.equal(registry.byUrl('example.net', 'v1', 'cogs')?.kind, 'Cog');
  await crdKinds.settled();
  let stored = await call('GET', `${CRDS}/cogs.example.net`);
  assert.equal(stored.json.status.conditions[1].reason, 'InitialNamesAccepted');
  assert.deepEqual(stored.json.status.storedVersions, ['v1']);
  const versions = [
    { name: 'v1', served: true, storage: false },
    { name: 'v2', served: true, storage: true },
  ];
  const put = await call('PUT', `${CRDS}/cogs.example.net`, {
    ...stored.json,
    spec: { ...stored.json.spec, versions },
  });
  assert.equal(put.status, 200);
  await crdKinds.settled();
  stored = await call('GET', `${CRDS}/cogs.example.net`);
  assert.deepEqual(stored.json.status.storedVersions, ['v1', 'v2']);
  assert.equal(registry.byUrl('example.net', 'v2', 'cogs')?.kind, 'Cog');
});

test('on start, kinds of CRDs already stored are registered', async () => {
  const fresh = new KindRegistry(builtinKinds);
  const other = new CrdKinds(store, fresh);
  await other.start();
  try {
    assert.equal(fresh.byUrl('tools.example.org', 'v1alpha1', 'gizmos')?.kind, 'Gizmo');
    assert.equal(fresh.byUrl('example.com', 'v1', 'widgets'), undefined);
    assert.equal(
      fresh.byApiVersionKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')?.plural,
      'customresourcedefinitions',
    );
    // Equal CRDs in two clusters share one definition (one compiled schema per process).
    assert.equal(
      fresh.byUrl('tools.example.org', 'v1alpha1', 'gizmos'),
      registry.byUrl('tools.example.org', 'v1alpha1', 'gizmos'),
    );
  } finally {
    other.stop();
  }
});
