// The real kubectl 1.31 and 1.35 against a tiny node:http server built only from the discovery, OpenAPI
// and Table functions (plus a toy object map): api-resources, explain, get, create -f and apply -f.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { parse as parseYaml } from 'yaml';
import { apiVersionOf } from '../../src/kinds/types.js';
import type { KubeObject } from '../../src/store/types.js';
import { buildDiscovery, type PreparedResponse, type ServedKind } from '../../src/apiserver/discovery.js';
import { buildOpenApiV3 } from '../../src/apiserver/openapi.js';
import { parseIncludeObject, tableFromList, tableFromObject, wantsTable } from '../../src/apiserver/table.js';
import { run, type Generation } from '../support/tools.js';

const configMaps: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  description: 'ConfigMap holds configuration data for pods to consume.',
  schema: Type.Object({
    data: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Configuration data.' })),
    binaryData: Type.Optional(Type.Record(Type.String(), Type.String())),
    immutable: Type.Optional(Type.Boolean({ description: 'Data cannot be changed once set.' })),
  }),
};

const namespaces: ServedKind = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
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
  shortNames: ['wg', 'wdg'],
  categories: ['fleet'],
  description: 'A widget rolled out to the fleet.',
  subresources: { status: true },
  schema: Type.Object({
    spec: Type.Object({
      replicas: Type.Integer({ minimum: 0, description: 'How many copies run.' }),
      color: Type.Optional(
        Type.Union([Type.Literal('blue'), Type.Literal('green')], { description: 'Paint.' }),
      ),
      selector: Type.Optional(Type.Record(Type.String(), Type.String())),
    }),
    status: Type.Optional(
      Type.Object({
        conditions: Type.Optional(Type.Array(Type.Object({ type: Type.String(), status: Type.String() }))),
      }),
    ),
  }),
  printerColumns: [
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
  ],
};

const fleets: ServedKind = {
  group: 'fleet.example.io',
  version: 'v1',
  kind: 'Fleet',
  plural: 'fleets',
  singular: 'fleet',
  namespaced: false,
  shortNames: ['fl'],
  schema: Type.Object({ spec: Type.Optional(Type.Object({ region: Type.Optional(Type.String()) })) }),
};

const KINDS = [configMaps, namespaces, widgets, fleets];
const discovery = buildDiscovery(KINDS);
const openapi = buildOpenApiV3(KINDS);

interface Logged {
  method: string;
  url: string;
}
const requests: Logged[] = [];
const objects = new Map<string, KubeObject>();
let rv = 100;

function send(res: ServerResponse, r: PreparedResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function notFound(res: ServerResponse, message = 'the server could not find the requested resource'): void {
  sendJson(res, 404, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'NotFound',
    code: 404,
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** Just enough object handling for create/apply/get: the subject here is discovery, OpenAPI and Table. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  requests.push({ method, url: url.pathname + url.search });
  const accept = req.headers.accept;
  const ifNoneMatch = req.headers['if-none-match'];
  if (method === 'GET') {
    const answer =
      discovery.respond(url.pathname, accept, ifNoneMatch) ??
      openapi.respond(url.pathname, url.searchParams, accept, ifNoneMatch);
    if (answer) return send(res, answer);
  }
  const parts = url.pathname.split('/').filter(Boolean);
  const [group, version, rest] =
    parts[0] === 'api' ? ['', parts[1], parts.slice(2)] : [parts[1] ?? '', parts[2], parts.slice(3)];
  let namespace = '';
  let tail = rest;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1]!;
    tail = rest.slice(2);
  }
  const kind = KINDS.find(
    (k) =>
      k.group === group &&
      k.version === version &&
      k.plural === tail[0] &&
      k.namespaced === (namespace !== ''),
  );
  if (!kind || tail.length > 2) return notFound(res);
  const key = (name: string) => `${kind.plural}/${namespace}/${name}`;
  const name = tail[1];
  const tableVersion = wantsTable(accept);
  const typed = (o: KubeObject): KubeObject => ({ apiVersion: apiVersionOf(kind), kind: kind.kind, ...o });
  if (method === 'GET' && name === undefined) {
    const items = [...objects.entries()]
      .filter(([k]) => k.startsWith(`${kind.plural}/${namespace}/`))
      .map(([, o]) => o);
    if (tableVersion) {
      return sendJson(
        res,
        200,
        tableFromList(
          kind,
          items,
          { resourceVersion: String(rv) },
          { version: tableVersion, includeObject: parseIncludeObject(url.searchParams) },
        ),
      );
    }
    return sendJson(res, 200, {
      kind: `${kind.kind}List`,
      apiVersion: apiVersionOf(kind),
      metadata: { resourceVersion: String(rv) },
      items: items.map(typed),
    });
  }
  if (method === 'GET' && name !== undefined) {
    const found = objects.get(key(name));
    if (!found) return notFound(res, `${kind.plural} "${name}" not found`);
    return sendJson(
      res,
      200,
      tableVersion ? tableFromObject(kind, found, { version: tableVersion }) : typed(found),
    );
  }
  if ((method === 'POST' && name === undefined) || (method === 'PATCH' && name !== undefined)) {
    const body = parseYaml(await readBody(req)) as KubeObject;
    const objName = name ?? body.metadata.name!;
    const existing = objects.get(key(objName));
    const stored: KubeObject = {
      ...(existing ?? {}),
      ...body,
      metadata: {
        ...(existing?.metadata ?? {}),
        ...body.metadata,
        ...(namespace ? { namespace } : {}),
        uid: existing?.metadata.uid ?? `uid-${objName}`,
        creationTimestamp:
          existing?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        resourceVersion: String(++rv),
      },
    };
    objects.set(key(objName), stored);
    return sendJson(res, existing ? 200 : 201, typed(stored));
  }
  notFound(res);
}

