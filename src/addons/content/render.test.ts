// The Resources pipeline end to end: the seed's flannel ClusterProfile patch per cluster, template and
// source failures in the structured error list, and a deterministic content hash.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../apiserver/patch/json.js';
import { type Patch } from './patches.js';
import { type RenderResourcesInput, type SourceRef, renderResources } from './render.js';
import type { Manifest } from './sources.js';
import { HASH_ANNOTATION, objectHash } from './stamp.js';

// A small stand-in for flannel's kube-flannel.yml release manifest.
const FLANNEL = `---
kind: Namespace
apiVersion: v1
metadata:
  name: kube-flannel
  labels:
    pod-security.kubernetes.io/enforce: privileged
---
kind: ConfigMap
apiVersion: v1
metadata:
  name: kube-flannel-cfg
  namespace: kube-flannel
  labels:
    app: flannel
data:
  cni-conf.json: |
    {"name": "cbr0", "cniVersion": "0.3.1"}
  net-conf.json: |
    {
      "Network": "10.244.0.0/16",
      "Backend": {"Type": "vxlan"}
    }
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-flannel-ds
  namespace: kube-flannel
spec:
  selector:
    matchLabels:
      app: flannel
  template:
    metadata:
      labels:
        app: flannel
    spec:
      containers:
      - name: kube-flannel
        image: ghcr.io/flannel-io/flannel:v0.28.2
`;

// The seed's patches block (shared/seeds/001), verbatim.
const SEED_PATCH: Patch = {
  patch: `- op: replace
  path: /data/net-conf.json
  value: |
    {
      "Backend": {"Type": "host-gw"},
      "EnableNFTables": false,
      "Network": "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 }}"
    }`,
  target: { kind: 'ConfigMap', name: 'kube-flannel-cfg', namespace: 'kube-flannel', version: 'v1' },
};

const REMOTE: SourceRef = {
  kind: 'RemoteURL',
  namespace: '',
  name: 'https://github.com/flannel-io/flannel/releases/download/v0.28.2/kube-flannel.yml',
  tier: 100,
  deploymentType: 'Remote',
};

function cluster(name: string, cidr: string): JsonObject {
  return {
    apiVersion: 'fleet.fleethub.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, namespace: 'fleet', labels: { 'cluster.x-k8s.io/cluster-name': name } },
    spec: { site: 'lab', clusterNetwork: { pods: { cidrBlocks: [cidr] } } },
  };
}

const namespaced = (_: string, kind: string): boolean | undefined =>
  ({ Namespace: false, ConfigMap: true, DaemonSet: true, Deployment: true })[kind];

function flannelInput(c: JsonObject): RenderResourcesInput {
  return {
    sources: [{ ref: REMOTE, text: FLANNEL }],
    patches: [SEED_PATCH],
    cluster: c,
    owner: { kind: 'ClusterProfile', name: 'flannel-cni', tier: 100 },
    isNamespaced: namespaced,
  };
}

function find(list: Manifest[], kind: string): Manifest {
  const m = list.find((o) => o['kind'] === kind);
  assert.ok(m, `no ${kind}`);
  return m;
}

