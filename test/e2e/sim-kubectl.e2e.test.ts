// The simulator passes the kube-api-sim research's §10 conformance checks with the real kubectl 1.31 and 1.35
// against a simulated cluster each: discovery, get/apply/SSA/watch/wait/delete, drain, rollouts, CRDs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimCluster } from '../../src/sim/cluster.js';
import { SimServer } from '../../src/sim/server.js';
import { scratchDir } from '../support/hub.js';
import { GENERATIONS, kubectl, type Generation, type RunOptions, type RunResult } from '../support/tools.js';

const SERVER_VERSION = 'v1.34.2+k3s1';
const CLIENT_VERSION: Record<Generation, string> = { v31: 'v1.31.9', v35: 'v1.35.2' };

interface Env {
  gen: Generation;
  cluster: SimCluster;
  kubeconfig: string;
  dir: string;
  node(i: 1 | 2 | 3): string;
  /** Runs kubectl; never throws on a non-zero exit. */
  k(args: string[], options?: Omit<RunOptions, 'kubeconfig'>): Promise<RunResult>;
  /** Runs kubectl and fails the test with its output unless it exits 0; returns stdout. */
  ok(args: string[], options?: Omit<RunOptions, 'kubeconfig'>): Promise<string>;
  /** Writes a manifest into the scratch directory and returns its path. */
  file(name: string, text: string): string;
  close(): Promise<void>;
}

async function startEnv(gen: Generation): Promise<Env> {
  const dir = scratchDir(`fleethub-sim-kubectl-${gen}-`);
  const name = `k${gen}`;
  // Fast fake kubelet: pods start within 200 ms and deleted pods go within 300 ms.
  const cluster = await SimCluster.start({
    name,
    version: SERVER_VERSION,
    controllers: { podStartDelayMs: 0, podStartJitterMs: 200, maxGracePeriodMs: 300, runOnceDurationMs: 500 },
  });
  const server = new SimServer({ host: '127.0.0.1', port: 0, single: true });
  server.add(cluster);
  await server.listen();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfig(name), { mode: 0o600 });
  const k = (args: string[], options: Omit<RunOptions, 'kubeconfig'> = {}) =>
    kubectl(gen, kubeconfig, args, options);
  return {
    gen,
    cluster,
    kubeconfig,
    dir,
    node: (i) => `${name}-node-${i}`,
    k,
    async ok(args, options) {
      const r = await k(args, options);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    },
    file(file, text) {
      const path = join(dir, file);
      writeFileSync(path, text);
      return path;
    },
    close: () => server.close(),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `p` is still pending after `ms`. */
async function stillPending(p: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  const first = await Promise.race([p.then(() => undefined), sleep(ms).then(() => marker)]);
  return first === marker;
}

function pod(
  name: string,
  ns: string,
  extra: { labels?: Record<string, string>; spec?: object } = {},
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: extra.labels ?? { app: name } },
    spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...extra.spec },
  });
}

