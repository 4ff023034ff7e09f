// The pure parts of the work applier: feedback values, condition building, drift decisions and the
// object helpers, without a cluster.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { buildWorkStatus, type ManifestState } from './conditions.js';
import { isDrift, watchTargets } from './drift.js';
import { feedbackValues, readFieldValue } from './feedback.js';
import { deepMerge, objectFingerprint, removePath } from './objects.js';
import type { AppliedRecord, ManifestResourceMeta } from './types.js';

const job: KubeObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j' },
  status: {
    succeeded: 1,
    conditions: [
      { type: 'SuccessCriteriaMet', status: 'True' },
      { type: 'Complete', status: 'True' },
    ],
    ready: false,
    startTime: '2026-01-01T00:00:00Z',
    uncountedTerminatedPods: { succeeded: ['a'] },
  },
};

describe('feedback', () => {
  it('reads the well-known Job statuses', () => {
    assert.deepEqual(feedbackValues(job, [{ type: 'WellKnownStatus' }]), {
      values: [
        { name: 'JobComplete', fieldValue: { type: 'String', string: 'True' } },
        { name: 'JobSucceeded', fieldValue: { type: 'Integer', integer: 1 } },
      ],
      errors: [],
    });
  });

  it('types JSONPaths values and leaves missing ones out', () => {
    const r = feedbackValues(job, [
      {
        type: 'JSONPaths',
        jsonPaths: [
          { name: 'ready', path: '.status.ready' },
          { name: 'start', path: '.status.startTime' },
          { name: 'uncounted', path: '.status.uncountedTerminatedPods' },
          { name: 'types', path: '.status.conditions[*].type' },
          { name: 'missing', path: '.status.active' },
        ],
      },
    ]);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.values, [
      { name: 'ready', fieldValue: { type: 'Boolean', boolean: false } },
      { name: 'start', fieldValue: { type: 'String', string: '2026-01-01T00:00:00Z' } },
      { name: 'uncounted', fieldValue: { type: 'JsonRaw', jsonRaw: '{"succeeded":["a"]}' } },
      { name: 'types', fieldValue: { type: 'JsonRaw', jsonRaw: '["SuccessCriteriaMet","Complete"]' } },
    ]);
  });

  it('reports kinds without well-known statuses, version mismatches and oversized JSON as errors', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { big: 'x' },
    };
    const r = feedbackValues(cm, [
      { type: 'WellKnownStatus' },
      { type: 'JSONPaths', jsonPaths: [{ name: 'v2', version: 'v2', path: '.data.big' }] },
    ]);
    assert.equal(r.values.length, 0);
    assert.equal(r.errors.length, 2);
    const huge: KubeObject = {
      apiVersion: 'v1',
      kind: 'X',
      metadata: {},
      status: { list: Array(600).fill('ab') },
    };
    assert.throws(() => readFieldValue(huge, '.status.list'), /more than 1024/);
  });
});

function meta(ordinal: number, name: string): ManifestResourceMeta {
  return {
    ordinal,
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    name,
    namespace: 'default',
  };
}