describe('the seed flannel ClusterProfile', () => {
  test('each cluster gets its own pod CIDR in net-conf.json, the rest unchanged', () => {
    const a = renderResources(flannelInput(cluster('edge-1', '10.10.0.0/16')));
    const b = renderResources(flannelInput(cluster('edge-2', '10.20.0.0/16')));
    for (const [r, cidr] of [
      [a, '10.10.0.0/16'],
      [b, '10.20.0.0/16'],
    ] as const) {
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.manifests.Local, []);
      assert.deepEqual(
        r.manifests.Remote.map((m) => m['kind']),
        ['Namespace', 'ConfigMap', 'DaemonSet'],
      );
      const data = find(r.manifests.Remote, 'ConfigMap')['data'] as Record<string, string>;
      assert.deepEqual(JSON.parse(data['net-conf.json']!), {
        Backend: { Type: 'host-gw' },
        EnableNFTables: false,
        Network: cidr,
      });
      assert.equal(data['cni-conf.json'], '{"name": "cbr0", "cniVersion": "0.3.1"}\n');
    }
    assert.notEqual(a.hash, b.hash);
    // Only the ConfigMap differs between the clusters.
    assert.deepEqual(find(a.manifests.Remote, 'DaemonSet'), find(b.manifests.Remote, 'DaemonSet'));
  });

  test('delivered objects carry Sveltos metadata; the Namespace gets no namespace', () => {
    const r = renderResources(flannelInput(cluster('edge-1', '10.10.0.0/16')));
    const ns = find(r.manifests.Remote, 'Namespace')['metadata'] as JsonObject;
    assert.equal(ns['namespace'], undefined);
    const md = find(r.manifests.Remote, 'ConfigMap')['metadata'] as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    assert.equal(md.labels['projectsveltos.io/reason'], 'Resources');
    assert.equal(md.annotations['projectsveltos.io/reference-kind'], 'RemoteURL');
    assert.equal(md.annotations['projectsveltos.io/reference-name'], REMOTE.name);
    assert.equal(md.annotations['projectsveltos.io/owner-name'], 'flannel-cni');
    assert.equal(md.annotations['projectsveltos.io/owner-tier'], '100');
    for (const m of r.manifests.Remote) {
      const h = (m['metadata'] as { annotations: Record<string, string> }).annotations[HASH_ANNOTATION];
      assert.equal(h, objectHash(m));
    }
  });
});

describe('determinism', () => {
  test('same inputs give byte-identical output and hash; any input change changes the hash', () => {
    const base = flannelInput(cluster('edge-1', '10.10.0.0/16'));
    const one = renderResources(base);
    const two = renderResources({
      ...structuredClone({ ...base, isNamespaced: undefined }),
      isNamespaced: namespaced,
    });
    assert.equal(JSON.stringify(two), JSON.stringify(one));
    assert.match(one.hash, /^sha256:[0-9a-f]{64}$/);
    const variants: RenderResourcesInput[] = [
      flannelInput(cluster('edge-1', '10.11.0.0/16')),
      { ...base, sources: [{ ref: REMOTE, text: FLANNEL.replace('v0.28.2', 'v0.28.3') }] },
      { ...base, sources: [{ ref: { ...REMOTE, tier: 90 }, text: FLANNEL }] },
      { ...base, sources: [{ ref: { ...REMOTE, deploymentType: 'Local' }, text: FLANNEL }] },
      { ...base, patches: [] },
      { ...base, patches: [{ ...SEED_PATCH, patch: SEED_PATCH.patch.replace('host-gw', 'vxlan') }] },
      { ...base, owner: { ...base.owner, tier: 10 } },
      { ...base, owner: { ...base.owner, name: 'other' } },
      {
        ...base,
        sources: [
          {
            ref: REMOTE,
            text: FLANNEL.replace(
              '  name: kube-flannel-ds\n  namespace: kube-flannel\n',
              '  name: kube-flannel-ds\n',
            ),
          },
        ],
      },
      {
        ...base,
        sources: [
          {
            ref: REMOTE,
            text: FLANNEL.replace(
              '  name: kube-flannel-ds\n  namespace: kube-flannel\n',
              '  name: kube-flannel-ds\n',
            ),
          },
        ],
        isNamespaced: undefined,
      },
    ];
    const hashes = new Set([one.hash, ...variants.map((v) => renderResources(v).hash)]);
    assert.equal(hashes.size, variants.length + 1);
  });
});

