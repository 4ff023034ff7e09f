// Sveltos's template helpers (addon-controller's instantiateTemplateValues) through the engine with
// missingkey=error, as Sveltos runs them: outputs, swallowed failures, shared state and Go's panics.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HELM_ONLY, parseResource, sveltosFuncMap, sveltosFunctions } from './template-functions.js';
import { parseTemplate } from '../gotemplate/template.js';
import { goInt64, type GoMap, type GoValue } from '../gotemplate/value.js';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: mgmt
  uid: 6b1c
  resourceVersion: "991"
  managedFields:
    - manager: kubectl
spec:
  replicas: 3
  paused: false
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.12
`;

const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: mgmt
  uid: 99
data:
  password: c2VjcmV0
`;

interface Rendered {
  out: string;
  logs: string[];
  resources: Record<string, GoMap>;
}

/** One Sveltos render: fresh objects, missingkey=error, the root Sveltos builds. */
function render(tpl: string, extraRoot: GoMap = {}, resources?: Record<string, GoMap>): Rendered {
  const res = resources ?? { Deployment: parseResource(DEPLOYMENT), Secret: parseResource(SECRET) };
  const logs: string[] = [];
  const funcs = sveltosFuncMap(res, { log: (m) => logs.push(m) });
  const root: GoMap = {
    Cluster: { metadata: { name: 'c1', namespace: 'team-a' } },
    MgmtResources: res,
    ...extraRoot,
  };
  const out = parseTemplate('t', tpl, { funcs, missingKey: 'error' }).execute('t', root);
  return { out, logs, resources: res };
}

