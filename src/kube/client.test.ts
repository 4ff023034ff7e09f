// KubeClient against a simulated cluster over real HTTPS (behind the fleet's /clusters/<name> prefix), plus a
// few hand-made HTTP servers for what the simulator does not do (split chunks, a 410 answer, a slow server).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { DEFAULT_SIM_VERSION, SimCluster } from '../sim/cluster.js';
import { SimServer } from '../sim/server.js';
import type { KubeObject } from '../store/types.js';
import { KubeClient } from './client.js';
import { parseKubeconfig } from './kubeconfig.js';
import { KubeApiError, type ResourceRef, type WatchEventType } from './types.js';

const NAME = 'kc1';
const NS = 'default';

let cluster: SimCluster;
let sim: SimServer;
let dir: string;
let kubeconfigPath: string;
let client: KubeClient;
let configMaps: ResourceRef;
let deployments: ResourceRef;
let crds: ResourceRef;
const extraClients: KubeClient[] = [];
const extraServers: Server[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function configMap(name: string, data: Record<string, string>, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
    data,
  };
}

function newClient(...args: ConstructorParameters<typeof KubeClient>): KubeClient {
  const c = new KubeClient(...args);
  extraClients.push(c);
  return c;
}

/** A plain-HTTP server for one test; closed in `after`. */
async function httpServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  extraServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function expectApiError(p: Promise<unknown>, code: number, reason: string, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof KubeApiError, `expected a KubeApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.reason, reason);
    if (message) assert.match(e.message, message);
    return true;
  });
}

function crd(plural: string, kind: string): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' } } },
                status: { type: 'object', properties: { phase: { type: 'string' } } },
              },
            },
          },
          subresources: { status: {} },
        },
      ],
    },
  };
}

before(async () => {
  cluster = await SimCluster.start({ name: NAME, nodes: 1 });
  sim = new SimServer({ host: '127.0.0.1', port: 0 });
  sim.add(cluster);
  await sim.listen();
  dir = mkdtempSync(join(tmpdir(), 'fleethub-kube-client-'));
  kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, sim.kubeconfig(NAME), { mode: 0o600 });
  client = KubeClient.fromKubeconfig(kubeconfigPath);
  configMaps = await client.resourceFor('v1', 'ConfigMap');
  deployments = await client.resourceFor('apps/v1', 'Deployment');
  crds = await client.resourceFor('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
});

after(async () => {
  client.close();
  for (const c of extraClients) c.close();
  for (const s of extraServers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubeconfig', () => {
  test('fromKubeconfig talks TLS with the CA and token to a cluster behind a path prefix', async () => {
    assert.equal(client.server, `${sim.url}/clusters/${NAME}`);
    assert.match(client.server, /^https:/);
    assert.equal(await client.serverVersion(), DEFAULT_SIM_VERSION);
  });

  test('a CA file relative to the kubeconfig, and a named context', async () => {
    const config = parse(sim.kubeconfig(NAME)) as {
      clusters: { name: string; cluster: Record<string, unknown> }[];
      contexts: { name: string }[];
      'current-context': string;
    };
    const entry = config.clusters[0]!.cluster;
    writeFileSync(
      join(dir, 'ca.crt'),
      Buffer.from(entry['certificate-authority-data'] as string, 'base64').toString('utf8'),
    );
    delete entry['certificate-authority-data'];
    entry['certificate-authority'] = 'ca.crt';
    config['current-context'] = 'elsewhere';
    const path = join(dir, 'kubeconfig-file-ca');
    writeFileSync(path, stringify(config));
    const c = KubeClient.fromKubeconfig(path, NAME);
    extraClients.push(c);
    assert.equal(await c.serverVersion(), DEFAULT_SIM_VERSION);
    assert.throws(() => KubeClient.fromKubeconfig(path), /no context named "elsewhere"/);
  });

  test('clear errors for a missing context, cluster or user', () => {
    const text = (cluster: string, user: string) =>
      stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster, user } }],
        'current-context': 'x',
      });
    assert.deepEqual(parseKubeconfig(text('c', 'u')), { server: 'https://127.0.0.1:1', token: 't' });
    assert.throws(() => parseKubeconfig(text('c', 'u'), 'y'), /no context named "y"/);
    assert.throws(() => parseKubeconfig(text('nope', 'u')), /no cluster named "nope"/);
    assert.throws(() => parseKubeconfig(text('c', 'nobody')), /no user named "nobody"/);
    assert.throws(() => KubeClient.fromKubeconfig(join(dir, 'missing')), /cannot read kubeconfig/);
  });

  test('insecure-skip-tls-verify connects without the CA; without either, TLS fails naming the server', async () => {
    const insecure = newClient({ server: client.server, token: cluster.token, insecureSkipTlsVerify: true });
    assert.equal(await insecure.serverVersion(), DEFAULT_SIM_VERSION);
    const unverified = newClient({ server: client.server, token: cluster.token });
    await assert.rejects(unverified.serverVersion(), (e: unknown) => {
      assert.ok(!(e instanceof KubeApiError));
      assert.ok((e as Error).message.includes(client.server), (e as Error).message);
      return true;
    });
  });
});

describe('discovery', () => {
  test('resourceFor core and apps kinds', () => {
    assert.deepEqual(configMaps, {
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
    });
    assert.deepEqual(deployments, {
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
    });
  });

  test('resourceFor an unknown kind is a 404 KubeApiError naming it', async () => {
    await expectApiError(
      client.resourceFor('v1', 'Nonsense'),
      404,
      'NotFound',
      /no resource for v1 Nonsense on https:/,
    );
    await expectApiError(client.resourceFor('nowhere.example/v9', 'Thing'), 404, 'NotFound');
  });

  test('apiVersions lists group versions and group/version/Kind, sorted', async () => {
    const versions = await client.apiVersions();
    for (const v of ['v1', 'apps/v1', 'apps/v1/Deployment', 'v1/ConfigMap'])
      assert.ok(versions.includes(v), v);
    assert.deepEqual(versions, [...new Set(versions)].sort());
    assert.ok(!versions.some((v) => v.includes('/status')));
  });

  test('aggregated discovery (two requests) and the per-group-version documents list the same', async () => {
    const c = newClient({ server: client.server, caPem: parseCa(), token: cluster.token });
    const legacy = await (
      c as unknown as { perGroupVersionApiVersions(): Promise<string[]> }
    ).perGroupVersionApiVersions();
    assert.ok(legacy.length > 40, String(legacy.length));
    const opened = c.connectionsOpened;
    assert.deepEqual(await c.apiVersions(), legacy);
    assert.ok(c.connectionsOpened - opened <= 2);
  });

  test('a kind served after its group version was cached is found by the refetch', async () => {
    await client.create(crds, crd('widgets', 'Widget'));
    assert.equal((await client.resourceFor('example.com/v1', 'Widget')).resource, 'widgets');
    // example.com/v1 is cached now, without Gadget; the miss refetches once.
    await client.create(crds, crd('gadgets', 'Gadget'));
    assert.deepEqual(await client.resourceFor('example.com/v1', 'Gadget'), {
      group: 'example.com',
      version: 'v1',
      resource: 'gadgets',
      kind: 'Gadget',
      namespaced: true,
    });
  });
});

describe('objects', () => {
  test('get: an object, and undefined for a missing one', async () => {
    const services = await client.resourceFor('v1', 'Service');
    const svc = await client.get(services, NS, 'kubernetes');
    assert.equal(svc?.metadata.name, 'kubernetes');
    assert.equal(await client.get(configMaps, NS, 'no-such-thing'), undefined);
    const nodes = await client.resourceFor('v1', 'Node');
    assert.equal(nodes.namespaced, false);
    assert.equal((await client.get(nodes, undefined, `${NAME}-node-1`))?.kind, 'Node');
  });

  test('create, and list with a label selector', async () => {
    const created = await client.create(configMaps, configMap('sel-a', { k: 'a' }, { team: 'red' }));
    assert.ok(created.metadata.uid);
    await client.create(configMaps, configMap('sel-b', { k: 'b' }, { team: 'blue' }));
    await client.create(configMaps, configMap('sel-c', { k: 'c' }, { team: 'red' }));
    const red = await client.list(configMaps, { namespace: NS, labelSelector: 'team=red' });
    assert.deepEqual(
      red.items.map((i) => i.metadata.name),
      ['sel-a', 'sel-c'],
    );
    assert.equal(red.items[0]!.kind, 'ConfigMap');
    assert.equal(red.items[0]!.apiVersion, 'v1');
    assert.match(red.resourceVersion, /^\d+$/);
    const paged = await client.list(configMaps, { namespace: NS, labelSelector: 'team', limit: 2 });
    assert.equal(paged.items.length, 2);
    assert.ok(paged.continue);
    const rest = await client.list(configMaps, {
      namespace: NS,
      labelSelector: 'team',
      continue: paged.continue,
    });
    assert.deepEqual(
      rest.items.map((i) => i.metadata.name),
      ['sel-c'],
    );
    await expectApiError(client.create(configMaps, configMap('sel-a', {})), 409, 'AlreadyExists');
  });

  test('server-side apply: create, update, conflict with another manager, force', async () => {
    const first = await client.apply(configMaps, configMap('applied', { a: '1' }), { fieldManager: 'alpha' });
    assert.deepEqual(first.data, { a: '1' });
    const second = await client.apply(configMaps, configMap('applied', { a: '2', b: '3' }), {
      fieldManager: 'alpha',
    });
    assert.deepEqual(second.data, { a: '2', b: '3' });
    assert.ok(second.metadata.managedFields?.some((f) => f.manager === 'alpha' && f.operation === 'Apply'));
    await expectApiError(
      client.apply(configMaps, configMap('applied', { a: 'beta' }), { fieldManager: 'beta' }),
      409,
      'Conflict',
    );
    const forced = await client.apply(configMaps, configMap('applied', { a: 'beta' }), {
      fieldManager: 'beta',
      force: true,
    });
    assert.equal((forced['data'] as Record<string, string>)['a'], 'beta');
  });

  test('dry-run apply and create change nothing', async () => {
    const before = await client.get(configMaps, NS, 'applied');
    const dry = await client.apply(configMaps, configMap('applied', { a: 'dry' }), {
      fieldManager: 'beta',
      force: true,
      dryRun: true,
    });
    assert.equal((dry.data as Record<string, string>)['a'], 'dry');
    const after = await client.get(configMaps, NS, 'applied');
    assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion);
    assert.deepEqual(after?.data, before?.data);
    await client.apply(configMaps, configMap('dry-new', { x: '1' }), { fieldManager: 'alpha', dryRun: true });
    await client.create(configMaps, configMap('dry-new-2', { x: '1' }), { dryRun: true });
    assert.equal(await client.get(configMaps, NS, 'dry-new'), undefined);
    assert.equal(await client.get(configMaps, NS, 'dry-new-2'), undefined);
  });

  test('merge and JSON patches; update with a stale resourceVersion conflicts', async () => {
    await client.create(configMaps, configMap('patched', { a: '1', b: '2' }));
    const merged = await client.patch(configMaps, NS, 'patched', 'merge', { data: { a: null, c: '3' } });
    assert.deepEqual(merged.data, { b: '2', c: '3' });
    const jsonPatched = await client.patch(configMaps, NS, 'patched', 'json', [
      { op: 'add', path: '/data/d', value: '4' },
    ]);
    assert.deepEqual(jsonPatched.data, { b: '2', c: '3', d: '4' });
    const strategic = await client.patch(configMaps, NS, 'patched', 'strategic', { data: { e: '5' } });
    assert.deepEqual(strategic.data, { b: '2', c: '3', d: '4', e: '5' });
    const updated = await client.update(configMaps, { ...strategic, data: { only: 'this' } });
    assert.deepEqual(updated.data, { only: 'this' });
    await expectApiError(client.update(configMaps, { ...strategic, data: {} }), 409, 'Conflict');
    await expectApiError(
      client.patch(configMaps, NS, 'not-there', 'merge', { data: {} }),
      404,
      'NotFound',
      /"not-there" not found/,
    );
  });

  test('update of the status subresource changes status only', async () => {
    const widgets = await client.resourceFor('example.com/v1', 'Widget');
    const w = await client.create(widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: NS },
      spec: { size: 1 },
    });
    const updated = await client.update(
      widgets,
      { ...w, spec: { size: 5 }, status: { phase: 'Ready' } },
      {
        subresource: 'status',
      },
    );
    assert.deepEqual(updated['status'], { phase: 'Ready' });
    assert.deepEqual(updated['spec'], { size: 1 });
    const patched = await client.patch(
      widgets,
      NS,
      'w1',
      'merge',
      { status: { phase: 'Gone' } },
      { subresource: 'status' },
    );
    assert.deepEqual(patched['status'], { phase: 'Gone' });
  });

  test('delete: true with a propagation policy, false when absent; preconditions are sent', async () => {
    const obj = await client.create(configMaps, configMap('doomed', {}));
    await expectApiError(
      client.delete(configMaps, NS, 'doomed', { preconditions: { uid: 'not-the-uid' } }),
      409,
      'Conflict',
    );
    assert.equal(await client.delete(configMaps, NS, 'doomed', { dryRun: true }), true);
    assert.ok(await client.get(configMaps, NS, 'doomed'));
    assert.equal(
      await client.delete(configMaps, NS, 'doomed', {
        propagationPolicy: 'Foreground',
        preconditions: { uid: obj.metadata.uid! },
      }),
      true,
    );
    assert.equal(await client.get(configMaps, NS, 'doomed'), undefined);
    assert.equal(await client.delete(configMaps, NS, 'doomed', { propagationPolicy: 'Background' }), false);
  });
});

describe('errors', () => {
  test('422 Invalid carries code, reason, message and the Status', async () => {
    await assert.rejects(client.create(configMaps, configMap('Bad_Name', {})), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, 422);
      assert.equal(e.reason, 'Invalid');
      assert.match(e.message, /"Bad_Name" is invalid/);
      assert.equal(e.status?.['kind'], 'Status');
      return true;
    });
  });

  test('401 for a token the cluster does not accept', async () => {
    const stranger = newClient({ server: client.server, caPem: parseCa(), token: 'not-the-token' });
    await expectApiError(stranger.get(configMaps, NS, 'anything'), 401, 'Unauthorized');
  });

  test('a non-Status error answer falls back to the HTTP status', async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('upstream gone');
    });
    const c = newClient({ server: url });
    await expectApiError(c.serverVersion(), 502, 'Bad Gateway', /502 Bad Gateway: upstream gone/);
  });

  test('a network error is a plain Error naming the server', async () => {
    const url = await httpServer(() => undefined);
    const server = extraServers.at(-1)!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const c = newClient({ server: url });
    await assert.rejects(c.serverVersion(), (e: unknown) => {
      assert.ok(!(e instanceof KubeApiError));
      assert.match((e as Error).message, new RegExp(`cannot reach the Kubernetes API server ${url}`));
      return true;
    });
  });

  test('a GET on a kept-alive connection the server dropped is sent again on a new one', async () => {
    const served = new WeakSet<object>();
    const url = await httpServer((req, res) => {
      // The second request on a connection finds it closed, as after a server's idle timeout.
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ gitVersion: 'v1.2.3' }));
    });
    const c = newClient({ server: url });
    assert.equal(await c.serverVersion(), 'v1.2.3');
    await new Promise((r) => setImmediate(r));
    assert.equal(await c.serverVersion(), 'v1.2.3');
    assert.equal(c.connectionsOpened, 2);
  });

  test('requests time out after timeoutMs', async () => {
    const url = await httpServer(() => undefined); // never answers
    const c = newClient({ server: url, timeoutMs: 150 });
    const started = Date.now();
    await assert.rejects(c.serverVersion(), /no answer from http:\/\/127\.0\.0\.1:\d+ within 150 ms/);
    assert.ok(Date.now() - started < 5000);
  });
});

function parseCa(): string {
  const config = parse(sim.kubeconfig(NAME)) as { clusters: { cluster: Record<string, string> }[] };
  return Buffer.from(config.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString('utf8');
}

describe('watch', () => {
  test('ADDED, MODIFIED, DELETED in order after a resourceVersion; stop() ends it as closed', async () => {
    const start = (await client.list(configMaps, { namespace: NS })).resourceVersion;
    await client.create(configMaps, configMap('watched', { v: '1' }));
    await client.patch(configMaps, NS, 'watched', 'merge', { data: { v: '2' } });
    await client.delete(configMaps, NS, 'watched');
    const seen: [WatchEventType, string, unknown][] = [];
    const handle = client.watch(
      configMaps,
      {
        namespace: NS,
        resourceVersion: start,
        fieldSelector: 'metadata.name=watched',
        allowWatchBookmarks: true,
      },
      (type, obj) => {
        if (type !== 'BOOKMARK')
          seen.push([type, obj.metadata.name ?? '', (obj['data'] as { v?: string }).v]);
      },
    );
    for (let i = 0; i < 100 && seen.length < 3; i++) await sleep(20);
    assert.deepEqual(seen, [
      ['ADDED', 'watched', '1'],
      ['MODIFIED', 'watched', '2'],
      ['DELETED', 'watched', '2'],
    ]);
    // Live events too.
    await client.create(configMaps, configMap('watched', { v: 'live' }));
    for (let i = 0; i < 100 && seen.length < 4; i++) await sleep(20);
    assert.deepEqual(seen[3], ['ADDED', 'watched', 'live']);
    handle.stop();
    handle.stop();
    assert.deepEqual(await handle.done, { reason: 'closed' });
  });

  test('an expired resourceVersion (ERROR event with a 410 Status) ends the watch as expired', async () => {
    cluster.faults.set({ expireWatches: 1 });
    try {
      const events: string[] = [];
      const handle = client.watch(configMaps, { namespace: NS, resourceVersion: '1' }, (type) =>
        events.push(type),
      );
      const end = await handle.done;
      assert.equal(end.reason, 'expired');
      assert.ok(end.error instanceof KubeApiError);
      assert.equal(end.error.code, 410);
      assert.equal(end.error.reason, 'Expired');
      assert.deepEqual(events, []);
    } finally {
      cluster.faults.set({});
    }
  });

  test('the server ending the stream (timeoutSeconds) ends the watch as closed', async () => {
    const rv = (await client.list(configMaps, { namespace: NS })).resourceVersion;
    const handle = client.watch(
      configMaps,
      { namespace: NS, resourceVersion: rv, timeoutSeconds: 1 },
      () => undefined,
    );
    assert.deepEqual(await handle.done, { reason: 'closed' });
  });

  test('an HTTP error answer ends the watch as error, with the Status', async () => {
    const handle = client.watch(
      configMaps,
      { namespace: NS, resourceVersion: 'not-a-number' },
      () => undefined,
    );
    const end = await handle.done;
    assert.equal(end.reason, 'error');
    assert.ok(end.error instanceof KubeApiError);
    assert.equal(end.error.code, 400);
  });

  test('events split across chunks; an HTTP 410 answer is expired; an ERROR 500 event is an error', async () => {
    const lines = [
      { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'é-1', resourceVersion: '5' } } },
      { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'ü-2', resourceVersion: '6' } } },
      { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '7' } } },
      {
        type: 'ERROR',
        object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' },
      },
    ];
    const paths: string[] = [];
    const url = await httpServer((req, res) => {
      paths.push(req.url ?? '');
      const rv = new URL(req.url ?? '/', 'http://x').searchParams.get('resourceVersion');
      if (rv === 'old') {
        res.writeHead(410, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            status: 'Failure',
            code: 410,
            reason: 'Gone',
            message: 'too old',
          }),
        );
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // One byte at a time, each its own chunk: lines and UTF-8 characters arrive split.
      const bytes = Buffer.from(lines.map((l) => JSON.stringify(l) + '\n').join(''), 'utf8');
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i >= bytes.length) return; // keep the stream open: the ERROR event must end it
        res.write(bytes.subarray(i, i + 1));
        i++;
        setImmediate(next);
      };
      next();
    });
    const c = newClient({ server: `${url}/prefix/` });
    const seen: string[] = [];
    const handle = c.watch(configMaps, { namespace: NS, resourceVersion: '4' }, (type, obj) =>
      seen.push(`${type} ${obj.metadata.name ?? ''} ${obj.metadata.resourceVersion ?? ''}`),
    );
    const end = await handle.done;
    assert.deepEqual(seen, ['ADDED é-1 5', 'MODIFIED ü-2 6', 'BOOKMARK  7']);
    assert.equal(end.reason, 'error');
    assert.ok(end.error instanceof KubeApiError);
    assert.equal(end.error.code, 500);
    assert.equal(end.error.message, 'boom');
    assert.equal(paths[0], '/prefix/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=4');
    const expired = await c.watch(configMaps, { namespace: NS, resourceVersion: 'old' }, () => undefined)
      .done;
    assert.equal(expired.reason, 'expired');
    assert.equal(expired.error?.message, 'too old');
  });

  test('a watch of an unreachable server ends as error, never rejecting', async () => {
    const url = await httpServer(() => undefined);
    const server = extraServers.at(-1)!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const c = newClient({ server: url });
    const end = await c.watch(configMaps, { resourceVersion: '1' }, () => undefined).done;
    assert.equal(end.reason, 'error');
    assert.match(end.error?.message ?? '', /cannot reach/);
  });

  test('close() ends running watches as closed and refuses further requests', async () => {
    const c = newClient({ server: client.server, caPem: parseCa(), token: cluster.token });
    const rv = (await c.list(configMaps, { namespace: NS })).resourceVersion;
    const handles = [1, 2].map(() =>
      c.watch(configMaps, { namespace: NS, resourceVersion: rv }, () => undefined),
    );
    await sleep(50);
    c.close();
    for (const h of handles) assert.deepEqual(await h.done, { reason: 'closed' });
    await assert.rejects(c.serverVersion(), /closed/);
    assert.equal((await c.watch(configMaps, { resourceVersion: rv }, () => undefined).done).reason, 'error');
  });
});

describe('connections', () => {
  test('a watch takes an idle kept-alive connection and gives it back; requests keep their own', async () => {
    const c = newClient({ server: client.server, caPem: parseCa(), token: cluster.token });
    const rv = (await c.list(configMaps, { namespace: NS })).resourceVersion;
    assert.equal(c.connectionsOpened, 1);
    // The idle connection of the list serves the watch: no new connection, no TLS handshake.
    const watch = c.watch(configMaps, { namespace: NS, resourceVersion: rv }, () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(c.connectionsOpened, 1);
    for (let i = 0; i < 5; i++) {
      await c.get(configMaps, NS, 'applied');
      // Let the agent take the socket back before the next request.
      await new Promise((r) => setImmediate(r));
    }
    await c.serverVersion();
    // The watch holds the first; the requests share a second.
    assert.equal(c.connectionsOpened, 2);
    watch.stop();
    assert.equal((await watch.done).reason, 'closed');
    // Concurrent requests open more connections, bounded by maxSockets (the stopped watch's is gone).
    await Promise.all(Array.from({ length: 40 }, () => c.get(configMaps, NS, 'applied')));
    assert.ok(c.connectionsOpened <= 2 + 16, String(c.connectionsOpened));
    // While watches run, ordinary requests still get all of their connections.
    const watches = Array.from({ length: 20 }, () =>
      c.watch(configMaps, { namespace: NS, resourceVersion: rv }, () => undefined),
    );
    const started = Date.now();
    await Promise.all(Array.from({ length: 16 }, () => c.get(configMaps, NS, 'applied')));
    assert.ok(Date.now() - started < 2000, 'requests were not queued behind the watches');
    for (const w of watches) w.stop();
    await Promise.all(watches.map((w) => w.done));
  });

  test('a watch the server ends cleanly hands its connection back to the pool', async () => {
    const c = newClient({ server: client.server, caPem: parseCa(), token: cluster.token });
    const rv = (await c.list(configMaps, { namespace: NS })).resourceVersion;
    for (let i = 0; i < 3; i++) {
      const watch = c.watch(
        configMaps,
        { namespace: NS, resourceVersion: rv, timeoutSeconds: 1 },
        () => undefined,
      );
      assert.equal((await watch.done).reason, 'closed');
      await new Promise((r) => setImmediate(r));
    }
    await c.get(configMaps, NS, 'applied');
    assert.equal(c.connectionsOpened, 1);
  });
});