describe('failures', () => {
  const cm = (data: Record<string, string>, templated = true) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cni',
      namespace: 'fleet',
      ...(templated ? { annotations: { 'projectsveltos.io/template': 'ok' } } : {}),
    },
    data,
  });
  const ref = (name: string, tier = 100): SourceRef => ({
    kind: 'ConfigMap',
    namespace: 'fleet',
    name,
    tier,
    deploymentType: 'Remote',
  });
  const owner = { kind: 'ClusterProfile', name: 'p', tier: 100 };

  test('a template error names the source, key, line and reason; nothing is delivered', () => {
    const r = renderResources({
      sources: [
        {
          ref: ref('ok'),
          object: cm({
            a: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .Cluster.metadata.name }}\n',
          }),
        },
        {
          ref: ref('cni'),
          object: cm({
            'net.yaml':
              'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  pods: "{{ .Cluster.spec.clusterNetwork.services.cidrBlocks }}"\n',
          }),
        },
      ],
      cluster: cluster('edge-1', '10.10.0.0/16'),
      owner,
    });
    assert.deepEqual(r.manifests, { Remote: [], Local: [] });
    assert.equal(r.hash, '');
    assert.equal(r.errors.length, 1);
    const e = r.errors[0]!;
    assert.equal(e.code, 'TemplateExecutionError');
    assert.deepEqual(e.source, ref('cni'));
    assert.equal(e.key, 'net.yaml');
    assert.equal(e.line, 6);
    assert.match(
      e.message,
      /^ConfigMap fleet\/cni key "net.yaml": line 6: template failed: .*map has no entry for key "services"$/,
    );
  });

  test('without the annotation the text is not templated; every broken source is listed', () => {
    const r = renderResources({
      sources: [
        {
          ref: ref('plain'),
          object: cm({ a: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "{{ x }}"\n' }, false),
        },
        {
          ref: { ...ref('s'), kind: 'Secret' },
          object: { kind: 'Secret', metadata: { name: 's', namespace: 'fleet' }, type: 'Opaque', data: {} },
        },
        { ref: ref('bad'), object: cm({ a: 'kind: Namespace\n' }, false) },
      ],
      cluster: cluster('edge-1', '10.10.0.0/16'),
      owner,
    });
    assert.deepEqual(
      r.errors.map((e) => [e.source?.name, e.code]),
      [
        ['s', 'InvalidSecretType'],
        ['bad', 'NotAKubernetesObject'],
      ],
    );
    assert.equal(r.errors[1]!.document, 0);
  });

  test('objects from several sources: lower policyRef tier wins, same tier is an error', () => {
    const ns = (label: string): string =>
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shared\n  labels: {from: ${label}}\n`;
    const win = renderResources({
      sources: [
        { ref: ref('a', 100), object: cm({ k: ns('a') }, false) },
        { ref: ref('b', 50), object: cm({ k: ns('b') }, false) },
      ],
      cluster: cluster('edge-1', '10.10.0.0/16'),
      owner,
    });
    assert.deepEqual(win.errors, []);
    assert.equal(win.manifests.Remote.length, 1);
    const md = win.manifests.Remote[0]!['metadata'] as {
      labels: Record<string, string>;
      annotations: Record<string, string>;
    };
    assert.equal(md.labels['from'], 'b');
    assert.equal(md.annotations['projectsveltos.io/reference-name'], 'b');
    const tie = renderResources({
      sources: [
        { ref: ref('a'), object: cm({ k: ns('a') }, false) },
        { ref: ref('b'), object: cm({ k: ns('b') }, false) },
      ],
      cluster: cluster('edge-1', '10.10.0.0/16'),
      owner,
    });
    assert.equal(tie.errors[0]?.code, 'DuplicateObject');
    assert.match(
      tie.errors[0]!.message,
      /^Namespace\.v1 shared is produced by both ConfigMap fleet\/a and ConfigMap fleet\/b with tier 100/,
    );
  });

  test('patch errors carry the patch index and the object', () => {
    const r = renderResources({
      ...flannelInput(cluster('edge-1', '10.10.0.0/16')),
      patches: [SEED_PATCH, { patch: '- op: remove\n  path: /spec/nope\n', target: { kind: 'DaemonSet' } }],
    });
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0]!.patchIndex, 1);
    assert.deepEqual(r.errors[0]!.object, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      namespace: 'kube-flannel',
      name: 'kube-flannel-ds',
    });
  });
});
