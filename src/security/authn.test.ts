import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isApiError } from '../util/errors.js';
import { ensureAdminKubeconfig } from './admin.js';
import { Authenticator, bearerToken } from './authn.js';
import { memoryStore } from './test-support.js';
import { readKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { ensurePki, generateKeyPair, signClientCertificate, tlsServerOptions, type Pki } from './pki.js';
import { TokenStore } from './tokens.js';

/** A real memory store closed when the test ends. */
async function scopedStore(t: TestContext) {
  const { store } = await memoryStore();
  t.after(() => store.close());
  return store;
}

/** An HTTPS server answering every request with the authenticated user, or the 401 Status. */
async function hub(pki: Pki, tokens: TokenStore): Promise<{ server: Server; url: string }> {
  const authn = new Authenticator(tokens);
  const server = createServer(tlsServerOptions(pki), (req, res) => {
    authn.authenticate(req).then(
      (user) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ gitVersion: 'v1.31.0', major: '1', minor: '31', user }));
      },
      (e: unknown) => {
        const status = isApiError(e) ? e.toStatus() : { code: 500 };
        res.writeHead(status.code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status));
      },
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `https://127.0.0.1:${(server.address() as { port: number }).port}` };
}

async function get(
  url: string,
  opts: { ca: string; token?: string; cert?: string; key?: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    const req = request(
      `${url}/version`,
      { ca: opts.ca, cert: opts.cert, key: opts.key, headers, agent: false },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

void test('bearerToken parses the header like Kubernetes (scheme case-insensitive)', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer   abc  '), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(bearerToken('Bearer a b'), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

void test('authn: client certificate first, then bearer token; every user is in system:authenticated; else 401', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fh-authn-'));
  const otherDir = mkdtempSync(join(tmpdir(), 'fh-authn-'));
  const pki = await ensurePki(dir);
  const other = await ensurePki(otherDir);
  const tokens = new TokenStore(await scopedStore(t));
  const { server, url } = await hub(pki, tokens);
  try {
    const { token } = await tokens.issue({ username: 'tina', groups: ['devs'] });
    const keys = await generateKeyPair();
    const cert = await signClientCertificate(pki.ca, {
      commonName: 'agent-1',
      organizations: ['fleethub:agents'],
      publicKeyPem: keys.publicKeyPem,
    });

    const byCert = await get(url, { ca: pki.ca.certPem, cert, key: keys.privateKeyPem, token });
    assert.equal(byCert.status, 200);
    assert.deepEqual(byCert.body['user'], {
      username: 'agent-1',
      groups: ['fleethub:agents', 'system:authenticated'],
    });

    const byToken = await get(url, { ca: pki.ca.certPem, token });
    assert.deepEqual(byToken.body['user'], { username: 'tina', groups: ['devs', 'system:authenticated'] });

    // A certificate from another CA is ignored; the token still counts.
    const foreignKeys = await generateKeyPair();
    const foreign = await signClientCertificate(other.ca, {
      commonName: 'mallory',
      organizations: ['fleethub:admins'],
      publicKeyPem: foreignKeys.publicKeyPem,
    });
    const foreignWithToken = await get(url, {
      ca: pki.ca.certPem,
      cert: foreign,
      key: foreignKeys.privateKeyPem,
      token,
    });
    assert.equal((foreignWithToken.body['user'] as { username: string }).username, 'tina');
    const foreignAlone = await get(url, {
      ca: pki.ca.certPem,
      cert: foreign,
      key: foreignKeys.privateKeyPem,
    });
    assert.equal(foreignAlone.status, 401);

    for (const bad of [undefined, 'garbage', `${token.slice(0, -1)}x`]) {
      const res = await get(url, { ca: pki.ca.certPem, ...(bad ? { token: bad } : {}) });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
});

void test('admin.kubeconfig: written once with mode 0600, kept while valid, reissued when its token is gone', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fh-admin-'));
  try {
    const pki = await ensurePki(dir);
    const tokens = new TokenStore(await scopedStore(t));
    const params = { dataDir: dir, server: 'https://127.0.0.1:8443', caPem: pki.ca.certPem, tokens };
    const first = await ensureAdminKubeconfig(params);
    assert.equal(first.issued, true);
    assert.equal(statSync(first.path).mode & 0o777, 0o600);
    const cfg = readKubeconfig(first.path);
    assert.equal(cfg?.caPem, pki.ca.certPem);
    assert.deepEqual((await tokens.authenticate(cfg?.token ?? ''))?.groups, ['fleethub:admins']);

    assert.equal((await ensureAdminKubeconfig(params)).issued, false);
    assert.equal(readKubeconfig(first.path)?.token, cfg?.token);

    const moved = await ensureAdminKubeconfig({ ...params, server: 'https://hub.example:443' });
    assert.equal(moved.issued, false, 'same token, new server address');
    assert.equal(readKubeconfig(first.path)?.server, 'https://hub.example:443');

    // A new database (e.g. the memory store after a restart) does not know the old token.
    const fresh = await ensureAdminKubeconfig({ ...params, tokens: new TokenStore(await scopedStore(t)) });
    assert.equal(fresh.issued, true);
    assert.notEqual(readKubeconfig(first.path)?.token, cfg?.token);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The kubectl unpacked into <repo>/.tools by npm install, looked for above the compiled test. */
function findKubectl(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, '.tools', 'v35', 'kubectl');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
const kubectl = findKubectl() ?? '';

void test(
  'kubectl accepts the written kubeconfigs: token and client certificate over our CA',
  { skip: kubectl === '' && 'no .tools/v35/kubectl (npm install unpacks it)' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fh-kubectl-'));
    const pki = await ensurePki(dir);
    const tokens = new TokenStore(await scopedStore(t));
    const { server, url } = await hub(pki, tokens);
    const run = promisify(execFile);
    try {
      const { path } = await ensureAdminKubeconfig({
        dataDir: dir,
        server: url,
        caPem: pki.ca.certPem,
        tokens,
      });
      const byToken = JSON.parse(
        (await run(kubectl, ['--kubeconfig', path, 'get', '--raw', '/version'])).stdout,
      );
      assert.equal(byToken.user.username, 'fleethub-admin');

      const keys = await generateKeyPair();
      const certPem = await signClientCertificate(pki.ca, {
        commonName: 'jane',
        organizations: ['ops'],
        publicKeyPem: keys.publicKeyPem,
      });
      const certConfig = join(dir, 'jane.kubeconfig');
      writeKubeconfig(certConfig, {
        server: url,
        caPem: pki.ca.certPem,
        clientCertPem: certPem,
        clientKeyPem: keys.privateKeyPem,
        user: 'jane',
      });
      const byCert = JSON.parse(
        (await run(kubectl, ['--kubeconfig', certConfig, 'get', '--raw', '/version'])).stdout,
      );
      assert.deepEqual(byCert.user, { username: 'jane', groups: ['ops', 'system:authenticated'] });
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
