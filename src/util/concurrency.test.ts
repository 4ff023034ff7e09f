import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachConcurrently } from './concurrency.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

void test('forEachConcurrently runs every item with at most `limit` in flight', async () => {
  let running = 0;
  let peak = 0;
  const done: number[] = [];
  await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await tick();
    running--;
    done.push(n);
  });
  assert.equal(peak, 3);
  assert.deepEqual(
    done.sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7],
  );
});

void test('forEachConcurrently finishes every item before throwing the first failure', async () => {
  const done: number[] = [];
  await assert.rejects(
    forEachConcurrently([1, 2, 3, 4], 2, async (n) => {
      await tick();
      if (n === 2) throw new Error('two failed');
      if (n === 3) throw new Error('three failed');
      done.push(n);
    }),
    /two failed/,
  );
  assert.deepEqual(done, [1, 4]);
});
