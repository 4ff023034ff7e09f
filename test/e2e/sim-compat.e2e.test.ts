// Simulated clusters in the modes of kube-api-sim.md §10 checks 3, 6 and 17: legacy discovery only,
// no OpenAPI, and protobuf bodies refused — what the real clients do against such servers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSimArgs, startSim, type RunningSim } from '../../src/cli/sim.js';
import { scratchDir } from '../support/hub.js';
import { GENERATIONS, kubectl, run, toolPath } from '../support/tools.js';

const dir = scratchDir('fleethub-sim-compat-');
const running: RunningSim[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.close()));
});

async function sim(name: string, ...flags: string[]): Promise<string> {
  const kc = join(dir, `${name}.kubeconfig`);
  running.push(
    await startSim(
      parseSimArgs(['cluster', '--listen', '127.0.0.1:0', '--kubeconfig-out', kc, '--name', name, ...flags]),
    ),
  );
  return kc;
}

const configMap = join(dir, 'cm.yaml');
writeFileSync(configMap, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: compat\ndata:\n  a: b\n');

/** Group-version discovery documents a `kubectl get` fetched (the legacy mode's N+2 requests). */
function groupVersionFetches(stderr: string): number {
  // 1.31 logs `GET https://…/apis/g/v?timeout=32s 200 OK`, 1.35 `verb="GET" url="…/apis/g/v?…" status="200 OK"`.
  const groupVersion = /GET.*\/apis\/[^/?\s"]+\/[^/?\s"]+(\?[^\s"]*)?"?\s+(status=")?200/;
  return stderr.split('\n').filter((l) => groupVersion.test(l)).length;
}

for (const gen of GENERATIONS) {
  test(`kubectl ${gen}: legacy discovery works, one request per group version`, async () => {
    const [legacy, modern] = await Promise.all([
      sim(`legacy-${gen}`, '--legacy-discovery'),
      sim(`modern-${gen}`),
    ]);
    const args = ['get', 'pods', '-A', '-v=6', '--cache-dir', join(dir, `cache-${gen}-${Date.now()}`)];
    const old = await kubectl(gen, legacy, args);
    assert.equal(old.code, 0, old.stderr);
    const current = await kubectl(gen, modern, args);
    assert.equal(current.code, 0, current.stderr);
    assert.ok(groupVersionFetches(old.stderr) > 5, 'legacy discovery walks every group version');
    assert.equal(groupVersionFetches(current.stderr), 0, 'aggregated discovery needs no per-group requests');
  });

  test(`kubectl ${gen}: without OpenAPI, apply fails as on a real server unless validation is off`, async () => {
    const kc = await sim(`noopenapi-${gen}`, '--no-openapi');
    const strict = await kubectl(gen, kc, ['apply', '-f', configMap]);
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /failed to download openapi/);
    const relaxed = await kubectl(gen, kc, ['apply', '--validate=false', '-f', configMap]);
    assert.equal(relaxed.code, 0, relaxed.stderr);
    assert.match(relaxed.stdout, /configmap\/compat created/);
  });
}

test('protobuf bodies refused: kubectl 1.35 and helm fail, kubectl 1.31 (JSON) still works', async () => {
  const kc = await sim('noproto', '--reject-protobuf');
  const v35 = await kubectl('v35', kc, ['create', 'namespace', 'via-protobuf']);
  assert.notEqual(v35.code, 0);
  assert.match(v35.stderr, /the body of the request was in an unknown format/);
  const v31 = await kubectl('v31', kc, ['create', 'namespace', 'via-json']);
  assert.equal(v31.code, 0, v31.stderr);
  const home = join(dir, 'helm-home');
  const helm = (...args: string[]) =>
    run(toolPath('v35', 'helm'), args, {
      kubeconfig: kc,
      env: {
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
  const created = await helm('create', join(dir, 'chart'));
  assert.equal(created.code, 0, created.stderr);
  const install = await helm('install', 'r', join(dir, 'chart'));
  assert.notEqual(install.code, 0);
  assert.match(install.stderr, /the body of the request was in an unknown format/);
});

test('helm without OpenAPI: --disable-openapi-validation installs; template --validate checks a live cluster', async () => {
  const [bare, full] = await Promise.all([sim('helm-noopenapi', '--no-openapi'), sim('helm-validate')]);
  const home = join(dir, 'helm-home-2');
  const helm = (kc: string, ...args: string[]) =>
    run(toolPath('v35', 'helm'), args, {
      kubeconfig: kc,
      env: {
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
  const chart = join(dir, 'chart-2');
  assert.equal((await helm(full, 'create', chart)).code, 0);
  const strict = await helm(bare, 'install', 'r', chart);
  assert.notEqual(strict.code, 0);
  const relaxed = await helm(bare, 'install', 'r', chart, '--disable-openapi-validation');
  assert.equal(relaxed.code, 0, relaxed.stderr);
  assert.match(relaxed.stdout, /STATUS: deployed/);
  const validated = await helm(full, 'template', 'r', chart, '--validate');
  assert.equal(validated.code, 0, validated.stderr);
  assert.match(validated.stdout, /kind: Deployment/);
});
