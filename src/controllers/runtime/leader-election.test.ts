import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { FaultyStore } from '../testing/store.js';
import { sleep, waitFor } from '../testing/wait.js';
import {
  LEASE_RESOURCE,
  LeaderElector,
  type LeaderElectionOptions,
  type LeaseSpec,
} from './leader-election.js';

const NS = 'fleethub-system';

interface Candidate {
  id: string;
  elector: LeaderElector;
  store: FaultyStore;
  /** Set while onStartedLeading's signal is live. */
  signal: AbortSignal | undefined;
  timeline: { id: string; event: 'started' | 'stopped'; at: number }[];
}

type Timing = Pick<LeaderElectionOptions, 'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs'>;
const FAST: Timing = { leaseDurationSeconds: 1, renewDeadlineMs: 600, retryPeriodMs: 100 };

/** Every candidate made by a test, stopped after it even when an assertion failed. */
const live: Candidate[] = [];

function candidate(
  store: Store,
  lease: string,
  id: string,
  timeline: Candidate['timeline'],
  timing: Timing = FAST,
): Candidate {
  const faulty = new FaultyStore(store);
  const c: Candidate = {
    id,
    store: faulty,
    signal: undefined,
    timeline,
    elector: undefined as unknown as LeaderElector,
  };
  c.elector = new LeaderElector({
    store: faulty,
    namespace: NS,
    name: lease,
    identity: id,
    ...timing,
    onStartedLeading: (signal) => {
      c.signal = signal;
      timeline.push({ id, event: 'started', at: Date.now() });
    },
    onStoppedLeading: () => {
      timeline.push({ id, event: 'stopped', at: Date.now() });
    },
  });
  live.push(c);
  return c;
}

/** At no moment did two candidates lead: every 'started' follows the previous leader's 'stopped'. */
function assertNoOverlap(timeline: Candidate['timeline']): void {
  let leader: string | undefined;
  for (const e of timeline) {
    if (e.event === 'started') {
      assert.equal(leader, undefined, `${e.id} started while ${leader} still led`);
      leader = e.id;
    } else {
      assert.equal(leader, e.id);
      leader = undefined;
    }
  }
}

