// "A kind is one schema file": a kind the hub has never heard of, defined in this test alone, is
// served with validation, defaults, printer columns, status subresource, OpenAPI and every write path —
// by the API server module on its own (memory store, plain HTTP, no hub), as the simulator will use it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { ApiServer } from '../../src/apiserver/server.js';
import { builtinKinds } from '../../src/kinds/builtin/index.js';
import { closed, kindSchema } from '../../src/kinds/meta.js';
import { KindRegistry } from '../../src/kinds/registry.js';
import type { KindDefinition } from '../../src/kinds/types.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { scratchDir } from '../support/hub.js';
import { kubectl, kubectlOk } from '../support/tools.js';

const Widget: KindDefinition = {
  group: 'example.fleethub.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  shortNames: ['wd'],
  description: 'A widget: a test kind defined in one place.',
  subresources: { status: true },
  schema: kindSchema('Widget', 'example.fleethub.io/v1', {
    spec: closed({
      size: Type.Integer({ minimum: 1, maximum: 10, description: 'How big, 1 to 10.' }),
      color: Type.Optional(Type.String({ description: 'Paint colour; defaults to grey.' })),
      tags: Type.Optional(Type.Array(Type.String())),
    }),
    status: Type.Optional(closed({ phase: Type.Optional(Type.String()) })),
  }),
  printerColumns: [
    { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
  defaults(obj) {
    const spec = obj.spec as { color?: string } | undefined;
    if (spec) spec.color ??= 'grey';
  },
};

let server: Server;
let store: Store;
let kubeconfig: string;

before(async () => {
  store = await openStore({ url: 'memory:' });
  await store.create('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  const api = new ApiServer({ registry: new KindRegistry([...builtinKinds, Widget]), store });
  server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  kubeconfig = join(scratchDir('fleethub-widget-'), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
  );
});

after(async () => {
  server?.close();
  await store?.close();
});

const widget = (size: unknown, extra = '') =>
  `{"apiVersion":"example.fleethub.io/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":${JSON.stringify(size)}${extra}}}`;

test('discovery, short names and explain come from the definition', async () => {
  assert.match(
    await kubectlOk('v35', kubeconfig, ['api-resources', '--api-group=example.fleethub.io']),
    /^widgets\s+wd\s+example\.fleethub\.io\/v1\s+true\s+Widget$/m,
  );
  const explain = await kubectlOk('v35', kubeconfig, ['explain', 'widgets.spec']);
  assert.match(explain, /size\s+<integer> -required-/);
  assert.match(explain, /How big, 1 to 10\./);
});

test('apply validates against the schema, fills defaults and prints the declared columns', async () => {
  const bad = await kubectl('v35', kubeconfig, ['apply', '-f', '-'], { input: widget('big') });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /spec\.size/);
  const tooBig = await kubectl('v31', kubeconfig, ['apply', '-f', '-'], { input: widget(11) });
  assert.match(tooBig.stderr, /spec\.size/);
  assert.match(
    await kubectlOk('v35', kubeconfig, ['apply', '-f', '-'], { input: widget(3) }),
    /widget\.example\.fleethub\.io\/w1 created/,
  );
  assert.equal(
    await kubectlOk('v35', kubeconfig, ['get', 'wd', 'w1', '-o', 'jsonpath={.spec.color}']),
    'grey',
  );
  assert.match(
    await kubectlOk('v31', kubeconfig, ['get', 'widgets']),
    /^NAME\s+SIZE\s+COLOR\s+PHASE\s+AGE\nw1\s+3\s+grey\s+/m,
  );
});

test('client-side apply updates by merge patch; strategic merge is refused as for custom resources', async () => {
  assert.match(
    await kubectlOk('v31', kubeconfig, ['apply', '-f', '-'], { input: widget(4, ',"tags":["a"]') }),
    /configured/,
  );
  assert.equal(
    await kubectlOk('v35', kubeconfig, ['get', 'wd', 'w1', '-o', 'jsonpath={.spec.size}/{.spec.tags[0]}']),
    '4/a',
  );
  const smp = await kubectl('v35', kubeconfig, [
    'patch',
    'wd',
    'w1',
    '--type=strategic',
    '-p',
    '{"spec":{"size":5}}',
  ]);
  assert.notEqual(smp.code, 0);
  assert.match(smp.stderr, /UnsupportedMediaType|unknown format|not supported/i);
});

test('status is written only through its subresource and never bumps generation', async () => {
  const before = await kubectlOk('v35', kubeconfig, [
    'get',
    'wd',
    'w1',
    '-o',
    'jsonpath={.metadata.generation}',
  ]);
  await kubectlOk('v35', kubeconfig, [
    'patch',
    'wd',
    'w1',
    '--type=merge',
    '-p',
    '{"status":{"phase":"Ignored"}}',
  ]);
  assert.equal(await kubectlOk('v35', kubeconfig, ['get', 'wd', 'w1', '-o', 'jsonpath={.status.phase}']), '');
  await kubectlOk('v35', kubeconfig, [
    'patch',
    'wd',
    'w1',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"phase":"Ready"}}',
  ]);
  assert.equal(
    await kubectlOk('v35', kubeconfig, [
      'get',
      'wd',
      'w1',
      '-o',
      'jsonpath={.status.phase}/{.metadata.generation}',
    ]),
    `Ready/${before}`,
  );
});

test('server-side apply owns fields per manager and removes what a manager stops applying', async () => {
  const applied = (tags: string) =>
    `{"apiVersion":"example.fleethub.io/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":2${tags}}}`;
  await kubectlOk('v35', kubeconfig, ['apply', '--server-side', '--field-manager=team-a', '-f', '-'], {
    input: applied(',"tags":["x"]'),
  });
  await kubectlOk('v35', kubeconfig, ['apply', '--server-side', '--field-manager=team-a', '-f', '-'], {
    input: applied(''),
  });
  assert.equal(await kubectlOk('v35', kubeconfig, ['get', 'wd', 'w2', '-o', 'jsonpath={.spec.tags}']), '');
  await kubectlOk('v35', kubeconfig, ['patch', 'wd', 'w2', '--type=merge', '-p', '{"spec":{"size":7}}']);
  const conflict = await kubectl(
    'v35',
    kubeconfig,
    ['apply', '--server-side', '--field-manager=team-a', '-f', '-'],
    { input: applied('') },
  );
  assert.match(
    conflict.stderr,
    /Apply failed with 1 conflict: conflict with "kubectl-patch" using example\.fleethub\.io\/v1: \.spec\.size/,
  );
});
