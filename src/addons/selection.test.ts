// Sveltos cluster selection over fleethub Clusters (selector, refs, namespaces, deletion, pause) and the
// ClusterSummary / ClusterReport names and labels, including the 253-character limit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/types.js';
import {
  clusterReference,
  clusterRefProblems,
  clusterReportName,
  clusterSummaryLabels,
  clusterSummaryName,
  matchingClusters,
  SelectionError,
  type SelectingProfile,
} from './selection.js';

const FLEET = 'fleet.fleethub.io/v1alpha1';

function cluster(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
  extra: { paused?: boolean; deleting?: boolean } = {},
): KubeObject {
  return {
    apiVersion: FLEET,
    kind: 'Cluster',
    metadata: {
      name,
      namespace,
      labels,
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] } : {}),
    },
    spec: { site: 'edge', ...(extra.paused !== undefined ? { paused: extra.paused } : {}) },
  };
}

const FLEET_CLUSTERS: KubeObject[] = [
  cluster('prod', 'c2', { env: 'prod', 'cluster.x-k8s.io/cluster-name': 'c2', tier: 'gold' }),
  cluster('prod', 'c1', { env: 'prod', 'cluster.x-k8s.io/cluster-name': 'c1' }),
  cluster('dev', 'c3', { env: 'dev', 'cluster.x-k8s.io/cluster-name': 'c3' }),
  cluster('team-a', 'a1', { env: 'dev' }),
  cluster('team-b', 'b1', { env: 'dev' }),
  cluster('prod', 'gone', { env: 'prod' }, { deleting: true }),
  cluster('prod', 'frozen', { env: 'prod' }, { paused: true }),
  // Not clusters: same labels, other kinds.
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'prod', labels: { env: 'prod' } },
  },
  {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: { name: 'capi', namespace: 'prod', labels: { env: 'prod' } },
  },
];

const names = (profile: SelectingProfile, clusters = FLEET_CLUSTERS) =>
  matchingClusters(profile, clusters).map((m) => `${m.namespace}/${m.name}${m.paused ? ' (paused)' : ''}`);

const cp = (spec: SelectingProfile['spec']): SelectingProfile => ({ kind: 'ClusterProfile', spec });
const p = (namespace: string, spec: SelectingProfile['spec']): SelectingProfile => ({
  kind: 'Profile',
  namespace,
  spec,
});

