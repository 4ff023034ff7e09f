// Stable renders: a chart calling randAlphaNum, uuidv4, genCA, genPrivateKey, now … renders the same
// objects for the same inputs in two fresh renderers and in a fresh process, and different ones when
// the inputs differ; the certificates are real and valid from the pinned instant.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../../apiserver/patch/json.js';
import { HelmFeatureRenderer, type HelmChartSpec, type HelmFeatureInput } from './index.js';
import { createChart, repoIndex } from './testdata/helm-cli.js';
import { serveFiles, type Served } from './testdata/servers.js';

const RANDOM_TEMPLATE = `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-random
stringData:
  password: {{ randAlphaNum 24 | quote }}
  alpha: {{ randAlpha 8 | quote }}
  numeric: {{ randNumeric 8 | quote }}
  ascii: {{ randAscii 8 | quote }}
  id1: {{ uuidv4 | quote }}
  id2: {{ uuidv4 | quote }}
  bytes: {{ randBytes 12 | quote }}
  shuffled: {{ shuffle "abcdefghij" | quote }}
  int: {{ randInt 0 1000000 | quote }}
  bcrypt: {{ bcrypt "pw" | quote }}
  ec: {{ genPrivateKey "ecdsa" | quote }}
  ed: {{ genPrivateKey "ed25519" | quote }}
  {{- $ca := genCA "test-ca" 365 }}
  ca.crt: {{ $ca.Cert | quote }}
  ca.key: {{ $ca.Key | quote }}
  {{- $cert := genSignedCert "svc" (list "10.0.0.1") (list "svc.local") 365 $ca }}
  tls.crt: {{ $cert.Cert | quote }}
  tls.key: {{ $cert.Key | quote }}
  now: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
`;

let repo: Served;

before(async () => {
  const chart = await createChart('randchart', '1.0.0', { 'random.yaml': RANDOM_TEMPLATE });
  const out = join(chart.dir, 'out');
  repo = await serveFiles(
    new Map<string, Buffer | string>([
      ['/index.yaml', await repoIndex(out)],
      ['/randchart-1.0.0.tgz', chart.data],
    ]),
  );
});

after(() => repo.close());

const entry = (values = ''): HelmChartSpec => ({
  repositoryURL: repo.base,
  repositoryName: 'r',
  chartName: 'randchart',
  chartVersion: '1.0.0',
  releaseName: 'rnd',
  releaseNamespace: 'apps',
  values,
});

const cluster: JsonObject = {
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: 'team-a', creationTimestamp: '2026-03-04T05:06:07Z' },
  status: { kubernetesVersion: 'v1.31.2' },
};

const input = (charts: HelmChartSpec[], c: JsonObject = cluster): HelmFeatureInput => ({
  charts,
  cluster: c,
  owner: { kind: 'ClusterProfile', name: 'p', tier: 100 },
  readObject: () => Promise.resolve(undefined),
});

function secretData(manifests: JsonObject[]): Record<string, string> {
  const secret = manifests.find(
    (m) => m['kind'] === 'Secret' && String((m['metadata'] as JsonObject)['name']).endsWith('-random'),
  );
  assert.ok(secret, 'the random Secret is rendered');
  return secret['stringData'] as Record<string, string>;
}

test('two fresh renderers give byte-identical output for a chart full of random functions', async () => {
  const a = await new HelmFeatureRenderer().render(input([entry()]));
  const b = await new HelmFeatureRenderer().render(input([entry()]));
  assert.deepEqual(a.errors, []);
  assert.equal(JSON.stringify(a.manifests), JSON.stringify(b.manifests));
  assert.equal(a.hash, b.hash);

  const d = secretData(a.manifests);
  assert.match(d['password']!, /^[A-Za-z0-9]{24}$/);
  assert.match(d['id1']!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(d['id1'], d['id2'], 'one stream: successive calls differ');
  assert.equal([...d['shuffled']!].sort().join(''), 'abcdefghij');
  // The pinned instant is the Cluster's creationTimestamp; certificates are valid from it.
  assert.equal(d['now'], '2026-03-04T05:06:07Z');
  const ca = new X509Certificate(d['ca.crt']!);
  const leaf = new X509Certificate(d['tls.crt']!);
  assert.ok(leaf.verify(ca.publicKey), 'the leaf is signed by the CA');
  assert.ok(leaf.checkPrivateKey(createPrivateKey(d['tls.key']!)));
  assert.equal(new Date(ca.validFrom).toISOString(), '2026-03-04T05:06:07.000Z');
  assert.equal(createPublicKey(createPrivateKey(d['ec']!)).asymmetricKeyType, 'ec');
  assert.equal(createPrivateKey(d['ed']!).asymmetricKeyType, 'ed25519');
});

test('different inputs draw different randomness', async () => {
  const renderer = new HelmFeatureRenderer();
  const a = secretData((await renderer.render(input([entry()]))).manifests);
  const b = secretData((await renderer.render(input([entry('x: 1\n')]))).manifests);
  assert.notEqual(a['password'], b['password']);
  assert.notEqual(a['ca.key'], b['ca.key']);
});

test('a fresh process renders the same objects', async () => {
  const here = await new HelmFeatureRenderer().render(input([entry()]));
  const module = fileURLToPath(new URL('./index.js', import.meta.url));
  const script = `
    const { HelmFeatureRenderer } = await import(${JSON.stringify(module)});
    const input = JSON.parse(process.argv[1]);
    input.readObject = () => Promise.resolve(undefined);
    const r = await new HelmFeatureRenderer().render(input);
    process.stdout.write(JSON.stringify(r.manifests));
  `;
  const { readObject: _unused, ...plain } = input([entry()]);
  void _unused;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(plain)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stdout, JSON.stringify(here.manifests));
});
