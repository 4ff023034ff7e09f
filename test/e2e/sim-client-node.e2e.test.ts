// @kubernetes/client-node 1.4 drives simulated clusters through a fleet's /clusters/<name> prefix over TLS:
// CRUD, 404 Status, both patch types, SSA, Deployment→Running pods, informer past a 410; 1,000 clusters.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { join } from 'node:path';
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { parseSimArgs, startSim, type RunningSim } from '../../src/cli/sim.js';
import { scratchDir } from '../support/hub.js';
import {
  cpuMs,
  rssBytes,
  simClusterName,
  spawnSimFleet,
  type SimFleetProcess,
} from '../support/sim-fleet.js';

/** Clusters of the scale run; 1,000 is the figure (about a minute on a 2-core machine). */
const SCALE_CLUSTERS = Number(process.env.FLEETHUB_SIM_SCALE_CLUSTERS ?? 1000);
/** Clusters of the scale run that also get the informer and Deployment parts. */
const CONCURRENCY = 50;
const FIELD_MANAGER = 'fleethub-e2e';

const dir = scratchDir('fleethub-sim-cn-');
const running: RunningSim[] = [];
const processes: SimFleetProcess[] = [];
after(async () => {
  await Promise.all([...running.map((s) => s.close()), ...processes.map((p) => p.stop())]);
});

function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** PUTs a cluster's fault spec (or GETs it) through the fleet's admin endpoint, with the cluster's token. */
function faults(kc: KubeConfig, spec?: object): Promise<Record<string, unknown>> {
  const cluster = kc.getCurrentCluster()!;
  const server = new URL(cluster.server);
  const name = /\/clusters\/([^/]+)$/.exec(server.pathname)![1]!;
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(`/sim/clusters/${name}/faults`, server.origin),
      {
        method: spec ? 'PUT' : 'GET',
        ca: Buffer.from(cluster.caData!, 'base64'),
        headers: { Authorization: `Bearer ${kc.getCurrentUser()!.token!}` },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text))
            : reject(new Error(`${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(spec ? JSON.stringify(spec) : undefined);
  });
}

async function rejection(promise: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ApiException, `expected an ApiException, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

function statusOf(e: ApiException<unknown>): Record<string, unknown> {
  return (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Record<string, unknown>;
}

/**
 * Reads, writes of both patch types, a 404 and server-side apply: nine requests, cheap enough for 1,000
 * clusters. `thorough` adds a failed JSON-patch test, an apply conflict and its forced resolution.
 */
async function basicSuite(kc: KubeConfig, tag = 'cn', thorough = true): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const namespaces = (await core.listNamespace()).items.map((n) => n.metadata?.name);
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    assert.ok(namespaces.includes(ns), `namespace ${ns} in ${namespaces.join(',')}`);

  const nodes = (await core.listNode()).items;
  assert.equal(nodes.length, 3);
  for (const node of nodes) {
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'True', `${node.metadata?.name} is Ready`);
  }

  const name = `${tag}-settings`;
  const created = await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name, labels: { suite: tag } }, data: { a: '1' } },
  });
  assert.ok(created.metadata?.uid);
  assert.ok(created.metadata?.resourceVersion);
  const got = await core.readNamespacedConfigMap({ namespace: 'default', name });
  assert.deepEqual(got.data, { a: '1' });
  assert.equal(got.metadata?.uid, created.metadata?.uid);

  const missing = await rejection(
    core.readNamespacedConfigMap({ namespace: 'default', name: `${tag}-absent` }),
  );
  assert.equal(missing.code, 404);
  assert.equal(typeof missing.body, 'string', 'client-node 1.x keeps the Status body as its JSON text');
  const status = statusOf(missing);
  assert.equal(status.kind, 'Status');
  assert.equal(status.status, 'Failure');
  assert.equal(status.reason, 'NotFound');
  assert.equal(status.code, 404);
  assert.deepEqual(status.details, { name: `${tag}-absent`, kind: 'configmaps' });

  // client-node's patch methods send application/json-patch+json unless a middleware sets Content-Type.
  const jsonPatched = await core.patchNamespacedConfigMap({
    namespace: 'default',
    name,
    body: [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'replace', path: '/data/a', value: '10' },
      { op: 'add', path: '/data/b', value: '2' },
    ],
  });
  assert.deepEqual(jsonPatched.data, { a: '10', b: '2' });
  if (thorough) {
    const failedTest = await rejection(
      core.patchNamespacedConfigMap({
        namespace: 'default',
        name,
        body: [{ op: 'test', path: '/data/a', value: 'not-this' }],
      }),
    );
    assert.ok([409, 422].includes(failedTest.code), `failed JSON-patch test op: ${failedTest.code}`);
  }

  const merged = await core.patchNamespacedConfigMap(
    {
      namespace: 'default',
      name,
      body: { metadata: { labels: { merged: 'yes' } }, data: { b: null, c: '3' } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  assert.deepEqual(merged.data, { a: '10', c: '3' });
  assert.equal(merged.metadata?.labels?.merged, 'yes');
  assert.equal(merged.metadata?.labels?.suite, tag);
  assert.ok(Number(merged.metadata!.resourceVersion) > Number(created.metadata!.resourceVersion));

  // Server-side apply through the generic object API (it looks the kind up in /api/v1 first).
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const applyName = `${tag}-applied`;
  const manifest = (data: Record<string, string>): KubernetesObject & { data: Record<string, string> } => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: applyName, namespace: 'default' },
    data,
  });
  const applied = (await objects.patch(
    manifest({ x: '1' }),
    undefined,
    undefined,
    FIELD_MANAGER,
    true,
    PatchStrategy.ServerSideApply,
  )) as V1ConfigMap;
  assert.deepEqual(applied.data, { x: '1' });
  const entry = applied.metadata?.managedFields?.find((f) => f.manager === FIELD_MANAGER);
  assert.equal(entry?.operation, 'Apply');
  if (!thorough) return;
  // Another manager takes x with a merge patch; re-applying without force conflicts, with force wins.
  await core.patchNamespacedConfigMap(
    { namespace: 'default', name: applyName, body: { data: { x: 'theirs' } }, fieldManager: 'other' },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const conflict = await rejection(
    objects.patch(
      manifest({ x: '2', y: '2' }),
      undefined,
      undefined,
      FIELD_MANAGER,
      false,
      PatchStrategy.ServerSideApply,
    ),
  );
  assert.equal(conflict.code, 409);
  assert.equal(statusOf(conflict).reason, 'Conflict');
  const forced = (await objects.patch(
    manifest({ x: '2', y: '2' }),
    undefined,
    undefined,
    FIELD_MANAGER,
    true,
    PatchStrategy.ServerSideApply,
  )) as V1ConfigMap;
  assert.deepEqual(forced.data, { x: '2', y: '2' });
  const read = (await objects.read({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: applyName, namespace: 'default' },
  })) as V1ConfigMap;
  assert.deepEqual(read.data, { x: '2', y: '2' });
}

