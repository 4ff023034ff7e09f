// `fleethub template render --resource ID=FILE` as a user runs it: templateResourceRefs stand-ins seen
// through Sveltos's helpers and .MgmtResources, with Sveltos's function map and missingkey=error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/hub.js';
import { runFleethub, type CliResult } from '../support/cli.js';

const dir = scratchDir('fleethub-template-sveltos-');

function fleethub(...args: string[]): CliResult {
  return runFleethub(['template', 'render', ...args], dir);
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const secret = file(
  'secret.yaml',
  `apiVersion: v1
kind: Secret
metadata:
  name: autoscaler
  namespace: mgmt
  uid: 0f3e9a
  resourceVersion: "4711"
  managedFields:
    - manager: kubectl
type: Opaque
data:
  token: c2VjcmV0
`,
);
const cluster = file('cluster.yaml', 'Cluster:\n  metadata:\n    name: c1\n    namespace: team-a\n');

test('a Secret of the management cluster copied into the cluster namespace', () => {
  const tpl = file(
    'copy-secret.tpl',
    '{{ $s := getResource "creds" }}{{ $s := chainSetField $s "metadata.namespace" .Cluster.metadata.namespace }}' +
      '{{ toYaml $s }}\n',
  );
  const out = fleethub(tpl, '--data', cluster, '--resource', 'creds=' + secret, '--missing-key', 'error');
  assert.equal(out.code, 0, out.stderr);
  assert.equal(
    out.stdout,
    'apiVersion: v1\ndata:\n  token: c2VjcmV0\nkind: Secret\nmetadata:\n  name: autoscaler\n  namespace: team-a\ntype: Opaque\n',
  );
});

test('.MgmtResources, copy, setField and getField; edits carry over to later files', () => {
  const first = file(
    'first.tpl',
    'token: {{ (index .MgmtResources "creds").data.token | b64dec }}\n{{ setField "creds" "data.extra" "eA==" }}\n',
  );
  const second = file(
    'second.tpl',
    '{{ getField "creds" "data.extra" }} [{{ index .MgmtResources.creds.metadata "uid" }}]\n',
  );
  const out = fleethub(first, second, '--resource=creds=' + secret, '--missing-key', 'error');
  assert.equal(out.code, 0, out.stderr);
  const [a, b] = out.stdout.split('---\n');
  assert.match(a!, /^token: secret\napiVersion: v1\ndata:\n {2}extra: eA==\n {2}token: c2VjcmV0\n/);
  assert.doesNotMatch(a!, /uid|resourceVersion|managedFields/);
  // setField edited the stored object and stripped its uid: .MgmtResources shares it, as in Sveltos
  assert.equal(b, 'eA== [<no value>]\n');
});

test('an unknown identifier is a warning on stderr and an empty result, as Sveltos logs it', () => {
  const tpl = file('unknown.tpl', '[{{ copy "nope" }}][{{ getField "creds" "spec.nope" }}]\n');
  const out = fleethub(tpl, '--resource', 'creds=' + secret);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, '[][]\n');
  assert.equal(
    out.stderr,
    'warning: resource nope does not exist\nwarning: field spec.nope does not exist\n',
  );
});

test("Sveltos's function map: no include, no env; bad --resource values are usage errors", () => {
  const inc = fleethub(file('inc.tpl', '{{ include "x" . }}'), '--resource', 'creds=' + secret);
  assert.equal(inc.code, 1);
  assert.match(inc.stderr, /function "include" not defined/);
  const env = fleethub(file('env.tpl', '{{ env "HOME" }}'), '--data', cluster);
  assert.equal(env.code, 1);
  assert.match(env.stderr, /function "env" not defined/);
  const noEq = fleethub(file('x.tpl', 'x'), '--resource', secret);
  assert.equal(noEq.code, 2);
  assert.match(noEq.stderr, /--resource takes ID=FILE/);
  const list = fleethub(file('y.tpl', 'x'), '--resource', 'l=' + file('list.yaml', '- a\n'));
  assert.equal(list.code, 2);
  assert.match(list.stderr, /--resource l: .*must be a YAML or JSON object/);
  const withValues = fleethub(file('z.tpl', 'x'), '--resource', 'c=' + secret, '-f', cluster);
  assert.equal(withValues.code, 2);
  assert.match(withValues.stderr, /cannot be combined with --values/);
});
