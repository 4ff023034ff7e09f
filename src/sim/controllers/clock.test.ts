// The shared timeline and the manual clock: due order, cancellation, and one Node.js timer for many
// scheduled callbacks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep } from '../../controllers/testing/wait.js';
import { ManualClock, Timeline } from './clock.js';

test('timeline runs callbacks in due order and skips cancelled ones', async () => {
  const timeline = new Timeline();
  const ran: string[] = [];
  const now = timeline.now();
  timeline.schedule(now + 30, () => ran.push('c'));
  timeline.schedule(now + 10, () => ran.push('a'));
  const cancel = timeline.schedule(now + 20, () => ran.push('x'));
  timeline.schedule(now + 20, () => ran.push('b'));
  cancel();
  await sleep(60);
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(timeline.pending, 0);
});

test('manual clock advances through due callbacks at their own time', () => {
  const clock = new ManualClock(0);
  const seen: number[] = [];
  clock.schedule(100, () => {
    seen.push(clock.now());
    clock.schedule(clock.now() + 50, () => seen.push(clock.now()));
  });
  clock.schedule(500, () => seen.push(clock.now()));
  clock.advance(200);
  assert.deepEqual(seen, [100, 150]);
  assert.equal(clock.now(), 200);
  clock.advance(1000);
  assert.deepEqual(seen, [100, 150, 500]);
});