describe('LeaderElector', () => {
  let store: Store;
  let n = 0;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  afterEach(async () => {
    for (const c of live.splice(0)) {
      c.store.heal();
      await c.elector.stop();
    }
  });
  after(async () => {
    await store.close();
  });

  async function lease(name: string): Promise<LeaseSpec> {
    return ((await store.get(LEASE_RESOURCE, NS, name))?.['spec'] ?? {}) as LeaseSpec;
  }

  it('elects exactly one of two candidates and keeps it', async () => {
    const name = `lease-${++n}`;
    const timeline: Candidate['timeline'] = [];
    const a = candidate(store, name, 'a', timeline);
    const b = candidate(store, name, 'b', timeline);
    a.elector.start();
    b.elector.start();
    await waitFor(() => a.elector.isLeader() || b.elector.isLeader(), 'a leader');
    await sleep(1500); // several lease durations
    assert.equal([a, b].filter((c) => c.elector.isLeader()).length, 1);
    const leader = a.elector.isLeader() ? a : b;
    const spec = await lease(name);
    assert.equal(spec.holderIdentity, leader.id);
    assert.equal(spec.leaseDurationSeconds, 1);
    assert.equal(spec.leaseTransitions, 0, 'no flapping');
    assert.match(spec.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(Date.now() - Date.parse(spec.renewTime!) < 1000, 'renewed within the lease duration');
    assert.equal(b.elector.leaderIdentity(), leader.id);
    await a.elector.stop();
    await b.elector.stop();
    assertNoOverlap(timeline);
  });

  it('a leader cut off from the store steps down by its renew deadline; the other takes over after expiry', async () => {
    const name = `lease-${++n}`;
    const timeline: Candidate['timeline'] = [];
    const a = candidate(store, name, 'a', timeline);
    a.elector.start();
    await waitFor(() => a.elector.isLeader(), 'a leads');
    const b = candidate(store, name, 'b', timeline);
    b.elector.start();
    await sleep(300);
    const cutAt = Date.now();
    a.store.cut('hang'); // renewals hang: the deadline timer, not the call, ends the term
    await waitFor(() => b.elector.isLeader(), 'b takes over', 3000);
    const stopped = timeline.find((e) => e.id === 'a' && e.event === 'stopped')!;
    const started = timeline.find((e) => e.id === 'b' && e.event === 'started')!;
    assert.ok(stopped.at - cutAt <= 900, `a stopped ${stopped.at - cutAt} ms after the cut (deadline 600)`);
    assert.ok(a.signal?.aborted, "a's leading signal was aborted");
    assert.ok(started.at - cutAt <= 1500, `b took over ${started.at - cutAt} ms after the cut (lease 1 s)`);
    assertNoOverlap(timeline);
    assert.equal((await lease(name)).leaseTransitions, 1);
    await b.elector.stop();
    a.store.heal();
    await a.elector.stop();
  });

  it('steps down at once when another replica holds the lease', async () => {
    const name = `lease-${++n}`;
    const timeline: Candidate['timeline'] = [];
    const a = candidate(store, name, 'a', timeline, {
      leaseDurationSeconds: 5,
      renewDeadlineMs: 3000,
      retryPeriodMs: 100,
    });
    a.elector.start();
    await waitFor(() => a.elector.isLeader(), 'a leads');
    const current = (await store.get(LEASE_RESOURCE, NS, name))!;
    const now = new Date().toISOString();
    await store.update(LEASE_RESOURCE, {
      ...current,
      spec: {
        ...(current['spec'] as LeaseSpec),
        holderIdentity: 'intruder',
        renewTime: now,
        acquireTime: now,
      },
    });
    await waitFor(() => !a.elector.isLeader(), 'a steps down', 1000);
    assert.ok(a.signal?.aborted);
    assert.equal(a.elector.leaderIdentity(), 'intruder');
    await a.elector.stop();
  });

  it('stops within the renew deadline even when the guarded work never finishes', async () => {
    const name = `lease-${++n}`;
    let stoppedCalled = false;
    const elector = new LeaderElector({
      store,
      namespace: NS,
      name,
      identity: 'stuck',
      ...FAST,
      onStartedLeading: () => new Promise<void>(() => undefined), // a reconcile hung on a dead store
      onStoppedLeading: () => {
        stoppedCalled = true;
      },
    });
    elector.start();
    await waitFor(() => elector.isLeader(), 'leads');
    const t0 = Date.now();
    await elector.stop();
    const took = Date.now() - t0;
    assert.ok(took < 1500, `stop took ${took} ms (deadline 600)`);
    assert.ok(stoppedCalled);
    assert.equal((await lease(name)).holderIdentity, '', 'released after the grace period');
  });

  it('hands over at once when the leader stops cleanly (default timings)', async () => {
    const name = `lease-${++n}`;
    const timeline: Candidate['timeline'] = [];
    const a = candidate(store, name, 'a', timeline, {});
    a.elector.start();
    await waitFor(() => a.elector.isLeader(), 'a leads');
    const b = candidate(store, name, 'b', timeline, {});
    b.elector.start();
    await sleep(300);
    assert.ok(!b.elector.isLeader());
    const stopAt = Date.now();
    await a.elector.stop();
    await waitFor(() => b.elector.isLeader(), 'b leads', 3000);
    const took = Date.now() - stopAt;
    assert.ok(took < 1000, `handover took ${took} ms (lease is 10 s)`);
    const spec = await lease(name);
    assert.equal(spec.holderIdentity, 'b');
    assert.equal(spec.leaseTransitions, 1);
    assertNoOverlap(timeline);
    await b.elector.stop();
  });

  it('replaces a killed leader within 15 s with default timings', async (t) => {
    const name = `lease-${++n}`;
    const timeline: Candidate['timeline'] = [];
    const a = candidate(store, name, 'a', timeline, {});
    const b = candidate(store, name, 'b', timeline, {});
    a.elector.start();
    await waitFor(() => a.elector.isLeader(), 'a leads');
    b.elector.start();
    // Kill right after a renewal: the worst case, the full lease must run out.
    const renewed = (await lease(name)).renewTime;
    await waitFor(async () => (await lease(name)).renewTime !== renewed, 'a renewal', 5000, 5);
    const killedAt = Date.now();
    a.store.cut('hang');
    await waitFor(() => b.elector.isLeader(), 'b leads', 15_000, 50);
    const took = Date.now() - killedAt;
    t.diagnostic(`take-over ${took} ms after the kill`);
    assert.ok(took <= 15_000, `take-over after ${took} ms`);
    assert.ok(took >= 9_000, `took over after ${took} ms, before the 10 s lease could expire`);
    assertNoOverlap(timeline);
    await b.elector.stop();
    a.store.heal();
    await a.elector.stop();
  });
});