let server: Server;
let kubeconfig: string;
let home: string;
let chart: string;

function toolPath(generation: Generation, name: 'kubectl' | 'helm'): string {
  // Compiled tests may run from any outDir; the binaries live under the project root (npm's cwd).
  const path = join(process.cwd(), '.tools', generation, name);
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm install from the project root`);
  return path;
}

async function tool(
  generation: Generation,
  name: 'kubectl' | 'helm',
  args: string[],
  input?: string,
): Promise<string> {
  const result = await run(toolPath(generation, name), args, {
    kubeconfig,
    input,
    // Own caches per tool, generation and run: every client must fetch discovery and OpenAPI from this
    // server (kubectl keeps hash-addressed OpenAPI documents in its HTTP cache for good).
    env: {
      HOME: home,
      KUBECACHEDIR: join(home, `cache-${name}-${generation}`),
      HELM_CACHE_HOME: join(home, `helm-${generation}`),
    },
  });
  if (result.code !== 0)
    throw new Error(
      `${name} ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  return result.stdout;
}

const kubectl = (generation: Generation, args: string[], input?: string) =>
  tool(generation, 'kubectl', args, input);

before(async () => {
  server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) =>
      sendJson(res, 500, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: String(e),
        code: 500,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  home = mkdtempSync(join(tmpdir(), 'fleethub-discovery-e2e-'));
  kubeconfig = join(home, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: sim\n  cluster:\n    server: http://127.0.0.1:${address.port}`,
      'users:',
      '- name: dev\n  user:\n    token: dev-token',
      'contexts:',
      '- name: sim\n  context:\n    cluster: sim\n    user: dev\n    namespace: default',
      'current-context: sim',
      '',
    ].join('\n'),
  );
  chart = join(home, 'chart');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
  writeFileSync(
    join(chart, 'templates', 'objects.yaml'),
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: caps',
      'data:',
      '  kube: {{ .Capabilities.KubeVersion.Version | quote }}',
      '  widgets: {{ .Capabilities.APIVersions.Has "fleet.example.io/v1/Widget" | quote }}',
      '---',
      'apiVersion: fleet.example.io/v1',
      'kind: Widget',
      'metadata:',
      '  name: charted',
      'spec:',
      '  replicas: 1',
      '',
    ].join('\n'),
  );
});

after(() => {
  server.close();
});

