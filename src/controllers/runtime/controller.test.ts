import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { openStore } from '../../store/index.js';
import type { KubeObject, Store } from '../../store/types.js';
import { sleep, waitFor } from '../testing/wait.js';
import { Controller } from './controller.js';
import { fieldEquals, InformerSet } from './informer.js';
import type { Logger } from './logger.js';
import { MetricsRegistry } from './metrics.js';
import { setControllerReference } from './owners.js';
import { TerminalError, type Reconciler } from './reconcile.js';

const CM = 'configmaps';
const SECRETS = 'secrets';

function cm(namespace: string, name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data };
}

type Handler = Reconciler['reconcile'];

/** Runs a controller over fresh informers until the returned stop() is called. */
function runController(
  store: Store,
  controller: Controller,
): { stop: () => Promise<void>; informers: InformerSet } {
  const abort = new AbortController();
  const informers = new InformerSet(store);
  const done = controller.run(informers, abort.signal);
  informers.start();
  return {
    informers,
    stop: async () => {
      abort.abort();
      await done;
      informers.stop();
    },
  };
}

describe('Controller', () => {
  let store: Store;
  let ns = 0;
  let namespace: string;
  before(async () => {
    store = await openStore({ url: 'memory:' });
  });
  after(async () => {
    await store.close();
  });
  const fresh = (): string => (namespace = `ctl-${++ns}`);

  function make(
    handler: Handler,
    extra: Partial<ConstructorParameters<typeof Controller>[0]> = {},
  ): {
    controller: Controller;
    metrics: MetricsRegistry;
  } {
    const metrics = new MetricsRegistry();
    const mine = namespace;
    const controller = new Controller({
      name: `test-${ns}`,
      // Informers see every namespace: each test reconciles only its own.
      reconciler: { reconcile: async (ctx, req) => (req.namespace === mine ? handler(ctx, req) : undefined) },
      metrics,
      rateLimit: { baseDelayMs: 10, maxDelayMs: 200 },
      ...extra,
    });
    return { controller, metrics };
  }

  it('reconciles each object by key and coalesces bursts of changes', async () => {
    fresh();
    const seen: string[] = [];
    const { controller } = make(async (_ctx, req) => {
      const obj = await store.get(CM, req.namespace ?? '', req.name);
      seen.push(`${req.namespace}/${req.name}=${JSON.stringify(obj?.['data'] ?? null)}`);
      await sleep(30);
    });
    controller.for(CM);
    await store.create(CM, cm(namespace, 'a', { n: '0' }));
    const run = runController(store, controller);
    await waitFor(() => seen.length === 1, 'first reconcile');
    for (let i = 1; i <= 10; i++) {
      const cur = (await store.get(CM, namespace, 'a'))!;
      await store.update(CM, { ...cur, data: { n: String(i) } });
    }
    await waitFor(() => seen.at(-1) === `${namespace}/a={"n":"10"}`, 'reconcile of the final state');
    await sleep(80);
    assert.ok(seen.length <= 4, `11 versions took ${seen.length} reconciles`);
    await run.stop();
  });

  it('reconciles an update once when its old and new states map to the same key', async () => {
    fresh();
    const seen: string[] = [];
    const { controller } = make(async (_ctx, req) => {
      seen.push(req.name);
    });
    controller.for(CM);
    await store.create(CM, cm(namespace, 'b', { n: '0' }));
    const run = runController(store, controller);
    await waitFor(() => seen.length === 1, 'first reconcile');
    const cur = (await store.get(CM, namespace, 'b'))!;
    await store.update(CM, { ...cur, data: { n: '1' } });
    await waitFor(() => seen.length === 2, 'reconcile of the update');
    await sleep(80);
    assert.deepEqual(seen, ['b', 'b']);
    await run.stop();
  });

  it('retries a failing reconcile with growing backoff until it succeeds', async () => {
    fresh();
    const times: number[] = [];
    const { controller, metrics } = make(async () => {
      times.push(Date.now());
      if (times.length < 4) throw new Error('not yet');
    });
    const mine = namespace;
    controller.for(CM, { predicate: (obj) => obj.metadata.namespace === mine });
    await store.create(CM, cm(namespace, 'flaky'));
    const run = runController(store, controller);
    await waitFor(() => times.length === 4, 'four attempts');
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    assert.ok(gaps[0]! >= 8 && gaps[1]! >= 18 && gaps[2]! >= 38, `gaps ${gaps.join(',')} ms double from 10`);
    await sleep(100);
    assert.equal(times.length, 4, 'success ends retries');
    const total = metrics.counter({
      name: 'fleethub_reconcile_total',
      help: '',
      labelNames: ['controller', 'result'],
    });
    assert.equal(total.get({ controller: controller.name, result: 'error' }), 3);
    assert.equal(total.get({ controller: controller.name, result: 'success' }), 1);
    assert.match(metrics.render(), /fleethub_reconcile_duration_seconds_count\{controller="test-\d+"\} 4/);
    await run.stop();
  });

  it('does not retry a TerminalError, but counts it', async () => {
    fresh();
    let calls = 0;
    const { controller, metrics } = make(async () => {
      calls++;
      throw new TerminalError('spec is nonsense');
    });
    controller.for(CM);
    await store.create(CM, cm(namespace, 'bad'));
    const run = runController(store, controller);
    await waitFor(() => calls === 1, 'one attempt');
    await sleep(150);
    assert.equal(calls, 1);
    assert.match(metrics.render(), /fleethub_terminal_reconcile_errors_total\{controller="test-\d+"\} 1/);
    await run.stop();
  });

  it('looks again after requeueAfterMs', async () => {
    fresh();
    const times: number[] = [];
    const { controller } = make(async () => {
      times.push(Date.now());
      return times.length < 3 ? { requeueAfterMs: 60 } : {};
    });
    controller.for(CM);
    await store.create(CM, cm(namespace, 'poll'));
    const run = runController(store, controller);
    await waitFor(() => times.length === 3, 'three looks');
    assert.ok(times[1]! - times[0]! >= 55 && times[2]! - times[1]! >= 55);
    await sleep(120);
    assert.equal(times.length, 3);
    await run.stop();
  });

  it('maps owned objects to their controller owner and other kinds through a map function', async () => {
    fresh();
    const reqs: string[] = [];
    const { controller } = make(async (_ctx, req) => {
      reqs.push(`${req.namespace}/${req.name}`);
    });
    controller
      .for(CM)
      .owns(SECRETS, { group: '', kind: 'ConfigMap', namespaced: true })
      .watches('events', (obj) => [{ namespace: obj.metadata.namespace!, name: String(obj['involves']) }]);
    const owner = await store.create(CM, cm(namespace, 'owner'));
    const run = runController(store, controller);
    await waitFor(() => reqs.includes(`${namespace}/owner`), 'own kind');
    reqs.length = 0;
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { namespace, name: 's1' } };
    setControllerReference(owner, secret);
    await store.create(SECRETS, secret);
    await waitFor(() => reqs.includes(`${namespace}/owner`), 'owner of a new secret');
    reqs.length = 0;
    await store.create('events', { metadata: { namespace, name: 'e1' }, involves: 'mapped' });
    await waitFor(() => reqs.includes(`${namespace}/mapped`), 'mapped event');
    await run.stop();
  });

  it('watches with a filter: only selected objects are cached and reconciled, entering and leaving too', async () => {
    fresh();
    const reqs: string[] = [];
    const { controller } = make(async (_ctx, req) => {
      reqs.push(req.name);
    });
    const content = fieldEquals('type', 'example.com/content');
    controller.watches(
      SECRETS,
      (obj) => [{ namespace: obj.metadata.namespace!, name: `for-${obj.metadata.name}` }],
      {
        filter: content,
      },
    );
    const make2 = (name: string, type: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace, name },
      type,
    });
    await store.create(SECRETS, make2('listed', 'example.com/content'));
    await store.create(SECRETS, make2('plain', 'Opaque'));
    const run = runController(store, controller);
    await waitFor(() => reqs.includes('for-listed'), 'listed content secret');
    const cached = run.informers.informer(SECRETS, { filter: content });
    assert.deepEqual(
      cached.list(namespace).map((o) => o.metadata.name),
      ['listed'],
    );
    assert.deepEqual(run.informers.resources(), [`${SECRETS}?type=example.com/content`]);
    await store.create(SECRETS, make2('plain-2', 'Opaque'));
    const plain = (await store.get(SECRETS, namespace, 'plain'))!;
    await store.update(SECRETS, { ...plain, data: { x: 'eA==' } });
    await sleep(50);
    assert.deepEqual(reqs, ['for-listed'], 'Opaque Secrets reconcile nothing');
    await store.update(SECRETS, {
      ...(await store.get(SECRETS, namespace, 'plain'))!,
      type: 'example.com/content',
    });
    await waitFor(() => reqs.includes('for-plain'), 'a Secret entering the filter');
    reqs.length = 0;
    const listed = (await store.get(SECRETS, namespace, 'listed'))!;
    await store.update(SECRETS, { ...listed, type: 'Opaque' });
    await waitFor(() => reqs.includes('for-listed'), 'a Secret leaving the filter');
    assert.deepEqual(
      cached.list(namespace).map((o) => o.metadata.name),
      ['plain'],
    );
    await run.stop();
  });

  it('runs up to maxConcurrentReconciles keys at once, never one key twice', async () => {
    fresh();
    const active = new Set<string>();
    let peak = 0;
    let dupes = 0;
    let calls = 0;
    const { controller } = make(
      async (_ctx, req) => {
        calls++;
        if (active.has(req.name)) dupes++;
        active.add(req.name);
        peak = Math.max(peak, active.size);
        await sleep(40);
        active.delete(req.name);
      },
      { maxConcurrentReconciles: 3 },
    );
    controller.for(CM);
    for (let i = 0; i < 6; i++) await store.create(CM, cm(namespace, `p${i}`));
    const run = runController(store, controller);
    await waitFor(() => calls >= 6, 'six reconciles');
    for (let i = 0; i < 6; i++) {
      const cur = (await store.get(CM, namespace, `p${i % 2}`))!;
      await store.update(CM, { ...cur, data: { i: String(i) } });
    }
    await sleep(150);
    assert.equal(peak, 3);
    assert.equal(dupes, 0);
    await run.stop();
  });

  it('stops: aborts ctx.signal, waits for the running reconcile, and can run again', async () => {
    fresh();
    let sawAbort = false;
    let finished = 0;
    const { controller } = make(async (ctx) => {
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      sawAbort = true;
      await sleep(20);
      finished++;
    });
    controller.for(CM);
    await store.create(CM, cm(namespace, 'long'));
    const run = runController(store, controller);
    await waitFor(() => controller.running, 'running');
    await sleep(50);
    await run.stop();
    assert.ok(sawAbort);
    assert.equal(finished, 1, 'stop waited for the reconcile to return');
    assert.equal(controller.running, false);
    const again = runController(store, controller);
    await waitFor(() => finished === 1 && controller.running, 'second run');
    await again.stop();
  });

  it('logs through a pino logger with controller, request and reconcileId bound', async () => {
    fresh();
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = pino(
      { level: 'debug' },
      { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) },
    );
    const { controller } = make(
      async (ctx) => {
        ctx.logger.info('hello');
        throw new Error('boom');
      },
      { logger },
    );
    controller.for(CM);
    await store.create(CM, cm(namespace, 'logged'));
    const run = runController(store, controller);
    await waitFor(() => lines.some((l) => l['msg'] === 'reconcile failed; retrying'), 'error line');
    await run.stop();
    const hello = lines.find((l) => l['msg'] === 'hello')!;
    assert.equal(hello['controller'], controller.name);
    assert.equal(hello['namespace'], namespace);
    assert.equal(hello['name'], 'logged');
    assert.match(String(hello['reconcileId']), /^[0-9a-f-]{36}$/);
    const failure = lines.find((l) => l['msg'] === 'reconcile failed; retrying')!;
    assert.equal((failure['err'] as { message: string }).message, 'boom');
  });
});
