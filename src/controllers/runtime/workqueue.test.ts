import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultRateLimiter, ExponentialBackoff, TokenBucket, WorkQueue } from './workqueue.js';
import { sleep } from '../testing/wait.js';

describe('WorkQueue', () => {
  it('hands out a key added several times once', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.len(), 0);
    assert.equal(q.stats().adds, 2);
  });

  it('never gives a key to a second worker while the first holds it, and coalesces re-adds into one follow-up', async () => {
    const q = new WorkQueue();
    q.add('k');
    const first = await q.get();
    assert.equal(first, 'k');
    q.add('k');
    q.add('k');
    q.add('other');
    // A second worker gets the other key, not k.
    assert.equal(await q.get(), 'other');
    let second: string | undefined;
    void q.get().then((key) => (second = key));
    await sleep(20);
    assert.equal(second, undefined, 'k must wait until the first worker is done');
    q.done('k');
    await sleep(0);
    assert.equal(second, 'k');
    q.done('k');
    q.done('other');
    assert.equal(q.len(), 0, 'three re-adds during processing give one follow-up');
  });

  it('keeps concurrent workers on distinct keys under random load', async () => {
    const q = new WorkQueue();
    const holding = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (holding.has(key)) overlaps++;
        holding.add(key);
        await sleep(Math.random() * 3);
        holding.delete(key);
        processed++;
        q.done(key);
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    for (let i = 0; i < 300; i++) {
      q.add(`k${i % 5}`);
      if (i % 10 === 0) await sleep(1);
    }
    await sleep(100);
    q.shutdown();
    await Promise.all(workers);
    assert.equal(overlaps, 0);
    assert.ok(processed >= 5);
  });

  it('addAfter delays a key, and an earlier time for the same key wins', async () => {
    const q = new WorkQueue();
    const t0 = Date.now();
    q.addAfter('k', 5000);
    q.addAfter('k', 30);
    assert.equal(q.len(), 0);
    assert.equal(q.stats().delayed, 1);
    const key = await q.get();
    assert.equal(key, 'k');
    const waited = Date.now() - t0;
    assert.ok(waited >= 25 && waited < 1000, `waited ${waited} ms`);
    q.done('k');
    q.shutdown();
  });

  it('addRateLimited backs off per key and forget resets the backoff', async () => {
    const q = new WorkQueue({ baseDelayMs: 40, maxDelayMs: 1000 });
    const timed = async (): Promise<number> => {
      const t0 = Date.now();
      q.addRateLimited('k');
      const key = await q.get();
      q.done(key!);
      return Date.now() - t0;
    };
    const first = await timed();
    const second = await timed();
    assert.ok(first >= 35 && first < 200, `first retry after ${first} ms`);
    assert.ok(second >= 75, `second retry after ${second} ms (doubles)`);
    assert.equal(q.numRequeues('k'), 2);
    assert.equal(q.stats().retries, 2);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
    const afterForget = await timed();
    assert.ok(afterForget < 75, `after forget ${afterForget} ms`);
    q.shutdown();
  });

  it('shutdown releases waiting workers and drops queued keys', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutdown();
    assert.equal(await waiting, undefined);
    q.add('late');
    assert.equal(await q.get(), undefined);
    assert.equal(q.len(), 0);
  });

  it('reports depth, adds and retries to its metrics hooks', async () => {
    const seen = { adds: 0, retries: 0, depth: -1 };
    const q = new WorkQueue({
      metrics: { add: () => seen.adds++, retry: () => seen.retries++, depth: (n) => (seen.depth = n) },
    });
    q.add('a');
    q.add('b');
    q.add('a');
    assert.deepEqual(seen, { adds: 2, retries: 0, depth: 2 });
    await q.get();
    assert.equal(seen.depth, 1);
    q.addRateLimited('x');
    assert.equal(seen.retries, 1);
    q.shutdown();
  });
});

describe('rate limiters', () => {
  it('per-key backoff doubles from the base and stops at the cap, independently per key', () => {
    const b = new ExponentialBackoff({ baseDelayMs: 5, maxDelayMs: 100 });
    assert.deepEqual(
      Array.from({ length: 7 }, () => b.when('a')),
      [5, 10, 20, 40, 80, 100, 100],
    );
    assert.equal(b.when('b'), 5);
    for (let i = 0; i < 2000; i++) b.when('a');
    assert.equal(b.when('a'), 100, 'no overflow after many failures');
    b.forget('a');
    assert.equal(b.when('a'), 5);
  });

  it('defaults to 5 ms doubling up to 5 minutes', () => {
    const b = new ExponentialBackoff();
    assert.equal(b.when('k'), 5);
    assert.equal(b.when('k'), 10);
    for (let i = 0; i < 40; i++) b.when('k');
    assert.equal(b.when('k'), 300_000);
  });

  it('the token bucket allows a burst, then spaces reservations at the rate', () => {
    let now = 0;
    const bucket = new TokenBucket({ qps: 10, burst: 3, now: () => now });
    assert.deepEqual([bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 0, 0]);
    assert.equal(Math.round(bucket.reserve()), 100);
    assert.equal(Math.round(bucket.reserve()), 200);
    now += 1000; // refills, but never above the burst
    assert.deepEqual([bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 0, 0]);
    assert.equal(Math.round(bucket.reserve()), 100);
  });

  it('the default limiter waits for the larger of backoff and bucket', () => {
    let now = 0;
    const limiter = new DefaultRateLimiter({
      baseDelayMs: 5,
      maxDelayMs: 1000,
      qps: 1,
      burst: 2,
      now: () => now,
    });
    assert.equal(limiter.when('a'), 5); // bucket has tokens: backoff decides
    assert.equal(limiter.when('b'), 5);
    assert.equal(Math.round(limiter.when('c')), 1000); // bucket empty: 1 qps means a second
    now += 10_000;
    assert.equal(limiter.when('a'), 10);
  });

  it('a queue under a global rate limit spreads a burst of retries out', async () => {
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 1, qps: 20, burst: 2 });
    const t0 = Date.now();
    for (const k of ['a', 'b', 'c', 'd']) q.addRateLimited(k);
    const times: number[] = [];
    for (let i = 0; i < 4; i++) {
      const key = await q.get();
      times.push(Date.now() - t0);
      q.done(key!);
    }
    // Two from the burst at once, then one per 50 ms.
    assert.ok(times[1]! < 40, `burst at ${times.join(',')}`);
    assert.ok(times[2]! >= 40 && times[3]! >= 90, `rate-limited at ${times.join(',')}`);
    q.shutdown();
  });
});
