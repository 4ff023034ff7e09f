// Whole-chart rendering checked byte for byte against what `helm template r <chart> -n ns` printed
// (helm 4.1.4) for the `helm create` chart, with its default values and with every option switched on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChart, loadChartDir, type Chart } from './chart.js';
import { renderChart, splitManifests } from './render.js';
import { readValues } from './render-template.js';

/** A chart built from in-memory files, the way the loader builds one from a directory. */
function makeChart(
  chartYaml: string,
  templates: Map<string, string>,
  files: Record<string, string> = {},
): Chart {
  const all = new Map<string, Buffer>([['Chart.yaml', Buffer.from(chartYaml)]]);
  for (const [name, text] of templates) all.set(name, Buffer.from(text));
  for (const [name, text] of Object.entries(files)) all.set(name, Buffer.from(text));
  return buildChart(all);
}

const CHARTS = join(fileURLToPath(new URL('../../..', import.meta.url)), 'test', 'gotemplate', 'charts');

test('the demo chart with its default values renders as helm template does', () => {
  const chart = loadChartDir(join(CHARTS, 'demo'));
  const expected = readFileSync(join(CHARTS, 'demo.expected.yaml'), 'utf8');
  assert.equal(renderChart(chart, { releaseName: 'r', namespace: 'ns' }), expected);
});

test('the demo chart with every option switched on renders as helm template does', () => {
  const chart = loadChartDir(join(CHARTS, 'demo'));
  const values = readValues(readFileSync(join(CHARTS, 'demo-values-full.yaml'), 'utf8'));
  const expected = readFileSync(join(CHARTS, 'demo-values-full.expected.yaml'), 'utf8');
  assert.equal(renderChart(chart, { releaseName: 'r', namespace: 'ns', values }), expected);
});

test('the loaded chart keeps every template, helpers included, and its other files', () => {
  const chart = loadChartDir(join(CHARTS, 'demo'));
  assert.ok(chart.templates.has('templates/_helpers.tpl'));
  assert.ok(chart.templates.has('templates/tests/test-connection.yaml'));
  assert.ok(chart.templates.has('templates/NOTES.txt'));
  assert.equal(chart.metadata.name, 'demo');
  assert.ok(chart.files.has('.helmignore'));
  assert.ok(!chart.files.has('Chart.yaml') && !chart.files.has('values.yaml'));
});

// As helm's regexp does: a separator's trailing blanks swallow the newline before a second `---`, which
// then stays in the next document (helm 4.1.4 prints it so).
test('manifests split on document separators, trimmed, empty documents dropped', () => {
  assert.deepEqual(splitManifests('\n---\na: 1\n---\n\n---   \nb: 2\n  \n'), ['a: 1', '---   \nb: 2']);
});

// Output of `helm template r ./ord -n ns` (helm 4.1.4) for the chart below: kinds in install order, files
// in path order within a kind, unknown kinds last by name, hooks after the rest, NOTES.txt left out.
const ORD_EXPECTED =
  '---\n# Source: ord/templates/sub/c.yaml\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\n# Source: ord/templates/a.yaml\nkind: ConfigMap\nmetadata:\n  name: a-cm\ndata:\n  has: "true"\n  nohas: "false"\n  kube: "v1.35.0"\n  type: "application"\n  tpl: "ord/templates/a.yaml"\n  base: "ord/templates"\n  missing: ""\n---\n# Source: ord/templates/b.yaml\n---\nkind: ConfigMap\nmetadata:\n  name: b-cm\n---\n# Source: ord/templates/b.yaml\nkind: Alpha\nmetadata:\n  name: al\n---\n# Source: ord/templates/a.yaml\nkind: Zeta\nmetadata:\n  name: z\n---\n# Source: ord/templates/sub/c.yaml\nkind: Pod\nmetadata:\n  name: hookpod\n  annotations:\n    helm.sh/hook: test\n---\n# Source: ord/templates/a.yaml\nkind: Job\nmetadata:\n  name: hook\n  annotations:\n    helm.sh/hook: pre-install\n';

test('manifests come out in helm install order, hooks last, with helm built-in objects', () => {
  const templates = new Map<string, string>([
    [
      'templates/a.yaml',
      'kind: Zeta\nmetadata:\n  name: z\n---\nkind: ConfigMap\nmetadata:\n  name: a-cm\ndata:\n  has: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}\n  nohas: {{ .Capabilities.APIVersions.Has "nope/v9" | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  type: {{ .Chart.Type | quote }}\n  tpl: {{ .Template.Name | quote }}\n  base: {{ .Template.BasePath | quote }}\n  missing: "{{ .Values.nothing }}"\n---\nkind: Job\nmetadata:\n  name: hook\n  annotations:\n    helm.sh/hook: pre-install\n',
    ],
    [
      'templates/b.yaml',
      'kind: Alpha\nmetadata:\n  name: al\n---\n---\nkind: ConfigMap\nmetadata:\n  name: b-cm\n',
    ],
    [
      'templates/sub/c.yaml',
      'kind: ServiceAccount\nmetadata:\n  name: sa\n---\nkind: Pod\nmetadata:\n  name: hookpod\n  annotations:\n    helm.sh/hook: test\n',
    ],
    ['templates/NOTES.txt', 'notes {{ .Release.Name }}\n'],
  ]);
  const chart = makeChart(
    'apiVersion: v2\nname: ord\nversion: 0.2.0\ndescription: d\ntype: application\n',
    templates,
    {
      'values.yaml': 'x: 1\n',
    },
  );
  assert.equal(renderChart(chart, { releaseName: 'r', namespace: 'ns' }), ORD_EXPECTED);
});

