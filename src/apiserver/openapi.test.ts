import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { layoutRegistry, type ServedKind } from './discovery.js';
import { buildOpenApiV3, openApiDocument, schemaName, type OpenApiDocument } from './openapi.js';
import { toOpenApiSchema } from './openapi-schema.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking parsed JSON in tests

const configMaps: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  description: 'Non-confidential key/value configuration.',
  schema: Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Object({ name: Type.Optional(Type.String()) })),
    data: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Configuration data.' })),
    binaryData: Type.Optional(Type.Record(Type.String(), Type.String({ contentEncoding: 'base64' }))),
    immutable: Type.Optional(Type.Boolean()),
  }),
};

const serviceAccounts: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  deleteReturnsObject: true,
  schema: Type.Object({ automountServiceAccountToken: Type.Optional(Type.Boolean()) }),
  extraSubresources: [
    {
      name: 'token',
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
      schema: Type.Object({ spec: Type.Object({ audiences: Type.Array(Type.String()) }) }),
    },
  ],
};

const namespaces: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  subresources: { status: true },
  schema: Type.Object({ status: Type.Optional(Type.Object({ phase: Type.Optional(Type.String()) })) }),
};

const widgets: ServedKind = {
  group: 'fleet.example.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  subresources: { status: true },
  schema: Type.Object({ spec: Type.Object({ replicas: Type.Integer() }) }),
};

const reviews: ServedKind = {
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  namespaced: false,
  verbs: ['create'],
  schema: Type.Object({ spec: Type.Object({}) }),
};

function docFor(kinds: ServedKind[], group: string, version = 'v1'): OpenApiDocument {
  const layout = layoutRegistry(kinds);
  const g = group === '' ? layout.core : layout.groups.find((x) => x.group === group);
  return openApiDocument(g!.versions.find((v) => v.version === version)!);
}

/** kubectl's QueryParamVerifierV3: the first PATCH operation for the GVK decides. */
function kubectlSeesFieldValidation(
  doc: Json,
  gvk: { group: string; version: string; kind: string },
): boolean | 'no path' {
  for (const pathItem of Object.values(doc.paths) as Json[]) {
    const op = pathItem.patch;
    if (!op) continue;
    const g = op['x-kubernetes-group-version-kind'];
    if (!g || g.group !== gvk.group || g.version !== gvk.version || g.kind !== gvk.kind) continue;
    return (op.parameters as Json[]).some((p) => p.name === 'fieldValidation' && p.in === 'query');
  }
  return 'no path';
}

