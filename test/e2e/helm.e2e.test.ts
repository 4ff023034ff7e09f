// The real helm 4.1 (server-side apply, protobuf release Secrets) and helm 3.17 (client-side apply,
// strategic merge upgrades) manage a small chart on a hub: install, upgrade, rollback, list, uninstall.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HubProcess, scratchDir, startHubProcess } from '../support/hub.js';
import { kubectlOk, run, toolPath, type Generation } from '../support/tools.js';

let hub: HubProcess;
let chart: string;

before(async () => {
  hub = await startHubProcess();
  chart = scratchDir('fleethub-chart-');
  mkdirSync(join(chart, 'templates'));
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: settings\nversion: 0.1.0\n');
  writeFileSync(join(chart, 'values.yaml'), 'color: blue\nextra: true\n');
  writeFileSync(
    join(chart, 'templates', 'settings.yaml'),
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .Release.Name }}-settings',
      'data:',
      '  color: {{ .Values.color | quote }}',
      '  {{- if .Values.extra }}',
      '  extra: "yes"',
      '  {{- end }}',
      '---',
      'apiVersion: v1',
      'kind: ServiceAccount',
      'metadata:',
      '  name: {{ .Release.Name }}-sa',
      '',
    ].join('\n'),
  );
});

after(async () => {
  await hub?.stop();
});

for (const [gen, label] of [
  ['v35', 'helm 4.1'],
  ['v31', 'helm 3.17'],
] as [Generation, string][]) {
  void describe(label, () => {
    const ns = `helm-${gen}`;
    const release = `r-${gen}`;
    const helm = async (...args: string[]) => {
      const result = await run(toolPath(gen, 'helm'), [...args, '-n', ns], { kubeconfig: hub.kubeconfig });
      assert.equal(result.code, 0, `helm ${args.join(' ')}\n${result.stderr}`);
      return result.stdout;
    };
    const color = () =>
      kubectlOk('v35', hub.kubeconfig, [
        '-n',
        ns,
        'get',
        'configmap',
        `${release}-settings`,
        '-o',
        'jsonpath={.data.color}/{.data.extra}',
      ]);

    test('install into a new namespace, list and status', async () => {
      assert.match(await helm('install', release, chart, '--create-namespace'), /STATUS: deployed/);
      assert.equal(await color(), 'blue/yes');
      assert.match(await helm('list'), new RegExp(`${release}\\s+${ns}\\s+1\\s+.*deployed`));
      assert.match(await helm('status', release), /STATUS: deployed/);
      const secretType = await kubectlOk('v35', hub.kubeconfig, [
        '-n',
        ns,
        'get',
        'secret',
        `sh.helm.release.v1.${release}.v1`,
        '-o',
        'jsonpath={.type}',
      ]);
      assert.equal(secretType, 'helm.sh/release.v1');
    });

    test('upgrade changes and removes fields; rollback restores them', async () => {
      await helm('upgrade', release, chart, '--set', 'color=red', '--set', 'extra=false');
      assert.equal(await color(), 'red/', 'a field the chart no longer renders is removed');
      assert.match(await helm('history', release), /2\s+.*deployed/);
      await helm('rollback', release, '1');
      assert.equal(await color(), 'blue/yes');
    });

    test('uninstall removes the resources and the release records', async () => {
      await helm('uninstall', release);
      const left = await kubectlOk('v35', hub.kubeconfig, [
        '-n',
        ns,
        'get',
        'configmaps,serviceaccounts,secrets',
        '-o',
        'name',
      ]);
      assert.equal(left.trim(), '');
    });
  });
}
