// Sveltos's deployment metadata, the object hash, and the default namespace.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Manifest } from './sources.js';
import { HASH_ANNOTATION, canonicalJson, objectHash, stampObject, withDefaultNamespace } from './stamp.js';

const opts = {
  feature: 'Resources',
  reference: { kind: 'ConfigMap', namespace: 'team-a', name: 'cni', tier: 100 },
  owner: { kind: 'ClusterProfile', name: 'flannel-cni', tier: 50 },
};
const cm: Manifest = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', labels: { a: 'b' }, annotations: { [HASH_ANNOTATION]: 'stale' } },
  data: { k: 'v' },
};

test('labels and annotations as Sveltos stamps them; the hash covers all but itself', () => {
  const s = stampObject(cm, opts);
  const md = s['metadata'] as { labels: Record<string, string>; annotations: Record<string, string> };
  assert.deepEqual(md.labels, { a: 'b', 'projectsveltos.io/reason': 'Resources' });
  const { [HASH_ANNOTATION]: hash, ...rest } = md.annotations;
  assert.deepEqual(rest, {
    'projectsveltos.io/reference-kind': 'ConfigMap',
    'projectsveltos.io/reference-name': 'cni',
    'projectsveltos.io/reference-namespace': 'team-a',
    'projectsveltos.io/reference-tier': '100',
    'projectsveltos.io/owner-kind': 'ClusterProfile',
    'projectsveltos.io/owner-name': 'flannel-cni',
    'projectsveltos.io/owner-tier': '50',
  });
  assert.match(hash!, /^sha256:[0-9a-f]{64}$/);
  assert.equal(objectHash(s), hash, 'recomputing over the delivered object gives the stamped hash');
  assert.equal(
    (cm['metadata'] as { annotations: Record<string, string> }).annotations[HASH_ANNOTATION],
    'stale',
  );
});

test('the hash ignores key order and changes with any content or owner change', () => {
  const reordered: Manifest = {
    data: { k: 'v' },
    metadata: cm['metadata']!,
    kind: 'ConfigMap',
    apiVersion: 'v1',
  };
  const h = (o: Manifest, o2 = opts): string =>
    (stampObject(o, o2)['metadata'] as { annotations: Record<string, string> }).annotations[HASH_ANNOTATION]!;
  assert.equal(h(reordered), h(cm));
  assert.notEqual(h({ ...cm, data: { k: 'w' } }), h(cm));
  assert.notEqual(h(cm, { ...opts, owner: { ...opts.owner, tier: 10 } }), h(cm));
  assert.equal(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x' }), '{"a":"x","b":[2,{"c":null,"d":1}]}');
});

test('namespace `default` only for kinds the caller says are namespaced', () => {
  const ns = (o: Manifest): unknown => (o['metadata'] as { namespace?: string }).namespace;
  const known = (_: string, kind: string): boolean | undefined =>
    kind === 'ConfigMap' ? true : kind === 'Namespace' ? false : undefined;
  assert.equal(ns(withDefaultNamespace(cm, known)), 'default');
  assert.equal(ns(withDefaultNamespace({ ...cm, metadata: { name: 'x', namespace: 'n' } }, known)), 'n');
  assert.equal(ns(withDefaultNamespace({ ...cm, kind: 'Namespace' }, known)), undefined);
  assert.equal(ns(withDefaultNamespace({ ...cm, kind: 'Widget' }, known)), undefined);
  assert.equal(ns(withDefaultNamespace(cm, undefined)), undefined);
});