function renderError(tpl: string): string {
  try {
    render(tpl);
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail(`expected ${tpl} to fail`);
}

describe('getResource', () => {
  test('returns the stored object with uid, resourceVersion and managedFields removed', () => {
    const r = render('{{ $d := getResource "Deployment" }}{{ $d.metadata.name }} {{ $d.spec.replicas }}');
    assert.equal(r.out, 'web 3');
    assert.deepEqual(Object.keys(r.resources.Deployment!.metadata as GoMap).sort(), ['name', 'namespace']);
  });

  test('an unknown identifier gives nil and a log line, not an error', () => {
    const r = render('{{ toYaml (getResource "nope") }}|{{ if getResource "nope" }}x{{ end }}');
    assert.equal(r.out, 'null|');
    assert.deepEqual(r.logs, ['resource nope does not exist', 'resource nope does not exist']);
  });

  test('a missing field of the result fails under missingkey=error', () => {
    assert.match(
      renderError('{{ (getResource "Secret").data.token }}'),
      /executing "t" at <.*>: map has no entry for key "token"/,
    );
  });

  test('an identifier must be a string, checked as text/template checks it', () => {
    assert.match(renderError('{{ getResource 3 }}'), /expected string; found 3/);
    assert.match(renderError('{{ getResource }}'), /wrong number of args for getResource: want 1 got 0/);
  });
});

describe('copy', () => {
  test('prints the object as toYaml does, without the server-set fields', () => {
    const r = render('{{ copy "Secret" }}');
    assert.equal(
      r.out,
      'apiVersion: v1\ndata:\n  password: c2VjcmV0\nkind: Secret\nmetadata:\n  name: creds\n  namespace: mgmt',
    );
  });

  test('an unknown identifier prints nothing', () => {
    const r = render('[{{ copy "nope" }}]');
    assert.equal(r.out, '[]');
    assert.deepEqual(r.logs, ['resource nope does not exist']);
  });
});

describe('getField', () => {
  test('returns a deep copy of the value at a dot path; integers are int64 as in unstructured', () => {
    const r = render(
      '{{ getField "Deployment" "spec.replicas" }} {{ typeOf (getField "Deployment" "spec.replicas") }} ' +
        '{{ $c := getField "Deployment" "spec.template.spec.containers" }}{{ $_ := set (index $c 0) "image" "x" }}' +
        '{{ getField "Deployment" "spec.template.spec.containers" }}',
    );
    assert.equal(r.out, '3 int64 [map[image:nginx:1.12 name:web]]');
  });

  test('reads the object as stored: uid is there until another helper strips it', () => {
    const r = render(
      '{{ getField "Secret" "metadata.uid" }} {{ $_ := copy "Secret" }}[{{ getField "Secret" "metadata.uid" }}]',
    );
    assert.equal(r.out, '99 []');
  });

  test('a missing path, a non-map on the way and an unknown id all give "" (logged)', () => {
    const r = render(
      '[{{ getField "Deployment" "spec.nope" }}][{{ getField "Deployment" "spec.replicas.x" }}]' +
        '[{{ getField "nope" "a" }}][{{ kindOf (getField "Deployment" "spec.nope") }}]',
    );
    assert.equal(r.out, '[][][][string]');
    assert.deepEqual(r.logs, [
      'field spec.nope does not exist',
      'failed with err .spec.replicas.x accessor error: 3 is of the type int64, expected map[string]interface{}',
      'resource nope does not exist',
      'field spec.nope does not exist',
    ]);
  });

  test('a null on the way counts as missing, a null leaf is returned as nil', () => {
    const res = { x: { a: null, b: { c: null } } as GoMap };
    const r = render('[{{ getField "x" "a.b" }}][{{ toJson (getField "x" "b.c") }}]', {}, res);
    assert.equal(r.out, '[][null]');
    assert.deepEqual(r.logs, ['field a.b does not exist']);
  });
});

describe('setField and removeField', () => {
  test('setField edits the stored object and prints it as YAML', () => {
    const r = render('{{ setField "Deployment" "spec.replicas" (int64 7) }}');
    assert.match(r.out, /^ {2}replicas: 7$/m);
    assert.doesNotMatch(r.out, /uid|resourceVersion|managedFields/);
    assert.deepEqual((r.resources.Deployment!.spec as GoMap).replicas, goInt64(7n));
  });

  test('a template literal is an int, which unstructured cannot hold: Sveltos documents (int64 7)', () => {
    assert.match(
      renderError('{{ setField "Deployment" "spec.replicas" 7 }}'),
      /error calling setField: cannot deep copy int$/,
    );
  });

  test('edits persist: a later call sees the earlier one (Sveltos shares the objects)', () => {
    const r = render(
      '{{ $_ := setField "Deployment" "spec.paused" true }}{{ $_ := removeField "Deployment" "spec.replicas" }}' +
        '{{ getField "Deployment" "spec.paused" }} {{ index .MgmtResources.Deployment.spec "replicas" }}',
    );
    assert.equal(r.out, 'true <no value>');
  });

  test('missing levels are created; a non-map level leaves the object alone and prints ""', () => {
    const r = render(
      '{{ $_ := setField "Secret" "metadata.labels.tier" "db" }}{{ (getResource "Secret").metadata.labels.tier }}' +
        '[{{ setField "Secret" "data.password.x" "y" }}]{{ (getResource "Secret").data.password }}',
    );
    assert.equal(r.out, 'db[]c2VjcmV0');
    assert.deepEqual(r.logs, [
      'failed with err value cannot be set because .data.password is not a map[string]interface{}',
    ]);
  });

  test('the value is deep-copied: a []string or a date cannot be, and fails the render', () => {
    assert.match(
      renderError('{{ setField "Secret" "data.list" (splitList "," "a,b") }}'),
      /error calling setField: cannot deep copy \[\]string/,
    );
    assert.match(
      renderError('{{ setField "Secret" "x" now }}'),
      /error calling setField: cannot deep copy time\.Time/,
    );
    const r = render(
      '{{ $m := dict "k" "v" }}{{ $_ := setField "Secret" "m" $m }}{{ $_ := set $m "k" "changed" }}{{ getField "Secret" "m.k" }}',
    );
    assert.equal(r.out, 'v');
  });

  test('removeField ignores a missing path and an unknown id prints ""', () => {
    const r = render('{{ removeField "Secret" "spec.nope.deeper" }}|{{ removeField "nope" "a" }}|');
    assert.match(r.out, /^apiVersion: v1\n[\s\S]*name: creds\n {2}namespace: mgmt\|\|$/);
  });
});

describe('chainSetField and chainRemoveField', () => {
  test('the Sveltos docs chain: copy a resource into the cluster namespace and print it', () => {
    const r = render(
      '{{ $cm := getResource "Secret" }}{{ $cm := chainSetField $cm "metadata.namespace" .Cluster.metadata.namespace }}{{ toYaml $cm }}',
    );
    assert.equal(
      r.out,
      'apiVersion: v1\ndata:\n  password: c2VjcmV0\nkind: Secret\nmetadata:\n  name: creds\n  namespace: team-a',
    );
  });

  test('they edit in place and return the same map, so the stored object changes too', () => {
    const r = render(
      '{{ $d := getResource "Deployment" }}{{ $e := chainRemoveField (chainSetField $d "spec.paused" true) "spec.replicas" }}' +
        '{{ eq (toJson $d) (toJson $e) }} {{ getField "Deployment" "spec.paused" }} {{ copy "Deployment" | contains "replicas" }}',
    );
    assert.equal(r.out, 'true true false');
  });

  test('addon-controller test: rewrite every container image from getField, then setField', () => {
    const r = render(`{{ $currentContainers := (getField "Deployment" "spec.template.spec.containers") }}
{{ $modifiedContainers := list }}
{{- range $element := $currentContainers }}
  {{ $modifiedContainers = append $modifiedContainers (chainSetField $element "image" "nginx:1.13" ) }}
{{- end }}
{{ setField "Deployment" "spec.template.spec.containers" $modifiedContainers }}`);
    assert.match(r.out, /- image: nginx:1\.13\n {8}name: web/);
  });

  test('a non-map level gives nil; on a nil map set fails the render and remove is a no-op', () => {
    const r = render('{{ toYaml (chainSetField (getResource "Secret") "data.password.x" "1") }}');
    assert.equal(r.out, 'null');
    assert.match(
      renderError('{{ chainSetField (getResource "nope") "a" "b" }}'),
      /error calling chainSetField: assignment to entry in nil map/,
    );
    assert.equal(render('{{ toYaml (chainRemoveField (getResource "nope") "a.b") }}').out, 'null');
    assert.match(
      renderError('{{ $s := "x" }}{{ chainSetField $s "a" "b" }}'),
      /wrong type for value; expected map\[string\]interface \{\}; got string/,
    );
  });

  test('paths split on every dot, with no escaping', () => {
    const res = { x: { 'a.b': 1n } as GoMap };
    const r = render(
      '{{ toJson (chainSetField (dict) "app.kubernetes.io/name" "w") }}[{{ getField "x" "a.b" }}]',
      {},
      res,
    );
    assert.equal(r.out, '{"app":{"kubernetes":{"io/name":"w"}}}[]');
  });
});

describe('the function map', () => {
  test('has libsveltos and sprig functions, drops helm-only ones and env/expandenv', () => {
    const fns = sveltosFuncMap({});
    for (const name of [
      'toYaml',
      'fromYaml',
      'fromYamlArray',
      'toJson',
      'fromJson',
      'fromJsonArray',
      'b64dec',
    ])
      assert.equal(typeof fns[name], 'function', name);
    for (const name of [...HELM_ONLY, 'env', 'expandenv']) assert.equal(fns[name], undefined, name);
    assert.throws(
      () => parseTemplate('t', '{{ include "x" . }}', { funcs: fns }),
      /function "include" not defined/,
    );
  });

  test('sveltosFunctions takes a Map too, and rejects a resource that is not an object', () => {
    const fns = sveltosFunctions(new Map<string, GoValue>([['a', { kind: 'X' }]]));
    assert.deepEqual(Object.keys(fns).sort(), [
      'chainRemoveField',
      'chainSetField',
      'copy',
      'getField',
      'getResource',
      'removeField',
      'setField',
    ]);
    assert.equal(parseTemplate('t', '{{ copy "a" }}', { funcs: fns }).execute('t', null), 'kind: X');
    assert.throws(() => sveltosFunctions({ a: 'text' }), /resource a is not an object \(string\)/);
  });

  test('parseResource types integers as int64 and keeps fractions as float64', () => {
    assert.deepEqual(parseResource('{"a": 3, "b": 1.5, "c": [1e6], "d": 1e21}'), {
      a: goInt64(3n),
      b: 1.5,
      c: [goInt64(1000000n)],
      d: 1e21,
    });
    assert.throws(() => parseResource('- a'), /must be a YAML or JSON object, got \[\]interface \{\}/);
  });
});