describe('matchingClusters', () => {
  test('an empty or absent selector matches nothing (Sveltos, unlike Kubernetes)', () => {
    assert.deepEqual(names(cp({})), []);
    assert.deepEqual(names(cp({ clusterSelector: null })), []);
    assert.deepEqual(names(cp({ clusterSelector: {} })), []);
    assert.deepEqual(names(cp({ clusterSelector: { matchLabels: {}, matchExpressions: [] } })), []);
  });

  test('matchLabels: sorted by namespace then name; deleting clusters excluded; paused flagged', () => {
    assert.deepEqual(names(cp({ clusterSelector: { matchLabels: { env: 'prod' } } })), [
      'prod/c1',
      'prod/c2',
      'prod/frozen (paused)',
    ]);
    const out = matchingClusters(cp({ clusterSelector: { matchLabels: { env: 'prod' } } }), FLEET_CLUSTERS);
    assert.deepEqual(out[0], {
      apiVersion: FLEET,
      kind: 'Cluster',
      namespace: 'prod',
      name: 'c1',
      paused: false,
    });
    assert.deepEqual(clusterReference(out[0]!), {
      apiVersion: FLEET,
      kind: 'Cluster',
      namespace: 'prod',
      name: 'c1',
    });
  });

  test('the seed selector: every Cluster with the cluster.x-k8s.io/cluster-name label', () => {
    const profile = cp({
      clusterSelector: { matchExpressions: [{ key: 'cluster.x-k8s.io/cluster-name', operator: 'Exists' }] },
    });
    assert.deepEqual(names(profile), ['dev/c3', 'prod/c1', 'prod/c2']);
  });

  test('matchExpressions In / NotIn / Exists / DoesNotExist, ANDed with matchLabels', () => {
    const sel = (
      matchExpressions: { key: string; operator: string; values?: string[] }[],
      matchLabels = {},
    ) => names(cp({ clusterSelector: { matchLabels, matchExpressions } }));
    assert.deepEqual(sel([{ key: 'env', operator: 'In', values: ['dev'] }]), [
      'dev/c3',
      'team-a/a1',
      'team-b/b1',
    ]);
    assert.deepEqual(sel([{ key: 'env', operator: 'NotIn', values: ['dev'] }]), [
      'prod/c1',
      'prod/c2',
      'prod/frozen (paused)',
    ]);
    assert.deepEqual(sel([{ key: 'tier', operator: 'Exists' }]), ['prod/c2']);
    assert.deepEqual(
      sel([{ key: 'cluster.x-k8s.io/cluster-name', operator: 'DoesNotExist' }], { env: 'dev' }),
      ['team-a/a1', 'team-b/b1'],
    );
  });

  test('bad selectors are SelectionErrors naming the field', () => {
    assert.throws(
      () =>
        names(cp({ clusterSelector: { matchExpressions: [{ key: 'env', operator: 'Gt', values: ['1'] }] } })),
      (e: unknown) =>
        e instanceof SelectionError &&
        e.code === 'InvalidClusterSelector' &&
        e.field === 'spec.clusterSelector.matchExpressions[0].operator' &&
        e.message.includes('"Gt"'),
    );
    assert.throws(
      () =>
        names(cp({ clusterSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] } })),
      (e: unknown) =>
        e instanceof SelectionError && e.field === 'spec.clusterSelector' && /can't be empty/.test(e.message),
    );
    assert.throws(
      () => names(cp({ clusterSelector: { matchLabels: { 'bad key!': 'x' } } })),
      (e: unknown) => e instanceof SelectionError && e.code === 'InvalidClusterSelector',
    );
  });

  test('clusterRefs: fleethub and cluster.x-k8s.io refs name fleethub Clusters; union with the selector, deduplicated', () => {
    const profile = cp({
      clusterSelector: { matchLabels: { tier: 'gold' } },
      clusterRefs: [
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'dev', name: 'c3' },
        { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', namespace: 'team-a', name: 'a1' },
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'prod', name: 'c2' }, // also selected
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'prod', name: 'nonexistent' },
        { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'dev', name: 'c3' },
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'prod', name: 'gone' }, // being deleted
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'prod', name: 'frozen' },
      ],
    });
    assert.deepEqual(names(profile), ['dev/c3', 'prod/c2', 'prod/frozen (paused)', 'team-a/a1']);
  });

  test('SveltosCluster and other refs are ignored, and clusterRefProblems says why', () => {
    const profile = cp({
      clusterRefs: [
        { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'dev', name: 'c3' },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'dev', name: 'c3' },
        { apiVersion: 'example.com/v1', kind: 'Cluster', namespace: 'dev', name: 'c3' },
        { apiVersion: FLEET, kind: 'Cluster', name: 'c3' },
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'dev' },
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'dev', name: 'c3' },
      ],
    });
    assert.deepEqual(names(profile), ['dev/c3']);
    const problems = clusterRefProblems(profile);
    assert.deepEqual(
      problems.map((e) => [e.code, e.field]),
      [0, 1, 2, 3, 4].map((i) => ['InvalidClusterRef', `spec.clusterRefs[${i}]`]),
    );
    assert.match(problems[0]!.message, /SveltosCluster is not served here/);
    assert.match(problems[3]!.message, /namespace is required/);
  });

  test('a Profile reaches only its own namespace, by selector and by ref', () => {
    const profile = p('team-a', {
      clusterSelector: { matchLabels: { env: 'dev' } },
      clusterRefs: [
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'team-b', name: 'b1' },
        { apiVersion: FLEET, kind: 'Cluster', namespace: 'prod', name: 'c1' },
      ],
    });
    assert.deepEqual(names(profile), ['team-a/a1']);
    const problems = clusterRefProblems(profile);
    assert.equal(problems.length, 2);
    assert.match(problems[0]!.message, /own namespace "team-a"/);

    // A ref without namespace means the Profile's own; metadata.namespace is read too.
    const byRef: SelectingProfile = {
      kind: 'Profile',
      metadata: { name: 'x', namespace: 'team-b' },
      spec: { clusterRefs: [{ apiVersion: FLEET, kind: 'Cluster', name: 'b1' }] },
    };
    assert.deepEqual(names(byRef), ['team-b/b1']);
    assert.deepEqual(clusterRefProblems(byRef), []);
    // A team-b ref to a name that exists only in team-a does not match.
    assert.deepEqual(
      names({ ...byRef, spec: { clusterRefs: [{ apiVersion: FLEET, kind: 'Cluster', name: 'a1' }] } }),
      [],
    );
  });

  test('a Profile without a namespace is an error', () => {
    assert.throws(
      () => names({ kind: 'Profile', spec: { clusterSelector: { matchLabels: { env: 'dev' } } } }),
      (e: unknown) => e instanceof SelectionError && e.field === 'metadata.namespace',
    );
  });

  test('objects without kind/apiVersion (as store lists give them) are read as Clusters', () => {
    const bare: KubeObject = { metadata: { name: 'z', namespace: 'prod', labels: { env: 'prod' } } };
    assert.deepEqual(names(cp({ clusterSelector: { matchLabels: { env: 'prod' } } }), [bare]), ['prod/z']);
  });
});

