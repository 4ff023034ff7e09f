import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, unlinkSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { X509Certificate, createPublicKey } from 'node:crypto';
import { once } from 'node:events';
import {
  createCsr,
  ensurePki,
  generateKeyPair,
  identityFromPeerCertificate,
  readCsr,
  signClientCertificate,
  tlsServerOptions,
  type Pki,
} from './pki.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'fh-pki-'));
}

const mode = (p: string): number => statSync(p).mode & 0o777;

/** An HTTPS server that answers with what the TLS layer made of the client certificate. */
async function identityServer(pki: Pki): Promise<{ server: Server; port: number }> {
  const server = createServer(tlsServerOptions(pki), (req, res) => {
    const socket = req.socket as TLSSocket;
    const identity = socket.authorized ? identityFromPeerCertificate(socket.getPeerCertificate()) : undefined;
    res.end(JSON.stringify({ authorized: socket.authorized, identity: identity ?? null }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

async function call(
  port: number,
  opts: { ca: string; host?: string; cert?: string; key?: string },
): Promise<{ authorized: boolean; identity: { username: string; groups: string[] } | null }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        path: '/',
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(JSON.parse(body)));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

void test('first start creates CA and serving cert with owner-only keys; later starts load the same', async () => {
  const dir = tempDir();
  try {
    const a = await ensurePki(dir, { hostnames: ['hub.example.com'], ips: ['10.1.2.3'] });
    assert.equal(mode(join(dir, 'pki')), 0o700);
    assert.equal(mode(a.paths.caKey), 0o600);
    assert.equal(mode(a.paths.servingKey), 0o600);
    assert.equal(readFileSync(a.paths.caCert, 'utf8'), a.ca.certPem);

    const serving = new X509Certificate(a.serving.certPem);
    for (const san of [
      'DNS:localhost',
      'DNS:hub.example.com',
      'IP Address:127.0.0.1',
      'IP Address:10.1.2.3',
    ]) {
      assert.ok(serving.subjectAltName?.includes(san), `${san} in ${serving.subjectAltName}`);
    }
    assert.match(serving.subjectAltName ?? '', /IP Address:0:0:0:0:0:0:0:1|IP Address:::1/);
    assert.ok(serving.checkIssued(new X509Certificate(a.ca.certPem)));
    const ca = new X509Certificate(a.ca.certPem);
    assert.ok(ca.ca);
    const caYears = (Date.parse(ca.validTo) - Date.now()) / (365 * 24 * 3600 * 1000);
    assert.ok(caYears > 9.9 && caYears < 10.1, `CA valid ${caYears} years`);

    const b = await ensurePki(dir, { hostnames: ['hub.example.com'], ips: ['10.1.2.3'] });
    assert.equal(b.ca.certPem, a.ca.certPem);
    assert.equal(b.serving.certPem, a.serving.certPem, 'serving cert reused when still fine');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('serving cert is reissued (same CA) for a new SAN or near expiry', async () => {
  const dir = tempDir();
  try {
    const a = await ensurePki(dir);
    const b = await ensurePki(dir, { hostnames: ['new.example.com'] });
    assert.equal(b.ca.certPem, a.ca.certPem);
    assert.notEqual(b.serving.certPem, a.serving.certPem);
    assert.ok(new X509Certificate(b.serving.certPem).subjectAltName?.includes('DNS:new.example.com'));

    const in340days = new Date(Date.now() + 340 * 24 * 3600 * 1000);
    const c = await ensurePki(dir, { hostnames: ['new.example.com'], now: in340days });
    assert.notEqual(c.serving.certPem, b.serving.certPem, 'expiring within 30 days → renewed');
    const d = await ensurePki(dir, { hostnames: ['new.example.com'], now: in340days });
    assert.equal(d.serving.certPem, c.serving.certPem);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('a replica given only the CA files issues its own serving cert under the shared CA', async () => {
  const first = tempDir();
  const replica = tempDir();
  try {
    const a = await ensurePki(first);
    const { writeFileAtomic } = await import('./files.js');
    writeFileAtomic(join(replica, 'pki', 'ca.crt'), a.ca.certPem, 0o644);
    writeFileAtomic(join(replica, 'pki', 'ca.key'), a.ca.keyPem, 0o600);
    const b = await ensurePki(replica);
    assert.equal(b.ca.certPem, a.ca.certPem);
    assert.ok(new X509Certificate(b.serving.certPem).checkIssued(new X509Certificate(a.ca.certPem)));
  } finally {
    rmSync(first, { recursive: true, force: true });
    rmSync(replica, { recursive: true, force: true });
  }
});

void test('half a CA is an error, not silently replaced', async () => {
  const dir = tempDir();
  try {
    const a = await ensurePki(dir);
    unlinkSync(a.paths.caKey);
    await assert.rejects(ensurePki(dir), /ca\.key/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('TLS: clients trusting the CA reach the hub; client certs from our CA give CN/O as user/groups', async () => {
  const dir = tempDir();
  const otherDir = tempDir();
  const pki = await ensurePki(dir);
  const other = await ensurePki(otherDir);
  const { server, port } = await identityServer(pki);
  try {
    const keys = await generateKeyPair();
    const cert = await signClientCertificate(pki.ca, {
      commonName: 'system:agent:edge-1',
      organizations: ['fleethub:agents', 'team, with comma'],
      publicKeyPem: keys.publicKeyPem,
      days: 30,
    });
    const withCert = await call(port, { ca: pki.ca.certPem, cert, key: keys.privateKeyPem });
    assert.deepEqual(withCert, {
      authorized: true,
      identity: { username: 'system:agent:edge-1', groups: ['fleethub:agents', 'team, with comma'] },
    });

    const viaName = await call(port, { ca: pki.ca.certPem, host: 'localhost' });
    assert.deepEqual(
      viaName,
      { authorized: false, identity: null },
      'no client cert: reachable, not authorized',
    );

    // A certificate from another CA is not trusted.
    const foreignKeys = await generateKeyPair();
    const foreign = await signClientCertificate(other.ca, {
      commonName: 'mallory',
      publicKeyPem: foreignKeys.publicKeyPem,
    });
    const withForeign = await call(port, {
      ca: pki.ca.certPem,
      cert: foreign,
      key: foreignKeys.privateKeyPem,
    });
    assert.equal(withForeign.authorized, false);

    // The hub's own serving certificate lacks client-auth usage, so it cannot log in.
    const asServer = await call(port, {
      ca: pki.ca.certPem,
      cert: pki.serving.certPem,
      key: pki.serving.keyPem,
    });
    assert.equal(asServer.authorized, false);

    // A client that does not trust our CA refuses the hub.
    await assert.rejects(
      call(port, { ca: other.ca.certPem }),
      /self[- ]signed|unable to verify|certificate/i,
    );
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
});

void test('CSR flow: the agent keeps its key; the hub signs the verified CSR key with the subject it chooses', async () => {
  const dir = tempDir();
  try {
    const pki = await ensurePki(dir);
    const keys = await generateKeyPair();
    const csr = await createCsr(keys, { commonName: 'agent-a', organizations: ['fleethub:agents'] });
    assert.deepEqual(
      { ...(await readCsr(csr)), publicKeyPem: undefined },
      { commonName: 'agent-a', organizations: ['fleethub:agents'], publicKeyPem: undefined },
    );
    const certPem = await signClientCertificate(pki.ca, {
      commonName: 'agent-a',
      organizations: ['g'],
      csrPem: csr,
    });
    const cert = new X509Certificate(certPem);
    assert.ok(cert.checkIssued(new X509Certificate(pki.ca.certPem)));
    assert.ok(
      cert.publicKey
        .export({ type: 'spki', format: 'der' })
        .equals(createPublicKey(keys.publicKeyPem).export({ type: 'spki', format: 'der' })),
    );
    assert.match(cert.subject, /CN=agent-a/);
    assert.match(cert.subject, /O=g$/m, 'subject from the hub, not from the CSR');
    assert.ok(Date.parse(cert.validTo) - Date.now() > 360 * 24 * 3600 * 1000, 'default 1 year');

    // Flip a byte inside the signed part: the signature no longer verifies.
    const der = Buffer.from(csr.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const at = der.indexOf(Buffer.from('agent-a'));
    der[at] = 'b'.charCodeAt(0);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await assert.rejects(readCsr(tampered), (e: Error & { code?: number }) => e.code === 400);
    await assert.rejects(
      signClientCertificate(pki.ca, { commonName: 'x', csrPem: tampered }),
      /invalid signature/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