describe('kubectl conformance against a simulated cluster (§10)', { concurrency: true }, () => {
  for (const gen of GENERATIONS) {
    describe(`kubectl ${gen}`, { concurrency: 1 }, () => {
      let env: Env;
      before(async () => {
        env = await startEnv(gen);
      });
      after(async () => {
        await env?.close();
      });

      test('1. version, api-resources and the /api/v1 resource list', async () => {
        const version = await env.ok(['version']);
        assert.match(version, new RegExp(`Client Version: ${CLIENT_VERSION[gen].replace(/\./g, '\\.')}`));
        assert.match(version, /Server Version: v1\.34\.2\+k3s1/);
        const resources = await env.ok(['api-resources']);
        assert.match(resources, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\s*$/m);
        assert.match(resources, /^pods\s+po\s+v1\s+true\s+Pod\s*$/m);
        assert.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s*$/m);
        assert.match(
          resources,
          /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition\s*$/m,
        );
        const raw = JSON.parse(await env.ok(['get', '--raw', '/api/v1'])) as {
          kind: string;
          groupVersion: string;
          resources: { name: string; group?: string; version?: string; kind: string }[];
        };
        assert.equal(raw.kind, 'APIResourceList');
        assert.equal(raw.groupVersion, 'v1');
        const eviction = raw.resources.find((r) => r.name === 'pods/eviction');
        assert.ok(eviction, 'pods/eviction is listed');
        assert.deepEqual([eviction.group, eviction.version, eviction.kind], ['policy', 'v1', 'Eviction']);
      });

      test('2. get: -A, nodes -o wide, all, labels, sort, yaml, jsonpath, chunks', async () => {
        await env.ok(['create', 'namespace', 'c2']);
        // Created out of name order, so sorting and the list order are visible.
        const names = ['p-d', 'p-b', 'p-e', 'p-a', 'p-c'];
        await env.ok(['apply', '-f', '-'], {
          input: names.map((n, i) => pod(n, 'c2', { labels: { app: 'c2', rank: String(i) } })).join('\n'),
        });
        await env.ok(['wait', '--for=condition=Ready', 'pod', '--all', '-n', 'c2', '--timeout=30s']);

        const all = await env.ok(['get', 'pods', '-A']);
        assert.match(all, /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s*$/m);
        for (const n of names)
          assert.match(all, new RegExp(`^c2\\s+${n}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s*$`, 'm'));

        const nodes = await env.ok(['get', 'nodes', '-o', 'wide']);
        assert.match(
          nodes,
          /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+/m,
        );
        assert.match(
          nodes,
          new RegExp(
            `^${env.node(1)}\\s+Ready\\s+control-plane,master\\s+\\S+\\s+v1\\.34\\.2\\+k3s1\\s+172\\.18\\.0\\.2\\s+<none>\\s`,
            'm',
          ),
        );
        assert.match(
          nodes,
          new RegExp(`^${env.node(3)}\\s+Ready\\s+<none>\\s+\\S+\\s+\\S+\\s+172\\.18\\.0\\.4\\s`, 'm'),
        );

        const everything = await env.ok(['get', 'all', '-n', 'c2']);
        for (const n of names) assert.match(everything, new RegExp(`^pod/${n}\\s+1/1\\s+Running`, 'm'));
        const defaults = await env.ok(['get', 'all']);
        assert.match(defaults, /^service\/kubernetes\s+ClusterIP\s+10\.43\.0\.1\s+<none>\s+443\/TCP\s/m);

        const labels = await env.ok(['get', 'pods', '-n', 'c2', '--show-labels']);
        assert.match(labels, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+LABELS\s*$/m);
        assert.match(labels, /^p-d\s+1\/1\s+Running\s+0\s+\S+\s+app=c2,rank=0\s*$/m);

        const sorted = await env.ok(['get', 'pods', '-n', 'c2', '--sort-by=.metadata.name', '-o', 'name']);
        assert.equal(sorted, ['p-a', 'p-b', 'p-c', 'p-d', 'p-e'].map((n) => `pod/${n}\n`).join(''));
        const byRank = await env.ok([
          'get',
          'pods',
          '-n',
          'c2',
          '--sort-by=.metadata.labels.rank',
          '--no-headers',
        ]);
        assert.deepEqual(
          byRank
            .trim()
            .split('\n')
            .map((l) => l.split(/\s+/)[0]),
          names,
        );

        const yaml = await env.ok(['get', 'pod', 'p-a', '-n', 'c2', '-o', 'yaml']);
        assert.match(yaml, /^apiVersion: v1\nkind: Pod\n/);
        assert.match(yaml, /^ {2}name: p-a$/m);
        assert.match(yaml, /^ {2}nodeName: k.*-node-\d$/m);
        assert.match(yaml, /^ {2}phase: Running$/m);

        const jsonpath = await env.ok([
          'get',
          'pods',
          '-n',
          'c2',
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}',
        ]);
        assert.equal(jsonpath, ['p-a', 'p-b', 'p-c', 'p-d', 'p-e'].map((n) => `${n}=Running\n`).join(''));

        const chunked = await env.k(['get', 'pods', '-n', 'c2', '--chunk-size=2', '--no-headers', '-v=6']);
        assert.equal(chunked.code, 0, chunked.stderr);
        assert.equal(chunked.stdout.trim().split('\n').length, 5);
        const pages = chunked.stderr.match(/namespaces\/c2\/pods\?[^\s"]*limit=2/g) ?? [];
        assert.equal(pages.length, 3, `three pages of two:\n${chunked.stderr}`);
        assert.equal(pages.filter((p) => p.includes('continue=')).length, 2);
        // Unmanaged pods left on a node would join check 10's drain.
        await env.ok(['delete', 'pods', '--all', '-n', 'c2', '--wait=false']);
      });

      test('4. client-side apply: created, unchanged, configured; diff changes nothing', async () => {
        await env.ok(['create', 'namespace', 'c4']);
        const manifest = (value: string) =>
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: c4\ndata:\n  key: ${value}\n`;
        const first = env.file('c4-v1.yaml', manifest('v1'));
        assert.equal(await env.ok(['apply', '-f', first]), 'configmap/app created\n');
        assert.equal(await env.ok(['apply', '-f', first]), 'configmap/app unchanged\n');
        const second = env.file('c4-v2.yaml', manifest('v2'));
        // The edit goes out as a strategic merge patch that carries the new last-applied configuration.
        const configured = await env.k(['apply', '-f', second, '-v=8']);
        assert.equal(configured.code, 0, configured.stderr);
        assert.equal(configured.stdout, 'configmap/app configured\n');
        assert.match(configured.stderr, /Content-Type: application\/strategic-merge-patch\+json/);
        assert.match(configured.stderr, /Request Body.*last-applied-configuration/);
        const stored = JSON.parse(await env.ok(['get', 'cm', 'app', '-n', 'c4', '-o', 'json'])) as {
          data: Record<string, string>;
          metadata: { annotations: Record<string, string> };
        };
        assert.deepEqual(stored.data, { key: 'v2' });
        const lastApplied = JSON.parse(
          stored.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']!,
        ) as { data: Record<string, string> };
        assert.deepEqual(lastApplied.data, { key: 'v2' });

        const third = env.file('c4-v3.yaml', manifest('v3'));
        const diff = await env.k(['diff', '-f', third]);
        assert.equal(diff.code, 1, diff.stderr);
        assert.match(diff.stdout, /^-\s+key: v2$/m);
        assert.match(diff.stdout, /^\+\s+key: v3$/m);
        assert.equal(await env.ok(['get', 'cm', 'app', '-n', 'c4', '-o', 'jsonpath={.data.key}']), 'v2');
        const same = await env.k(['diff', '-f', second]);
        assert.equal(same.code, 0, same.stderr);
        assert.equal(same.stdout, '');
      });

      test('5. server-side apply: applied, conflict after a merge patch, forced', async () => {
        await env.ok(['create', 'namespace', 'c5']);
        const path = env.file(
          'c5.yaml',
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: c5\ndata:\n  key: applied\n',
        );
        assert.equal(
          await env.ok(['apply', '--server-side', '-f', path]),
          'configmap/ssa serverside-applied\n',
        );
        assert.equal(
          await env.ok([
            'patch',
            'cm',
            'ssa',
            '-n',
            'c5',
            '--type=merge',
            '-p',
            '{"data":{"key":"patched"}}',
          ]),
          'configmap/ssa patched\n',
        );
        const conflict = await env.k(['apply', '--server-side', '-f', path]);
        assert.equal(conflict.code, 1);
        assert.match(
          conflict.stderr,
          /^error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.key$/m,
        );
        assert.match(conflict.stderr, /--force-conflicts/);
        assert.equal(await env.ok(['get', 'cm', 'ssa', '-n', 'c5', '-o', 'jsonpath={.data.key}']), 'patched');
        assert.equal(
          await env.ok(['apply', '--server-side', '--force-conflicts', '-f', path]),
          'configmap/ssa serverside-applied\n',
        );
        const cm = JSON.parse(
          await env.ok(['get', 'cm', 'ssa', '-n', 'c5', '-o', 'json', '--show-managed-fields']),
        ) as {
          data: Record<string, string>;
          metadata: { managedFields: { manager: string; operation: string; fieldsV1?: object }[] };
        };
        assert.equal(cm.data['key'], 'applied');
        const apply = cm.metadata.managedFields.find(
          (m) => m.manager === 'kubectl' && m.operation === 'Apply',
        );
        assert.ok(apply, JSON.stringify(cm.metadata.managedFields));
        assert.deepEqual(apply.fieldsV1, { 'f:data': { 'f:key': {} } });
        // The patcher lost .data.key to the forced apply.
        const patcher = cm.metadata.managedFields.find((m) => m.manager === 'kubectl-patch');
        assert.ok(!patcher || !JSON.stringify(patcher.fieldsV1 ?? {}).includes('f:key'));
      });

      test('7. get -w shows a pod being added, started and deleted', async () => {
        await env.ok(['create', 'namespace', 'c7']);
        const watching = env.k([
          'get',
          'pods',
          '-n',
          'c7',
          '-w',
          '--output-watch-events',
          '--request-timeout=8s',
        ]);
        await sleep(1500);
        await env.ok(['run', 'w1', '-n', 'c7', '--image=nginx:1.27']);
        await env.ok(['wait', '--for=condition=Ready', 'pod/w1', '-n', 'c7', '--timeout=30s']);
        await env.ok(['delete', 'pod', 'w1', '-n', 'c7']);
        const watched = await watching;
        assert.equal(watched.code, 0, watched.stderr);
        assert.match(watched.stdout, /^EVENT\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s*$/m);
        assert.match(watched.stdout, /^ADDED\s+w1\s+\d\/1\s+(Pending|ContainerCreating|Running)\s/m);
        assert.match(watched.stdout, /^(ADDED|MODIFIED)\s+w1\s+1\/1\s+Running\s/m);
        assert.match(watched.stdout, /^DELETED\s+w1\s/m);
        const kinds = watched.stdout.split('\n').map((l) => l.split(/\s+/)[0]);
        assert.ok(kinds.indexOf('ADDED') < kinds.lastIndexOf('DELETED'));

        // Forced 410 on the next resumed watch: kubectl wait relists and still sees the change.
        await env.ok(['run', 'w2', '-n', 'c7', '--image=nginx:1.27']);
        // 1.31 lists, then watches from the list's resourceVersion and so meets the 410 at once; 1.35 opens
        // a watch-list without one, so its stream is cut to make it resume (with a resourceVersion) and expire.
        env.cluster.faults.set(
          gen === 'v31' ? { expireWatches: 1 } : { expireWatches: 1, dropWatchesAfterMs: 500 },
        );
        try {
          const waiting = env.k([
            'wait',
            '--for=jsonpath={.metadata.labels.go}=yes',
            'pod/w2',
            '-n',
            'c7',
            '--timeout=30s',
          ]);
          assert.ok(await stillPending(waiting, 1500), 'wait returned before the label was set');
          await env.ok(['label', 'pod', 'w2', '-n', 'c7', 'go=yes']);
          const waited = await waiting;
          assert.equal(waited.code, 0, waited.stderr);
          assert.equal(waited.stdout, 'pod/w2 condition met\n');
          assert.equal(env.cluster.faults.spec.expireWatches, 0, 'the forced 410 was met');
        } finally {
          env.cluster.faults.set({});
        }
        await env.ok(['delete', 'pod', 'w2', '-n', 'c7', '--wait=false']);
      });

      test('8. wait: condition, jsonpath, delete, and the timeout path', async () => {
        await env.ok(['create', 'namespace', 'c8']);
        await env.ok(['apply', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'r8', namespace: 'c8', finalizers: ['example.com/hold'] },
            spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
          }),
        });
        assert.equal(
          await env.ok(['wait', '--for=condition=Ready', 'pod/r8', '-n', 'c8', '--timeout=30s']),
          'pod/r8 condition met\n',
        );
        assert.equal(
          await env.ok([
            'wait',
            '--for=jsonpath={.status.phase}=Running',
            'pod/r8',
            '-n',
            'c8',
            '--timeout=30s',
          ]),
          'pod/r8 condition met\n',
        );
        const timedOut = await env.k([
          'wait',
          '--for=condition=Unknown',
          'pod/r8',
          '-n',
          'c8',
          '--timeout=2s',
        ]);
        assert.equal(timedOut.code, 1);
        assert.match(timedOut.stderr, /timed out waiting for the condition on pods\/r8/);
        // The finalizer keeps the pod after its containers stop, until it is removed.
        await env.ok(['delete', 'pod', 'r8', '-n', 'c8', '--wait=false']);
        const gone = env.k(['wait', '--for=delete', 'pod/r8', '-n', 'c8', '--timeout=30s']);
        assert.ok(await stillPending(gone, 1500), 'wait --for=delete returned while the finalizer holds');
        await env.ok([
          'patch',
          'pod',
          'r8',
          '-n',
          'c8',
          '--type=merge',
          '-p',
          '{"metadata":{"finalizers":null}}',
        ]);
        const waited = await gone;
        assert.equal(waited.code, 0, waited.stderr);
        assert.equal(waited.stdout, 'pod/r8 condition met\n');
      });

      test('9. delete by label; a finalizer holds a delete until it is removed', async () => {
        await env.ok(['create', 'namespace', 'c9']);
        await env.ok(['create', 'cm', 'a', '-n', 'c9', '--from-literal=k=a']);
        await env.ok(['create', 'cm', 'b', '-n', 'c9', '--from-literal=k=b']);
        await env.ok(['create', 'cm', 'c', '-n', 'c9', '--from-literal=k=c']);
        await env.ok(['label', 'cm', 'a', 'b', '-n', 'c9', 'grp=x']);
        await env.ok(['label', 'cm', 'c', '-n', 'c9', 'grp=y']);
        const deleted = await env.ok(['delete', 'cm', '-l', 'grp=x', '-n', 'c9']);
        assert.match(deleted, /^configmap "a" deleted/m);
        assert.match(deleted, /^configmap "b" deleted/m);
        assert.doesNotMatch(deleted, /"c"/);
        const left = await env.ok(['get', 'cm', '-n', 'c9', '-l', 'grp', '-o', 'name']);
        assert.equal(left, 'configmap/c\n');

        await env.ok(['apply', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'held', namespace: 'c9', finalizers: ['example.com/hold'] },
            data: { k: 'v' },
          }),
        });
        const deleting = env.k(['delete', 'cm', 'held', '-n', 'c9', '--timeout=30s']);
        assert.ok(await stillPending(deleting, 1500), 'delete returned while the finalizer holds');
        const stamp = await env.ok([
          'get',
          'cm',
          'held',
          '-n',
          'c9',
          '-o',
          'jsonpath={.metadata.deletionTimestamp}',
        ]);
        assert.match(stamp, /^\d{4}-\d\d-\d\dT/);
        await env.ok([
          'patch',
          'cm',
          'held',
          '-n',
          'c9',
          '--type=merge',
          '-p',
          '{"metadata":{"finalizers":null}}',
        ]);
        const done = await deleting;
        assert.equal(done.code, 0, done.stderr);
        assert.match(done.stdout, /^configmap "held" deleted/);
        const after = await env.k(['get', 'cm', 'held', '-n', 'c9']);
        assert.equal(after.code, 1);
        assert.match(after.stderr, /configmaps "held" not found/);
      });

      test('10. cordon, uncordon, the drain error matrix, and a drain that waits for a PDB', async () => {
        const node2 = env.node(2);
        const node3 = env.node(3);
        assert.equal(await env.ok(['cordon', node3]), `node/${node3} cordoned\n`);
        assert.match(
          await env.ok(['get', 'node', node3]),
          new RegExp(`^${node3}\\s+Ready,SchedulingDisabled\\s`, 'm'),
        );
        assert.equal(await env.ok(['uncordon', node3]), `node/${node3} uncordoned\n`);
        assert.match(
          await env.ok(['get', 'node', node3]),
          new RegExp(`^${node3}\\s+Ready\\s+<none>\\s`, 'm'),
        );

        await env.ok(['create', 'namespace', 'c10']);
        const onNode2 = { nodeSelector: { 'kubernetes.io/hostname': node2 } };
        const container = { name: 'main', image: 'nginx:1.27' };
        const workload = (kind: string, name: string, podSpec: object, extra: object = {}) => ({
          apiVersion: 'apps/v1',
          kind,
          metadata: { name, namespace: 'c10' },
          spec: {
            selector: { matchLabels: { app: name } },
            template: { metadata: { labels: { app: name } }, spec: { containers: [container], ...podSpec } },
            ...extra,
          },
        });
        await env.ok(['apply', '-f', '-'], {
          input: [
            workload('DaemonSet', 'agent', {}),
            workload(
              'Deployment',
              'cache',
              { ...onNode2, volumes: [{ name: 'scratch', emptyDir: {} }] },
              { replicas: 1 },
            ),
            JSON.parse(pod('bare', 'c10', { spec: { nodeName: node2 } })) as object,
          ]
            .map((o) => JSON.stringify(o))
            .join('\n'),
        });
        await env.ok(['rollout', 'status', 'ds/agent', '-n', 'c10', '--timeout=30s']);
        await env.ok(['rollout', 'status', 'deploy/cache', '-n', 'c10', '--timeout=30s']);
        await env.ok(['wait', '--for=condition=Ready', 'pod/bare', '-n', 'c10', '--timeout=30s']);
        const agentPod = (
          await env.ok([
            'get',
            'pods',
            '-n',
            'c10',
            '-l',
            'app=agent',
            '--field-selector',
            `spec.nodeName=${node2}`,
            '-o',
            'jsonpath={.items[0].metadata.name}',
          ])
        ).trim();
        assert.match(agentPod, /^agent-/);
        const cachePod = (
          await env.ok([
            'get',
            'pods',
            '-n',
            'c10',
            '-l',
            'app=cache',
            '-o',
            'jsonpath={.items[0].metadata.name}',
          ])
        ).trim();

        const bare = await env.k(['drain', node2, '--timeout=20s']);
        assert.equal(bare.code, 1);
        assert.match(bare.stdout + bare.stderr, new RegExp(`node/${node2} cordoned`));
        assert.match(
          bare.stderr,
          new RegExp(
            `cannot delete DaemonSet-managed Pods \\(use --ignore-daemonsets to ignore\\): c10/${agentPod}`,
          ),
        );
        assert.match(
          bare.stderr,
          new RegExp(
            `cannot delete Pods with local storage \\(use --delete-emptydir-data to override\\): c10/${cachePod}`,
          ),
        );
        assert.match(
          bare.stderr,
          /cannot delete Pods that declare no controller \(use --force to override\): c10\/bare/,
        );
        assert.match(await env.ok(['get', 'node', node2]), /Ready,SchedulingDisabled/);

        const noForce = await env.k([
          'drain',
          node2,
          '--ignore-daemonsets',
          '--delete-emptydir-data',
          '--timeout=20s',
        ]);
        assert.equal(noForce.code, 1);
        assert.match(
          noForce.stderr,
          /cannot delete Pods that declare no controller \(use --force to override\): c10\/bare/,
        );
        assert.doesNotMatch(noForce.stderr, /use --ignore-daemonsets|use --delete-emptydir-data/);

        const drained = await env.k([
          'drain',
          node2,
          '--ignore-daemonsets',
          '--delete-emptydir-data',
          '--force',
          '--timeout=30s',
        ]);
        const shown = drained.stdout + drained.stderr;
        assert.equal(drained.code, 0, shown);
        // One warning line; kubectl joins its parts with "; " in map order.
        assert.match(shown, new RegExp(`^Warning: .*ignoring DaemonSet-managed Pods: c10/${agentPod}`, 'm'));
        assert.match(shown, /^Warning: .*deleting Pods that declare no controller: c10\/bare(;|$)/m);
        assert.match(shown, /^evicting pod c10\/bare$/m);
        assert.match(shown, /^pod\/bare evicted$/m);
        assert.match(shown, new RegExp(`^pod/${cachePod} evicted$`, 'm'));
        assert.match(shown, new RegExp(`^node/${node2} drained$`, 'm'));
        const remaining = await env.ok([
          'get',
          'pods',
          '-A',
          '--field-selector',
          `spec.nodeName=${node2}`,
          '-o',
          'name',
        ]);
        assert.equal(remaining, `pod/${agentPod}\n`);
        await env.ok(['uncordon', node2]);

        // A budget that allows no disruption: drain retries every 5 s until the budget is relaxed.
        await env.ok(['apply', '-f', '-'], {
          input: [
            workload('Deployment', 'guarded', onNode2, { replicas: 2 }),
            {
              apiVersion: 'policy/v1',
              kind: 'PodDisruptionBudget',
              metadata: { name: 'guarded', namespace: 'c10' },
              spec: { minAvailable: 2, selector: { matchLabels: { app: 'guarded' } } },
            },
          ]
            .map((o) => JSON.stringify(o))
            .join('\n'),
        });
        await env.ok(['rollout', 'status', 'deploy/guarded', '-n', 'c10', '--timeout=30s']);
        await env.ok([
          'wait',
          '--for=jsonpath={.status.currentHealthy}=2',
          'pdb/guarded',
          '-n',
          'c10',
          '--timeout=30s',
        ]);
        const draining = env.k([
          'drain',
          node2,
          '--ignore-daemonsets',
          '--delete-emptydir-data',
          '--timeout=60s',
        ]);
        assert.ok(await stillPending(draining, 2000), 'drain finished although the budget forbids it');
        await env.ok([
          'patch',
          'pdb',
          'guarded',
          '-n',
          'c10',
          '--type=merge',
          '-p',
          '{"spec":{"minAvailable":0}}',
        ]);
        const guarded = await draining;
        const text = guarded.stdout + guarded.stderr;
        assert.equal(guarded.code, 0, text);
        assert.match(
          guarded.stderr,
          /error when evicting pods\/"guarded-[^"]+" -n "c10" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
        );
        assert.match(text, /^pod\/guarded-\S+ evicted$/m);
        assert.match(text, new RegExp(`^node/${node2} drained$`, 'm'));
        await env.ok(['uncordon', node2]);
      });

      test('11. create, scale and set image on a Deployment; rollout status follows', async () => {
        await env.ok(['create', 'namespace', 'c11']);
        assert.equal(
          await env.ok(['create', 'deployment', 'web', '-n', 'c11', '--image=nginx:1.27']),
          'deployment.apps/web created\n',
        );
        assert.equal(
          await env.ok(['scale', 'deploy/web', '-n', 'c11', '--replicas=5']),
          'deployment.apps/web scaled\n',
        );
        const status = await env.ok(['rollout', 'status', 'deploy/web', '-n', 'c11', '--timeout=60s']);
        assert.match(status, /deployment "web" successfully rolled out\n$/);
        assert.match(await env.ok(['get', 'deploy', 'web', '-n', 'c11']), /^web\s+5\/5\s+5\s+5\s/m);
        const firstRs = (
          await env.ok([
            'get',
            'rs',
            '-n',
            'c11',
            '-l',
            'app=web',
            '-o',
            'jsonpath={.items[*].metadata.name}',
          ])
        ).trim();

        assert.equal(
          await env.ok(['set', 'image', 'deploy/web', '-n', 'c11', 'nginx=nginx:1.28']),
          'deployment.apps/web image updated\n',
        );
        const rolled = await env.ok(['rollout', 'status', 'deploy/web', '-n', 'c11', '--timeout=60s']);
        assert.match(rolled, /deployment "web" successfully rolled out\n$/);
        const sets = JSON.parse(await env.ok(['get', 'rs', '-n', 'c11', '-l', 'app=web', '-o', 'json'])) as {
          items: {
            metadata: { name: string; annotations: Record<string, string> };
            spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
          }[];
        };
        assert.equal(sets.items.length, 2);
        const next = sets.items.find((rs) => rs.metadata.name !== firstRs)!;
        assert.ok(next, `a new ReplicaSet next to ${firstRs}`);
        assert.equal(next.spec.replicas, 5);
        assert.equal(next.spec.template.spec.containers[0]!.image, 'nginx:1.28');
        assert.equal(next.metadata.annotations['deployment.kubernetes.io/revision'], '2');
        assert.equal(sets.items.find((rs) => rs.metadata.name === firstRs)!.spec.replicas, 0);
        // Old pods may still be terminating; every live pod runs the new image.
        const pods = JSON.parse(
          await env.ok(['get', 'pods', '-n', 'c11', '-l', 'app=web', '-o', 'json']),
        ) as {
          items: { metadata: { deletionTimestamp?: string }; spec: { containers: { image: string }[] } }[];
        };
        const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
        assert.deepEqual(
          live.map((p) => p.spec.containers[0]!.image),
          Array(5).fill('nginx:1.28'),
        );
      });

      test('12. a CRD: printer columns, short name, merge-patch update, deleted from discovery', async () => {
        await env.ok(['create', 'namespace', 'c12']);
        const crd = env.file(
          'c12-crd.yaml',
          `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.c12.example.com
spec:
  group: c12.example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, shortNames: [wd] }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
                color: { type: string }
      additionalPrinterColumns:
        - { name: Size, type: integer, jsonPath: .spec.size }
        - { name: Color, type: string, jsonPath: .spec.color }
        - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
`,
        );
        assert.equal(
          await env.ok(['apply', '-f', crd]),
          'customresourcedefinition.apiextensions.k8s.io/widgets.c12.example.com created\n',
        );
        await env.ok(['wait', '--for=condition=Established', 'crd/widgets.c12.example.com', '--timeout=30s']);
        const widget = (size: number) =>
          `apiVersion: c12.example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: c12\nspec:\n  size: ${size}\n  color: blue\n`;
        assert.equal(
          await env.ok(['apply', '-f', env.file('c12-w1.yaml', widget(3))]),
          'widget.c12.example.com/w1 created\n',
        );
        const listed = await env.ok(['get', 'widgets', '-n', 'c12']);
        assert.match(listed, /^NAME\s+SIZE\s+COLOR\s+AGE\s*$/m);
        assert.match(listed, /^w1\s+3\s+blue\s+\S+\s*$/m);
        assert.match(await env.ok(['get', 'wd', '-n', 'c12']), /^w1\s+3\s+blue\s+\S+\s*$/m);

        const updated = await env.k(['apply', '-f', env.file('c12-w1b.yaml', widget(5)), '-v=8']);
        assert.equal(updated.code, 0, updated.stderr);
        assert.equal(updated.stdout, 'widget.c12.example.com/w1 configured\n');
        assert.match(updated.stderr, /application\/merge-patch\+json/);
        assert.doesNotMatch(updated.stderr, /strategic-merge-patch/);
        assert.match(await env.ok(['get', 'wd', 'w1', '-n', 'c12']), /^w1\s+5\s+blue\s/m);

        const removed = await env.ok(['delete', 'crd', 'widgets.c12.example.com']);
        assert.match(
          removed,
          /customresourcedefinition\.apiextensions\.k8s\.io "widgets\.c12\.example\.com" deleted/,
        );
        const group = await env.k(['get', '--raw', '/apis/c12.example.com/v1']);
        assert.equal(group.code, 1);
        assert.match(group.stderr, /NotFound|could not find the requested resource/);
        // api-resources refreshes kubectl's discovery cache; then the type is unknown.
        assert.doesNotMatch(await env.ok(['api-resources']), /c12\.example\.com|^widgets\s/m);
        const missing = await env.k(['get', 'widgets', '-n', 'c12']);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /the server doesn't have a resource type "widgets"/);
      });

      test('13. logs, describe, create ns, auth can-i, auth whoami, cluster-info', async () => {
        assert.equal(await env.ok(['create', 'ns', 'c13']), 'namespace/c13 created\n');
        await env.ok(['run', 'l13', '-n', 'c13', '--image=nginx:1.27']);
        await env.ok(['wait', '--for=condition=Ready', 'pod/l13', '-n', 'c13', '--timeout=30s']);
        const logs = await env.ok(['logs', 'l13', '-n', 'c13']);
        assert.match(logs, /started from image nginx:1\.27/);
        assert.match(logs, /pod c13\/l13 is running/);

        const describedPod = await env.ok(['describe', 'pod', 'l13', '-n', 'c13']);
        assert.match(describedPod, /^Name:\s+l13$/m);
        assert.match(describedPod, /^Namespace:\s+c13$/m);
        assert.match(describedPod, /^Status:\s+Running$/m);
        assert.match(describedPod, /^Conditions:\n\s+Type\s+Status\n/m);
        assert.match(describedPod, /^\s+Ready\s+True\s*$/m);
        assert.match(describedPod, /^Events:/m);

        const node1 = env.node(1);
        const describedNode = await env.k(['describe', 'node', node1]);
        assert.equal(describedNode.code, 0, describedNode.stderr);
        assert.match(describedNode.stdout, new RegExp(`^Name:\\s+${node1}$`, 'm'));
        assert.match(describedNode.stdout, /^Conditions:\n/m);
        assert.match(describedNode.stdout, /^\s+Ready\s+True\s/m);
        assert.match(describedNode.stdout, /^Addresses:\n\s+InternalIP:\s+172\.18\.0\.2$/m);
        assert.match(describedNode.stdout, /^Events:/m);

        assert.equal(await env.ok(['auth', 'can-i', 'get', 'pods']), 'yes\n');
        assert.equal(await env.ok(['auth', 'can-i', 'delete', 'nodes']), 'yes\n');
        const whoami = await env.ok(['auth', 'whoami']);
        assert.match(whoami, /^ATTRIBUTE\s+VALUE\s*$/m);
        assert.match(whoami, /^Username\s+system:admin\s*$/m);
        assert.match(whoami, /^Groups\s+\[system:masters system:authenticated\]\s*$/m);

        const info = await env.ok(['cluster-info']);
        assert.match(info, /Kubernetes control plane\S* is running at \S*https:\/\/127\.0\.0\.1:\d+/);
      });
    });
  }
});