describe('derived names and labels', () => {
  test('ClusterSummary and ClusterReport names as Sveltos builds them', () => {
    assert.equal(clusterSummaryName('ClusterProfile', 'flannel', 'c1'), 'flannel-capi-c1');
    assert.equal(clusterSummaryName('Profile', 'flannel', 'c1'), 'p--flannel-capi-c1');
    assert.equal(clusterReportName('ClusterProfile', 'flannel', 'c1'), 'flannel--capi--c1');
    assert.equal(clusterReportName('Profile', 'flannel', 'c1'), 'p--flannel--capi--c1');
    assert.equal(clusterSummaryName('ClusterProfile', 'cni.v2', 'c1'), 'cni.v2-capi-c1');
  });

  test('labels: cluster-profile-name or profile-name, cluster-name, cluster-type Capi', () => {
    assert.deepEqual(clusterSummaryLabels('ClusterProfile', 'flannel', 'c1'), {
      'projectsveltos.io/cluster-profile-name': 'flannel',
      'projectsveltos.io/cluster-name': 'c1',
      'projectsveltos.io/cluster-type': 'Capi',
    });
    assert.deepEqual(clusterSummaryLabels('Profile', 'flannel', 'c1'), {
      'projectsveltos.io/profile-name': 'flannel',
      'projectsveltos.io/cluster-name': 'c1',
      'projectsveltos.io/cluster-type': 'Capi',
    });
  });

  test('253 characters is the limit: exactly at it is fine, one more is a NameTooLong error', () => {
    const cluster63 = 'c'.repeat(63);
    // 'p--' + profile + '-capi-' + cluster = 253
    const profile = 'p'.repeat(253 - 3 - 6 - 63);
    assert.equal(clusterSummaryName('Profile', profile, cluster63).length, 253);
    assert.throws(
      () => clusterSummaryName('Profile', profile + 'x', cluster63),
      (e: unknown) =>
        e instanceof SelectionError &&
        e.code === 'NameTooLong' &&
        e.field === 'metadata.name' &&
        /ClusterSummary name .* is 254 characters; Kubernetes allows at most 253/.test(e.message),
    );
    // The report name is two characters longer for the same inputs.
    assert.throws(
      () => clusterReportName('Profile', profile, cluster63),
      (e: unknown) =>
        e instanceof SelectionError && e.code === 'NameTooLong' && /ClusterReport/.test(e.message),
    );
  });

  test('a profile name longer than 63 characters cannot be a label value', () => {
    assert.throws(
      () => clusterSummaryLabels('ClusterProfile', 'x'.repeat(64), 'c1'),
      (e: unknown) =>
        e instanceof SelectionError &&
        e.code === 'NameTooLong' &&
        e.field === 'metadata.labels[projectsveltos.io/cluster-profile-name]',
    );
    assert.equal(
      clusterSummaryLabels('ClusterProfile', 'x'.repeat(63), 'c1')['projectsveltos.io/cluster-profile-name']!
        .length,
      63,
    );
  });
});
