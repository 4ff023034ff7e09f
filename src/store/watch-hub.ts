// Watch fan-out: one ordered stream of committed events per store, kept in a ring of recent events
// and handed to every matching watcher in memory; older starting points replay from the change log.
import { errors } from '../util/errors.js';
import type { Backend, LogRecord } from './backend.js';
import { deepFreeze } from './json.js';
import type { StoreLogger } from './logger.js';
import type { KubeObject, ResourceName, WatchEvent, WatchHandlers, WatchOptions, Watcher } from './types.js';

/** Log entries read per query, by the shared reader and by a watcher catching up. */
const LOG_BATCH = 1000;

export interface WatchHubOptions {
  /** The newest committed version when the hub starts. */
  head: number;
  compactedRv: number;
  backend: Pick<Backend, 'readLog' | 'shared'>;
  decode: (resource: ResourceName, value: string) => KubeObject;
  /** Recent events kept in memory for watchers that start slightly in the past. */
  ringSize: number;
  /** Period of progress notifications (and, on a shared backend, of the safety poll of the log). */
  progressIntervalMs: number;
  logger: StoreLogger;
}

interface Subscription {
  resource: ResourceName | undefined;
  namespace: string | undefined;
  handlers: WatchHandlers;
  /** Highest version accounted for: events at or below it are never delivered again. */
  last: number;
  /** False while replaying history; live events wait in `pending` meanwhile. */
  live: boolean;
  pending: WatchEvent[];
  stopped: boolean;
  /** Only events whose object has, or had before this event, label key = value (WatchOptions.labelEquals). */
  trigger: { key: string; value: string } | undefined;
}

/** The label values an event's object has now and had before it, for trigger checks. */
interface EventLabels {
  now: Readonly<Record<string, string>> | undefined;
  /** undefined: not known (the object was not seen since triggers on its resource began). */
  before: Readonly<Record<string, string>> | null | undefined;
}

