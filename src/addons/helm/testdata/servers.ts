// Loopback servers for the Helm feature's tests: a static chart repository (index.yaml + archives) and
// a minimal OCI registry — pull and push sides, optional bearer-token and basic auth — that the real
// `helm push --plain-http` can talk to.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
  server: Server;
  /** http://127.0.0.1:port */
  base: string;
  /** host:port */
  host: string;
  /** Every request, `METHOD path`. */
  log: string[];
  close(): Promise<void>;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<Served> {
  const log: string[] = [];
  const server = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    base: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A static file server: path → body (a chart repository is just files). */
export async function serveFiles(files: Map<string, Buffer | string>): Promise<Served> {
  return listen((req, res) => {
    const body = files.get((req.url ?? '').split('?')[0]!);
    if (body === undefined) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.end(body);
  });
}

const sha256 = (b: Buffer): string => 'sha256:' + createHash('sha256').update(b).digest('hex');

export interface RegistryOptions {
  /** Require a bearer token from /token (anonymous unless `users` is set too). */
  token?: boolean;
  /** user → password; with `token` the token service checks them, without it every request does (basic). */
  users?: Record<string, string>;
}

export interface Registry extends Served {
  options: RegistryOptions;
  /** Tokens the token service handed out. */
  tokensIssued: number;
  /** Stores a chart under repository:tag, as `helm push` would. Returns the layer digest. */
  putChart(repository: string, tag: string, archive: Buffer): string;
  /** Corrupts a stored blob (digest checks must catch it). */
  corrupt(digest: string): void;
}

/** An OCI distribution registry in memory: enough of the spec for helm's pull and push. */
export async function serveRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const blobs = new Map<string, Buffer>();
  const manifests = new Map<string, { body: Buffer; type: string }>(); // "repo@ref" → manifest
  const tags = new Map<string, Set<string>>();
  const uploads = new Map<string, Buffer[]>();
  const tokens = new Set<string>();

  const storeManifest = (repo: string, ref: string, body: Buffer, type: string): string => {
    const digest = sha256(body);
    manifests.set(`${repo}@${ref}`, { body, type });
    manifests.set(`${repo}@${digest}`, { body, type });
    if (!ref.startsWith('sha256:')) {
      if (!tags.has(repo)) tags.set(repo, new Set());
      tags.get(repo)!.add(ref);
    }
    return digest;
  };

  const authorized = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization ?? '';
    if (registry.options.token) return header.startsWith('Bearer ') && tokens.has(header.slice(7));
    if (registry.options.users) return checkBasic(header, registry.options.users);
    return true;
  };

  const served = await listen((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/token') {
      if (registry.options.users && !checkBasic(req.headers.authorization ?? '', registry.options.users)) {
        res.statusCode = 401;
        res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      const token = randomUUID();
      tokens.add(token);
      registry.tokensIssued++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ token, expires_in: 300 }));
      return;
    }
    if (!authorized(req)) {
      const m = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(path);
      const scope = m ? `repository:${m[1]}:pull` : '';
      res.statusCode = 401;
      res.setHeader(
        'www-authenticate',
        registry.options.token
          ? `Bearer realm="${served.base}/token",service="test-registry",scope="${scope}"`
          : 'Basic realm="test-registry"',
      );
      res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    if (path === '/v2/' || path === '/v2') {
      res.end('{}');
      return;
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs|tags)\/(.*)$/.exec(path);
    if (!m) return notFound(res);
    const [, repo, what, rest] = m as unknown as [string, string, string, string];
    const method = req.method ?? 'GET';
    if (what === 'tags' && rest === 'list') {
      const list = [...(tags.get(repo) ?? [])].sort();
      if (list.length === 0) return notFound(res);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: repo, tags: list }));
      return;
    }
    if (what === 'manifests') {
      if (method === 'PUT') {
        const digest = storeManifest(repo, rest, body, String(req.headers['content-type'] ?? ''));
        res.statusCode = 201;
        res.setHeader('location', `/v2/${repo}/manifests/${digest}`);
        res.setHeader('docker-content-digest', digest);
        res.end();
        return;
      }
      const found = manifests.get(`${repo}@${rest}`);
      if (!found) return notFound(res);
      res.setHeader('content-type', found.type);
      res.setHeader('docker-content-digest', sha256(found.body));
      res.setHeader('content-length', found.body.length);
      res.end(method === 'HEAD' ? undefined : found.body);
      return;
    }
    // blobs
    if (rest.startsWith('uploads')) {
      const id = rest.slice('uploads'.length).replace(/^\//, '');
      const digest = url.searchParams.get('digest');
      if (method === 'POST' && digest) {
        blobs.set(digest, body);
        res.statusCode = 201;
        res.setHeader('location', `/v2/${repo}/blobs/${digest}`);
        res.end();
        return;
      }
      if (method === 'POST') {
        const uuid = randomUUID();
        uploads.set(uuid, []);
        res.statusCode = 202;
        res.setHeader('location', `/v2/${repo}/blobs/uploads/${uuid}`);
        res.setHeader('docker-upload-uuid', uuid);
        res.setHeader('range', '0-0');
        res.end();
        return;
      }
      const parts = uploads.get(id);
      if (!parts) return notFound(res);
      parts.push(body);
      if (method === 'PATCH') {
        const size = parts.reduce((n, p) => n + p.length, 0);
        res.statusCode = 202;
        res.setHeader('location', `/v2/${repo}/blobs/uploads/${id}`);
        res.setHeader('range', `0-${Math.max(0, size - 1)}`);
        res.end();
        return;
      }
      if (method === 'PUT' && digest) {
        const data = Buffer.concat(parts);
        uploads.delete(id);
        if (sha256(data) !== digest) {
          res.statusCode = 400;
          res.end('{"errors":[{"code":"DIGEST_INVALID"}]}');
          return;
        }
        blobs.set(digest, data);
        res.statusCode = 201;
        res.setHeader('location', `/v2/${repo}/blobs/${digest}`);
        res.setHeader('docker-content-digest', digest);
        res.end();
        return;
      }
      res.statusCode = 405;
      res.end();
      return;
    }
    const blob = blobs.get(rest);
    if (!blob) return notFound(res);
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('docker-content-digest', rest);
    res.setHeader('content-length', blob.length);
    res.end(method === 'HEAD' ? undefined : blob);
  });

  const registry: Registry = {
    ...served,
    options,
    tokensIssued: 0,
    putChart(repository, tag, archive) {
      const config = Buffer.from('{"name":"x","version":"0"}');
      const layer = sha256(archive);
      blobs.set(layer, archive);
      blobs.set(sha256(config), config);
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config: {
            mediaType: 'application/vnd.cncf.helm.config.v1+json',
            digest: sha256(config),
            size: config.length,
          },
          layers: [
            {
              mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
              digest: layer,
              size: archive.length,
            },
          ],
        }),
      );
      storeManifest(repository, tag, manifest, 'application/vnd.oci.image.manifest.v1+json');
      return layer;
    },
    corrupt(digest) {
      const b = blobs.get(digest);
      if (b) blobs.set(digest, Buffer.concat([b, Buffer.from('x')]));
    },
  };
  return registry;
}

function checkBasic(header: string, users: Record<string, string>): boolean {
  if (!header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 && users[decoded.slice(0, colon)] === decoded.slice(colon + 1);
}

function notFound(res: ServerResponse): void {
  res.statusCode = 404;
  res.setHeader('content-type', 'application/json');
  res.end('{"errors":[{"code":"NOT_FOUND"}]}');
}
