// End-to-end: two hub processes on one PostgreSQL database behave as one hub: writes through one
// replica reach watches on the other, tokens work on both, and controllers fail over with the lease.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { createDatabase, startPostgres, type PostgresServer } from '../../src/testing/postgres.js';
import { type HubProcess, hubRequest, openWatch, scratchDir, startHubProcess } from '../support/hub.js';
import { kubectl, kubectlOk } from '../support/tools.js';

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes. */
async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Identities this process logged "became leader" for (its JSON log lines on stdout). */
function leaderIdentities(hub: HubProcess): string[] {
  const identities: string[] = [];
  for (const line of hub.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; identity?: string };
      if (entry.msg === 'became leader' && entry.identity) identities.push(entry.identity);
    } catch {
      // a banner line or a partial write: not a log entry
    }
  }
  return identities;
}

const LEASE = [
  'get',
  'lease',
  '-n',
  'fleethub-system',
  'fleethub-controller-manager',
  '-o',
  'jsonpath={.spec.holderIdentity}',
];

describe('two hub replicas on one PostgreSQL', () => {
  let postgres: PostgresServer | undefined;
  let hubA: HubProcess | undefined;
  let hubB: HubProcess | undefined;
  let dirB: string | undefined;

  before(async () => {
    postgres = await startPostgres();
    const database = await createDatabase(postgres.url, 'replicas');
    hubA = await startHubProcess({ database });
    // Same key material, same admin credential: only the database is shared state between replicas.
    dirB = scratchDir('fleethub-hub-b-');
    for (const entry of ['pki', 'encryption-keys.json', 'admin.kubeconfig'])
      cpSync(join(hubA.dataDir, entry), join(dirB, entry), { recursive: true });
    hubB = await startHubProcess({ dataDir: dirB, database });
  });

  after(async () => {
    // SIGKILL: a graceful stop could wait on watches and the lease; nothing here needs it.
    await Promise.all([hubA?.kill(), hubB?.kill()]);
    await postgres?.stop();
    for (const dir of [hubA?.dataDir, dirB]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a write through A reaches a watch on B within a second', async () => {
    const a = hubA!;
    const b = hubB!;
    const list = await hubRequest(b, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 200, list.body);
    const version = (list.json().metadata as { resourceVersion: string }).resourceVersion;
    const watch = await openWatch(
      b,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${version}`,
    );
    try {
      await kubectlOk('v35', a.kubeconfig, ['create', 'configmap', 'from-a', '--from-literal=k=v']);
      const { event } = await watch.next((e) => e.object.metadata?.name === 'from-a', { timeoutMs: 1_000 });
      assert.equal(event.type, 'ADDED');
      assert.deepEqual(event.object.data, { k: 'v' });
    } finally {
      watch.close();
    }
  });

  test("B's admin kubeconfig carries A's token, points at B and works", async () => {
    const a = hubA!;
    const b = hubB!;
    const config = parse(readFileSync(b.kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
    };
    assert.equal(config.clusters[0]!.cluster.server, b.url, 'B rewrote the copied kubeconfig to its own URL');
    assert.equal(
      b.token,
      a.token,
      'the copied token authenticated on B (tokens live in the database), so none was issued',
    );
    assert.equal(
      await kubectlOk('v35', b.kubeconfig, ['get', 'configmap', 'from-a', '-o', 'jsonpath={.data.k}']),
      'v',
    );
    assert.equal(
      await kubectlOk('v31', b.kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']),
      'fleethub-admin',
    );
    // A's own file was left pointing at A.
    const configA = parse(readFileSync(a.kubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
    };
    assert.equal(configA.clusters[0]!.cluster.server, a.url);
  });

  test('when the leader is killed the other replica takes the lease and runs the controllers', async () => {
    const hubs = [hubA!, hubB!];
    const holder = await eventually('a replica holds the lease', 15_000, async () => {
      const value = (await kubectlOk('v35', hubB!.kubeconfig, LEASE)).trim();
      return value || undefined;
    });
    const leaders = hubs.filter((h) => leaderIdentities(h).includes(holder));
    assert.equal(leaders.length, 1, `exactly one process logged "became leader" as ${holder}`);
    const leader = leaders[0]!;
    const survivor = hubs.find((h) => h !== leader)!;
    assert.deepEqual(leaderIdentities(survivor), [], 'the other replica never led');

    await leader.kill();
    const killedAt = Date.now();
    const successor = await eventually('the survivor takes the lease', 15_000, async () => {
      const value = (await kubectlOk('v35', survivor.kubeconfig, LEASE)).trim();
      return value && value !== holder && leaderIdentities(survivor).includes(value) ? value : undefined;
    });
    assert.ok(Date.now() - killedAt <= 15_000, `take-over took ${Date.now() - killedAt} ms`);
    assert.notEqual(successor, holder);

    // The namespace controller now runs on the survivor: it empties a deleted namespace and removes it.
    await kubectlOk('v35', survivor.kubeconfig, ['create', 'namespace', 'doomed']);
    await kubectlOk('v35', survivor.kubeconfig, [
      'create',
      'configmap',
      'inside',
      '-n',
      'doomed',
      '--from-literal=a=b',
    ]);
    await kubectlOk('v35', survivor.kubeconfig, ['delete', 'namespace', 'doomed', '--wait=false']);
    await eventually('the namespace controller removes the namespace', 15_000, async () => {
      const res = await hubRequest(survivor, 'GET', '/api/v1/namespaces/doomed');
      return res.status === 404 ? true : undefined;
    });
    const leftover = await hubRequest(survivor, 'GET', '/api/v1/namespaces/doomed/configmaps/inside');
    assert.equal(leftover.status, 404, leftover.body);
    const again = await kubectl('v35', survivor.kubeconfig, ['get', 'namespace', 'doomed']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /namespaces "doomed" not found/);
  });
});