/** A Deployment whose pods the fake controllers schedule and start. */
async function deploymentSuite(kc: KubeConfig, tag = 'cn'): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const labels = { app: `${tag}-web` };
  await apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: `${tag}-web` },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    },
  });
  const pods = await until('two Running pods', async () => {
    const list = await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${tag}-web` });
    const runningPods = list.items.filter((p) => p.status?.phase === 'Running');
    return runningPods.length === 2 ? runningPods : undefined;
  });
  for (const pod of pods) {
    assert.ok(pod.spec?.nodeName, 'scheduled to a node');
    assert.ok(pod.status?.podIP, 'has a pod IP');
  }
  const ready = await until('the Deployment to report 2 ready replicas', async () => {
    const d = await apps.readNamespacedDeployment({ namespace: 'default', name: `${tag}-web` });
    return d.status?.readyReplicas === 2 ? d : undefined;
  });
  assert.equal(ready.status?.availableReplicas, 2);
}

/**
 * An informer (list, then watch from the list's resourceVersion) sees adds and updates; its watch is then
 * cut, resumes from its resourceVersion into a forced 410, relists, and still delivers later updates.
 */
async function informerSuite(kc: KubeConfig, tag = 'cn'): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const selector = `informer=${tag}`;
  const cm = (name: string, v: string) => ({
    namespace: 'default',
    body: { metadata: { name, labels: { informer: tag } }, data: { v } },
  });
  await core.createNamespacedConfigMap(cm(`${tag}-before`, '0'));
  let lists = 0;
  const informer = makeInformer<V1ConfigMap>(
    kc,
    '/api/v1/namespaces/default/configmaps',
    () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'default', labelSelector: selector });
    },
    selector,
  );
  const events: string[] = [];
  let errors = 0;
  let stopped = false;
  informer.on('add', (o) => events.push(`add ${o.metadata?.name} ${o.data?.v}`));
  informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${o.data?.v}`));
  // A watch cut mid-stream surfaces as an error that stops the informer: restart it, as client-node advises.
  informer.on('error', () => {
    errors++;
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 50);
  });
  const seen = (event: string) =>
    until(`informer event "${event}"`, () => events.includes(event) || undefined);
  try {
    // Every watch of this cluster is cut after a second from here on.
    await faults(kc, { dropWatchesAfterMs: 1000 });
    await informer.start();
    await seen(`add ${tag}-before 0`);
    await core.createNamespacedConfigMap(cm(`${tag}-during`, '1'));
    await seen(`add ${tag}-during 1`);
    await core.patchNamespacedConfigMap({
      namespace: 'default',
      name: `${tag}-during`,
      body: [{ op: 'replace', path: '/data/v', value: '2' }],
    });
    await seen(`update ${tag}-during 2`);
    assert.equal(lists, 1, 'one list, then a watch from its resourceVersion');

    // The next resumed watch gets 410 Expired: the informer must drop its resourceVersion and relist.
    await faults(kc, { dropWatchesAfterMs: 1000, expireWatches: 1 });
    await until('the expired watch and the relist', async () => {
      const spec = await faults(kc);
      return spec.expireWatches === 0 && lists >= 2 ? true : undefined;
    });
    await faults(kc, {});
    await core.patchNamespacedConfigMap(
      { namespace: 'default', name: `${tag}-during`, body: { data: { v: '3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await seen(`update ${tag}-during 3`);
    await core.createNamespacedConfigMap(cm(`${tag}-after`, '4'));
    await seen(`add ${tag}-after 4`);
    assert.deepEqual(
      informer
        .list('default')
        .map((o) => `${o.metadata?.name}=${o.data?.v}`)
        .sort(),
      [`${tag}-after=4`, `${tag}-before=0`, `${tag}-during=3`],
    );
    assert.ok(lists >= 2, `relisted after the 410 (lists: ${lists}, errors: ${errors})`);
  } finally {
    stopped = true;
    await informer.stop();
    await faults(kc, {});
  }
}

async function fullSuite(kc: KubeConfig, tag = 'cn'): Promise<void> {
  await basicSuite(kc, tag);
  await Promise.all([deploymentSuite(kc, tag), informerSuite(kc, tag)]);
}

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

test('client-node against one cluster of a fleet, through /clusters/<name> over TLS', async () => {
  const kcDir = join(dir, 'one');
  const sim = await startSim(
    parseSimArgs(['fleet', '--clusters', '2', '--listen', '127.0.0.1:0', '--kubeconfig-dir', kcDir]),
  );
  running.push(sim);
  const kc = loadKubeConfig(join(kcDir, 'sim-0002.kubeconfig'));
  assert.match(kc.getCurrentCluster()!.server, /^https:\/\/127\.0\.0\.1:\d+\/clusters\/sim-0002$/);
  assert.ok(kc.getCurrentCluster()!.caData, 'the kubeconfig carries the CA');
  await fullSuite(kc);
  // The neighbour saw none of it.
  const other = loadKubeConfig(join(kcDir, 'sim-0001.kubeconfig')).makeApiClient(CoreV1Api);
  assert.equal((await other.listNamespacedConfigMap({ namespace: 'default' })).items.length, 0);
});

const memory = (bytes: number, clusters: number) =>
  `RSS ${(bytes / 2 ** 20).toFixed(1)} MiB = ${(bytes / 1024 / clusters).toFixed(0)} KiB per cluster`;

test(`client-node against ${SCALE_CLUSTERS} clusters of one \`sim fleet\` process`, async (t) => {
  const fleet = await spawnSimFleet(SCALE_CLUSTERS, join(dir, 'scale'));
  processes.push(fleet);
  const pid = fleet.child.pid!;
  const idleRss = rssBytes(pid);
  t.diagnostic(
    `start-up: ${fleet.reportedStartMs} ms reported, ${Math.round(fleet.wallStartMs)} ms from spawn; ` +
      memory(idleRss, SCALE_CLUSTERS),
  );
  assert.ok(fleet.wallStartMs < 30_000, `${SCALE_CLUSTERS} clusters start within 30 s`);
  // The whole process (node itself included) over the cluster count: an upper bound of a cluster's cost.
  if (SCALE_CLUSTERS >= 500)
    assert.ok(idleRss / SCALE_CLUSTERS < 300 * 1024, 'at most 300 KiB per idle cluster');

  const names = Array.from({ length: SCALE_CLUSTERS }, (_, i) => simClusterName(i + 1));
  const started = performance.now();
  const serverCpu = cpuMs(pid);
  const clientCpu = process.cpuUsage();
  const failures: string[] = [];
  await pool(names, CONCURRENCY, async (name) => {
    try {
      // The whole suite, informer through a forced 410 and Deployment pods included, on every cluster.
      await fullSuite(loadKubeConfig(fleet.kubeconfig(name)), 'scale');
    } catch (e) {
      failures.push(`${name}: ${(e as Error).message}`);
    }
  });
  const basicMs = performance.now() - started;
  const serverCpuPer = (cpuMs(pid) - serverCpu) / SCALE_CLUSTERS;
  const used = process.cpuUsage(clientCpu);
  const clientCpuPer = (used.user + used.system) / 1000 / SCALE_CLUSTERS;
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} clusters failed`);

  const busyRss = rssBytes(pid);
  t.diagnostic(
    `full suite on ${SCALE_CLUSTERS} clusters (${CONCURRENCY} at a time): ` +
      `${(basicMs / 1000).toFixed(1)} s ` +
      `(CPU per cluster: simulator ${serverCpuPer.toFixed(0)} ms, client ${clientCpuPer.toFixed(0)} ms); ` +
      `afterwards ${memory(busyRss, SCALE_CLUSTERS)}`,
  );
});
