// The Helm feature end to end against loopback repositories built with the real helm binary: what we
// render per cluster equals `helm template` for that cluster's values, charts are fetched once for the
// fleet, identical inputs render once, and every failure names its field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JsonObject } from '../../apiserver/patch/json.js';
import type { SourceObject } from '../content/sources.js';
import { stampObject } from '../content/stamp.js';
import { HelmFeatureRenderer, type HelmChartSpec, type HelmFeatureInput } from './index.js';
import { createChart, helmOk, repoIndex, type PackagedChart } from './testdata/helm-cli.js';
import { serveFiles, serveRegistry, type Registry, type Served } from './testdata/servers.js';

const CAPS_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "mychart.fullname" . }}-caps
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  hasExample: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
  site: {{ .Values.site | default "none" | quote }}
`;

const OWNER = { kind: 'ClusterProfile', name: 'web', tier: 100 };

function cluster(
  name: string,
  labels: Record<string, string>,
  kubernetesVersion?: string,
  apiVersions?: string[],
): JsonObject {
  return {
    apiVersion: 'fleet.fleethub.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, namespace: 'team-a', labels, creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: { site: labels['site'] ?? 'lab' },
    status: {
      ...(kubernetesVersion ? { kubernetesVersion } : {}),
      ...(apiVersions ? { capabilities: { apiVersions } } : {}),
    },
  };
}

function input(
  charts: HelmChartSpec[],
  c: JsonObject,
  objects: Record<string, SourceObject> = {},
): HelmFeatureInput {
  return {
    charts,
    cluster: c,
    owner: OWNER,
    readObject: (kind, ns, name) => Promise.resolve(objects[`${kind}/${ns}/${name}`]),
  };
}

/** What `helm template` printed, as objects, with what delivery adds: namespace, helm's ownership, stamps. */
function expectedFromHelm(stdout: string, release: string, namespace: string): JsonObject[] {
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as JsonObject | null)
    .filter((o): o is JsonObject => o !== null)
    .map((o) => {
      const md = (o['metadata'] ?? {}) as JsonObject;
      const stamped: JsonObject = {
        ...o,
        metadata: {
          ...md,
          namespace,
          labels: { ...((md['labels'] ?? {}) as JsonObject), 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: {
            ...((md['annotations'] ?? {}) as JsonObject),
            'meta.helm.sh/release-name': release,
            'meta.helm.sh/release-namespace': namespace,
          },
        },
      };
      return stampObject(stamped, {
        feature: 'Helm',
        reference: { kind: 'HelmChart', namespace, name: release, tier: 100 },
        owner: OWNER,
      });
    });
}

let chart: PackagedChart;
let repo: Served;
let registry: Registry;
const files = new Map<string, Buffer | string>();

before(async () => {
  chart = await createChart('mychart', '0.1.0', { 'caps.yaml': CAPS_TEMPLATE });
  // A second version, so "not found" messages have something to list.
  const older = await createChart('mychart', '0.0.9');
  copyFileSync(older.tgz, join(chart.dir, 'out', 'mychart-0.0.9.tgz'));
  files.set('/charts/index.yaml', await repoIndex(join(chart.dir, 'out')));
  files.set('/charts/mychart-0.1.0.tgz', chart.data);
  files.set('/charts/mychart-0.0.9.tgz', older.data);
  repo = await serveFiles(files);
  registry = await serveRegistry();
});

after(async () => {
  await repo.close();
  await registry.close();
});

const VALUES = `fullnameOverride: web-{{ .Cluster.metadata.name }}
replicaCount: {{ index .Cluster.metadata.labels "replicas" }}
site: {{ .Cluster.spec.site }}
podAnnotations:
  fleet/cluster: "{{ .Cluster.metadata.name }}"
service:
  port: 8080