// Output of `helm template r ./kv -n ns` (helm 4.1.4): the shapes of .Chart, .Capabilities, .Files, .Template.
const KV_EXPECTED =
  '---\n# Source: kv/templates/x.yaml\nkv: "{v1.35.0 v1.35.0 1 35}"\nkt: "common.KubeVersion"\nmaj: "1"\ngv: "v1.35.0"\nav: "common.VersionSet"\nhv: "v4.1.4"\nch: "map[string]interface {}"\nkeys: ["APIVersion","Annotations","AppVersion","Condition","Dependencies","Deprecated","Description","Home","Icon","IsRoot","Keywords","KubeVersion","Maintainers","Name","Sources","Tags","Type","Version"]\nchart: {"APIVersion":"v2","Annotations":null,"AppVersion":"1.0","Condition":"","Dependencies":[],"Deprecated":false,"Description":"hi","Home":"","Icon":"","IsRoot":true,"Keywords":["a"],"KubeVersion":"","Maintainers":[],"Name":"kv","Sources":[],"Tags":"","Type":"","Version":"0.1.0"}\nrel: "map[IsInstall:true IsUpgrade:false Name:r Namespace:ns Revision:1 Service:Helm]"\ntk: ["BasePath","Name"]\ntop: ["Capabilities","Chart","Files","Release","Subcharts","Template","Values"]\nfiles: engine.files\nget: "hello\\nworld\\n"\nlines: ["hello","world"]\nnolines: []\nsub: {}\nhas: false true\n';

test('built-in objects have the shapes helm 4 gives templates', () => {
  const chart = makeChart(
    'apiVersion: v2\nname: kv\nversion: 0.1.0\nappVersion: "1.0"\ndescription: hi\nkeywords: [a]\n',
    new Map([
      [
        'templates/x.yaml',
        'kv: {{ .Capabilities.KubeVersion | quote }}\nkt: {{ typeOf .Capabilities.KubeVersion | quote }}\nmaj: {{ .Capabilities.KubeVersion.Major | quote }}\ngv: {{ .Capabilities.KubeVersion.GitVersion | quote }}\nav: {{ typeOf .Capabilities.APIVersions | quote }}\nhv: {{ .Capabilities.HelmVersion.Version | quote }}\nch: {{ typeOf .Chart | quote }}\nkeys: {{ keys .Chart | sortAlpha | toJson }}\nchart: {{ .Chart | toJson }}\nrel: {{ .Release | quote }}\ntk: {{ keys .Template | sortAlpha | toJson }}\ntop: {{ keys . | sortAlpha | toJson }}\nfiles: {{ typeOf .Files }}\nget: {{ .Files.Get "data.txt" | quote }}\nlines: {{ .Files.Lines "data.txt" | toJson }}\nnolines: {{ .Files.Lines "none.txt" | toJson }}\nsub: {{ .Subcharts | toJson }}\nhas: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" }} {{ .Capabilities.APIVersions.Has "policy/v1" }}\n',
      ],
    ]),
    { 'data.txt': 'hello\nworld\n' },
  );
  assert.equal(renderChart(chart, { releaseName: 'r', namespace: 'ns' }), KV_EXPECTED);
});

// Output of `helm template r ./hk -n ns` (helm 4.1.4): hooks ordered by kind, not weight; a hook naming no
// known event is dropped; a document that is only a comment is still printed.
const HK_EXPECTED =
  '---\n# Source: hk/templates/b.yaml\n# just a comment\n---\n# Source: hk/templates/a.yaml\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: "-5"\n---\n# Source: hk/templates/a.yaml\nkind: Job\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "5"\n---\n# Source: hk/templates/b.yaml\nkind: Job\nmetadata:\n  name: d\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "-10"\n';

test('hooks are ordered by kind and unknown hook events are dropped', () => {
  const chart = makeChart(
    'apiVersion: v2\nname: hk\nversion: 0.1.0\n',
    new Map([
      [
        'templates/a.yaml',
        'kind: Job\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "5"\n---\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    helm.sh/hook: post-install\n    helm.sh/hook-weight: "-5"\n---\nkind: Widget\nmetadata:\n  name: c\n  annotations:\n    helm.sh/hook: ""\n',
      ],
      [
        'templates/b.yaml',
        '# just a comment\n---\nkind: Job\nmetadata:\n  name: d\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "-10"\n',
      ],
    ]),
  );
  assert.equal(renderChart(chart, { releaseName: 'r', namespace: 'ns' }), HK_EXPECTED);
});