export class WatchHub {
  /** Highest version accepted into the hub; everything up to it is delivered once the queue drains. */
  private head: number;
  private compacted: number;
  /** Every event with a version above ringFloor (up to head) is in the ring, from ringStart on. */
  private ring: WatchEvent[] = [];
  private ringStart = 0;
  private ringFloor: number;
  private readonly byResource = new Map<ResourceName, Set<Subscription>>();
  /**
   * The same watchers per resource, split for delivery: those without a trigger, and those with one by
   * key and value, so an event reaches the few watchers of its labels without a scan of all the others
   * (a thousand agents each watching their own works).
   */
  private readonly delivery = new Map<ResourceName, DeliveryIndex>();
  private readonly everything = new Set<Subscription>();
  /** Per resource with triggered watchers: their count, and each object's labels as last seen. */
  private readonly triggered = new Map<
    ResourceName,
    { subs: number; labels: Map<string, EventLabels['now']> }
  >();
  private queue: WatchEvent[] = [];
  private delivering = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: WatchHubOptions) {
    this.head = options.head;
    this.ringFloor = options.head;
    this.compacted = options.compactedRv;
    this.timer = setInterval(() => void this.tick(), options.progressIntervalMs);
    this.timer.unref();
  }

  /**
   * A write of this process committed; `object` is its result (the hub keeps its own frozen copy, parsed
   * from the stored text when `plainJson` says that text is the object's JSON).
   */
  committed(record: LogRecord, object: KubeObject, plainJson = false): void {
    if (this.closed || record.rv <= this.head) return;
    if (record.rv !== this.head + 1 && this.options.backend.shared) {
      // Another process committed versions in between: read them in order from the log.
      void this.requestFetch();
      return;
    }
    this.publish([
      plainJson
        ? {
            type: record.type,
            resource: record.resource,
            object: deepFreeze(JSON.parse(record.value) as KubeObject),
            resourceVersion: record.rv,
            json: record.value,
          }
        : {
            type: record.type,
            resource: record.resource,
            object: deepFreeze(structuredClone(object)),
            resourceVersion: record.rv,
          },
    ]);
  }

  /** The log may have grown (NOTIFY, reconnect): read it from the head on. Concurrent calls coalesce. */
  requestFetch(): Promise<void> {
    if (this.fetching) {
      this.fetchAgain = true;
      return this.fetching;
    }
    this.fetching = this.fetchLoop().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  /** Compaction ran in this process: watchers from before `rv` now get 410. */
  noteCompacted(rv: number): void {
    this.compacted = Math.max(this.compacted, rv);
  }

  watch(options: WatchOptions, handlers: WatchHandlers): Watcher {
    const requested = options.resourceVersion;
    if (requested !== undefined && requested !== '' && !/^\d+$/.test(requested)) {
      queueMicrotask(() => handlers.onError(errors.badRequest(`invalid resourceVersion "${requested}"`)));
      return { stop: () => undefined };
    }
    const from =
      requested === undefined || requested === '' || requested === '0' ? undefined : Number(requested);
    const sub: Subscription = {
      resource: options.resource,
      namespace: options.namespace,
      handlers,
      last: from ?? this.head,
      live: from === undefined || from >= this.head,
      pending: [],
      stopped: false,
      trigger: options.resource !== undefined ? options.labelEquals : undefined,
    };
    if (this.closed) {
      queueMicrotask(() => handlers.onError(errors.serviceUnavailable('the store is closed')));
      return { stop: () => undefined };
    }
    // Registered now, so no live event is missed while history replays.
    if (sub.resource === undefined) this.everything.add(sub);
    else {
      let set = this.byResource.get(sub.resource);
      if (!set) this.byResource.set(sub.resource, (set = new Set()));
      set.add(sub);
      let index = this.delivery.get(sub.resource);
      if (!index) this.delivery.set(sub.resource, (index = { plain: new Set(), byTrigger: new Map() }));
      if (sub.trigger) {
        const t = this.triggered.get(sub.resource) ?? { subs: 0, labels: new Map() };
        t.subs++;
        this.triggered.set(sub.resource, t);
        let values = index.byTrigger.get(sub.trigger.key);
        if (!values) index.byTrigger.set(sub.trigger.key, (values = new Map()));
        let subs = values.get(sub.trigger.value);
        if (!subs) values.set(sub.trigger.value, (subs = new Set()));
        subs.add(sub);
      } else index.plain.add(sub);
    }
    if (!sub.live) queueMicrotask(() => void this.catchUp(sub, from!));
    return { stop: () => this.unsubscribe(sub) };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const subs = [...this.everything, ...[...this.byResource.values()].flatMap((set) => [...set])];
    for (const sub of subs) this.fail(sub, errors.serviceUnavailable('the store is closing'));
  }

  private unsubscribe(sub: Subscription): void {
    if (!sub.stopped && sub.trigger && sub.resource !== undefined) {
      const t = this.triggered.get(sub.resource);
      // The last triggered watcher gone: forget the labels (a later one starts from "not known").
      if (t && --t.subs <= 0) this.triggered.delete(sub.resource);
    }
    sub.stopped = true;
    sub.pending = [];
    if (sub.resource === undefined) this.everything.delete(sub);
    else {
      const set = this.byResource.get(sub.resource);
      set?.delete(sub);
      if (set?.size === 0) this.byResource.delete(sub.resource);
      this.dropFromDelivery(sub, sub.resource);
    }
  }

  private dropFromDelivery(sub: Subscription, resource: ResourceName): void {
    const index = this.delivery.get(resource);
    if (!index) return;
    if (sub.trigger) {
      const values = index.byTrigger.get(sub.trigger.key);
      const subs = values?.get(sub.trigger.value);
      subs?.delete(sub);
      if (subs?.size === 0) values!.delete(sub.trigger.value);
      if (values?.size === 0) index.byTrigger.delete(sub.trigger.key);
    } else index.plain.delete(sub);
    if (index.plain.size === 0 && index.byTrigger.size === 0) this.delivery.delete(resource);
  }

  private fail(sub: Subscription, error: Error): void {
    if (sub.stopped) return;
    this.unsubscribe(sub);
    try {
      sub.handlers.onError(error);
    } catch (err) {
      this.options.logger.error({ err }, 'store: watch error handler threw');
    }
  }

  private matches(sub: Subscription, resource: ResourceName, namespace: string): boolean {
    return (
      (sub.resource === undefined || sub.resource === resource) &&
      (sub.namespace === undefined || sub.namespace === namespace)
    );
  }

  private deliver(sub: Subscription, event: WatchEvent): void {
    sub.last = event.resourceVersion;
    try {
      sub.handlers.onEvent(event);
    } catch (err) {
      this.options.logger.error({ err }, 'store: watch event handler threw');
    }
  }

  private progress(sub: Subscription): void {
    if (sub.stopped || !sub.handlers.onProgress) return;
    try {
      sub.handlers.onProgress(String(Math.max(this.head, sub.last)));
    } catch (err) {
      this.options.logger.error({ err }, 'store: watch progress handler threw');
    }
  }

  /** Accepts events in version order and delivers them; re-entrant writes (from handlers) queue up. */
  private publish(events: WatchEvent[]): void {
    for (const event of events) {
      if (event.resourceVersion <= this.head) continue;
      this.head = event.resourceVersion;
      this.remember(event);
      this.queue.push(event);
    }
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const touched = new Set<Subscription>();
        for (const event of batch) {
          const namespace = event.object.metadata.namespace ?? '';
          const labels = this.eventLabels(event, namespace);
          const index = this.delivery.get(event.resource);
          if (index) {
            for (const sub of index.plain) this.offer(sub, event, namespace, touched);
            for (const [key, values] of index.byTrigger) {
              if (labels.before === undefined) {
                // What the object had before is not known: every triggered watcher may be concerned.
                for (const subs of values.values())
                  for (const sub of subs) this.offer(sub, event, namespace, touched);
                continue;
              }
              const now = labels.now?.[key];
              const was = labels.before?.[key];
              if (now !== undefined) this.offerAll(values.get(now), event, namespace, touched);
              if (was !== undefined && was !== now) this.offerAll(values.get(was), event, namespace, touched);
            }
          }
          for (const sub of this.everything) this.offer(sub, event, namespace, touched);
        }
        for (const sub of touched) this.progress(sub);
      }
    } finally {
      this.delivering = false;
    }
  }

  /** Labels now and before, tracked only for resources someone watches with a trigger. */
  private eventLabels(event: WatchEvent, namespace: string): EventLabels {
    const now = event.object.metadata.labels;
    const t = this.triggered.get(event.resource);
    if (!t) return { now, before: undefined };
    const key = `${namespace}/${event.object.metadata.name ?? ''}`;
    const known = t.labels.has(key);
    // null: known to have had no such labels (created now, or seen without labels).
    const before = event.type === 'ADDED' ? null : known ? (t.labels.get(key) ?? null) : undefined;
    if (event.type === 'DELETED') t.labels.delete(key);
    else t.labels.set(key, now);
    return { now, before };
  }

  private offerAll(
    subs: Set<Subscription> | undefined,
    event: WatchEvent,
    namespace: string,
    touched: Set<Subscription>,
  ): void {
    if (subs) for (const sub of subs) this.offer(sub, event, namespace, touched);
  }

  /** Hands one event to one watcher whose resource (and trigger, if any) the caller has matched. */
  private offer(sub: Subscription, event: WatchEvent, namespace: string, touched: Set<Subscription>): void {
    if (sub.stopped || (sub.namespace !== undefined && sub.namespace !== namespace)) return;
    if (!sub.live) {
      sub.pending.push(event);
      return;
    }
    if (event.resourceVersion <= sub.last) return;
    this.deliver(sub, event);
    touched.add(sub);
  }

  private remember(event: WatchEvent): void {
    this.ring.push(event);
    if (this.ring.length - this.ringStart > this.options.ringSize) {
      this.ringFloor = this.ring[this.ringStart]!.resourceVersion;
      this.ringStart++;
      // Trim once the dead head is as long as the ring is meant to be: a small ring stays small.
      if (this.ringStart >= Math.min(1024, this.options.ringSize) && this.ringStart * 2 >= this.ring.length) {
        this.ring = this.ring.slice(this.ringStart);
        this.ringStart = 0;
      }
    }
  }

  /** Ring events with a version above `after`, oldest first. */
  private ringAfter(after: number): WatchEvent[] {
    let lo = this.ringStart;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ring[mid]!.resourceVersion <= after) lo = mid + 1;
      else hi = mid;
    }
    return this.ring.slice(lo);
  }

  private toEvent(record: LogRecord): WatchEvent | undefined {
    try {
      return {
        type: record.type,
        resource: record.resource,
        object: deepFreeze(this.options.decode(record.resource, record.value)),
        resourceVersion: record.rv,
      };
    } catch (err) {
      this.options.logger.error(
        { err, resource: record.resource, namespace: record.namespace, name: record.name, rv: record.rv },
        'store: cannot decode a change-log entry; watchers skip it',
      );
      return undefined;
    }
  }

  /** Replays history after `from` to one watcher (ring, else change log), then switches it to live. */
  private async catchUp(sub: Subscription, from: number): Promise<void> {
    const requested = from;
    let at = from;
    const gone = () =>
      this.fail(sub, errors.gone(`too old resource version: ${requested} (${this.compacted})`));
    try {
      for (;;) {
        if (sub.stopped) return;
        if (at < this.compacted) return gone();
        if (at >= this.ringFloor) {
          for (const event of this.ringAfter(at)) {
            if (sub.stopped) return;
            if (this.matches(sub, event.resource, event.object.metadata.namespace ?? ''))
              this.deliver(sub, event);
            at = event.resourceVersion;
          }
          break;
        }
        const page = await this.options.backend.readLog(at, LOG_BATCH);
        if (sub.stopped) return;
        this.noteCompacted(page.compactedRv);
        if (page.compactedRv > at) return gone();
        if (page.records.length === 0) break;
        for (const record of page.records) {
          if (sub.stopped) return;
          if (this.matches(sub, record.resource, record.namespace)) {
            const event = this.toEvent(record);
            if (event) this.deliver(sub, event);
          }
          at = record.rv;
        }
      }
    } catch (err) {
      this.options.logger.error({ err }, 'store: watch replay failed');
      this.fail(sub, errors.internal(`watch replay failed: ${(err as Error).message}`));
      return;
    }
    // Synchronous from here: no live event can slip between the backlog and going live.
    for (const event of sub.pending) {
      if (sub.stopped) return;
      if (event.resourceVersion > at) {
        this.deliver(sub, event);
        at = event.resourceVersion;
      }
    }
    sub.pending = [];
    sub.last = Math.max(sub.last, at);
    sub.live = true;
    this.progress(sub);
  }

  private async fetchLoop(): Promise<void> {
    do {
      this.fetchAgain = false;
      let page;
      try {
        page = await this.options.backend.readLog(this.head, LOG_BATCH);
      } catch (err) {
        // The next notification or tick retries.
        if (!this.closed) this.options.logger.warn({ err }, 'store: reading the change log failed');
        return;
      }
      if (this.closed) return;
      this.noteCompacted(page.compactedRv);
      if (page.compactedRv > this.head) {
        // This process fell behind compaction: its watchers cannot be continued without a gap.
        this.options.logger.warn(
          { head: this.head, compactedRv: page.compactedRv },
          'store: change log compacted past this reader; restarting watches',
        );
        const error = errors.gone(`too old resource version: ${this.head} (${page.compactedRv})`);
        const subs = [...this.everything, ...[...this.byResource.values()].flatMap((set) => [...set])];
        for (const sub of subs) this.fail(sub, error);
        this.head = page.compactedRv;
        this.ring = [];
        this.ringStart = 0;
        this.ringFloor = this.head;
      }
      let events: WatchEvent[] = [];
      for (const record of page.records) {
        if (record.rv <= this.head) continue;
        const event = this.toEvent(record);
        if (event) {
          events.push(event);
          continue;
        }
        // Undecodable: deliver what came before it, then step over it.
        this.publish(events);
        events = [];
        this.head = Math.max(this.head, record.rv);
      }
      this.publish(events);
      if (page.records.length === LOG_BATCH) this.fetchAgain = true;
    } while (this.fetchAgain && !this.closed);
  }

  private async tick(): Promise<void> {
    if (this.options.backend.shared) await this.requestFetch();
    if (this.closed) return;
    for (const sub of [...this.everything, ...[...this.byResource.values()].flatMap((set) => [...set])]) {
      if (sub.live) this.progress(sub);
    }
  }
}

interface DeliveryIndex {
  plain: Set<Subscription>;
  /** label key → value → the watchers whose trigger is key = value. */
  byTrigger: Map<string, Map<string, Set<Subscription>>>;
}
