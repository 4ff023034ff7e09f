// The dry-run verdict of one manifest without a cluster: which action, which changed paths (bounded),
// and Sveltos's ownership rule (another profile's object is a Conflict unless a lower tier claims it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { changedPaths, describePaths, dryRunVerdict } from './dryrun.js';

function cm(data: Record<string, string>, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'default', ...(annotations ? { annotations } : {}) },
    data,
  };
}

const owner = (name: string, tier?: number): Record<string, string> => ({
  'projectsveltos.io/owner-kind': 'ClusterProfile',
  'projectsveltos.io/owner-name': name,
  ...(tier !== undefined ? { 'projectsveltos.io/owner-tier': String(tier) } : {}),
});

describe('dry-run verdicts', () => {
  it('names changed paths down to three levels, annotation keys in brackets, server fields ignored', () => {
    const before: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', resourceVersion: '1', annotations: { 'example.com/a': '1' } },
      spec: { replicas: 1, template: { spec: { containers: [{ image: 'a' }] } } },
      status: { ready: 1 },
    };
    const after: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        resourceVersion: '2',
        annotations: { 'example.com/a': '2' },
        labels: { l: 'x' },
      },
      spec: { replicas: 2, template: { spec: { containers: [{ image: 'b' }] } } },
      status: { ready: 2 },
    };
    assert.deepEqual(changedPaths(before, after), [
      'metadata.annotations["example.com/a"]',
      'metadata.labels',
      'spec.replicas',
      'spec.template.spec',
    ]);
  });

  it('keeps a message bounded: six paths, long ones cut, then how many more', () => {
    const paths = Array.from({ length: 40 }, (_, i) => `data.key${i}`);
    assert.equal(
      describePaths(paths),
      'data.key0, data.key1, data.key2, data.key3, data.key4, data.key5 and 34 more',
    );
    const long = describePaths([`metadata.annotations["${'a'.repeat(200)}"]`]);
    assert.equal(long.length, 80);
    assert.ok(long.endsWith('…'));
    const huge: KubeObject = cm(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 'v'])));
    const verdict = dryRunVerdict(huge, cm({}), huge, true);
    assert.equal(verdict.action, 'Update');
    assert.ok(verdict.message.length < 200, verdict.message);
  });

  it('Create for a missing object, No Action when nothing changes', () => {
    assert.equal(dryRunVerdict(cm({ k: 'v' }), undefined, cm({ k: 'v' }), true).action, 'Create');
    assert.deepEqual(dryRunVerdict(cm({ k: 'v' }), cm({ k: 'v' }), cm({ k: 'v' }), false), {
      action: 'NoAction',
      message: 'Applying would not change the object',
    });
  });

  it('Conflict when another profile owns the object and the claim does not win by tier', () => {
    const live = cm({ k: 'theirs' }, owner('other', 100));
    for (const tier of [100, 200, undefined]) {
      const manifest = cm({ k: 'ours' }, owner('mine', tier));
      const verdict = dryRunVerdict(manifest, live, manifest, true);
      assert.equal(verdict.action, 'Conflict', `tier ${String(tier)}`);
      assert.match(verdict.message, /^The object is deployed by ClusterProfile other \(tier 100\)/);
    }
    const lower = cm({ k: 'ours' }, owner('mine', 10));
    const takeover = dryRunVerdict(lower, live, lower, true);
    assert.equal(takeover.action, 'Update');
    assert.match(
      takeover.message,
      /^Applying would take the object over from ClusterProfile other \(tier 100\)/,
    );
  });

  it('no Conflict for the same owner, an unowned object, or a manifest without Sveltos owner annotations', () => {
    const mine = cm({ k: 'new' }, owner('mine', 100));
    assert.equal(dryRunVerdict(mine, cm({ k: 'old' }, owner('mine', 100)), mine, true).action, 'Update');
    assert.equal(dryRunVerdict(mine, cm({ k: 'old' }), mine, true).action, 'Update');
    const plain = cm({ k: 'new' });
    assert.equal(dryRunVerdict(plain, cm({ k: 'old' }, owner('other')), plain, true).action, 'Update');
  });
});
