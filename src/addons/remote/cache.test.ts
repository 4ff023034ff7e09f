// RemoteContentCache against real loopback HTTP and HTTPS servers: conditional requests, intervals,
// coalescing, decompression, caps, errors, redirects, credentials and TLS verification.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { ephemeralPki, tlsServerOptions, type Pki } from '../../security/pki.js';
import { credentialsFromSecret, RemoteContentCache, type RemoteURLRef } from './cache.js';
import { RemoteError } from './errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Served {
  server: Server;
  base: string;
  routes: Map<string, Handler>;
  requests: { path: string; headers: IncomingHttpHeaders }[];
}

async function serve(tls?: Pki): Promise<Served> {
  const routes = new Map<string, Handler>();
  const requests: Served['requests'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const h = routes.get(req.url ?? '');
    if (h) h(req, res);
    else {
      res.statusCode = 404;
      res.end('no such route');
    }
  };
  const server = tls ? createHttpsServer(tlsServerOptions(tls), handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, routes, requests };
}

async function close(s: Served): Promise<void> {
  s.server.closeAllConnections();
  await new Promise<void>((r) => s.server.close(() => r()));
}

/** A clock the tests move by hand. */
function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const MIN = 60_000;
const DOC = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-flannel-cfg\n';

async function rejectsWith(p: Promise<unknown>, code: string, ...fragments: (string | RegExp)[]) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RemoteError, `expected RemoteError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    for (const f of fragments) {
      if (typeof f === 'string') assert.ok(e.message.includes(f), `${JSON.stringify(f)} not in ${e.message}`);
      else assert.match(e.message, f);
    }
    return true;
  });
}

describe('RemoteContentCache over http', () => {
  let s: Served;
  before(async () => {
    s = await serve();
  });
  after(() => close(s));
  beforeEach(() => {
    s.routes.clear();
    s.requests.length = 0;
  });
  const hits = (path: string) => s.requests.filter((r) => r.path === path);

  test('ETag: first GET is unconditional, then If-None-Match after the interval; 304 keeps the body', async () => {
    let version = 1;
    s.routes.set('/etag.yaml', (req, res) => {
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) {
        res.statusCode = 304;
        res.end();
        return;
      }
      res.setHeader('etag', etag);
      res.end(`${DOC}# v${version}\n`);
    });
    const c = clock();
    const cache = new RemoteContentCache({ now: c.now });
    const ref = { url: `${s.base}/etag.yaml`, interval: '1m' };
    const first = await cache.get(ref);
    assert.equal(first.body, `${DOC}# v1\n`);
    assert.equal(first.etag, '"v1"');
    assert.match(first.digest, /^[0-9a-f]{64}$/);
    assert.equal(first.fetchedAt, c.now());
    assert.equal(hits('/etag.yaml')[0]!.headers['if-none-match'], undefined);

    c.advance(MIN);
    const second = await cache.get(ref);
    assert.equal(hits('/etag.yaml').length, 2);
    assert.equal(hits('/etag.yaml')[1]!.headers['if-none-match'], '"v1"');
    assert.equal(second.body, first.body);
    assert.equal(second.digest, first.digest);
    assert.equal(second.fetchedAt, c.now(), '304 refreshes fetchedAt');
    assert.equal(second.lastError, undefined);

    version = 2;
    c.advance(MIN);
    const third = await cache.get(ref);
    assert.equal(third.body, `${DOC}# v2\n`);
    assert.notEqual(third.digest, first.digest);
    assert.equal(third.etag, '"v2"');
  });

  test('Last-Modified: If-Modified-Since is sent back and a 304 keeps the body', async () => {
    const stamp = 'Wed, 21 Oct 2026 07:28:00 GMT';
    s.routes.set('/lm.yaml', (req, res) => {
      if (req.headers['if-modified-since'] === stamp) {
        res.statusCode = 304;
        res.end();
        return;
      }
      res.setHeader('last-modified', stamp);
      res.end(DOC);
    });
    const c = clock();
    const cache = new RemoteContentCache({ now: c.now });
    const ref = { url: `${s.base}/lm.yaml` };
    const first = await cache.get(ref);
    assert.equal(first.lastModified, stamp);
    c.advance(5 * MIN); // the default interval
    const second = await cache.get(ref);
    const reqs = hits('/lm.yaml');
    assert.equal(reqs.length, 2);
    assert.equal(reqs[1]!.headers['if-modified-since'], stamp);
    assert.equal(second.body, DOC);
    assert.equal(second.lastModified, stamp);
    assert.equal(second.fetchedAt, c.now());
  });

  test('interval: no request before it has passed (default 5m, and Go syntax such as 1h30m)', async () => {
    s.routes.set('/i.yaml', (_req, res) => res.end(DOC));
    const c = clock();
    const cache = new RemoteContentCache({ now: c.now });
    const byDefault = { url: `${s.base}/i.yaml` };
    await cache.get(byDefault);
    c.advance(5 * MIN - 1);
    await cache.get(byDefault);
    assert.equal(hits('/i.yaml').length, 1);
    c.advance(1);
    await cache.get(byDefault);
    assert.equal(hits('/i.yaml').length, 2);

    s.requests.length = 0;
    const long = { url: `${s.base}/i.yaml?long`, interval: '1h30m' };
    s.routes.set('/i.yaml?long', (_req, res) => res.end(DOC));
    await cache.get(long);
    c.advance(89 * MIN);
    await cache.get(long);
    assert.equal(hits('/i.yaml?long').length, 1);
    c.advance(MIN);
    await cache.get(long);
    assert.equal(hits('/i.yaml?long').length, 2);
  });

  test('concurrent gets of one URL share one request', async () => {
    s.routes.set('/slow.yaml', (_req, res) => {
      setTimeout(() => res.end(DOC), 50);
    });
    const cache = new RemoteContentCache();
    const ref = { url: `${s.base}/slow.yaml` };
    const results = await Promise.all(Array.from({ length: 8 }, () => cache.get(ref)));
    assert.equal(hits('/slow.yaml').length, 1);
    for (const r of results) assert.equal(r.body, DOC);
    assert.equal(cache.size, 1);
  });

  test('gzip: Content-Encoding gzip and a .gz file served as-is are both decoded', async () => {
    s.routes.set('/enc.yaml', (req, res) => {
      assert.match(String(req.headers['accept-encoding']), /gzip/);
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipSync(DOC));
    });
    s.routes.set('/file.yaml.gz', (_req, res) => {
      res.setHeader('content-type', 'application/gzip');
      res.end(gzipSync(DOC));
    });
    const cache = new RemoteContentCache();
    assert.equal((await cache.get({ url: `${s.base}/enc.yaml` })).body, DOC);
    assert.equal((await cache.get({ url: `${s.base}/file.yaml.gz` })).body, DOC);
  });

  test('too large: by Content-Length, by streamed bytes, and once decompressed', async () => {
    s.routes.set('/big-declared', (_req, res) => res.end('x'.repeat(2048)));
    s.routes.set('/big-chunked', (_req, res) => {
      res.write('x'.repeat(600));
      res.write('x'.repeat(600));
      res.end();
    });
    s.routes.set('/bomb.gz', (_req, res) => res.end(gzipSync(Buffer.alloc(64 * 1024))));
    const cache = new RemoteContentCache({ maxBytes: 1024 });
    await rejectsWith(
      cache.get({ url: `${s.base}/big-declared` }),
      'RemoteTooLarge',
      `${s.base}/big-declared`,
      '1024 bytes',
    );
    await rejectsWith(cache.get({ url: `${s.base}/big-chunked` }), 'RemoteTooLarge', '/big-chunked');
    await rejectsWith(cache.get({ url: `${s.base}/bomb.gz` }), 'RemoteTooLarge', 'once decompressed');
    const defaults = new RemoteContentCache();
    s.routes.set('/9mib', (_req, res) => res.end(Buffer.alloc(9 * 1024 * 1024, 0x61)));
    await rejectsWith(defaults.get({ url: `${s.base}/9mib` }), 'RemoteTooLarge', '(8 MiB)');
  });

  test('404 and 500 are typed errors naming the URL and status; a failed refresh serves the last good body', async () => {
    const cache0 = new RemoteContentCache();
    const missing = `${s.base}/missing.yaml`;
    await assert.rejects(cache0.get({ url: missing }), (e: unknown) => {
      assert.ok(e instanceof RemoteError);
      assert.equal(e.code, 'RemoteFetchFailed');
      assert.equal(e.httpStatus, 404);
      assert.equal(e.message, `remoteURL ${missing}: HTTP 404 Not Found`);
      return true;
    });

    let broken = false;
    s.routes.set('/flaky.yaml', (_req, res) => {
      if (broken) {
        res.statusCode = 500;
        res.end('boom');
      } else res.end(DOC);
    });
    const c = clock();
    const cache = new RemoteContentCache({ now: c.now, retryAfterFailureMs: 30_000 });
    const ref = { url: `${s.base}/flaky.yaml`, interval: '10m' };
    const good = await cache.get(ref);
    broken = true;
    c.advance(10 * MIN);
    const stale = await cache.get(ref);
    assert.equal(stale.body, DOC);
    assert.equal(stale.fetchedAt, good.fetchedAt, 'fetchedAt is when the body was last confirmed');
    assert.equal(stale.lastError?.code, 'RemoteFetchFailed');
    assert.equal(stale.lastError?.httpStatus, 500);
    assert.match(stale.lastError!.message, /flaky\.yaml: HTTP 500 Internal Server Error$/);
    assert.equal(cache.lastError(ref)?.httpStatus, 500);

    // After a failure the retry comes after 30 s, not after the full interval.
    const before = hits('/flaky.yaml').length;
    c.advance(29_000);
    await cache.get(ref);
    assert.equal(hits('/flaky.yaml').length, before);
    broken = false;
    c.advance(1_000);
    const healed = await cache.get(ref);
    assert.equal(hits('/flaky.yaml').length, before + 1);
    assert.equal(healed.lastError, undefined);
    assert.equal(cache.lastError(ref), undefined);
  });

  test('redirects: relative and absolute are followed up to 5; a sixth fails', async () => {
    s.routes.set('/doc.yaml', (_req, res) => res.end(DOC));
    for (let i = 1; i <= 6; i++) {
      s.routes.set(`/r${i}`, (_req, res) => {
        res.statusCode = i % 2 ? 302 : 301;
        res.setHeader('location', i === 1 ? '/doc.yaml' : i % 2 ? `/r${i - 1}` : `${s.base}/r${i - 1}`);
        res.end();
      });
    }
    const cache = new RemoteContentCache();
    assert.equal((await cache.get({ url: `${s.base}/r5` })).body, DOC);
    await rejectsWith(
      cache.get({ url: `${s.base}/r6` }),
      'RemoteFetchFailed',
      'stopped after 5 redirects',
      `${s.base}/r6`,
    );
    s.routes.set('/to-missing', (_req, res) => {
      res.statusCode = 307;
      res.setHeader('location', '/gone.yaml');
      res.end();
    });
    await rejectsWith(
      cache.get({ url: `${s.base}/to-missing` }),
      'RemoteFetchFailed',
      `(redirected to ${s.base}/gone.yaml): HTTP 404`,
    );
  });

  test('credentials: bearer and basic are sent; different credentials are different entries', async () => {
    s.routes.set('/private.yaml', (req, res) => {
      const auth = req.headers.authorization;
      if (auth === 'Bearer s3cret' || auth === `Basic ${Buffer.from('alice:pw').toString('base64')}`)
        res.end(DOC);
      else {
        res.statusCode = 401;
        res.end();
      }
    });
    const cache = new RemoteContentCache();
    const ref: RemoteURLRef = {
      url: `${s.base}/private.yaml`,
      secretRef: { name: 'creds', namespace: 'ns1' },
    };
    assert.equal((await cache.get(ref, { token: 's3cret' })).body, DOC);
    assert.equal((await cache.get(ref, { username: 'alice', password: 'pw' })).body, DOC);
    assert.equal(hits('/private.yaml').length, 2);
    // No credentials: not served from the entries fetched with them.
    await rejectsWith(cache.get(ref), 'RemoteFetchFailed', 'HTTP 401');
    await rejectsWith(
      cache.get(ref, { token: 't', username: 'u', password: 'p' }),
      'RemoteInvalidRef',
      'secret ns1/creds',
      'both token',
    );
    await rejectsWith(cache.get(ref, { username: 'u' }), 'RemoteInvalidRef', 'username and password');
    // User info in the URL is basic auth, and masked in messages.
    const inUrl = `http://alice:pw@${s.base.slice('http://'.length)}/private.yaml`;
    assert.equal((await cache.get({ url: inUrl })).body, DOC);
    await rejectsWith(
      cache.get({ url: `http://alice:wrong@${s.base.slice('http://'.length)}/private.yaml` }),
      'RemoteFetchFailed',
      'alice:xxxxx@',
    );
  });

  test('a redirect to another origin does not carry the Authorization header', async () => {
    const other = await serve();
    try {
      other.routes.set('/doc.yaml', (_req, res) => res.end(DOC));
      s.routes.set('/away', (_req, res) => {
        res.statusCode = 302;
        res.setHeader('location', `${other.base}/doc.yaml`);
        res.end();
      });
      const cache = new RemoteContentCache();
      assert.equal((await cache.get({ url: `${s.base}/away` }, { token: 'secret' })).body, DOC);
      assert.equal(hits('/away')[0]!.headers.authorization, 'Bearer secret');
      assert.equal(other.requests[0]!.headers.authorization, undefined);
    } finally {
      await close(other);
    }
  });

  test('refused: oci://, other schemes, bad intervals, tar archives, binary bodies', async () => {
    const cache = new RemoteContentCache();
    await rejectsWith(
      cache.get({ url: 'oci://ghcr.io/org/manifests:1.0' }),
      'RemoteUnsupported',
      'oci://ghcr.io/org/manifests:1.0',
      'OCI',
    );
    await rejectsWith(cache.get({ url: 'ftp://example.com/x.yaml' }), 'RemoteInvalidRef', 'scheme ftp:');
    await rejectsWith(cache.get({ url: 'not a url' }), 'RemoteInvalidRef', 'not a valid URL');
    await rejectsWith(
      cache.get({ url: `${s.base}/x`, interval: '5 minutes' }),
      'RemoteInvalidRef',
      'interval: time: ',
    );
    await rejectsWith(cache.get({ url: `${s.base}/x`, interval: '-1m' }), 'RemoteInvalidRef', 'negative');
    const tar = Buffer.alloc(1024);
    tar.write('manifest.yaml', 0);
    tar.write('ustar', 257, 'latin1');
    s.routes.set('/bundle.tar.gz', (_req, res) => res.end(gzipSync(tar)));
    await rejectsWith(
      cache.get({ url: `${s.base}/bundle.tar.gz` }),
      'RemoteUnsupported',
      'bundle.tar.gz',
      'tar archives',
    );
    s.routes.set('/bin', (_req, res) => res.end(Buffer.from([0xff, 0xfe, 0xfd, 0x00])));
    await rejectsWith(cache.get({ url: `${s.base}/bin` }), 'RemoteUnsupported', 'not UTF-8');
  });

  test('network errors and timeouts name the URL', async () => {
    const dead = await serve();
    const deadBase = dead.base;
    await close(dead);
    const cache = new RemoteContentCache({ timeoutMs: 200 });
    await rejectsWith(
      cache.get({ url: `${deadBase}/x.yaml` }),
      'RemoteFetchFailed',
      `${deadBase}/x.yaml`,
      'ECONNREFUSED',
    );
    s.routes.set('/hang', () => {
      /* never answers */
    });
    await rejectsWith(cache.get({ url: `${s.base}/hang` }), 'RemoteTimeout', `${s.base}/hang`, 'within 0.2s');
    s.routes.set('/hang-mid-body', (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    await rejectsWith(cache.get({ url: `${s.base}/hang-mid-body` }), 'RemoteTimeout', 'within 0.2s');
    s.routes.set('/cut', (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    await rejectsWith(
      cache.get({ url: `${s.base}/cut` }),
      'RemoteFetchFailed',
      'connection closed before the body',
    );
  });

  test('prune forgets entries nobody asked for', async () => {
    s.routes.set('/p.yaml', (_req, res) => res.end(DOC));
    const c = clock();
    const cache = new RemoteContentCache({ now: c.now });
    await cache.get({ url: `${s.base}/p.yaml` });
    assert.ok(cache.peek({ url: `${s.base}/p.yaml` }));
    c.advance(MIN);
    assert.equal(cache.prune(2 * MIN), 0);
    c.advance(2 * MIN);
    assert.equal(cache.prune(2 * MIN), 1);
    assert.equal(cache.peek({ url: `${s.base}/p.yaml` }), undefined);
  });
});

describe('RemoteContentCache over https', () => {
  let pki: Pki;
  let s: Served;
  before(async () => {
    pki = await ephemeralPki();
    s = await serve(pki);
    s.routes.set('/tls.yaml', (_req, res) => res.end(DOC));
  });
  after(() => close(s));

  test('a caFile from the secret verifies the server', async () => {
    const cache = new RemoteContentCache();
    assert.equal((await cache.get({ url: `${s.base}/tls.yaml` }, { caFile: pki.ca.certPem })).body, DOC);
  });

  test('without the CA the certificate is refused, with a TLS message', async () => {
    const cache = new RemoteContentCache();
    await rejectsWith(
      cache.get({ url: `${s.base}/tls.yaml` }),
      'RemoteFetchFailed',
      `${s.base}/tls.yaml`,
      'TLS:',
    );
  });

  test('insecureSkipTLSVerify skips verification', async () => {
    const cache = new RemoteContentCache();
    const got = await cache.get({ url: `${s.base}/tls.yaml`, insecureSkipTLSVerify: true });
    assert.equal(got.body, DOC);
  });

  test('a caFile that is not PEM is a spec error', async () => {
    const cache = new RemoteContentCache();
    await rejectsWith(
      cache.get({ url: `${s.base}/tls.yaml` }, { caFile: 'nope' }),
      'RemoteInvalidRef',
      'caFile',
    );
  });
});

test('credentialsFromSecret decodes data and prefers stringData', () => {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  const creds = credentialsFromSecret({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'c', namespace: 'ns' },
    data: { username: b64('alice'), password: b64('pw'), other: b64('x') },
    stringData: { password: 'plain' },
  });
  assert.deepEqual(creds, { username: 'alice', password: 'plain' });
});
