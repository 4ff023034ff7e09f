// What sources.ts reads out of ConfigMaps, Secrets and raw texts, and how it refuses what it cannot.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ContentError } from './errors.js';
import {
  CLUSTER_PROFILE_SECRET_TYPE,
  type SourceObject,
  documentsFromSource,
  isTemplateAnnotated,
  parseDocuments,
  sourceTexts,
  splitDocuments,
} from './sources.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function configMap(data: Record<string, string>, annotations?: Record<string, string>): SourceObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'addons', namespace: 'team-a', ...(annotations ? { annotations } : {}) },
    data,
  };
}

function thrown(fn: () => unknown): ContentError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ContentError, `expected a ContentError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

describe('ConfigMap sources', () => {
  test('keys in sorted order, documents in order, empty documents skipped', () => {
    const cm = configMap({
      'z.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: z\n',
      'a.yaml':
        '---\n# only a comment\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: one\n---\n\n---\n' +
        '{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "two"}}\n...\n',
    });
    const names = documentsFromSource(cm).map((d) => (d['metadata'] as { name: string }).name);
    assert.deepEqual(names, ['one', 'two', 'z']);
    assert.deepEqual(
      sourceTexts(cm).map((t) => t.origin.key),
      ['a.yaml', 'z.yaml'],
    );
  });

  test('a document that is not a Kubernetes object names the source, key and document index', () => {
    const cm = configMap({
      'x.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nfoo: bar\n',
    });
    const e = thrown(() => documentsFromSource(cm));
    assert.equal(e.code, 'NotAKubernetesObject');
    assert.equal(
      e.message,
      'ConfigMap team-a/addons key "x.yaml" document 1: not a Kubernetes object (missing apiVersion and kind)',
    );
    assert.deepEqual(e.origin, {
      kind: 'ConfigMap',
      namespace: 'team-a',
      name: 'addons',
      key: 'x.yaml',
      document: 1,
    });
    const list = thrown(() => documentsFromSource(configMap({ k: '- a\n- b\n' })));
    assert.match(list.message, /key "k" document 0: not a Kubernetes object \(a list/);
  });

  test('invalid YAML is an InvalidYaml error naming the document', () => {
    const e = thrown(() =>
      parseDocuments('a: [1, 2\n', { kind: 'ConfigMap', namespace: 'n', name: 'c', key: 'k' }),
    );
    assert.equal(e.code, 'InvalidYaml');
    assert.match(e.message, /^ConfigMap n\/c key "k" document 0: error converting YAML to JSON/);
  });

  test('YAML is read as kubectl reads it: 1.1 octal, List objects expanded', () => {
    const docs = parseDocuments(
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n' +
        '- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n  x: 0755\n',
      { kind: 'RemoteURL', name: 'https://example.com/a.yaml' },
    );
    assert.deepEqual(
      docs.map((d) => d['kind']),
      ['ConfigMap', 'Secret'],
    );
    assert.equal(docs[1]!['x'], 493);
  });

  test('the template annotation is recognized whatever its value', () => {
    assert.equal(isTemplateAnnotated(configMap({}, { 'projectsveltos.io/template': '' })), true);
    assert.equal(isTemplateAnnotated(configMap({}, { other: 'x' })), false);
    assert.equal(isTemplateAnnotated(configMap({})), false);
  });
});

describe('Secret sources', () => {
  test('a Secret of another type is refused, naming the Secret and its type', () => {
    const secret: SourceObject = {
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'team-a' },
      type: 'Opaque',
      data: { k: b64('apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n') },
    };
    const e = thrown(() => sourceTexts(secret));
    assert.equal(e.code, 'InvalidSecretType');
    assert.equal(
      e.message,
      'Secret team-a/creds has type "Opaque"; content Secrets must have type "addons.projectsveltos.io/cluster-profile"',
    );
    const untyped = thrown(() => sourceTexts({ ...secret, type: undefined }));
    assert.match(untyped.message, /has type ""/);
  });

  test('the cluster-profile type is read, data base64-decoded', () => {
    const secret: SourceObject = {
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'team-a' },
      type: CLUSTER_PROFILE_SECRET_TYPE,
      data: {
        k: b64(
          'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n',
        ),
      },
    };
    assert.deepEqual(
      documentsFromSource(secret).map((d) => d['metadata']),
      [{ name: 'a' }, { name: 'b' }],
    );
    const bad = thrown(() => sourceTexts({ ...secret, data: { k: 'not base64!' } }));
    assert.equal(bad.code, 'InvalidSource');
  });

  test('other kinds are not content sources', () => {
    assert.equal(thrown(() => sourceTexts({ kind: 'Pod', metadata: { name: 'p' } })).code, 'InvalidSource');
  });
});

test('splitDocuments: markers only at line starts, content after the marker goes to the next document', () => {
  assert.deepEqual(splitDocuments('a: 1\n---\nb: "---"\n--- \nc: 3'), ['a: 1', 'b: "---"', 'c: 3']);
  assert.deepEqual(splitDocuments('--- {a: 1}\n'), ['{a: 1}\n']);
  assert.deepEqual(splitDocuments('---\n---\nx: 1'), ['', 'x: 1']);
});
