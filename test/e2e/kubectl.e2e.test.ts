// The real kubectl (1.35 and 1.31) against a real hub process, on SQLite and on PostgreSQL: the
// everyday commands, RBAC with ServiceAccount tokens, secrets never at rest in plaintext, the audit log,
// and namespace deletion through the controller.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { GENERATIONS, kubectl, kubectlOk, toolPath } from '../support/tools.js';
import pg from 'pg';
import { createDatabase, startPostgres } from '../../src/testing/postgres.js';

type Database = 'sqlite' | 'postgres';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

for (const database of ['sqlite', 'postgres'] as Database[]) {
  void describe(`kubectl against a hub on ${database}`, () => {
    let hub: HubProcess;
    let stopPostgres: (() => Promise<void>) | undefined;
    let postgresDir: string | undefined;
    let databaseUrl: string | undefined;

    before(async () => {
      let url: string | undefined;
      if (database === 'postgres') {
        const pg = await startPostgres();
        stopPostgres = pg.stop;
        postgresDir = pg.dataDir;
        url = await createDatabase(pg.url, 'kubectl_e2e');
        databaseUrl = url;
      }
      hub = await startHubProcess(url ? { database: url } : {});
    });

    after(async () => {
      await hub?.stop();
      await stopPostgres?.();
    });

    test('the admin kubeconfig is owner-only and the hub serves the API list', async () => {
      assert.equal(statSync(hub.kubeconfig).mode & 0o777, 0o600);
      for (const gen of GENERATIONS) {
        const out = await kubectlOk(gen, hub.kubeconfig, ['api-resources']);
        for (const line of ['configmaps', 'namespaces', 'secrets', 'clusterroles', 'auditevents', 'leases'])
          assert.match(out, new RegExp(`^${line}\\s`, 'm'), `${gen} api-resources lists ${line}`);
      }
    });

    for (const gen of GENERATIONS) {
      void describe(`kubectl ${gen === 'v35' ? '1.35' : '1.31'}`, () => {
        const ns = `team-${gen}`;
        const k = (args: string[], input?: string) =>
          kubectl(gen, hub.kubeconfig, args, input === undefined ? {} : { input });
        const ok = (args: string[], input?: string) =>
          kubectlOk(gen, hub.kubeconfig, args, input === undefined ? {} : { input });

        test('create namespace, client-side apply twice then edited', async () => {
          assert.match(await ok(['create', 'namespace', ns]), new RegExp(`namespace/${ns} created`));
          const manifest = (value: string) =>
            `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ${ns}\n  labels: {app: demo}\ndata:\n  key: ${value}\n`;
          assert.match(await ok(['apply', '-f', '-'], manifest('v1')), /configmap\/app created/);
          assert.match(await ok(['apply', '-f', '-'], manifest('v1')), /configmap\/app unchanged/);
          assert.match(await ok(['apply', '-f', '-'], manifest('v2')), /configmap\/app configured/);
          assert.equal(await ok(['-n', ns, 'get', 'configmap', 'app', '-o', 'jsonpath={.data.key}']), 'v2');
        });

        test('server-side apply, a conflict with another manager, and --force-conflicts', async () => {
          const manifest = (value: string) =>
            `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa","namespace":"${ns}"},"data":{"key":"${value}"}}`;
          assert.match(
            await ok(['apply', '--server-side', '-f', '-'], manifest('a')),
            /configmap\/ssa serverside-applied/,
          );
          await ok([
            '-n',
            ns,
            'patch',
            'configmap',
            'ssa',
            '--type=merge',
            '-p',
            '{"data":{"key":"patched"}}',
          ]);
          const conflict = await k(['apply', '--server-side', '-f', '-'], manifest('b'));
          assert.notEqual(conflict.code, 0);
          assert.match(
            conflict.stderr,
            /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.key/,
          );
          assert.equal(await ok(['-n', ns, 'get', 'cm', 'ssa', '-o', 'jsonpath={.data.key}']), 'patched');
          assert.match(
            await ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], manifest('b')),
            /serverside-applied/,
          );
          const managed = JSON.parse(
            await ok(['-n', ns, 'get', 'cm', 'ssa', '-o', 'json', '--show-managed-fields']),
          ) as {
            data: { key: string };
            metadata: { managedFields: { manager: string; operation: string }[] };
          };
          assert.equal(managed.data.key, 'b');
          assert.ok(
            managed.metadata.managedFields.some((m) => m.manager === 'kubectl' && m.operation === 'Apply'),
          );
        });

        test('get -o yaml, -o json and -o jsonpath', async () => {
          const yaml = await ok(['-n', ns, 'get', 'cm', 'app', '-o', 'yaml']);
          assert.match(yaml, /^kind: ConfigMap$/m);
          assert.match(yaml, /resourceVersion: "\d+"/);
          const json = JSON.parse(await ok(['-n', ns, 'get', 'cm', '-l', 'app=demo', '-o', 'json'])) as {
            items: { metadata: { name: string } }[];
          };
          assert.deepEqual(
            json.items.map((i) => i.metadata.name),
            ['app'],
          );
          assert.equal(await ok(['get', 'namespace', ns, '-o', 'jsonpath={.status.phase}']), 'Active');
          const table = await ok(['-n', ns, 'get', 'cm']);
          assert.match(table, /^NAME\s+DATA\s+AGE$/m);
          // kubectl follows `continue` tokens: pages of one still list everything.
          const paged = await ok(['-n', ns, 'get', 'cm', '--chunk-size=1', '-o', 'name']);
          assert.deepEqual(
            paged.trim().split('\n'),
            (await ok(['-n', ns, 'get', 'cm', '-o', 'name'])).trim().split('\n'),
          );
          assert.ok(paged.trim().split('\n').length >= 2);
        });

        test('a kind: List applies (get -o yaml > f; apply -f f), and the server still validates its items', async () => {
          // kubectl validates a List's items against OpenAPI v2 on the client; the hub serves one without
          // definitions, so the items are validated by the server as each is applied.
          const list = (items: string) => `apiVersion: v1\nkind: List\nitems:\n${items}`;
          const item = (name: string, data: string) =>
            `- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: ${name}, namespace: ${ns}}\n  data: ${data}\n`;
          const applied = await ok(
            ['apply', '-f', '-'],
            list(item('listed-a', '{k: v}') + item('listed-b', '{k: v}')),
          );
          assert.match(applied, /configmap\/listed-a created/);
          assert.match(applied, /configmap\/listed-b created/);
          const exported = await ok(['-n', ns, 'get', 'cm', 'listed-a', 'listed-b', '-o', 'yaml']);
          assert.match(exported, /^kind: List$/m);
          assert.match(
            await ok(['apply', '-f', '-'], exported),
            /configmap\/listed-a (configured|unchanged)/,
          );
          const bad = await k(['apply', '-f', '-'], list(item('listed-bad', '{k: [1, 2]}')));
          assert.notEqual(bad.code, 0);
          assert.match(bad.stderr, /data/);
          assert.equal((await k(['-n', ns, 'get', 'cm', 'listed-bad'])).code, 1);
        });

        test('server-side dry run validates and stores nothing', async () => {
          const manifest = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry","namespace":"${ns}"},"data":{"a":"b"}}`;
          assert.match(
            await ok(['apply', '--dry-run=server', '-f', '-'], manifest),
            /configmap\/dry created \(server dry run\)/,
          );
          assert.match((await k(['-n', ns, 'get', 'configmap', 'dry'])).stderr, /not found/);
          await ok(['-n', ns, 'label', 'configmap', 'app', 'tier=web', '--dry-run=server']);
          assert.equal(
            await ok(['-n', ns, 'get', 'configmap', 'app', '-o', 'jsonpath={.metadata.labels.tier}']),
            '',
          );
        });

        test('get -w sees an update made by another client', async () => {
          const watcher = spawn(
            toolPath(gen, 'kubectl'),
            ['-n', ns, 'get', 'cm', 'app', '-w', '-o', 'jsonpath={.data.key}{"\\n"}'],
            {
              env: { ...process.env, KUBECONFIG: hub.kubeconfig, HOME: scratchDir('kc-') },
            },
          );
          let seen = '';
          watcher.stdout.on('data', (d: Buffer) => (seen += d.toString()));
          try {
            await eventually('the initial state', async () => (seen.includes('v2') ? true : undefined));
            await ok([
              '-n',
              ns,
              'patch',
              'cm',
              'app',
              '--type=merge',
              '-p',
              '{"data":{"key":"from-another-client"}}',
            ]);
            await eventually(
              'the watched update',
              async () => (seen.includes('from-another-client') ? true : undefined),
              5_000,
            );
          } finally {
            watcher.kill();
          }
        });

        test('kubectl wait sees a change, and delete waits for a finalizer to be removed', async () => {
          const held = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","namespace":"${ns}","finalizers":["example.com/hold"]},"data":{"k":"start"}}`;
          await ok(['apply', '-f', '-'], held);
          // kubectl 1.35 waits through a WatchList (sendInitialEvents), 1.31 through list + watch.
          const waiting = k([
            '-n',
            ns,
            'wait',
            '--for=jsonpath={.data.k}=done',
            'configmap/held',
            '--timeout=30s',
          ]);
          await new Promise((r) => setTimeout(r, 500));
          await ok(['-n', ns, 'patch', 'configmap', 'held', '--type=merge', '-p', '{"data":{"k":"done"}}']);
          const waited = await waiting;
          assert.equal(waited.code, 0, waited.stderr);
          assert.match(waited.stdout, /configmap\/held condition met/);

          const deleting = k(['-n', ns, 'delete', 'configmap', 'held', '--timeout=30s']);
          await eventually('the deletion mark', async () => {
            const ts = await ok([
              '-n',
              ns,
              'get',
              'configmap',
              'held',
              '-o',
              'jsonpath={.metadata.deletionTimestamp}',
            ]);
            return ts ? ts : undefined;
          });
          const grow = await k([
            '-n',
            ns,
            'patch',
            'configmap',
            'held',
            '--type=json',
            '-p',
            '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/more"}]',
          ]);
          assert.match(grow.stderr, /no new finalizers can be added if the object is being deleted/);
          await ok([
            '-n',
            ns,
            'patch',
            'configmap',
            'held',
            '--type=merge',
            '-p',
            '{"metadata":{"finalizers":null}}',
          ]);
          const deleted = await deleting;
          assert.equal(deleted.code, 0, deleted.stderr);
          assert.match(deleted.stdout, /configmap "held" deleted/);
          assert.match((await k(['-n', ns, 'get', 'configmap', 'held'])).stderr, /not found/);
        });

        test('a viewer token reads but may not create; can-i answers per role', async () => {
          await ok(['-n', ns, 'create', 'serviceaccount', 'viewer']);
          await ok(['-n', ns, 'create', 'serviceaccount', 'operator']);
          await ok([
            '-n',
            ns,
            'create',
            'rolebinding',
            'viewer',
            '--clusterrole=fleethub:viewer',
            `--serviceaccount=${ns}:viewer`,
          ]);
          // Operators work across the fleet: a cluster-wide binding, as an admin would grant it.
          await ok([
            'create',
            'clusterrolebinding',
            `operator-${ns}`,
            '--clusterrole=fleethub:operator',
            `--serviceaccount=${ns}:operator`,
          ]);
          const viewer = (await ok(['-n', ns, 'create', 'token', 'viewer', '--duration=10m'])).trim();
          const operator = (await ok(['-n', ns, 'create', 'token', 'operator'])).trim();
          assert.match(
            await ok(['--token', viewer, '-n', ns, 'get', 'cm', 'app', '-o', 'name']),
            /configmap\/app/,
          );
          const denied = await k([
            '--token',
            viewer,
            '-n',
            ns,
            'create',
            'configmap',
            'nope',
            '--from-literal=a=b',
          ]);
          assert.notEqual(denied.code, 0);
          assert.match(
            denied.stderr,
            new RegExp(
              `configmaps is forbidden: User "system:serviceaccount:${ns}:viewer" cannot create resource "configmaps"`,
            ),
          );
          const canI = async (token: string | undefined, ...args: string[]) =>
            (
              await k([...(token ? ['--token', token] : []), 'auth', 'can-i', ...args, '-n', ns])
            ).stdout.trim();
          assert.equal(await canI(undefined, 'create', 'configmaps'), 'yes');
          assert.equal(await canI(undefined, 'delete', 'clusterroles'), 'yes');
          assert.equal(await canI(viewer, 'get', 'configmaps'), 'yes');
          assert.equal(await canI(viewer, 'create', 'configmaps'), 'no');
          assert.equal(await canI(viewer, 'get', 'secrets'), 'no');
          assert.equal(await canI(operator, 'list', 'configmaps'), 'yes');
          assert.equal(await canI(operator, 'get', 'secrets'), 'no');
          assert.equal(await canI(operator, 'delete', 'namespaces'), 'no');
          assert.equal(await canI(operator, 'create', 'rolebindings'), 'no');
          const who = await ok(['--token', viewer, 'auth', 'whoami']);
          assert.match(who, new RegExp(`system:serviceaccount:${ns}:viewer`));
        });

        test('a Secret is readable through the API and never stored or logged in plaintext', async () => {
          const value = `pa55-${gen}-${Math.random().toString(36).slice(2)}`;
          await ok(['-n', ns, 'create', 'secret', 'generic', 'db', `--from-literal=password=${value}`]);
          const read = await ok(['-n', ns, 'get', 'secret', 'db', '-o', 'jsonpath={.data.password}']);
          assert.equal(Buffer.from(read, 'base64').toString(), value);
          assert.equal(await ok(['-n', ns, 'get', 'secret', 'db', '-o', 'jsonpath={.type}']), 'Opaque');
          const needles = [value, Buffer.from(value).toString('base64')];
          // A plaintext ConfigMap value written just before must be found: the search itself works.
          const control = `visible-${gen}-${Math.random().toString(36).slice(2)}`;
          await ok(['-n', ns, 'create', 'configmap', 'control', `--from-literal=v=${control}`]);
          const dirs = [hub.dataDir];
          if (database === 'postgres') {
            // Flush shared buffers to the data files and WAL so the bytes at rest are all on disk.
            const client = new pg.Client({ connectionString: databaseUrl });
            await client.connect();
            await client.query('CHECKPOINT');
            await client.end();
            dirs.push(postgresDir!);
          }
          let controlFound = false;
          for (const file of dirs.flatMap(filesUnder)) {
            const bytes = readFileSync(file);
            if (bytes.includes(control)) controlFound = true;
            for (const needle of needles)
              assert.equal(bytes.includes(needle), false, `${needle} found in ${file}`);
          }
          assert.ok(
            controlFound,
            'the plaintext control value is on disk, so the search can see stored bytes',
          );
          for (const needle of needles)
            assert.equal(hub.output().includes(needle), false, 'secret value in the hub log');
        });

        test('delete, and the audit log records who changed what', async () => {
          assert.match(await ok(['-n', ns, 'delete', 'configmap', 'app']), /configmap "app" deleted/);
          const missing = await k(['-n', ns, 'get', 'configmap', 'app']);
          assert.match(missing.stderr, /configmaps "app" not found/);
          type Events = { items: { spec: Record<string, unknown> }[] };
          // The audit sink writes in small batches off the request path.
          const { events, deleted } = await eventually(
            'the delete in the audit log',
            async () => {
              const events = JSON.parse(await ok(['get', 'auditevents', '-o', 'json'])) as Events;
              const deleted = events.items.find(
                (e) => e.spec.verb === 'delete' && e.spec.namespace === ns && e.spec.name === 'app',
              );
              return deleted ? { events, deleted } : undefined;
            },
            5_000,
          );
          assert.equal((deleted.spec.user as { username: string }).username, 'fleethub-admin');
          assert.equal(deleted.spec.responseCode, 200);
          assert.ok(
            events.items.some(
              (e) => e.spec.resource === 'secrets' && e.spec.verb === 'get' && e.spec.namespace === ns,
            ),
            'secret reads are audited',
          );
          const table = await ok(['get', 'auditevents']);
          assert.match(table, /^NAME\s+TIME\s+USER\s+VERB/m);
          const write = await k(['delete', 'auditevents', '--all']);
          assert.notEqual(write.code, 0, 'the audit log is read-only');
        });

        test('deleting a namespace with objects: Terminating, then gone with its content', async () => {
          const doomed = `doomed-${gen}`;
          await ok(['create', 'namespace', doomed]);
          await ok(['-n', doomed, 'create', 'configmap', 'a', '--from-literal=x=y']);
          await ok(['-n', doomed, 'create', 'serviceaccount', 'b']);
          const held = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","namespace":"${doomed}","finalizers":["example.com/hold"]}}`;
          await ok(['apply', '-f', '-'], held);
          assert.match(
            await ok(['delete', 'namespace', doomed, '--wait=false']),
            new RegExp(`namespace "${doomed}" deleted`),
          );
          // The finalizer holds one object, so the namespace stays Terminating with the rest gone.
          await eventually('the unheld content to go', async () => {
            const names = (
              await ok(['-n', doomed, 'get', 'configmaps,serviceaccounts', '-o', 'name'])
            ).trim();
            return names === 'configmap/held' ? true : undefined;
          });
          assert.equal(
            await ok(['get', 'namespace', doomed, '-o', 'jsonpath={.status.phase}']),
            'Terminating',
          );
          const refused = await k(['-n', doomed, 'create', 'configmap', 'late', '--from-literal=a=b']);
          assert.match(refused.stderr, /because it is being terminated/);
          await ok(['delete', 'namespace', doomed, '--wait=false']);
          assert.equal(
            await ok(['-n', doomed, 'get', 'configmap', 'held', '-o', 'name']),
            'configmap/held\n',
            'a second delete changes nothing',
          );
          await ok([
            '-n',
            doomed,
            'patch',
            'configmap',
            'held',
            '--type=merge',
            '-p',
            '{"metadata":{"finalizers":null}}',
          ]);
          await eventually('the namespace to go', async () => {
            const r = await k(['get', 'namespace', doomed]);
            return r.code !== 0 && /not found/.test(r.stderr) ? true : undefined;
          });
        });
      });
    }
  });
}