`;

function httpEntry(overrides: Partial<HelmChartSpec> = {}): HelmChartSpec {
  return {
    repositoryURL: `${repo.base}/charts`,
    repositoryName: 'local',
    chartName: 'local/mychart',
    chartVersion: '0.1.0',
    releaseName: 'web',
    releaseNamespace: 'apps',
    values: VALUES,
    ...overrides,
  };
}

describe('rendering equals helm template', () => {
  const clusters = [
    cluster('edge-1', { replicas: '2', site: 'berlin' }, 'v1.30.4', ['example.com/v1']),
    cluster('edge-2', { replicas: '5', site: 'paris' }, 'v1.33.1'),
    cluster('edge-3', { replicas: '1' }),
  ];
  for (const c of clusters) {
    const name = String((c['metadata'] as JsonObject)['name']);
    test(`a helm create chart with per-cluster values, cluster ${name}`, async () => {
      const renderer = new HelmFeatureRenderer();
      const result = await renderer.render(input([httpEntry()], c));
      assert.deepEqual(result.errors, []);
      const labels = (c['metadata'] as JsonObject)['labels'] as Record<string, string>;
      const status = c['status'] as JsonObject;
      const args = ['template', 'web', chart.tgz, '-n', 'apps', '--include-crds', '--no-hooks'];
      if (status['kubernetesVersion']) args.push('--kube-version', String(status['kubernetesVersion']));
      for (const v of ((status['capabilities'] as JsonObject | undefined)?.['apiVersions'] as
        string[] | undefined) ?? [])
        args.push('--api-versions', v);
      args.push(
        '--set',
        `fullnameOverride=web-${name}`,
        '--set',
        `replicaCount=${labels['replicas']}`,
        '--set',
        `site=${String((c['spec'] as JsonObject)['site'])}`,
        '--set',
        `podAnnotations.fleet/cluster=${name}`,
        '--set',
        'service.port=8080',
      );
      const expected = expectedFromHelm(await helmOk(args), 'web', 'apps');
      assert.deepEqual(result.manifests, expected);
      assert.ok(expected.length >= 4);
      const release = result.releases[0]!;
      assert.deepEqual(
        { ...release, valuesHash: undefined },
        {
          releaseName: 'web',
          releaseNamespace: 'apps',
          status: 'Managing',
          chartName: 'local/mychart',
          chartVersion: '0.1.0',
          repositoryName: 'local',
          repoURL: `${repo.base}/charts`,
          valuesHash: undefined,
        },
      );
      assert.equal(Buffer.from(release.valuesHash!, 'base64').length, 32);
      assert.match(result.hash, /^sha256:[0-9a-f]{64}$/);
    });
  }
});

describe('fleet scale', () => {
  test('50 clusters: index and chart fetched once, identical inputs rendered once', async (t) => {
    const renderer = new HelmFeatureRenderer();
    const before = repo.log.length;
    const entry = httpEntry({
      // Values depend on the tier only: 50 clusters, 5 distinct renders.
      values: 'replicaCount: {{ index .Cluster.metadata.labels "tier" }}\n',
    });
    const fleet = Array.from({ length: 50 }, (_, i) =>
      cluster(`c-${i}`, { tier: String((i % 5) + 1) }, 'v1.31.0'),
    );
    const started = performance.now();
    const results = await Promise.all(fleet.map((c) => renderer.render(input([entry], c))));
    const elapsed = performance.now() - started;
    for (const r of results) assert.deepEqual(r.errors, []);
    const fetched = repo.log.slice(before);
    assert.deepEqual(fetched.sort(), ['GET /charts/index.yaml', 'GET /charts/mychart-0.1.0.tgz']);
    assert.deepEqual(renderer.stats.renders, { hits: 45, misses: 5, size: 5 });
    assert.equal(renderer.stats.charts.archiveFetches, 1);
    // Same tier, same objects: byte for byte.
    assert.deepEqual(results[0]!.manifests, results[5]!.manifests);
    assert.notDeepEqual(results[0]!.manifests, results[1]!.manifests);
    t.diagnostic(`50 clusters (5 distinct renders) in ${elapsed.toFixed(0)} ms`);
  });

  test('cold versus cached render time of the helm create chart', async (t) => {
    const renderer = new HelmFeatureRenderer();
    const c = cluster('timing', { replicas: '3' }, 'v1.31.0');
    await renderer.render(input([httpEntry({ values: 'replicaCount: 1\n' })], c)); // fetch only
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const r = await renderer.render(input([httpEntry()], cluster(`timing-${i}`, { replicas: '3' })));
      cold.push(performance.now() - started);
      assert.equal(r.charts[0]!.cached, false);
    }
    const warm: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const r = await renderer.render(input([httpEntry()], cluster('timing-0', { replicas: '3' })));
      warm.push(performance.now() - started);
      assert.equal(r.charts[0]!.cached, true);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    t.diagnostic(
      `render: cold median ${median(cold).toFixed(2)} ms, cached median ${median(warm).toFixed(2)} ms`,
    );
  });
});

describe('OCI registries', () => {
  test('a chart pushed by the real helm push renders like the same chart from the HTTP repository', async () => {
    await helmOk(['push', chart.tgz, `oci://${registry.host}/charts`, '--plain-http']);
    const pushed = registry.log.length;
    const c = cluster('edge-1', { replicas: '2', site: 'berlin' }, 'v1.30.4');
    const renderer = new HelmFeatureRenderer();
    const fromOci = await renderer.render(
      input(
        [
          httpEntry({
            repositoryURL: `oci://${registry.host}/charts`,
            chartName: 'mychart',
            registryCredentialsConfig: { plainHTTP: true },
          }),
        ],
        c,
      ),
    );
    assert.deepEqual(fromOci.errors, []);
    const fromHttp = await new HelmFeatureRenderer().render(input([httpEntry()], c));
    assert.deepEqual(fromOci.manifests, fromHttp.manifests);
    // helm push stores the archive as is: the layer digest is the archive's digest.
    assert.equal(fromOci.charts[0]!.chartDigest, fromHttp.charts[0]!.chartDigest);
    assert.deepEqual(
      registry.log.slice(pushed).map((l) => l.replace(/sha256:[0-9a-f]+/, 'DIGEST')),
      ['GET /v2/charts/mychart/manifests/0.1.0', 'GET /v2/charts/mychart/blobs/DIGEST'],
    );
  });

  test('anonymous bearer tokens, then basic credentials from a Secret for the token service', async () => {
    const secured = await serveRegistry({ token: true });
    try {
      const digest = secured.putChart('charts/mychart', '0.1.0', chart.data);
      const c = cluster('edge-1', { replicas: '2' });
      const entry = httpEntry({
        repositoryURL: `oci://${secured.host}/charts`,
        chartName: 'mychart',
        registryCredentialsConfig: { plainHTTP: true },
      });
      const anon = await new HelmFeatureRenderer().render(input([entry], c));
      assert.deepEqual(anon.errors, []);
      assert.equal(anon.charts[0]!.chartDigest, digest);
      assert.equal(secured.tokensIssued, 1); // the manifest's token served the blob too

      secured.options.users = { robot: 's3cret' };
      const denied = await new HelmFeatureRenderer().render(input([entry], c));
      assert.equal(denied.errors[0]!.reason, 'FetchFailed');
      assert.match(
        denied.errors[0]!.message,
        /^spec\.helmCharts\[0\]: .*token service.*HTTP 401.*wants credentials/,
      );

      const withCreds: HelmChartSpec = {
        ...entry,
        registryCredentialsConfig: { plainHTTP: true, credentials: { name: 'registry' } },
      };
      const secret: SourceObject = {
        kind: 'Secret',
        metadata: { name: 'registry', namespace: 'team-a' },
        type: 'kubernetes.io/dockerconfigjson',
        data: {
          '.dockerconfigjson': Buffer.from(
            JSON.stringify({
              auths: { [secured.host]: { auth: Buffer.from('robot:s3cret').toString('base64') } },
            }),
          ).toString('base64'),
        },
      };
      const ok = await new HelmFeatureRenderer().render(
        input([withCreds], c, { 'Secret/team-a/registry': secret }),
      );
      assert.deepEqual(ok.errors, []);
      const missing = await new HelmFeatureRenderer().render(input([withCreds], c));
      assert.equal(missing.errors[0]!.reason, 'ReferenceNotFound');
      assert.match(
        missing.errors[0]!.message,
        /registryCredentialsConfig\.credentials: Secret team-a\/registry not found/,
      );
    } finally {
      await secured.close();
    }
  });

  test('a corrupted layer and a missing tag fail with the reference in the message', async () => {
    const reg = await serveRegistry();
    try {
      const digest = reg.putChart('charts/mychart', '0.1.0', chart.data);
      const entry = httpEntry({
        repositoryURL: `oci://${reg.host}/charts`,
        chartName: 'mychart',
        registryCredentialsConfig: { plainHTTP: true },
      });
      const c = cluster('x', { replicas: '1' });
      // A semver constraint picks the newest tag it accepts, as helm does.
      const constraint = await new HelmFeatureRenderer().render(
        input([{ ...entry, chartVersion: '^0.1' }], c),
      );
      assert.equal(constraint.charts[0]!.resolvedVersion, '0.1.0');
      reg.corrupt(digest);
      const bad = await new HelmFeatureRenderer().render(input([entry], c));
      assert.equal(bad.errors[0]!.reason, 'FetchFailed');
      assert.match(
        bad.errors[0]!.message,
        /chart layer has digest sha256:[0-9a-f]+, the manifest says sha256:/,
      );
      const missing = await new HelmFeatureRenderer().render(input([{ ...entry, chartVersion: '9.9.9' }], c));
      assert.match(
        missing.errors[0]!.message,
        new RegExp(
          `chart "mychart" version "9.9.9" not found in repository oci://${reg.host}/charts/mychart; available: 0.1.0`,
        ),
      );
    } finally {
      await reg.close();
    }
  });
});

