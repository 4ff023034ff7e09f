import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  conditionsOf,
  findCondition,
  isFalse,
  isTrue,
  removeCondition,
  setCondition,
  type Condition,
} from './conditions.js';

const t1 = new Date('2025-01-01T10:00:00.123Z');
const t2 = new Date('2025-01-01T11:00:00Z');
const t3 = new Date('2025-01-01T12:00:00Z');

describe('setCondition', () => {
  it('adds a new condition stamped with now', () => {
    const conditions: Condition[] = [];
    assert.equal(
      setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'Pending', observedGeneration: 1 },
        t1,
      ),
      true,
    );
    assert.deepEqual(conditions, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Pending',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: '2025-01-01T10:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime when only reason, message or generation change', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending', message: 'a' }, t1);
    assert.equal(
      setCondition(
        conditions,
        { type: 'Ready', status: 'False', reason: 'Waiting', message: 'b', observedGeneration: 2 },
        t2,
      ),
      true,
    );
    assert.equal(findCondition(conditions, 'Ready')?.lastTransitionTime, '2025-01-01T10:00:00Z');
    assert.equal(findCondition(conditions, 'Ready')?.reason, 'Waiting');
    assert.equal(findCondition(conditions, 'Ready')?.observedGeneration, 2);
  });

  it('moves lastTransitionTime when the status flips', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending' }, t1);
    setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Deployed' }, t2);
    assert.equal(findCondition(conditions, 'Ready')?.lastTransitionTime, '2025-01-01T11:00:00Z');
    assert.ok(isTrue(conditions, 'Ready'));
    assert.ok(!isFalse(conditions, 'Ready'));
  });

  it('reports no change for an identical update, so callers can skip the write', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Deployed', message: 'ok' }, t1);
    const before = structuredClone(conditions);
    assert.equal(
      setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Deployed', message: 'ok' }, t3),
      false,
    );
    assert.deepEqual(conditions, before);
  });

  it('leaves other condition types alone and removes by type', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, { type: 'A', status: 'True', reason: 'X' }, t1);
    setCondition(conditions, { type: 'B', status: 'Unknown', reason: 'Y' }, t1);
    setCondition(conditions, { type: 'A', status: 'False', reason: 'Z' }, t2);
    assert.equal(findCondition(conditions, 'B')?.status, 'Unknown');
    assert.equal(removeCondition(conditions, 'A'), true);
    assert.equal(removeCondition(conditions, 'A'), false);
    assert.deepEqual(
      conditions.map((c) => c.type),
      ['B'],
    );
    assert.equal(isTrue(undefined, 'A'), false);
  });

  it('conditionsOf creates status.conditions on an object without status', () => {
    const obj: { status?: unknown; [k: string]: unknown } = { metadata: {} };
    setCondition(conditionsOf(obj), { type: 'Ready', status: 'True', reason: 'Done' }, t1);
    assert.equal((obj.status as { conditions: Condition[] }).conditions[0]?.type, 'Ready');
    setCondition(conditionsOf(obj), { type: 'Other', status: 'True', reason: 'Done' }, t1);
    assert.equal((obj.status as { conditions: Condition[] }).conditions.length, 2);
  });
});
