// Simulated clusters driven by the real kubectl of both generations: TLS and token, RBAC-backed
// `auth can-i`, a fleet under /clusters/<name> with separate state, and fault injection.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseSimArgs, startSim, type RunningSim } from '../../src/cli/sim.js';
import { scratchDir } from '../support/hub.js';
import { GENERATIONS, kubectl } from '../support/tools.js';

const dir = scratchDir('fleethub-sim-');
const running: RunningSim[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.close()));
});

async function sim(...argv: string[]): Promise<RunningSim> {
  const s = await startSim(parseSimArgs(argv));
  running.push(s);
  return s;
}

const single = sim(
  'cluster',
  '--listen',
  '127.0.0.1:0',
  '--kubeconfig-out',
  join(dir, 'single.kubeconfig'),
  '--name',
  'edge',
  '--version',
  'v1.34.2+k3s1',
);

for (const gen of GENERATIONS) {
  test(`kubectl ${gen} sees a simulated cluster over TLS with its token`, async () => {
    await single;
    const kc = join(dir, 'single.kubeconfig');
    const version = await kubectl(gen, kc, ['version']);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /Server Version: v1\.34\.2\+k3s1/);
    const ns = await kubectl(gen, kc, ['get', 'namespaces', '-o', 'name']);
    assert.equal(ns.code, 0, ns.stderr);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      assert.match(ns.stdout, new RegExp(`namespace/${name}\\n`));
    const canI = await kubectl(gen, kc, ['auth', 'can-i', 'delete', 'nodes']);
    assert.equal(canI.stdout.trim(), 'yes');
  });
}

test('a request without the cluster token is refused with 401', async () => {
  await single;
  const r = await kubectl('v35', join(dir, 'single.kubeconfig'), ['get', 'ns', '--token', 'not-the-token']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Unauthorized|must be logged in/);
});

test('a fleet serves each cluster under its own path with its own state and token', async () => {
  const fleetDir = join(dir, 'fleet');
  await sim(
    'fleet',
    '--clusters',
    '3',
    '--listen',
    '127.0.0.1:0',
    '--kubeconfig-dir',
    fleetDir,
    '--nodes',
    '1',
  );
  const kc = (n: number) => join(fleetDir, `sim-000${n}.kubeconfig`);
  const created = await kubectl('v35', kc(2), ['create', 'namespace', 'only-in-two']);
  assert.equal(created.code, 0, created.stderr);
  const inTwo = await kubectl('v35', kc(2), ['get', 'ns', 'only-in-two', '-o', 'name']);
  assert.equal(inTwo.stdout.trim(), 'namespace/only-in-two');
  const inThree = await kubectl('v35', kc(3), ['get', 'ns', 'only-in-two']);
  assert.notEqual(inThree.code, 0);
  assert.match(inThree.stderr, /NotFound|not found/);
  // Another cluster's token does not open this one.
  const token = /token: (\S+)/.exec((await import('node:fs')).readFileSync(kc(1), 'utf8'))![1]!;
  const cross = await kubectl('v35', kc(3), ['get', 'ns', '--token', token]);
  assert.notEqual(cross.code, 0);
});

test('faults: errors, then recovery, then the cluster going away', async () => {
  const kcPath = join(dir, 'faulty.kubeconfig');
  const s = await sim('cluster', '--listen', '127.0.0.1:0', '--kubeconfig-out', kcPath, '--name', 'faulty');
  const cluster = s.clusters[0]!;
  cluster.faults.set({ errorRate: 1, errorCode: 503 });
  const failing = await kubectl('v35', kcPath, ['get', 'ns', '--request-timeout=5s']);
  assert.notEqual(failing.code, 0);
  assert.match(failing.stderr, /unavailable|ServiceUnavailable|503/i);
  cluster.faults.set({});
  const ok = await kubectl('v35', kcPath, ['get', 'ns', '-o', 'name']);
  assert.equal(ok.code, 0, ok.stderr);
  cluster.faults.set({ down: true });
  const down = await kubectl('v35', kcPath, ['get', 'ns', '--request-timeout=5s']);
  assert.notEqual(down.code, 0);
  cluster.faults.set({});
  const back = await kubectl('v35', kcPath, ['get', 'ns', '-o', 'name']);
  assert.equal(back.code, 0, back.stderr);
});

test('deleting a namespace deletes what is in it and then the namespace', async () => {
  await single;
  const kc = join(dir, 'single.kubeconfig');
  const ok = async (...args: string[]) => {
    const r = await kubectl('v35', kc, args);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  await ok('create', 'namespace', 'doomed');
  await ok('-n', 'doomed', 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2');
  await ok('-n', 'doomed', 'create', 'configmap', 'settings', '--from-literal=a=b');
  await ok('-n', 'doomed', 'rollout', 'status', 'deployment/web', '--timeout=30s');
  await ok('delete', 'namespace', 'doomed', '--timeout=30s');
  const gone = await kubectl('v35', kc, ['get', 'namespace', 'doomed']);
  assert.match(gone.stderr, /NotFound/);
  assert.equal((await ok('get', 'pods', '-A', '-o', 'name')).includes('web-'), false);
});

test('the fake controllers record the events kubectl describe shows', async () => {
  await single;
  const kc = join(dir, 'single.kubeconfig');
  const ok = async (...args: string[]) => {
    const r = await kubectl('v35', kc, args);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  await ok('create', 'namespace', 'events');
  await ok('-n', 'events', 'create', 'deployment', 'web', '--image=nginx:1.27');
  await ok('-n', 'events', 'rollout', 'status', 'deployment/web', '--timeout=30s');
  const deployment = await ok('-n', 'events', 'describe', 'deployment', 'web');
  assert.match(
    deployment,
    /ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled up replica set web-\w+ from 0 to 1/,
  );
  const pod = await ok('-n', 'events', 'describe', 'pod', '-l', 'app=web');
  assert.match(pod, /Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned events\/web-/);
  assert.match(pod, /Started\s+\S+\s+kubelet\s+Started container nginx/);
});

test('drain --disable-eviction deletes the pods instead of evicting them', async () => {
  await single;
  const kc = join(dir, 'single.kubeconfig');
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'bare', namespace: 'default' },
    spec: { nodeName: 'edge-node-2', containers: [{ name: 'c', image: 'nginx:1.27' }] },
  };
  const created = await kubectl('v35', kc, ['apply', '-f', '-'], { input: JSON.stringify(pod) });
  assert.equal(created.code, 0, created.stderr);
  const drain = await kubectl('v35', kc, [
    'drain',
    'edge-node-2',
    '--disable-eviction',
    '--force',
    '--ignore-daemonsets',
    '--timeout=60s',
    '-v=6',
  ]);
  assert.equal(drain.code, 0, drain.stderr);
  assert.match(drain.stdout, /pod\/bare deleted/);
  assert.doesNotMatch(drain.stderr, /eviction/);
  await kubectl('v35', kc, ['uncordon', 'edge-node-2']);
});
