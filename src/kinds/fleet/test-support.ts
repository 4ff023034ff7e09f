// For tests only: the API server module on a memory store over plain HTTP, serving given kinds, with a
// caller named per request (`user`, `groups`, `uid`) so admission that records the requester is visible.
import { createServer, type IncomingMessage } from 'node:http';
import { after, before } from 'node:test';
import type { AddressInfo } from 'node:net';
import { ApiServer } from '../../apiserver/server.js';
import type { UserInfo } from '../../apiserver/types.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { KindRegistry } from '../registry.js';
import type { KindDefinition } from '../types.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface CallOptions {
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  contentType?: string;
  accept?: string;
}

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

export interface TestApi {
  store: Store;
  call(method: string, path: string, body?: unknown, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export const MERGE_PATCH = 'application/merge-patch+json';
export const APPLY = 'application/apply-patch+yaml';
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The test file's API server: started before its tests, closed after them. The returned object forwards
 * to it, so tests call `api.call(...)` as on a started one.
 */
export function useTestApi(kinds: readonly KindDefinition[]): TestApi {
  let started: TestApi | undefined;
  before(async () => {
    started = await startApi(kinds);
  });
  after(async () => {
    await started?.close();
  });
  const current = (): TestApi => {
    if (!started) throw new Error('the test API server starts before the tests; use it inside them');
    return started;
  };
  return {
    get store() {
      return current().store;
    },
    call: (method, path, body, options) => current().call(method, path, body, options),
    close: () => current().close(),
  };
}

/** Starts an API server for `kinds` with namespaces `default` and `team-a`. */
export async function startApi(kinds: readonly KindDefinition[]): Promise<TestApi> {
  const store = await openStore({ url: 'memory:' });
  for (const name of ['default', 'team-a'])
    await store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  const api = new ApiServer({
    registry: new KindRegistry(kinds),
    store,
    authenticator: {
      authenticate(req): Promise<UserInfo> {
        const user: UserInfo = {
          username: header(req, 'x-test-user') ?? 'admin',
          groups: (header(req, 'x-test-groups') ?? 'system:masters').split(','),
        };
        const uid = header(req, 'x-test-uid');
        if (uid) user.uid = uid;
        const extra = header(req, 'x-test-extra');
        if (extra) user.extra = JSON.parse(extra) as Record<string, string[]>;
        return Promise.resolve(user);
      },
    },
  });
  const server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    store,
    async call(method, path, body, options = {}) {
      const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
      if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
      if (options.user) headers['x-test-user'] = options.user;
      if (options.groups) headers['x-test-groups'] = options.groups.join(',');
      if (options.uid) headers['x-test-uid'] = options.uid;
      if (options.extra) headers['x-test-extra'] = JSON.stringify(options.extra);
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.close();
    },
  };
}

/** The `field: reason` pairs of a 422's causes, for compact assertions. */
export function causesOf(reply: Reply): string[] {
  const causes = ((reply.body.details as { causes?: StatusCause[] } | undefined)?.causes ??
    []) as StatusCause[];
  return causes.map((c) => `${c.field ?? ''}: ${c.reason}`);
}

/** Table columns and the first row's cells, keyed by column name. */
export function tableRow(reply: Reply): Record<string, unknown> {
  const names = (reply.body.columnDefinitions as { name: string }[]).map((c) => c.name);
  const cells = (reply.body.rows as { cells: unknown[] }[])[0]!.cells;
  return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
}