describe('failures name the field', () => {
  const c = cluster('edge-1', { replicas: '2' });

  test('a version missing from the index lists the available ones; a missing chart too', async () => {
    const r = await new HelmFeatureRenderer().render(input([httpEntry({ chartVersion: '1.2.3' })], c));
    assert.deepEqual(r.errors, [
      {
        index: 0,
        reason: 'FetchFailed',
        message: `spec.helmCharts[0]: chart "mychart" version "1.2.3" not found in repository ${repo.base}/charts; available: 0.1.0, 0.0.9`,
      },
    ]);
    assert.deepEqual(r.manifests, []);
    assert.equal(r.hash, '');
    const none = await new HelmFeatureRenderer().render(input([httpEntry({ chartName: 'nginx' })], c));
    assert.match(
      none.errors[0]!.message,
      /chart "nginx" not found in repository .* \(it has 1 chart: mychart\)/,
    );
    const down = await new HelmFeatureRenderer().render(
      input([httpEntry({ repositoryURL: `${repo.base}/nothere` })], c),
    );
    assert.match(down.errors[0]!.message, /index http:\/\/127\.0\.0\.1:\d+\/nothere\/index\.yaml: HTTP 404/);
  });

  test('a template error in values names the field and the line', async () => {
    const r = await new HelmFeatureRenderer().render(
      input(
        [httpEntry(), httpEntry({ releaseName: 'b', values: 'a: 1\nb: {{ .Cluster.metadata.nothere }}\n' })],
        c,
      ),
    );
    assert.equal(r.errors.length, 1);
    const e = r.errors[0]!;
    assert.equal(e.index, 1);
    assert.equal(e.reason, 'TemplateInstantiationError');
    assert.equal(e.line, 2);
    assert.match(
      e.message,
      /^spec\.helmCharts\[1\]\.values: line 2: template failed: .*map has no entry for key "nothere"/,
    );
    assert.ok(r.charts[0]!.manifests.length > 0, 'the healthy entry still rendered');
  });

  test('a chart that fails to render reports helm message', async () => {
    const r = await new HelmFeatureRenderer().render(
      input([httpEntry({ values: 'fullnameOverride: "a: b: c"\n' })], c),
    );
    assert.equal(r.errors[0]!.reason, 'RenderFailed');
    assert.match(r.errors[0]!.message, /^spec\.helmCharts\[0\]: chart mychart 0\.1\.0: /);
  });

  test('valuesFrom: missing objects, optional ones, and the merge order of Sveltos', async () => {
    const missing = await new HelmFeatureRenderer().render(
      input([httpEntry({ valuesFrom: [{ kind: 'ConfigMap', name: 'extra' }] })], c),
    );
    assert.deepEqual(missing.errors, [
      {
        index: 0,
        reason: 'ReferenceNotFound',
        message: 'spec.helmCharts[0].valuesFrom[0]: ConfigMap team-a/extra not found',
      },
    ]);
    const optional = await new HelmFeatureRenderer().render(
      input([httpEntry({ valuesFrom: [{ kind: 'ConfigMap', name: 'extra', optional: true }] })], c),
    );
    assert.deepEqual(optional.errors, []);

    // values < plain valuesFrom < templated valuesFrom, maps merged key by key.
    const objects: Record<string, SourceObject> = {
      'ConfigMap/team-a/templated': {
        kind: 'ConfigMap',
        metadata: {
          name: 'templated',
          namespace: 'team-a',
          annotations: { 'projectsveltos.io/template': 'ok' },
        },
        data: { 'v.yaml': 'site: from-{{ .Cluster.metadata.name }}\n' },
      },
      'Secret/shared/plain': {
        kind: 'Secret',
        metadata: { name: 'plain', namespace: 'shared' },
        type: 'addons.projectsveltos.io/cluster-profile',
        data: { 'v.yaml': Buffer.from('site: plain\nservice: {type: NodePort}\n').toString('base64') },
      },
    };
    const merged = await new HelmFeatureRenderer().render(
      input(
        [
          httpEntry({
            valuesFrom: [
              { kind: 'ConfigMap', name: 'templated' },
              { kind: 'Secret', namespace: 'shared', name: 'plain' },
            ],
          }),
        ],
        c,
        objects,
      ),
    );
    assert.deepEqual(merged.errors, []);
    const caps = merged.manifests.find((m) => m['kind'] === 'ConfigMap')!;
    assert.equal((caps['data'] as JsonObject)['site'], 'from-edge-1');
    const svc = merged.manifests.find((m) => m['kind'] === 'Service')!;
    const spec = svc['spec'] as JsonObject;
    assert.equal(spec['type'], 'NodePort');
    assert.equal(
      (spec['ports'] as JsonObject[])[0]!['port'],
      8080,
      'values kept where valuesFrom says nothing',
    );
  });

  test('Uninstall renders nothing but keeps the release summary', async () => {
    const r = await new HelmFeatureRenderer().render(
      input([httpEntry({ helmChartAction: 'Uninstall', chartVersion: '7.7.7' })], c),
    );
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.manifests, []);
    assert.equal(r.releases.length, 1);
    assert.equal(r.releases[0]!.releaseName, 'web');
    assert.equal(r.releases[0]!.status, 'Managing');
  });

  test('a digest in the index that the archive does not match is refused', async () => {
    const dir = join(chart.dir, 'tampered');
    mkdirSync(dir, { recursive: true });
    copyFileSync(chart.tgz, join(dir, 'mychart-0.1.0.tgz'));
    const index = (await repoIndex(dir)).replace(/digest: [0-9a-f]+/, `digest: ${'0'.repeat(64)}`);
    writeFileSync(join(dir, 'index.yaml'), index);
    files.set('/tampered/index.yaml', index);
    files.set('/tampered/mychart-0.1.0.tgz', chart.data);
    const r = await new HelmFeatureRenderer().render(
      input([httpEntry({ repositoryURL: `${repo.base}/tampered` })], c),
    );
    assert.equal(r.errors[0]!.reason, 'FetchFailed');
    assert.match(
      r.errors[0]!.message,
      /the archive has digest sha256:[0-9a-f]{64}, the index of .* says sha256:0{64}/,
    );
  });

  test('two releases rendering the same object are refused', async () => {
    const r = await new HelmFeatureRenderer().render(
      input([httpEntry(), httpEntry({ releaseName: 'other' })], cluster('edge-1', { replicas: '2' })),
    );
    // fullnameOverride makes both releases name their objects web-edge-1.
    assert.equal(r.errors[0]!.index, 1);
    assert.match(r.errors[0]!.message, /is also rendered by spec\.helmCharts\[0\]/);
  });
});

