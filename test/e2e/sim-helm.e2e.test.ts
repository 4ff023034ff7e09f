// The real helm 3.17 and helm 4.1 manage `helm create` charts on simulated clusters (research §10.14–17,
// §11.5): lifecycle, release storage, --wait with and without runnable pods, hooks, CRDs, SSA and interop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseSimArgs, startSim, type RunningSim } from '../../src/cli/sim.js';
import { scratchDir } from '../support/hub.js';
import { kubectl, kubectlOk, run, toolPath, type Generation, type RunResult } from '../support/tools.js';

const dir = scratchDir('fleethub-sim-helm-');
const running: RunningSim[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.close()));
});

/** A chart with a CRD in `crds/` and a custom resource of it in `templates/`. */
function writeCrdChart(path: string): void {
  mkdirSync(join(path, 'crds'), { recursive: true });
  mkdirSync(join(path, 'templates'), { recursive: true });
  writeFileSync(join(path, 'Chart.yaml'), 'apiVersion: v2\nname: widgets\nversion: 0.1.0\n');
  writeFileSync(join(path, 'values.yaml'), 'size: 3\n');
  writeFileSync(
    join(path, 'crds', 'widgets.yaml'),
    [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      '  name: widgets.example.com',
      'spec:',
      '  group: example.com',
      '  scope: Namespaced',
      '  names: { plural: widgets, singular: widget, kind: Widget, shortNames: [wd] }',
      '  versions:',
      '    - name: v1',
      '      served: true',
      '      storage: true',
      '      schema:',
      '        openAPIV3Schema:',
      '          type: object',
      '          properties:',
      '            spec:',
      '              type: object',
      '              properties:',
      '                size: { type: integer }',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(path, 'templates', 'widget.yaml'),
    [
      'apiVersion: example.com/v1',
      'kind: Widget',
      'metadata:',
      '  name: {{ .Release.Name }}-widget',
      'spec:',
      '  size: {{ .Values.size }}',
      '',
    ].join('\n'),
  );
}

interface Release {
  name: string;
  version: number;
  info: { status: string };
  apply_method?: string;
}

/** One simulated cluster for one helm generation, with a log of the requests it served. */
class HelmOnSim {
  kubeconfig = '';
  chart = '';
  crdChart = '';
  /** `METHOD url content-type` of every request, in arrival order. */
  readonly requests: string[] = [];

  constructor(readonly gen: Generation) {}

  async start(): Promise<void> {
    const work = join(dir, this.gen);
    mkdirSync(work, { recursive: true });
    this.kubeconfig = join(work, 'kubeconfig');
    const sim = await startSim(
      parseSimArgs([
        'cluster',
        '--listen',
        '127.0.0.1:0',
        '--kubeconfig-out',
        this.kubeconfig,
        '--name',
        `helm-${this.gen}`,
      ]),
    );
    running.push(sim);
    const cluster = sim.clusters[0]!;
    const handle = cluster.handle;
    cluster.handle = (req, res, path) => {
      this.requests.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? ''}`);
      return handle(req, res, path);
    };
    await this.helmOk(['create', join(work, 'chart')]);
    this.chart = join(work, 'chart');
    this.crdChart = join(work, 'widgets');
    writeCrdChart(this.crdChart);
  }

  /** Runs helm of `binary` (default: this cluster's generation) with its own config, cache and data dirs. */
  helm(args: string[], binary: Generation = this.gen): Promise<RunResult> {
    const home = join(dir, `helm-home-${this.gen}-${binary}`);
    return run(toolPath(binary, 'helm'), args, {
      kubeconfig: this.kubeconfig,
      env: {
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
  }

  async helmOk(args: string[], binary: Generation = this.gen): Promise<string> {
    const r = await this.helm(args, binary);
    assert.equal(r.code, 0, `helm ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  }

  kubectl(args: string[]): Promise<string> {
    return kubectlOk(this.gen, this.kubeconfig, args);
  }

  /** The requests served while `fn` ran. */
  async requestsDuring(fn: () => Promise<unknown>): Promise<string[]> {
    const mark = this.requests.length;
    await fn();
    return this.requests.slice(mark);
  }

  async release(ns: string, name: string, revision: number): Promise<Release> {
    const secret = JSON.parse(
      await this.kubectl([
        '-n',
        ns,
        'get',
        'secret',
        `sh.helm.release.v1.${name}.v${revision}`,
        '-o',
        'json',
      ]),
    ) as { type: string; data: { release: string }; metadata: { labels: Record<string, string> } };
    assert.equal(secret.type, 'helm.sh/release.v1');
    assert.equal(secret.metadata.labels['owner'], 'helm');
    assert.equal(secret.metadata.labels['name'], name);
    assert.equal(secret.metadata.labels['version'], String(revision));
    const gzipped = Buffer.from(Buffer.from(secret.data.release, 'base64').toString('latin1'), 'base64');
    assert.deepEqual([...gzipped.subarray(0, 3)], [0x1f, 0x8b, 0x08], 'gzip magic');
    const release = JSON.parse(gunzipSync(gzipped).toString('utf8')) as Release;
    assert.equal(release.info.status, secret.metadata.labels['status']);
    return release;
  }

  /** Polls `kubectl get … -o jsonpath` until it prints `want` (controllers act asynchronously). */
  async eventually(args: string[], want: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let got = '';
    for (;;) {
      got = (await kubectl(this.gen, this.kubeconfig, args)).stdout.trim();
      if (got === want) return;
      if (Date.now() > deadline) assert.fail(`kubectl ${args.join(' ')}: wanted "${want}", got "${got}"`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const helm4 = (gen: Generation) => gen === 'v35';

describe('helm on simulated clusters', { concurrency: 2 }, () => {
  for (const gen of ['v31', 'v35'] as Generation[]) {
    describe(helm4(gen) ? 'helm 4.1' : 'helm 3.17', { concurrency: 1 }, () => {
      const h = new HelmOnSim(gen);
      before(() => h.start());

      test('§10.14 install, list, list -A, status, history', async () => {
        assert.match(await h.helmOk(['install', 'r', h.chart]), /STATUS: deployed/);
        assert.match(await h.helmOk(['list']), /^r\s+default\s+1\s+.*deployed\s+chart-0\.1\.0/m);
        assert.match(await h.helmOk(['list', '-A']), /^r\s+default\s+1\s+.*deployed/m);
        const status = await h.helmOk(['status', 'r']);
        assert.match(status, /STATUS: deployed/);
        assert.match(status, /REVISION: 1/);
        if (helm4(gen)) {
          // §11.5: helm 4 prints the release's objects through Table GETs.
          assert.match(status, /RESOURCES:/);
          assert.match(status, /==> v1\/Deployment\nNAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nr-chart\s/);
          assert.match(status, /==> v1\/Service\nNAME\s+TYPE\s+CLUSTER-IP/);
          assert.match(status, /==> v1\/ServiceAccount\n/);
        } else assert.doesNotMatch(status, /RESOURCES:/);
        assert.match(
          await h.helmOk(['history', 'r']),
          /^1\s+.*deployed\s+chart-0\.1\.0\s+.*Install complete/m,
        );
        const names = await h.kubectl([
          'get',
          'deploy,svc,sa',
          '-l',
          'app.kubernetes.io/instance=r',
          '-o',
          'name',
        ]);
        assert.deepEqual(names.trim().split('\n').sort(), [
          'deployment.apps/r-chart',
          'service/r-chart',
          'serviceaccount/r-chart',
        ]);
      });

      test('§10.14 upgrade --set replicaCount=2, then rollback r 1', async () => {
        const upgrade = await h.requestsDuring(() =>
          h.helmOk(['upgrade', 'r', h.chart, '--set', 'replicaCount=2']),
        );
        const replicas = ['get', 'deploy', 'r-chart', '-o', 'jsonpath={.spec.replicas}'];
        assert.equal(await h.kubectl(replicas), '2');
        const patches = upgrade.filter((r) => r.startsWith('PATCH '));
        if (helm4(gen)) {
          // Server-side apply of every chart object, field manager helm.
          assert.ok(patches.length >= 3, patches.join('\n'));
          for (const p of patches) assert.match(p, /fieldManager=helm.*application\/apply-patch\+yaml$/);
        } else {
          // The 3-way strategic merge patch touches only the Deployment.
          assert.equal(patches.length, 1, patches.join('\n'));
          assert.match(
            patches[0]!,
            /^PATCH \/apis\/apps\/v1\/namespaces\/default\/deployments\/r-chart\?fieldManager=helm application\/strategic-merge-patch\+json$/,
          );
        }
        await h.eventually(['get', 'deploy', 'r-chart', '-o', 'jsonpath={.status.readyReplicas}'], '2');
        assert.match(await h.helmOk(['rollback', 'r', '1']), /Rollback was a success/);
        assert.equal(await h.kubectl(replicas), '1');
        const history = await h.helmOk(['history', 'r']);
        assert.match(history, /^1\s+.*superseded/m);
        assert.match(history, /^2\s+.*superseded\s+.*Upgrade complete/m);
        assert.match(history, /^3\s+.*deployed\s+.*Rollback to 1/m);
      });

      test('§10.17 the release Secrets decode (base64, base64, gunzip, JSON) to the releases', async () => {
        const v1 = await h.release('default', 'r', 1);
        assert.equal(v1.name, 'r');
        assert.equal(v1.version, 1);
        assert.equal(v1.info.status, 'superseded');
        const v3 = await h.release('default', 'r', 3);
        assert.equal(v3.name, 'r');
        assert.equal(v3.version, 3);
        assert.equal(v3.info.status, 'deployed');
        if (helm4(gen)) assert.equal(v3.apply_method, 'ssa');
      });

      test('§10.16 helm test r: the test hook pod runs to completion', async () => {
        const out = await h.helmOk(['test', 'r']);
        assert.match(out, /TEST SUITE:\s+r-chart-test-connection/);
        assert.match(out, /Phase:\s+Succeeded/);
        assert.equal(
          await h.kubectl(['get', 'pod', 'r-chart-test-connection', '-o', 'jsonpath={.status.phase}']),
          'Succeeded',
        );
      });

      test('§10.14 uninstall removes the release Secrets and the chart objects', async () => {
        assert.match(await h.helmOk(['uninstall', 'r']), /release "r" uninstalled/);
        assert.equal(await h.kubectl(['get', 'secrets', '-l', 'owner=helm,name=r', '-o', 'name']), '');
        assert.doesNotMatch(await h.kubectl(['get', 'secrets', '-o', 'name']), /sh\.helm\.release\.v1\.r\./);
        const instance = ['-l', 'app.kubernetes.io/instance=r', '-o', 'name'];
        assert.equal(await h.kubectl(['get', 'deploy,svc,sa', ...instance]), '');
        // The ReplicaSet and its pods go through the garbage collector; the test hook pod is not part of
        // the release manifest and stays, as on a real cluster.
        await h.eventually(['get', 'rs', ...instance], '');
        await h.eventually(
          ['get', 'pods', '-o', 'jsonpath={.items[*].metadata.name}'],
          'r-chart-test-connection',
        );
        assert.equal(await h.helmOk(['list', '-A', '-q']), '');
      });

      test('§10.15 install --wait --timeout 60s -n team1 --create-namespace', async () => {
        const out = await h.helmOk([
          'install',
          'w',
          h.chart,
          '--wait',
          '--timeout',
          '60s',
          '-n',
          'team1',
          '--create-namespace',
        ]);
        assert.match(out, /STATUS: deployed/);
        assert.equal(
          await h.kubectl([
            '-n',
            'team1',
            'get',
            'deploy',
            'w-chart',
            '-o',
            'jsonpath={.status.readyReplicas}',
          ]),
          '1',
        );
        if (helm4(gen)) {
          // helm 4's `--wait` is kstatus (`watcher`); `legacy` is helm 3's ReadyChecker.
          const legacy = await h.helmOk([
            'install',
            'wl',
            h.chart,
            '--wait=legacy',
            '--timeout',
            '60s',
            '-n',
            'team2',
            '--create-namespace',
          ]);
          assert.match(legacy, /STATUS: deployed/);
        }
      });

      test('§10.16 a chart with crds/ and a CR template; upgrade --install', async () => {
        const install = await h.requestsDuring(() =>
          h.helmOk(['install', 'cw', h.crdChart, '-n', 'crd', '--create-namespace']),
        );
        const write = /^(POST|PATCH|PUT) /;
        const crdWrite = install.findIndex((r) => write.test(r) && r.includes('/customresourcedefinitions'));
        const crWrite = install.findIndex((r) => write.test(r) && r.includes('/apis/example.com/v1/'));
        assert.ok(
          crdWrite >= 0 && crWrite > crdWrite,
          `the CRD is written before its CR:\n${install.join('\n')}`,
        );
        // Between the two helm waits for Established and rediscovers the new group.
        assert.ok(
          install.slice(crdWrite, crWrite).some((r) => /^GET \/apis(\?| )/.test(r)),
          install.join('\n'),
        );
        assert.equal(
          await h.kubectl([
            'get',
            'crd',
            'widgets.example.com',
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Established")].status}',
          ]),
          'True',
        );
        const size = ['-n', 'crd', 'get', 'widget', 'cw-widget', '-o', 'jsonpath={.spec.size}'];
        assert.equal(await h.kubectl(size), '3');
        assert.match(
          await h.helmOk(['upgrade', '--install', 'cw', h.crdChart, '-n', 'crd', '--set', 'size=5']),
          /REVISION: 2/,
        );
        assert.equal(await h.kubectl(size), '5');
        const fresh = await h.helmOk([
          'upgrade',
          '--install',
          'fresh',
          h.crdChart,
          '-n',
          'crd2',
          '--create-namespace',
        ]);
        assert.match(fresh, /Release "fresh" does not exist\. Installing it now\./);
        assert.match(fresh, /REVISION: 1/);
        assert.equal(
          await h.kubectl(['-n', 'crd2', 'get', 'wd', 'fresh-widget', '-o', 'jsonpath={.spec.size}']),
          '3',
        );
      });

      if (helm4(gen)) {
        test('§11.5 an SSA upgrade conflicts with a kubectl patch of the same field', async () => {
          await h.helmOk(['install', 's', h.chart, '-n', 'ssa', '--create-namespace']);
          await h.kubectl([
            '-n',
            'ssa',
            'patch',
            'deploy',
            's-chart',
            '--type=merge',
            '-p',
            '{"spec":{"replicas":3}}',
          ]);
          const r = await h.helm(['upgrade', 's', h.chart, '-n', 'ssa', '--set', 'replicaCount=2']);
          assert.notEqual(r.code, 0);
          assert.match(
            r.stderr,
            /UPGRADE FAILED: conflict occurred while applying object ssa\/s-chart apps\/v1, Kind=Deployment: Apply failed with 1 conflict: conflict with "kubectl-patch" using apps\/v1: \.spec\.replicas/,
          );
          assert.equal(
            await h.kubectl(['-n', 'ssa', 'get', 'deploy', 's-chart', '-o', 'jsonpath={.spec.replicas}']),
            '3',
          );
          assert.equal((await h.release('ssa', 's', 2)).info.status, 'failed');
        });

        test('§11.5 a release installed by helm 3 upgrades with helm 4 (client-side apply)', async () => {
          await h.helmOk(['install', 'x', h.chart, '-n', 'interop', '--create-namespace'], 'v31');
          assert.match(await h.helmOk(['list', '-n', 'interop']), /^x\s+interop\s+1\s+.*deployed/m);
          const upgrade = await h.requestsDuring(() =>
            h.helmOk(['upgrade', 'x', h.chart, '-n', 'interop', '--set', 'replicaCount=2']),
          );
          const patches = upgrade.filter((r) => r.startsWith('PATCH '));
          assert.equal(patches.length, 1, patches.join('\n'));
          assert.match(
            patches[0]!,
            /\/deployments\/x-chart\?fieldManager=helm application\/strategic-merge-patch\+json$/,
          );
          assert.equal(
            await h.kubectl(['-n', 'interop', 'get', 'deploy', 'x-chart', '-o', 'jsonpath={.spec.replicas}']),
            '2',
          );
          const v2 = await h.release('interop', 'x', 2);
          assert.equal(v2.info.status, 'deployed');
          assert.equal(v2.apply_method, 'csa');
          assert.match(await h.helmOk(['history', 'x', '-n', 'interop'], 'v31'), /^2\s+.*deployed/m);
        });
      }

      // Last: it leaves every node cordoned until it ends.
      test('§10.15 --wait --timeout 10s fails when no pod can run (all nodes cordoned)', async () => {
        await h.kubectl(['cordon', '-l', 'kubernetes.io/os=linux']);
        try {
          const attempts = await Promise.all(
            (helm4(gen) ? ['--wait', '--wait=legacy'] : ['--wait']).map((wait, i) =>
              h.helm([
                'install',
                `stuck${i}`,
                h.chart,
                wait,
                '--timeout',
                '10s',
                '-n',
                `stuck${i}`,
                '--create-namespace',
              ]),
            ),
          );
          for (const [i, r] of attempts.entries()) {
            assert.notEqual(r.code, 0, r.stdout);
            assert.match(r.stderr, /INSTALLATION FAILED: .*context deadline exceeded/s);
            if (helm4(gen) && i === 0)
              assert.match(
                r.stderr,
                /resource Deployment\/stuck0\/stuck0-chart not ready\. status: InProgress/,
              );
            assert.match(await h.helmOk(['history', `stuck${i}`, '-n', `stuck${i}`]), /^1\s+.*failed/m);
          }
          assert.equal(
            await h.kubectl(['-n', 'stuck0', 'get', 'pods', '-o', 'jsonpath={.items[*].status.phase}']),
            'Pending',
          );
        } finally {
          await h.kubectl(['uncordon', '-l', 'kubernetes.io/os=linux']);
        }
      });
    });
  }
});