describe('conditions', () => {
  const t1 = new Date('2026-01-01T00:00:00Z');
  const t2 = new Date('2026-01-01T01:00:00Z');
  const states = (availableB: boolean): ManifestState[] => [
    { meta: meta(0, 'a'), applied: { ok: true }, available: { status: 'True' } },
    {
      meta: meta(1, 'b'),
      applied: { ok: true },
      available: availableB ? { status: 'True' } : { status: 'False' },
      feedback: { values: [], errors: ['boom'] },
    },
    { meta: meta(2, 'c'), applied: { ok: false, message: 'nope' }, available: { status: 'False' } },
  ];

  it('counts manifests into the work conditions and keeps transition times of unchanged statuses', () => {
    const first = buildWorkStatus(states(false), undefined, 3, { now: t1 });
    const byType = (s: typeof first, t: string) => s.conditions?.find((c) => c.type === t);
    assert.equal(byType(first, 'Applied')?.status, 'False');
    assert.equal(byType(first, 'Applied')?.message, 'Failed to apply manifest work: 1 of 3 manifests failed');
    assert.equal(byType(first, 'Available')?.message, '1 of 3 resources are available, 2 not available');
    assert.equal(byType(first, 'Degraded')?.status, 'True');
    assert.equal(byType(first, 'Progressing')?.status, 'True');
    assert.equal(byType(first, 'Applied')?.observedGeneration, 3);
    const b = first.resourceStatus?.manifests?.[1];
    assert.equal(b?.conditions.find((c) => c.type === 'StatusFeedbackSynced')?.status, 'False');
    assert.equal(first.resourceStatus?.manifests?.[0]?.conditions.length, 2);

    const second = buildWorkStatus(states(true), first, 3, { now: t2 });
    assert.equal(byType(second, 'Applied')?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(byType(second, 'Progressing')?.status, 'False');
    assert.equal(byType(second, 'Progressing')?.lastTransitionTime, '2026-01-01T01:00:00Z');
    const bAvailable = second.resourceStatus?.manifests?.[1]?.conditions.find((c) => c.type === 'Available');
    assert.equal(bAvailable?.status, 'True');
    assert.equal(bAvailable?.lastTransitionTime, '2026-01-01T01:00:00Z');
    const aApplied = second.resourceStatus?.manifests?.[0]?.conditions.find((c) => c.type === 'Applied');
    assert.equal(aApplied?.lastTransitionTime, '2026-01-01T00:00:00Z');
  });
});

describe('drift', () => {
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'default', uid: 'u1', resourceVersion: '5' },
    data: { k: 'v' },
  };
  const record: AppliedRecord = {
    resources: [
      {
        group: '',
        version: 'v1',
        resource: 'configmaps',
        kind: 'ConfigMap',
        namespace: 'default',
        name: 'a',
        uid: 'u1',
        resourceVersion: '5',
        fingerprint: objectFingerprint(live),
        strategy: 'ServerSideApply',
      },
    ],
  };
  const work = { metadata: {} };
  const ref = { group: '', resource: 'configmaps' };

  it('tells drift from echoes, status changes, other objects and other events', () => {
    assert.equal(isDrift(work, record, ref, 'MODIFIED', live).reason, 'echo of our own write');
    const statusOnly = { ...live, metadata: { ...live.metadata, resourceVersion: '6' }, status: { x: 1 } };
    assert.equal(isDrift(work, record, ref, 'MODIFIED', statusOnly).drift, false);
    const changed = { ...live, metadata: { ...live.metadata, resourceVersion: '7' }, data: { k: 'w' } };
    assert.equal(isDrift(work, record, ref, 'MODIFIED', changed).drift, true);
    const other = { ...changed, metadata: { ...changed.metadata, uid: 'u2' } };
    assert.equal(isDrift(work, record, ref, 'MODIFIED', other).drift, false);
    assert.equal(isDrift(work, record, ref, 'ADDED', changed).drift, false);
    assert.equal(isDrift(work, record, { group: 'x', resource: 'configmaps' }, 'DELETED', live).drift, false);
    const createOnly: AppliedRecord = { resources: [{ ...record.resources[0]!, strategy: 'CreateOnly' }] };
    assert.equal(isDrift(work, createOnly, ref, 'MODIFIED', changed).drift, false);
    assert.equal(isDrift(work, createOnly, ref, 'DELETED', live).drift, true);
  });

  it('names the watches a work needs, none when drift correction is off', () => {
    assert.deepEqual(watchTargets(work, record), [
      { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespace: 'default' },
    ]);
    assert.deepEqual(
      watchTargets({ metadata: { annotations: { 'fleethub.io/drift-correction': 'false' } } }, record),
      [],
    );
  });
});

describe('object helpers', () => {
  it('removes dotted paths and merges maps over maps', () => {
    const o = { spec: { replicas: 3, template: { a: 1 } } };
    assert.equal(removePath(o, '.spec.replicas'), true);
    assert.equal(removePath(o, '.spec.nothing.here'), false);
    assert.deepEqual(o, { spec: { template: { a: 1 } } });
    assert.deepEqual(deepMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] } }), {
      a: { b: 1, c: [3] },
      d: 1,
    });
  });
});