test('a cluster that reported no Kubernetes version renders with the default of helm', async () => {
  const c = cluster('edge-9', { replicas: '1' });
  const r = await new HelmFeatureRenderer().render(input([httpEntry()], c));
  const caps = r.manifests.find((m) => m['kind'] === 'ConfigMap')!;
  assert.equal((caps['data'] as JsonObject)['kube'], 'v1.35.0');
});

describe('the profile’s patches over the chart’s output', () => {
  test('a templated strategic-merge patch lands on the rendered Deployment, stamped after', async () => {
    const c = cluster('edge-9', { replicas: '2', site: 'oslo' });
    const renderer = new HelmFeatureRenderer();
    const result = await renderer.render({
      ...input([httpEntry()], c),
      patches: [
        {
          target: { kind: 'Deployment' },
          patch: [
            'apiVersion: apps/v1',
            'kind: Deployment',
            'metadata:',
            '  name: ignored',
            '  labels:',
            '    fleet/site: "{{ .Cluster.spec.site }}"',
          ].join('\n'),
        },
      ],
    });
    assert.deepEqual(result.errors, []);
    const deployment = result.manifests.find((m) => m['kind'] === 'Deployment')!;
    const md = deployment['metadata'] as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    assert.equal(md.labels['fleet/site'], 'oslo');
    const service = result.manifests.find((m) => m['kind'] === 'Service')!;
    assert.equal((service['metadata'] as { labels: Record<string, string> }).labels['fleet/site'], undefined);
    // The hash covers the patched object.
    assert.match(md.annotations['projectsveltos.io/hash']!, /^sha256:/);
  });

  test('a patch that cannot apply fails the entry, naming spec.patches', async () => {
    const renderer = new HelmFeatureRenderer();
    const result = await renderer.render({
      ...input([httpEntry()], cluster('edge-9', { replicas: '2' })),
      patches: [{ target: { kind: 'Deployment' }, patch: '- op: remove\n  path: /spec/nothere' }],
    });
    assert.equal(result.errors.length, 1);
    assert.match(result.errors[0]!.message, /^spec\.helmCharts\[0\].*spec\.patches: /);
    assert.deepEqual(result.manifests, []);
  });
});
