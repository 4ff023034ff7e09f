// Per-cluster instantiation in Sveltos's mode: what templates see and how failures are reported.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemplateInstantiationError } from './errors.js';
import { TemplateContext, instantiateString } from './template.js';

const cluster = {
  apiVersion: 'fleet.fleethub.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'edge-1', namespace: 'team-a', labels: { env: 'prod' } },
  spec: { clusterNetwork: { pods: { cidrBlocks: ['10.244.0.0/16'] } }, replicas: 3, big: 1000000 },
};
const origin = { kind: 'ConfigMap', namespace: 'team-a', name: 'cni', key: 'cni.yaml' };

function failure(fn: () => unknown): TemplateInstantiationError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TemplateInstantiationError, String(e));
    return e;
  }
  assert.fail('expected a template error');
}

test('.Cluster is the Cluster object; integers print as Go int64 do', () => {
  const out = instantiateString(
    'cidr: {{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 }}\nn: {{ .Cluster.spec.replicas }} {{ .Cluster.spec.big }} {{ typeOf .Cluster.spec.big }}\nenv: {{ .Cluster.metadata.labels.env | upper }}',
    { cluster },
    origin,
  );
  assert.equal(out, 'cidr: 10.244.0.0/16\nn: 3 1000000 int64\nenv: PROD');
});

test('a missing key fails (missingkey=error) naming the source, the line and the reason', () => {
  const e = failure(() => instantiateString('a: 1\nb: {{ .Cluster.spec.nope }}\n', { cluster }, origin));
  assert.equal(e.code, 'TemplateExecutionError');
  assert.equal(e.line, 2);
  // The engine's column, Go's ErrorContext byte offset of the failing node.
  assert.equal(e.column, 14);
  assert.equal(
    e.message,
    'ConfigMap team-a/cni key "cni.yaml": line 2: template failed: executing "ConfigMap team-a/cni key \\"cni.yaml\\"" at <.Cluster.spec.nope>: map has no entry for key "nope"',
  );
  assert.match(e.reason, /^template: ConfigMap team-a\/cni key "cni.yaml":2:14: /);
  assert.deepEqual(e.origin, origin);
});

test('a parse error is a TemplateParseError with its line; Sveltos lacks helm-only functions', () => {
  const e = failure(() => instantiateString('x\n\n{{ include "a" . }}', { cluster }, 'helm values'));
  assert.equal(e.code, 'TemplateParseError');
  assert.equal(e.line, 3);
  assert.equal(
    e.message,
    'Template helm values: line 3: template does not parse: function "include" not defined',
  );
});

test('.MgmtResources and getResource see the templateResourceRefs; the caller objects stay untouched', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', uid: 'u1' },
    data: { t: 'eA==' },
  };
  const ctx = new TemplateContext({ cluster, mgmtResources: { creds: secret } });
  const out = ctx.instantiate(
    '{{ (index .MgmtResources "creds").data.t }} {{ (getResource "creds").metadata.name }} {{ setField "creds" "data.t" "eQ==" | len }}',
    origin,
  );
  assert.match(out, /^eA== s \d+$/);
  // The context's copy was edited (as Sveltos's shared maps are), the caller's object was not.
  assert.equal(ctx.instantiate('{{ .MgmtResources.creds.data.t }}', origin), 'eQ==');
  assert.deepEqual(secret.data, { t: 'eA==' });
  assert.equal(secret.metadata.uid, 'u1');
});
