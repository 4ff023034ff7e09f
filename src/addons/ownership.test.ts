// The ownership rule on its own: lower tier wins, a tie keeps the holder, a race settles on the older work.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../apiserver/patch/json.js';
import { describeConflict, guessResource, objectKey, resolveOwnership, type Holding } from './ownership.js';

const settings = (owner: string, tier: number): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace: 'app',
    annotations: {
      'projectsveltos.io/owner-kind': 'ClusterProfile',
      'projectsveltos.io/owner-name': owner,
      'projectsveltos.io/owner-tier': String(tier),
    },
  },
});
const other: JsonObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'app' } };
const KEY = objectKey(settings('a', 1));

function holding(summary: string, since: string, owner: string, tier: number): Holding {
  return { summary, since, objects: new Map([[KEY, { kind: 'ClusterProfile', name: owner, tier }]]) };
}

describe('resolveOwnership', () => {
  it('nobody holds it: it is delivered', () => {
    const r = resolveOwnership({
      self: { summary: 's', since: '', profile: { kind: 'Profile', name: 't', tier: 100 } },
      desired: [settings('t', 100), other],
      holding: new Set(),
      others: [],
    });
    assert.equal(r.owned.length, 2);
    assert.deepEqual(r.conflicts, []);
  });

  it('a lower tier takes it from the holder; a higher one does not', () => {
    const others = [holding('tenant-sum', '2026-01-01T00:00:00Z', 'tenant', 100)];
    const win = resolveOwnership({
      self: { summary: 'p', since: '', profile: { kind: 'ClusterProfile', name: 'platform', tier: 10 } },
      desired: [settings('platform', 10)],
      holding: new Set(),
      others,
    });
    assert.equal(win.owned.length, 1);
    const lose = resolveOwnership({
      self: { summary: 'q', since: '', profile: { kind: 'ClusterProfile', name: 'late', tier: 200 } },
      desired: [settings('late', 200), other],
      holding: new Set(),
      others,
    });
    assert.deepEqual(
      lose.owned.map((o) => o['kind']),
      ['Secret'],
    );
    assert.equal(lose.conflicts[0]!.owner.name, 'tenant');
    assert.equal(lose.conflicts[0]!.object.resource, 'configmaps');
    assert.match(
      describeConflict(lose.conflicts[0]!, { kind: 'ClusterProfile', name: 'late', tier: 200 }),
      /^ConfigMap app\/settings is managed by ClusterProfile tenant: its tier 100 is lower than this profile's 200$/,
    );
  });

  it('a tie keeps the holder; when both hold it (a race) the older work keeps it', () => {
    const self = {
      summary: 'b',
      since: '2026-02-01T00:00:00Z',
      profile: { kind: 'ClusterProfile', name: 'b', tier: 100 },
    };
    const others = [holding('a', '2026-01-01T00:00:00Z', 'a', 100)];
    const tie = resolveOwnership({ self, desired: [settings('b', 100)], holding: new Set(), others });
    assert.equal(tie.conflicts.length, 1);
    assert.match(describeConflict(tie.conflicts[0]!, self.profile), /there first and the tiers are equal/);
    const raceLost = resolveOwnership({
      self,
      desired: [settings('b', 100)],
      holding: new Set([KEY]),
      others,
    });
    assert.equal(raceLost.conflicts.length, 1);
    const raceWon = resolveOwnership({
      self: { ...self, since: '2025-12-01T00:00:00Z' },
      desired: [settings('b', 100)],
      holding: new Set([KEY]),
      others,
    });
    assert.equal(raceWon.conflicts.length, 0);
  });

  it('the best of several holders is named', () => {
    const r = resolveOwnership({
      self: { summary: 's', since: '', profile: { kind: 'Profile', name: 't', tier: 100 } },
      desired: [settings('t', 100)],
      holding: new Set(),
      others: [holding('x', '2026-01-01T00:00:00Z', 'x', 50), holding('y', '2026-03-01T00:00:00Z', 'y', 5)],
    });
    assert.equal(r.conflicts[0]!.owner.name, 'y');
  });

  it('guesses resources as Kubernetes does', () => {
    assert.deepEqual(['ConfigMap', 'Ingress', 'NetworkPolicy', 'Deployment'].map(guessResource), [
      'configmaps',
      'ingresses',
      'networkpolicies',
      'deployments',
    ]);
  });
});
