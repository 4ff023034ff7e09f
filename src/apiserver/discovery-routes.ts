// Serves the non-resource API paths — /version, discovery (/api, /apis, …) and /openapi/v3 — from
// documents built once per registry change.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KindRegistry } from '../kinds/registry.js';
import { buildDiscovery, type Discovery, type PreparedResponse, type VersionOptions } from './discovery.js';
import { buildOpenApiV3, type OpenApiV3 } from './openapi.js';

export class DiscoveryRoutes {
  private built?: { version: number; discovery: Discovery; openapi: OpenApiV3 };

  constructor(
    private readonly registry: KindRegistry,
    private readonly versionOptions: VersionOptions = {},
  ) {}

  private documents(): { discovery: Discovery; openapi: OpenApiV3 } {
    if (!this.built || this.built.version !== this.registry.version) {
      const kinds = this.registry.all();
      const discovery = buildDiscovery(kinds, { version: this.versionOptions });
      const openapi = buildOpenApiV3(kinds, { kubernetesVersion: discovery.version.gitVersion });
      this.built = { version: this.registry.version, discovery, openapi };
    }
    return this.built;
  }

  /** Answers and returns true when `path` is one of ours; false leaves the 404 to the caller. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const { discovery, openapi } = this.documents();
    const accept = req.headers.accept;
    const ifNoneMatch = req.headers['if-none-match'];
    const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const prepared: PreparedResponse | undefined = normalised.startsWith('/openapi/')
      ? openapi.respond(normalised, query, accept, ifNoneMatch)
      : discovery.respond(normalised, accept, ifNoneMatch);
    if (!prepared) return false;
    res.writeHead(prepared.status, {
      'Content-Length': Buffer.byteLength(prepared.body),
      ...prepared.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : prepared.body);
    return true;
  }
}
