// CRDs with the real kubectl against the API server module (memory store, plain HTTP) as the simulator
// runs it: apply a CRD, apply and print its resources by plural and short name, then delete the CRD.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { ApiServer } from '../../src/apiserver/server.js';
import { builtinKinds } from '../../src/kinds/builtin/index.js';
import { CrdKinds } from '../../src/kinds/crd/index.js';
import { KindRegistry } from '../../src/kinds/registry.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { scratchDir } from '../support/hub.js';
import { GENERATIONS, kubectl, kubectlOk } from '../support/tools.js';

let server: Server;
let store: Store;
let crdKinds: CrdKinds;
let kubeconfig: string;

const crd = (extraColumn = '') => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: sprockets, singular: sprocket, kind: Sprocket, shortNames: [spr]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Teeth, type: integer, jsonPath: .spec.teeth}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}${extraColumn}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              teeth: {type: integer, description: Number of teeth.}
              material: {type: string, default: steel}
`;

const sprocket = (name: string, teeth: number) =>
  `{"apiVersion":"example.com/v1","kind":"Sprocket","metadata":{"name":"${name}"},"spec":{"teeth":${teeth}}}`;

before(async () => {
  store = await openStore({ url: 'memory:' });
  await store.create('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'default' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  const registry = new KindRegistry(builtinKinds);
  crdKinds = new CrdKinds(store, registry);
  await crdKinds.start();
  const api = new ApiServer({ registry, store });
  server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  kubeconfig = join(scratchDir('fleethub-crd-'), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
  );
});

after(async () => {
  crdKinds?.stop();
  server?.close();
  await store?.close();
});

test('kubectl applies a CRD, then its resources; get prints the CRD columns by plural and short name', async () => {
  assert.match(
    await kubectlOk('v35', kubeconfig, ['apply', '-f', '-'], { input: crd() }),
    /customresourcedefinition\.apiextensions\.k8s\.io\/sprockets\.example\.com created/,
  );
  assert.match(
    await kubectlOk('v31', kubeconfig, ['get', 'crd']),
    /^NAME\s+CREATED AT\nsprockets\.example\.com\s+\d{4}-/m,
  );
  // A second client-side apply updates the CRD (a merge patch: kubectl does not know the CRD type).
  assert.match(
    await kubectlOk('v31', kubeconfig, ['apply', '-f', '-'], {
      input: crd('\n    - {name: Material, type: string, jsonPath: .spec.material, priority: 1}'),
    }),
    /configured/,
  );
  for (const [generation, name, teeth] of [
    ['v35', 's1', 12],
    ['v31', 's2', 30],
  ] as const) {
    assert.match(
      await kubectlOk(generation, kubeconfig, ['apply', '-f', '-'], { input: sprocket(name, teeth) }),
      new RegExp(`sprocket\\.example\\.com/${name} created`),
    );
  }
  for (const generation of GENERATIONS) {
    assert.match(
      await kubectlOk(generation, kubeconfig, ['get', 'sprockets']),
      /^NAME\s+TEETH\s+AGE\ns1\s+12\s+\d+s\ns2\s+30\s+\d+s\n/,
    );
    assert.match(
      await kubectlOk(generation, kubeconfig, ['get', 'spr', '-o', 'wide']),
      /^NAME\s+TEETH\s+AGE\s+MATERIAL\ns1\s+12\s+\d+s\s+steel\n/,
    );
  }
  const explain = await kubectlOk('v35', kubeconfig, ['explain', 'sprockets.spec']);
  assert.match(explain, /teeth\s+<integer>/);
  assert.match(explain, /Number of teeth\./);
  const smp = await kubectl('v35', kubeconfig, [
    'patch',
    'spr',
    's1',
    '--type=strategic',
    '-p',
    '{"spec":{"teeth":3}}',
  ]);
  assert.notEqual(smp.code, 0);
  assert.match(smp.stderr, /UnsupportedMediaType|not supported|unknown format/i);
});

test('kubectl delete crd removes the kind and its resources', async () => {
  assert.match(
    await kubectlOk('v35', kubeconfig, ['delete', 'crd', 'sprockets.example.com']),
    /customresourcedefinition\.apiextensions\.k8s\.io "sprockets\.example\.com" deleted/,
  );
  await crdKinds.settled();
  const gone = await kubectl('v35', kubeconfig, ['get', 'sprockets']);
  assert.notEqual(gone.code, 0);
  // kubectl's discovery cache still maps the plural (as against a real cluster); the server says 404.
  assert.match(
    gone.stderr,
    /the server doesn't have a resource type "sprockets"|could not find the requested resource/,
  );
  assert.deepEqual((await store.list('sprockets.example.com')).items, []);
});