/** `kubectl api-resources` rows keyed by name: [shortnames, apiVersion, namespaced, kind]. */
function parseApiResources(out: string): Map<string, string[]> {
  const [header, ...lines] = out.trim().split('\n');
  assert.match(header!, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
  const rows = new Map<string, string[]>();
  for (const line of lines) {
    const cols = line.trim().split(/\s+/);
    // SHORTNAMES may be empty: then there are four columns.
    rows.set(cols[0]!, cols.length === 5 ? cols.slice(1) : ['', ...cols.slice(1)]);
  }
  return rows;
}

for (const generation of ['v35', 'v31'] as const) {
  void test(`kubectl ${generation}: api-resources shows every kind with short names and scope`, async () => {
    const rows = parseApiResources(await kubectl(generation, ['api-resources']));
    assert.deepEqual(rows.get('configmaps'), ['cm', 'v1', 'true', 'ConfigMap']);
    assert.deepEqual(rows.get('namespaces'), ['ns', 'v1', 'false', 'Namespace']);
    assert.deepEqual(rows.get('widgets'), ['wg,wdg', 'fleet.example.io/v1', 'true', 'Widget']);
    assert.deepEqual(rows.get('fleets'), ['fl', 'fleet.example.io/v1', 'false', 'Fleet']);
    assert.equal(rows.size, 4, 'subresources are not listed as resources');
    const fleetOnly = parseApiResources(
      await kubectl(generation, ['api-resources', '--api-group=fleet.example.io', '--namespaced=true']),
    );
    assert.deepEqual([...fleetOnly.keys()], ['widgets']);
  });

  void test(`kubectl ${generation}: explain reads the OpenAPI v3 component schemas`, async () => {
    const widget = await kubectl(generation, ['explain', 'widgets']);
    assert.match(widget, /KIND:\s+Widget/);
    assert.match(widget, /GROUP:\s+fleet\.example\.io/);
    assert.match(widget, /VERSION:\s+v1/);
    assert.match(widget, /A widget rolled out to the fleet\./);
    assert.match(widget, /spec\s+<Object> -required-/);
    assert.match(widget, /metadata\s+<ObjectMeta>/);
    const spec = await kubectl(generation, ['explain', 'wg.spec']);
    assert.match(spec, /replicas\s+<integer> -required-/);
    assert.match(spec, /How many copies run\./);
    assert.match(spec, /color\s+<string>/);
    assert.match(spec, /enum: blue, green/);
    assert.match(spec, /selector\s+<map\[string\]string>/);

    const cm = await kubectl(generation, ['explain', 'configmap']);
    assert.match(cm, /KIND:\s+ConfigMap/);
    assert.match(cm, /data\s+<map\[string\]string>/);
    const labels = await kubectl(generation, ['explain', 'cm.metadata.labels']);
    assert.match(labels, /FIELD:\s+labels <map\[string\]string>/);
  });

  void test(`kubectl ${generation}: create -f, apply -f and apply --server-side pass validation via OpenAPI`, async () => {
    const suffix = generation;
    const widget = (name: string) =>
      JSON.stringify({
        apiVersion: 'fleet.example.io/v1',
        kind: 'Widget',
        metadata: { name },
        spec: { replicas: 2, color: 'blue' },
      });
    const seen = requests.length;
    assert.match(
      await kubectl(generation, ['create', '-f', '-'], widget(`created-${suffix}`)),
      new RegExp(`widget.fleet.example.io/created-${suffix} created`),
    );
    assert.match(
      await kubectl(generation, ['apply', '-f', '-'], widget(`applied-${suffix}`)),
      new RegExp(`widget.fleet.example.io/applied-${suffix} created`),
    );
    assert.match(
      await kubectl(generation, ['apply', '--server-side', '-f', '-'], widget(`ssa-${suffix}`)),
      new RegExp(`widget.fleet.example.io/ssa-${suffix} serverside-applied`),
    );
    const cm = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${suffix}` },
      data: { a: '1', b: '2' },
    });
    assert.match(
      await kubectl(generation, ['apply', '-f', '-'], cm),
      new RegExp(`configmap/cm-${suffix} created`),
    );
    // kubectl found fieldValidation on our PATCH operations, so it left validation to the server.
    const writes = requests.slice(seen).filter((r) => r.method === 'POST' || r.method === 'PATCH');
    assert.equal(writes.length, 4);
    for (const w of writes) assert.match(w.url, /fieldValidation=Strict/, w.url);
  });

  void test(`kubectl ${generation}: get prints the server-side Table columns`, async () => {
    const out = await kubectl(generation, ['get', 'widgets']);
    const [header, ...rows] = out.trim().split('\n');
    assert.match(header!, /^NAME\s+REPLICAS\s+READY\s+AGE$/);
    assert.ok(
      rows.some((r) => /^created-v\d\d\s+2\s+\d+s$/.test(r.trim())),
      out,
    );
    const wide = await kubectl(generation, ['get', 'wg', '-o', 'wide']);
    assert.match(wide.split('\n')[0]!, /^NAME\s+REPLICAS\s+READY\s+COLOR\s+AGE$/);
    const cms = await kubectl(generation, ['get', 'cm', `cm-${generation}`]);
    assert.match(cms, new RegExp(`^NAME\\s+DATA\\s+AGE\\ncm-${generation}\\s+2\\s+\\d+s\\n$`));
  });

  void test(`helm ${generation === 'v35' ? '4' : '3'}: template --validate sees our version and kinds, validates via OpenAPI`, async () => {
    const seen = requests.length;
    const out = await tool(generation, 'helm', ['template', 'r', chart, '--validate']);
    assert.match(out, /kube: "v1\.35\.0"/);
    assert.match(out, /widgets: "true"/);
    const urls = requests.slice(seen).map((r) => r.url);
    assert.ok(
      urls.some((u) => u.startsWith('/openapi/v3/apis/fleet.example.io/v1?hash=')),
      urls.join('\n'),
    );
    assert.ok(!urls.some((u) => u.startsWith('/openapi/v2')), 'no fallback to OpenAPI v2');
  });
}
