// Serves the non-resource API paths — /version, discovery (/api, /apis, …) and /openapi/v3 — from
// documents built once per registry change, shared by every server whose registry holds the same kinds.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KindRegistry } from '../kinds/registry.js';
import type { KindDefinition } from '../kinds/types.js';
import { buildDiscovery, type Discovery, type PreparedResponse, type VersionOptions } from './discovery.js';
import { buildOpenApiV3, type OpenApiV3 } from './openapi.js';

/** The documents of one set of kinds; OpenAPI (large and slow to build) only once someone asks for it. */
interface Documents {
  discovery: Discovery;
  openapi?: OpenApiV3;
}

// A process hosting many API servers over the same kinds (a simulated fleet: a thousand clusters whose
// registries differ only in per-cluster closures such as Service IP allocation) builds each document set
// once. The key holds every data field the builders read, and the schema by object identity (definitions
// are immutable; a CRD change registers new ones), so registries that differ in any served detail never
// share. Bounded so that churning CRDs cannot grow it.
const SHARED_LIMIT = 16;
const shared = new Map<string, Documents>();
const schemaIds = new WeakMap<object, number>();
const kindKeys = new WeakMap<KindDefinition, string>();
let nextSchemaId = 0;

function identity(obj: object): number {
  let id = schemaIds.get(obj);
  if (id === undefined) schemaIds.set(obj, (id = ++nextSchemaId));
  return id;
}

function kindKey(def: KindDefinition): string {
  let key = kindKeys.get(def);
  if (key === undefined) {
    // Functions (defaults, validate, printer cells, field getters) are not served; JSON drops them.
    const { schema, selectableFields, ...served } = def;
    key = `${identity(schema)} ${JSON.stringify(served)} ${Object.keys(selectableFields ?? {}).join(',')}`;
    kindKeys.set(def, key);
  }
  return key;
}

function sharedDocuments(kinds: readonly KindDefinition[], versionOptions: VersionOptions): Documents {
  const key = `${JSON.stringify(versionOptions)}\n${kinds.map(kindKey).join('\n')}`;
  let docs = shared.get(key);
  if (docs) {
    // Most recently used last, so the oldest entry is the one dropped.
    shared.delete(key);
  } else {
    docs = { discovery: buildDiscovery(kinds, { version: versionOptions }) };
    if (shared.size >= SHARED_LIMIT) shared.delete(shared.keys().next().value!);
  }
  shared.set(key, docs);
  return docs;
}

export class DiscoveryRoutes {
  private built?: { version: number; kinds: readonly KindDefinition[]; docs: Documents };

  constructor(
    private readonly registry: KindRegistry,
    private readonly versionOptions: VersionOptions = {},
  ) {}

  private documents(): Documents {
    if (!this.built || this.built.version !== this.registry.version) {
      const kinds = this.registry.all();
      this.built = {
        version: this.registry.version,
        kinds,
        docs: sharedDocuments(kinds, this.versionOptions),
      };
    }
    return this.built.docs;
  }

  private openapi(): OpenApiV3 {
    const docs = this.documents();
    docs.openapi ??= buildOpenApiV3(this.built!.kinds, {
      kubernetesVersion: docs.discovery.version.gitVersion,
    });
    return docs.openapi;
  }

  /** Answers and returns true when `path` is one of ours; false leaves the 404 to the caller. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const accept = req.headers.accept;
    const ifNoneMatch = req.headers['if-none-match'];
    const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const prepared: PreparedResponse | undefined = normalised.startsWith('/openapi/')
      ? this.openapi().respond(normalised, query, accept, ifNoneMatch)
      : this.documents().discovery.respond(normalised, accept, ifNoneMatch);
    if (!prepared) return false;
    res.writeHead(prepared.status, {
      'Content-Length': Buffer.byteLength(prepared.body),
      ...prepared.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : prepared.body);
    return true;
  }
}