void test('TypeBox schemas become OpenAPI 3.0 schemas without JSON-Schema-only keywords', () => {
  const schema = Type.Object(
    {
      name: Type.String({ minLength: 1 }),
      labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      phase: Type.Optional(Type.Union([Type.Literal('Pending'), Type.Literal('Ready')])),
      replicas: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
      port: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
      anything: Type.Optional(Type.Unknown()),
      weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
      items: Type.Optional(
        Type.Array(Type.Object({ key: Type.String() }), {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['key'],
        }),
      ),
      merged: Type.Optional(
        Type.Intersect([
          Type.Object({ a: Type.String() }),
          Type.Object({ b: Type.Optional(Type.Integer()) }),
        ]),
      ),
      kind: Type.Optional(Type.Literal('Thing')),
      when: Type.Optional(Type.String({ format: 'date-time' })),
    },
    { $id: 'Thing', additionalProperties: false },
  );
  const out = toOpenApiSchema(schema) as Json;
  const text = JSON.stringify(out);
  for (const forbidden of [
    '"$id"',
    'patternProperties',
    '"const"',
    '"type":"null"',
    '"additionalProperties":false',
    'unevaluated',
  ]) {
    assert.ok(!text.includes(forbidden), `${forbidden} left in ${text}`);
  }
  assert.deepEqual(out.required, ['name']);
  assert.deepEqual(out.properties.name, { minLength: 1, type: 'string' });
  assert.deepEqual(out.properties.labels, { type: 'object', additionalProperties: { type: 'string' } });
  assert.deepEqual(out.properties.phase, { type: 'string', enum: ['Pending', 'Ready'] });
  assert.deepEqual(out.properties.replicas, { nullable: true, minimum: 0, type: 'integer' });
  assert.equal(out.properties.port['x-kubernetes-int-or-string'], true);
  assert.deepEqual(out.properties.anything, { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(out.properties.weight, { type: 'number', minimum: 0, exclusiveMinimum: true });
  assert.equal(out.properties.items['x-kubernetes-list-type'], 'map');
  assert.deepEqual(out.properties.items['x-kubernetes-list-map-keys'], ['key']);
  assert.deepEqual(out.properties.items.items, {
    type: 'object',
    required: ['key'],
    properties: { key: { type: 'string' } },
  });
  assert.deepEqual(Object.keys(out.properties.merged.properties), ['a', 'b']);
  assert.deepEqual(out.properties.merged.required, ['a']);
  assert.deepEqual(out.properties.kind, { enum: ['Thing'], type: 'string' });
  assert.deepEqual(out.properties.when, { format: 'date-time', type: 'string' });
});

void test('recursive and named subschemas become components referenced with $ref', () => {
  const node = Type.Recursive(
    (This) => Type.Object({ name: Type.String(), children: Type.Optional(Type.Array(This)) }),
    { $id: 'TreeNode' },
  );
  const components: Record<string, Json> = {};
  const out = toOpenApiSchema(Type.Object({ root: node }), components, 'io.example.v1') as Json;
  assert.deepEqual(out.properties.root, { $ref: '#/components/schemas/io.example.v1.TreeNode' });
  const tree = components['io.example.v1.TreeNode']!;
  assert.deepEqual(tree.properties.children.items, { $ref: '#/components/schemas/io.example.v1.TreeNode' });
});

void test('each kind gets a component with its GVK, ObjectMeta metadata and a List', () => {
  const doc = docFor([configMaps, namespaces], '') as Json;
  const cm = doc.components.schemas['io.k8s.api.core.v1.ConfigMap'];
  assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  assert.equal(cm.description, 'Non-confidential key/value configuration.');
  assert.deepEqual(Object.keys(cm.properties), [
    'apiVersion',
    'kind',
    'metadata',
    'data',
    'binaryData',
    'immutable',
  ]);
  assert.deepEqual(cm.properties.metadata.allOf, [
    { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  ]);
  assert.deepEqual(cm.properties.data, {
    description: 'Configuration data.',
    type: 'object',
    additionalProperties: { type: 'string' },
  });
  const list = doc.components.schemas['io.k8s.api.core.v1.ConfigMapList'];
  assert.deepEqual(list['x-kubernetes-group-version-kind'], [
    { group: '', kind: 'ConfigMapList', version: 'v1' },
  ]);
  assert.deepEqual(list.properties.items.items, {
    $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap',
  });
  // Every $ref resolves inside the document.
  const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
  for (const r of refs) {
    const name = r.slice('"$ref":"#/components/schemas/'.length, -1);
    assert.ok(doc.components.schemas[name], `dangling ${name}`);
  }
  assert.equal(schemaName('rbac.authorization.k8s.io', 'v1', 'Role'), 'io.k8s.api.rbac.v1.Role');
  assert.equal(schemaName('fleet.example.io', 'v1', 'Widget'), 'io.example.fleet.v1.Widget');
});

void test('paths: CRUD operations with actions and GVKs; PATCH has fieldValidation and no requestBody', () => {
  const doc = docFor([configMaps, namespaces], '') as Json;
  const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  assert.equal(item.patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], {
    group: '',
    kind: 'ConfigMap',
    version: 'v1',
  });
  assert.equal(item.patch.requestBody, undefined);
  assert.ok(item.put.requestBody, 'PUT carries the real schema');
  const collection = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
  assert.deepEqual(
    [
      collection.get['x-kubernetes-action'],
      collection.post['x-kubernetes-action'],
      collection.delete['x-kubernetes-action'],
    ],
    ['list', 'post', 'deletecollection'],
  );
  assert.equal(doc.paths['/api/v1/configmaps'].get.operationId, 'listCoreV1ConfigMapForAllNamespaces');
  // Cluster-scoped kinds have no namespace segment; the status subresource has its own PATCH.
  assert.ok(doc.paths['/api/v1/namespaces/{name}'].patch);
  assert.ok(doc.paths['/api/v1/namespaces/{name}/status'].patch);
  assert.equal(kubectlSeesFieldValidation(doc, { group: '', version: 'v1', kind: 'ConfigMap' }), true);
  assert.equal(kubectlSeesFieldValidation(doc, { group: '', version: 'v1', kind: 'Namespace' }), true);
  // Every PATCH operation names fieldValidation (kubectl stops at the first one it meets for a GVK).
  for (const [path, pathItem] of Object.entries(doc.paths) as [string, Json][]) {
    if (pathItem.patch)
      assert.ok(
        pathItem.patch.parameters.some((p: Json) => p.name === 'fieldValidation'),
        path,
      );
    if (pathItem.patch) assert.equal(pathItem.patch.requestBody, undefined, path);
  }
});

void test('extra subresources and create-only kinds publish only what is served', () => {
  const core = docFor([serviceAccounts], '') as Json;
  const token = core.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'];
  assert.deepEqual(Object.keys(token).sort(), ['parameters', 'post']);
  assert.deepEqual(token.post['x-kubernetes-group-version-kind'], {
    group: 'authentication.k8s.io',
    kind: 'TokenRequest',
    version: 'v1',
  });
  assert.equal(token.post.operationId, 'createCoreV1NamespacedServiceAccountToken');
  assert.ok(core.components.schemas['io.k8s.api.authentication.v1.TokenRequest']);
  // deleteReturnsObject: DELETE answers with the object.
  const del = core.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}'].delete;
  assert.equal(
    del.responses['200'].content['application/json'].schema.$ref,
    '#/components/schemas/io.k8s.api.core.v1.ServiceAccount',
  );

  const authz = docFor([reviews], 'authorization.k8s.io') as Json;
  assert.deepEqual(Object.keys(authz.paths), ['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']);
  assert.deepEqual(
    Object.keys(authz.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews']).sort(),
    ['parameters', 'post'],
  );
  assert.equal(
    authz.components.schemas['io.k8s.api.authorization.v1.SelfSubjectAccessReviewList'],
    undefined,
  );
});

void test('the root lists every group-version with a content hash of its document', () => {
  const api = buildOpenApiV3([configMaps, namespaces, widgets, reviews]);
  const root = JSON.parse(api.root) as Json;
  assert.deepEqual(Object.keys(root.paths).sort(), [
    'api/v1',
    'apis/authorization.k8s.io/v1',
    'apis/fleet.example.io/v1',
  ]);
  for (const [key, entry] of Object.entries(root.paths) as [string, Json][]) {
    const doc = api.documents.get(key)!;
    const hash = createHash('sha256').update(doc.body).digest('hex').toUpperCase();
    assert.equal(entry.serverRelativeURL, `/openapi/v3/${key}?hash=${hash}`);
  }
  const fleet = JSON.parse(api.documents.get('apis/fleet.example.io/v1')!.body) as Json;
  assert.equal(
    kubectlSeesFieldValidation(fleet, { group: 'fleet.example.io', version: 'v1', kind: 'Widget' }),
    true,
  );
});

void test('a registry change changes only the affected document hashes', () => {
  const before = buildOpenApiV3([configMaps, widgets]);
  const after = buildOpenApiV3([
    configMaps,
    widgets,
    { ...widgets, kind: 'Gadget', plural: 'gadgets', singular: 'gadget' },
  ]);
  assert.equal(before.documents.get('api/v1')!.hash, after.documents.get('api/v1')!.hash);
  assert.notEqual(
    before.documents.get('apis/fleet.example.io/v1')!.hash,
    after.documents.get('apis/fleet.example.io/v1')!.hash,
  );
  assert.notEqual(before.root, after.root);
});

void test('respond: root, current and stale hashes, revalidation, Accept, and a bare /openapi/v2', () => {
  const api = buildOpenApiV3([configMaps, widgets]);
  const root = api.respond('/openapi/v3', new URLSearchParams(), 'application/json')!;
  assert.equal(root.status, 200);
  assert.equal(root.headers['Content-Type'], 'application/json');
  assert.equal(api.respond('/openapi/v3', new URLSearchParams(), undefined, root.headers.ETag)!.status, 304);

  const { hash } = api.documents.get('apis/fleet.example.io/v1')!;
  const current = api.respond(
    '/openapi/v3/apis/fleet.example.io/v1',
    new URLSearchParams({ hash, timeout: '32s' }),
    'application/json',
  )!;
  assert.equal(current.status, 200);
  assert.equal(current.headers['Cache-Control'], 'public, immutable');
  assert.equal(JSON.parse(current.body).openapi, '3.0.0');

  const stale = api.respond(
    '/openapi/v3/apis/fleet.example.io/v1',
    new URLSearchParams({ hash: 'OLD' }),
    'application/json',
  )!;
  assert.equal(stale.status, 301);
  // Relative, so `/clusters/<id>/openapi/v3/...` keeps its prefix when the client follows it.
  assert.equal(stale.headers.Location, `v1?hash=${hash}`);
  assert.equal(
    new URL(stale.headers.Location!, 'http://h/clusters/c1/openapi/v3/apis/fleet.example.io/v1?hash=OLD')
      .pathname,
    '/clusters/c1/openapi/v3/apis/fleet.example.io/v1',
  );

  const noHash = api.respond('/openapi/v3/api/v1', new URLSearchParams(), '*/*')!;
  assert.equal(noHash.status, 200);
  assert.equal(noHash.headers['Cache-Control'], undefined);
  assert.equal(
    api.respond('/openapi/v3/api/v1', new URLSearchParams(), undefined, noHash.headers.ETag)!.status,
    304,
  );

  const protobufOnly = api.respond(
    '/openapi/v3/api/v1',
    new URLSearchParams(),
    'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
  )!;
  assert.equal(protobufOnly.status, 406);
  assert.equal(JSON.parse(protobufOnly.body).reason, 'NotAcceptable');

  assert.equal(api.respond('/openapi/v3/apis/nope/v1', new URLSearchParams()), undefined);
  // v2: a document without definitions, in protobuf as kubectl asks for it, JSON otherwise.
  const pb = api.respond(
    '/openapi/v2',
    new URLSearchParams(),
    'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  )!;
  assert.equal(pb.status, 200);
  assert.equal(pb.headers['Content-Type'], 'application/octet-stream');
  const bytes = Buffer.from(pb.body, 'latin1');
  assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 3, 0x32, 0x2e, 0x30], 'field 1 (swagger) = "2.0"');
  assert.equal(bytes[5], 0x12, 'field 2 (info)');
  const json = JSON.parse(api.respond('/openapi/v2', new URLSearchParams(), 'application/json')!.body) as {
    swagger: string;
    definitions: object;
  };
  assert.equal(json.swagger, '2.0');
  assert.deepEqual(json.definitions, {});
});
