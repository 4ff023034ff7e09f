// Discovery documents shared between servers whose registries hold the same kinds: a registry that differs
// in any served detail (a short name, a new kind, another version) still answers with its own documents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { KindRegistry } from '../kinds/registry.js';
import type { KindDefinition } from '../kinds/types.js';
import { DiscoveryRoutes } from './discovery-routes.js';

const widgets: KindDefinition = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  singular: 'widget',
  namespaced: true,
  schema: Type.Object({}),
};

function get(routes: DiscoveryRoutes, path: string): { status: number; body: string } {
  let status = 0;
  let body = '';
  const res = {
    writeHead(code: number) {
      status = code;
      return res;
    },
    end(chunk?: string) {
      body = chunk ?? '';
    },
  };
  const req = { method: 'GET', headers: { accept: 'application/json' } };
  routes.serve(
    req as unknown as IncomingMessage,
    res as unknown as ServerResponse,
    path,
    new URLSearchParams(),
  );
  return { status, body };
}

test('servers over equal kinds answer alike; any served difference gets its own documents', () => {
  const a = new DiscoveryRoutes(new KindRegistry([widgets]), { gitVersion: 'v1.34.2' });
  // Another definition object with the same data and schema: a per-cluster copy, as the simulator makes.
  const b = new DiscoveryRoutes(new KindRegistry([{ ...widgets, validate: () => [] }]), {
    gitVersion: 'v1.34.2',
  });
  const c = new DiscoveryRoutes(new KindRegistry([{ ...widgets, shortNames: ['wd'] }]), {
    gitVersion: 'v1.34.2',
  });
  const d = new DiscoveryRoutes(new KindRegistry([widgets]), { gitVersion: 'v1.33.1' });
  const list = (r: DiscoveryRoutes) => JSON.parse(get(r, '/apis/example.com/v1').body);
  assert.deepEqual(list(a), list(b));
  assert.equal(list(a).resources[0].shortNames, undefined);
  assert.deepEqual(list(c).resources[0].shortNames, ['wd']);
  assert.match(get(d, '/version').body, /v1\.33\.1/);
  assert.match(get(a, '/version').body, /v1\.34\.2/);
  // A schema that is another object (another CRD revision) is another document.
  const e = new DiscoveryRoutes(
    new KindRegistry([{ ...widgets, schema: Type.Object({ spec: Type.Object({ size: Type.Integer() }) }) }]),
    { gitVersion: 'v1.34.2' },
  );
  const schemaOf = (r: DiscoveryRoutes) =>
    JSON.parse(get(r, '/openapi/v3/apis/example.com/v1').body).components.schemas['com.example.v1.Widget'];
  assert.equal(schemaOf(a).properties.spec, undefined);
  assert.ok(schemaOf(e).properties.spec);
});

test('a registry change after sharing rebuilds the documents of that server alone', () => {
  const registry = new KindRegistry([widgets]);
  const a = new DiscoveryRoutes(registry);
  const b = new DiscoveryRoutes(new KindRegistry([widgets]));
  assert.equal(get(a, '/apis/example.com/v2').status, 0);
  registry.add({ ...widgets, version: 'v2' });
  assert.equal(get(a, '/apis/example.com/v2').status, 200);
  assert.equal(get(b, '/apis/example.com/v2').status, 0, 'the other server does not serve v2');
  assert.equal(get(b, '/apis/example.com/v1').status, 200);
});
