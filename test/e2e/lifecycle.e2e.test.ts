// The hub process as an operator meets it: first start writes key material owner-only, health and
// metrics answer, plain HTTP is refused off loopback, and SIGTERM drains and exits cleanly.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HubProcess, hubRequest, scratchDir, startHubProcess } from '../support/hub.js';
import { kubectl, kubectlOk } from '../support/tools.js';
import { generateKeyPair, signClientCertificate } from '../../src/security/pki.js';
import { writeKubeconfig } from '../../src/security/kubeconfig.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let hub: HubProcess;

before(async () => {
  hub = await startHubProcess();
});

after(async () => {
  await hub?.kill();
});

test('first start creates the CA, serving certificate, encryption keys and admin kubeconfig owner-only', () => {
  for (const file of ['pki/ca.key', 'pki/hub.key', 'encryption-keys.json', 'admin.kubeconfig', 'fleethub.db'])
    assert.equal(statSync(join(hub.dataDir, file)).mode & 0o077, 0, `${file} is readable by others`);
  assert.equal(statSync(join(hub.dataDir, 'pki')).mode & 0o077, 0);
  assert.match(hub.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(hub.output().includes(hub.token), false, 'the admin token is printed nowhere');
});

test('health, readiness and Prometheus metrics', async () => {
  for (const path of ['/healthz', '/livez', '/readyz']) {
    const res = await hubRequest(hub, 'GET', path, undefined, {}, null);
    assert.equal(res.status, 200, path);
    assert.equal(res.body, 'ok');
  }
  await kubectlOk('v35', hub.kubeconfig, ['get', 'namespaces']);
  assert.equal(
    (await hubRequest(hub, 'GET', '/metrics', undefined, {}, null)).status,
    401,
    'metrics need credentials',
  );
  const metrics = await hubRequest(hub, 'GET', '/metrics');
  assert.equal(metrics.status, 200);
  assert.match(metrics.body, /^fleethub_apiserver_requests_total\{method="GET",code="200"\} \d+/m);
  assert.match(metrics.body, /^fleethub_controller_manager_running 1$/m);
});

test('unauthenticated API requests get a 401 Status', async () => {
  const res = await hubRequest(hub, 'GET', '/api/v1/namespaces', undefined, {}, null);
  assert.equal(res.status, 401);
  assert.equal(res.json().reason, 'Unauthorized');
});

test('a client certificate signed by the hub CA authenticates: CN is the user, O the groups', async () => {
  const ca = {
    certPem: readFileSync(join(hub.dataDir, 'pki', 'ca.crt'), 'utf8'),
    keyPem: readFileSync(join(hub.dataDir, 'pki', 'ca.key'), 'utf8'),
  };
  const dir = scratchDir('fh-cert-');
  const kubeconfigFor = async (commonName: string, organizations: string[]) => {
    const keys = await generateKeyPair();
    const certPem = await signClientCertificate(ca, {
      commonName,
      organizations,
      publicKeyPem: keys.publicKeyPem,
      days: 1,
    });
    const path = join(dir, `${commonName}.kubeconfig`);
    writeKubeconfig(path, {
      server: hub.url,
      caPem: ca.certPem,
      clientCertPem: certPem,
      clientKeyPem: keys.privateKeyPem,
      user: commonName,
    });
    return path;
  };
  const alice = await kubeconfigFor('alice', ['fleethub:admins']);
  const whoami = await kubectlOk('v35', alice, ['auth', 'whoami']);
  assert.match(whoami, /Username\s+alice/);
  assert.match(whoami, /fleethub:admins/);
  assert.match(
    await kubectlOk('v31', alice, ['get', 'namespace', 'default', '-o', 'name']),
    /namespace\/default/,
  );
  const bob = await kubeconfigFor('bob', ['nobody-special']);
  const denied = await kubectl('v35', bob, ['get', 'namespaces']);
  assert.notEqual(denied.code, 0);
  assert.match(denied.stderr, /User "bob" cannot list resource "namespaces"/);
});

test('a watcher that stops reading is cut off instead of buffering without bound', async () => {
  const url = new URL('/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0', hub.url);
  let resume = (): void => undefined;
  let received = 0;
  const closed = new Promise<string>((resolve, reject) => {
    const req = request(url, { ca: hub.caPem, headers: { Authorization: `Bearer ${hub.token}` } }, (res) => {
      res.pause(); // a client that does not read (until told to, to notice the hub hung up)
      resume = () => {
        res.on('data', (chunk: Buffer) => (received += chunk.length));
        res.resume();
      };
      res.on('close', () => resolve('closed'));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', (e) => (/socket hang up|ECONNRESET/.test(e.message) ? resolve('closed') : reject(e)));
    req.end();
  });
  await new Promise((r) => setTimeout(r, 300));
  const value = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 40; i++) {
    const res = await hubRequest(
      hub,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ metadata: { name: `big-${i}` }, data: { v: value } }),
    );
    assert.equal(res.status, 201);
  }
  resume();
  const outcome = await Promise.race([
    closed,
    new Promise<string>((r) => setTimeout(() => r('still open'), 15_000)),
  ]);
  assert.equal(outcome, 'closed');
  assert.ok(received < 40 * 1024 * 1024, `the hub stopped sending (${received} bytes arrived of 40 MiB)`);
  assert.equal((await hubRequest(hub, 'GET', '/readyz', undefined, {}, null)).status, 200);
});

test('plain HTTP is refused on a non-loopback address', () => {
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'bin', 'fleethub.js'),
      'hub',
      '--data-dir',
      scratchDir('fh-'),
      '--listen',
      '127.0.0.1:0',
      '--insecure-http-listen',
      '0.0.0.0:0',
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  assert.equal(result.status, 2);
  assert.match(result.stderr, /--insecure-http-listen must be a loopback address/);
});

test('a restart keeps objects, keys and the admin credential', async () => {
  await kubectlOk('v35', hub.kubeconfig, ['create', 'namespace', 'kept']);
  assert.equal(await hub.stop(), 0);
  hub = await startHubProcess({ dataDir: hub.dataDir });
  assert.match(
    await kubectlOk('v31', hub.kubeconfig, ['get', 'namespace', 'kept', '-o', 'name']),
    /namespace\/kept/,
  );
});

test('SIGTERM ends open watches and exits 0', async () => {
  const url = new URL('/api/v1/namespaces?watch=true&resourceVersion=0', hub.url);
  const ended = new Promise<number>((resolve, reject) => {
    const req = request(url, { ca: hub.caPem, headers: { Authorization: `Bearer ${hub.token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
  await new Promise((r) => setTimeout(r, 300));
  const started = Date.now();
  assert.equal(await hub.stop(), 0);
  assert.equal(await ended, 200);
  assert.ok(Date.now() - started < 10_000, 'shutdown waits for no watch');
  assert.match(hub.output(), /"msg":"hub stopped"/);
  const after = await kubectl('v35', hub.kubeconfig, ['get', 'namespaces'], { timeoutMs: 10_000 });
  assert.notEqual(after.code, 0);
});
