// The cluster agent's ManifestWork loop: an informer over its own works on the hub (list, then watch from
// the last resourceVersion, relist on 410), a keyed queue, and watches on what it applied to correct drift.
import type { Logger } from 'pino';
import { LABEL_CLUSTER, WORK_CLEANUP_FINALIZER, WORK_GROUP } from '../fleet/names.js';
import { KubeApiError, type ResourceRef, type WatchEventType, type WatchHandle } from '../kube/types.js';
import type { KubeObject } from '../store/types.js';
import type { WorkLoopContext } from './agent.js';
import { Backoff, sleep } from './backoff.js';
import { applyWork, deleteWork, isDryRun, refreshStatus } from './work/applier.js';
import { isDrift, watchTargets, type WatchTarget } from './work/drift.js';
import { jsonEqual } from '../store/json.js';
import type { AppliedRecord, DeleteOption, ManifestWork, ManifestWorkStatus } from './work/types.js';

export const WORK_REF: ResourceRef = {
  group: WORK_GROUP,
  version: 'v1',
  resource: 'manifestworks',
  kind: 'ManifestWork',
  namespaced: true,
};

/** Held on every work (the hub adds it at creation), so a deleted work waits until its resources are cleaned up. */
export const CLEANUP_FINALIZER = WORK_CLEANUP_FINALIZER;

/** What the state dir keeps per work: the applied record and how to delete it if the work vanishes. */
interface StoredWork {
  record: AppliedRecord;
  deleteOption?: DeleteOption;
  /**
   * The work's generation when it was last applied in full. A restarted agent does not apply that
   * generation again: what changed in the cluster meanwhile reaches it through the drift watches, which
   * resume from the versions in the record.
   */
  generation?: number;
}

export interface WorkLoopOptions {
  /** How often every work's status (availability, feedback) is refreshed; default 10 s. */
  statusSyncMs?: number;
}

type Task = 'apply' | 'status';

export function workLoop(ctx: WorkLoopContext, options: WorkLoopOptions = {}): { stop(): Promise<void> } {
  return new WorkLoop(ctx, options).start();
}

class WorkLoop {
  private readonly abort = new AbortController();
  private readonly works = new Map<string, ManifestWork>();
  private readonly pending = new Map<string, Task>();
  private readonly retries = new Map<string, Backoff>();
  private readonly driftWatches = new Map<string, WatchHandle>();
  /** The state dir's records, read once: drift events consult them on every change in the cluster. */
  private readonly storedCache = new Map<string, StoredWork | undefined>();
  /** The generation of each work last applied in full (not a dry run). */
  private readonly applied = new Map<string, number | undefined>();
  /** The generation each work is being applied at right now: its echo (our finalizer write) is no news. */
  private readonly applying = new Map<string, number | undefined>();
  private wake: (() => void) | undefined;
  private readonly loops: Promise<void>[] = [];
  private readonly namespace: string;
  private readonly selector: string;
  private readonly log: Logger;

  constructor(
    private readonly ctx: WorkLoopContext,
    private readonly options: WorkLoopOptions,
  ) {
    this.namespace = ctx.identity.namespace;
    this.selector = `${LABEL_CLUSTER}=${ctx.identity.name}`;
    this.log = ctx.logger.child({ component: 'works' });
  }

  start(): { stop(): Promise<void> } {
    this.loops.push(this.informer(), this.worker(), this.resync());
    return {
      stop: async () => {
        this.abort.abort();
        this.wake?.();
        for (const w of this.driftWatches.values()) w.stop();
        await Promise.all(this.loops);
      },
    };
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  // ---- the informer over this cluster's works ----

  private async informer(): Promise<void> {
    const backoff = new Backoff();
    let version: string | undefined;
    while (!this.signal.aborted) {
      try {
        if (version === undefined) version = await this.relist();
        const end = await this.watchWorks(version, (rv) => (version = rv)).done;
        if (end.reason === 'expired') version = undefined;
        else if (end.reason === 'error') throw end.error ?? new Error('watch failed');
        backoff.reset();
      } catch (err) {
        if (this.signal.aborted) break;
        this.log.warn({ err: text(err) }, 'cannot reach the hub for works; retrying');
        await sleep(backoff.next(), this.signal);
      }
    }
  }

  /** Lists every work, queues them all, and queues cleanup for works deleted while the agent was away. */
  private async relist(): Promise<string> {
    const seen = new Set<string>();
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.ctx.hub().list(WORK_REF, {
        namespace: this.namespace,
        labelSelector: this.selector,
        limit: 500,
        ...(cont ? { continue: cont } : {}),
      });
      for (const item of page.items) {
        const work = item as unknown as ManifestWork;
        const name = work.metadata.name ?? '';
        seen.add(name);
        this.works.set(name, work);
        this.enqueue(name, this.upToDate(work) ? 'status' : 'apply');
      }
      cont = page.continue;
      resourceVersion = page.resourceVersion;
    } while (cont);
    for (const name of [...this.works.keys()]) {
      if (!seen.has(name)) {
        this.works.delete(name);
        this.enqueue(name, 'apply');
      }
    }
    for (const key of this.ctx.state.appliedKeys()) {
      const name = key.slice(this.namespace.length + 1);
      if (key.startsWith(`${this.namespace}/`) && !seen.has(name)) this.enqueue(name, 'apply');
    }
    // Works already applied at their generation are not applied again; their drift watches start here.
    this.syncDriftWatches();
    return resourceVersion;
  }

  private watchWorks(from: string, advance: (rv: string) => void): WatchHandle {
    const handle = this.ctx.hub().watch(
      WORK_REF,
      {
        namespace: this.namespace,
        labelSelector: this.selector,
        resourceVersion: from,
        allowWatchBookmarks: true,
        timeoutSeconds: 300 + Math.floor(Math.random() * 60),
      },
      (type, obj) => {
        if (obj.metadata.resourceVersion) advance(obj.metadata.resourceVersion);
        if (type === 'BOOKMARK') return;
        const name = obj.metadata.name ?? '';
        if (type === 'DELETED') this.works.delete(name);
        else this.works.set(name, obj as unknown as ManifestWork);
        // Our own status and finalizer writes come back as MODIFIED without a new generation: the spec is
        // what was applied, and drift in the cluster has watches of its own.
        if (type === 'MODIFIED' && this.upToDate(obj as unknown as ManifestWork)) return;
        this.enqueue(name, 'apply');
      },
    );
    const stop = (): void => handle.stop();
    this.signal.addEventListener('abort', stop, { once: true });
    void handle.done.then(() => this.signal.removeEventListener('abort', stop));
    return handle;
  }

  /** Applied (or being applied) at this generation and not being deleted: nothing to apply. */
  private upToDate(work: ManifestWork): boolean {
    if (work.metadata.deletionTimestamp) return false;
    const name = work.metadata.name ?? '';
    const generation = work.metadata.generation;
    if (this.applying.get(name) === generation) return true;
    // Turning a work into a dry run is an annotation (no new generation): a dry run is never settled.
    if (isDryRun(work)) return false;
    if (!this.applied.has(name)) {
      const stored = this.loadStored(this.key(name));
      if (stored?.generation !== undefined) this.applied.set(name, stored.generation);
    }
    return generation !== undefined && this.applied.get(name) === generation;
  }

  // ---- the queue ----

  private enqueue(name: string, task: Task): void {
    // An apply covers a status refresh; never downgrade a pending apply.
    if (this.pending.get(name) === 'apply') return;
    this.pending.set(name, task);
    this.wake?.();
  }

  private async worker(): Promise<void> {
    while (!this.signal.aborted) {
      const next = this.pending.entries().next();
      if (next.done) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const [name, task] = next.value;
      this.pending.delete(name);
      try {
        if (task === 'apply') await this.reconcile(name);
        else await this.refresh(name);
        this.retries.delete(name);
      } catch (err) {
        if (this.signal.aborted) break;
        const backoff = this.retries.get(name) ?? new Backoff();
        this.retries.set(name, backoff);
        const delay = backoff.next();
        this.log.warn({ work: name, err: text(err), retryInMs: delay }, 'work reconcile failed');
        setTimeout(() => this.enqueue(name, task), delay).unref();
      }
    }
  }

  /** Status only, every statusSyncMs: availability and feedback change without any event on the work. */
  private async resync(): Promise<void> {
    const every = this.options.statusSyncMs ?? 10_000;
    while (!this.signal.aborted) {
      await sleep(every, this.signal);
      for (const name of this.works.keys()) this.enqueue(name, 'status');
    }
  }

  // ---- reconciling one work ----

  private loadStored(key: string): StoredWork | undefined {
    if (!this.storedCache.has(key)) this.storedCache.set(key, this.ctx.state.loadApplied<StoredWork>(key));
    return this.storedCache.get(key);
  }

  private async saveStored(key: string, stored: StoredWork): Promise<void> {
    // Each save is an fsync; most reconciles (drift checks, status) change nothing in the record.
    const known = this.storedCache.get(key);
    if (known && jsonEqual(known, stored)) return;
    await this.ctx.state.saveApplied(key, stored);
    this.storedCache.set(key, stored);
  }

  private forgetStored(key: string): void {
    this.ctx.state.forgetApplied(key);
    this.storedCache.set(key, undefined);
  }

  private key(name: string): string {
    return `${this.namespace}/${name}`;
  }

  private async reconcile(name: string): Promise<void> {
    const key = this.key(name);
    const stored = this.loadStored(key);
    const work = this.works.get(name);
    if (!work || work.metadata.deletionTimestamp) {
      if (stored) {
        // The deleting work's own deleteOption: it may have changed after the last apply (a hub orphaning
        // what another profile takes over); the stored one only when the work is gone altogether.
        // A dry run changes nothing in the cluster, not even when it goes: what was applied before stays.
        const deleteOption: DeleteOption | undefined =
          work && isDryRun(work)
            ? { propagationPolicy: 'Orphan' }
            : work
              ? work.spec.deleteOption
              : stored.deleteOption;
        const out = await deleteWork(this.ctx.target, stored.record, deleteOption);
        if (out.errors.length > 0 || out.remaining.length > 0)
          throw new Error(
            `cleanup of ${name} incomplete: ${out.errors.map((e) => e.error).join('; ') || `${out.remaining.length} still deleting`}`,
          );
        this.forgetStored(key);
        this.applied.delete(name);
        this.log.info(
          { work: name, deleted: out.deleted.length, orphaned: out.orphaned.length },
          'work removed',
        );
      }
      if (work) await this.dropFinalizer(work);
      this.syncDriftWatches();
      return;
    }
    this.applying.set(name, work.metadata.generation);
    let outcome: Awaited<ReturnType<typeof applyWork>>;
    let current: ManifestWork;
    try {
      current = await this.ensureFinalizer(work);
      outcome = await applyWork(this.ctx.target, current, stored?.record);
    } finally {
      this.applying.delete(name);
    }
    this.log.info(
      {
        work: name,
        generation: current.metadata.generation,
        dryRun: outcome.dryRun || undefined,
        actions: countActions(outcome.manifests),
      },
      'work applied',
    );
    if (!outcome.dryRun) {
      // Only a fully successful apply settles the generation; a failed manifest is retried on any event.
      const complete =
        outcome.manifests.every((m) => m.action !== 'failed') && outcome.pruneErrors.length === 0;
      if (complete) this.applied.set(name, current.metadata.generation);
      else this.applied.delete(name);
      const next: StoredWork = { record: outcome.record };
      if (current.spec.deleteOption) next.deleteOption = current.spec.deleteOption;
      if (complete && current.metadata.generation !== undefined)
        next.generation = current.metadata.generation;
      await this.saveStored(key, next);
    } else {
      // Back from a dry run at the same generation (an annotation change), the work is applied again.
      this.applied.set(name, undefined);
    }
    await this.writeStatus(current, outcome.status);
    this.syncDriftWatches();
    // Failed manifests are in the status; retrying them (with backoff) is the queue's job.
    const failed = outcome.manifests.filter((m) => m.action === 'failed');
    if (failed.length > 0)
      throw new Error(`${failed.length} manifest(s) failed, first: ${failed[0]!.error ?? 'unknown error'}`);
  }

  private async refresh(name: string): Promise<void> {
    const work = this.works.get(name);
    if (!work || work.metadata.deletionTimestamp || !this.loadStored(this.key(name))) return;
    await this.writeStatus(work, await refreshStatus(this.ctx.target, work));
  }

  private async writeStatus(work: ManifestWork, status: ManifestWorkStatus): Promise<void> {
    if (jsonEqual(work.status ?? {}, status)) return;
    const updated = await this.ctx
      .hub()
      .update(WORK_REF, { ...(work as unknown as KubeObject), status } as KubeObject, {
        subresource: 'status',
      });
    this.remember(updated);
  }

  private async ensureFinalizer(work: ManifestWork): Promise<ManifestWork> {
    const finalizers = work.metadata.finalizers ?? [];
    if (finalizers.includes(CLEANUP_FINALIZER)) return work;
    const updated = await this.ctx.hub().update(WORK_REF, {
      ...(work as unknown as KubeObject),
      metadata: { ...work.metadata, finalizers: [...finalizers, CLEANUP_FINALIZER] },
    } as KubeObject);
    return this.remember(updated);
  }

  private async dropFinalizer(work: ManifestWork): Promise<void> {
    const finalizers = work.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) return;
    try {
      const updated = await this.ctx.hub().update(WORK_REF, {
        ...(work as unknown as KubeObject),
        metadata: { ...work.metadata, finalizers: finalizers.filter((f) => f !== CLEANUP_FINALIZER) },
      } as KubeObject);
      this.remember(updated);
    } catch (e) {
      if (!(e instanceof KubeApiError && e.code === 404)) throw e;
    }
  }

  /** Our own writes come back as watch events too; keeping the newest copy avoids needless conflicts. */
  private remember(obj: KubeObject): ManifestWork {
    const work = obj as unknown as ManifestWork;
    const name = work.metadata.name ?? '';
    if (this.works.has(name)) this.works.set(name, work);
    return work;
  }

  // ---- drift: watches on what the works applied ----

  private syncDriftWatches(): void {
    const wanted = new Map<string, WatchTarget>();
    for (const [name, work] of this.works) {
      const stored = this.loadStored(this.key(name));
      if (!stored) continue;
      for (const t of watchTargets(work, stored.record)) wanted.set(targetKey(t), t);
    }
    for (const [key, handle] of this.driftWatches) {
      if (!wanted.has(key)) {
        handle.stop();
        this.driftWatches.delete(key);
      }
    }
    for (const [key, target] of wanted) if (!this.driftWatches.has(key)) this.startDriftWatch(key, target);
  }

  private startDriftWatch(key: string, target: WatchTarget): void {
    const ref: ResourceRef = {
      group: target.group,
      version: target.version,
      resource: target.resource,
      kind: target.kind,
      namespaced: target.namespace !== '',
    };
    let stopped = false;
    const placeholder: WatchHandle = {
      stop: () => {
        stopped = true;
        current?.stop();
      },
      done: Promise.resolve({ reason: 'closed' }),
    };
    let current: WatchHandle | undefined;
    this.driftWatches.set(key, placeholder);
    const run = async (): Promise<void> => {
      const backoff = new Backoff();
      // From the oldest version our writes left these objects at: every change since then is replayed
      // and judged, so nothing needs re-applying blindly (nor is anything missed) — on a start, too.
      let version: string | undefined = this.oldestRecordedVersion(target);
      while (!stopped && !this.signal.aborted) {
        try {
          if (version === undefined) {
            // No usable version (unknown or expired): start from now and re-apply every work that uses
            // this target, which covers anything that happened before.
            const page = await this.ctx.target.list(ref, {
              limit: 1,
              ...(target.namespace ? { namespace: target.namespace } : {}),
            });
            version = page.resourceVersion;
            this.requeueUsers(target);
          }
          current = this.ctx.target.watch(
            ref,
            {
              resourceVersion: version,
              allowWatchBookmarks: true,
              timeoutSeconds: 300 + Math.floor(Math.random() * 60),
              ...(target.namespace ? { namespace: target.namespace } : {}),
            },
            (type, obj) => {
              if (obj.metadata.resourceVersion) version = obj.metadata.resourceVersion;
              this.onManagedEvent(ref, type, obj);
            },
          );
          const end = await current.done;
          if (end.reason === 'expired') version = undefined;
          else if (end.reason === 'error') throw end.error ?? new Error('watch failed');
          backoff.reset();
        } catch (err) {
          if (stopped || this.signal.aborted) break;
          // A version the cluster refuses (a rebuilt cluster's is "too large") must not be retried forever.
          version = undefined;
          this.log.warn({ err: text(err), watch: key }, 'drift watch failed; retrying');
          await sleep(backoff.next(), this.signal);
        }
      }
    };
    this.loops.push(run());
  }

  /** The smallest resourceVersion the records hold for objects of `target`; undefined if any is unknown. */
  private oldestRecordedVersion(target: WatchTarget): string | undefined {
    let oldest: bigint | undefined;
    for (const name of this.works.keys()) {
      for (const r of this.loadStored(this.key(name))?.record.resources ?? []) {
        if (r.group !== target.group || r.resource !== target.resource || r.namespace !== target.namespace)
          continue;
        if (!r.resourceVersion || !/^\d{1,30}$/.test(r.resourceVersion)) return undefined;
        const v = BigInt(r.resourceVersion);
        if (oldest === undefined || v < oldest) oldest = v;
      }
    }
    return oldest?.toString();
  }

  private requeueUsers(target: WatchTarget): void {
    for (const name of this.works.keys()) {
      const stored = this.loadStored(this.key(name));
      if (stored?.record.resources.some((r) => r.group === target.group && r.resource === target.resource))
        this.enqueue(name, 'apply');
    }
  }

  private onManagedEvent(ref: ResourceRef, type: WatchEventType, obj: KubeObject): void {
    if (type === 'BOOKMARK' || type === 'ADDED') return;
    for (const [name, work] of this.works) {
      const stored = this.loadStored(this.key(name));
      if (!stored) continue;
      const decision = isDrift(work, stored.record, ref, type, obj);
      if (decision.drift) {
        this.log.info(
          { work: name, object: `${ref.resource}/${obj.metadata.name ?? ''}`, reason: decision.reason },
          'drift: re-applying',
        );
        this.enqueue(name, 'apply');
      } else if (decision.resource) {
        // A managed object changed (e.g. its status): refresh availability and feedback.
        this.enqueue(name, 'status');
      }
    }
  }
}

function targetKey(t: WatchTarget): string {
  return `${t.group}/${t.version}/${t.resource}/${t.namespace}`;
}

function text(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function countActions(manifests: { action: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of manifests) counts[m.action] = (counts[m.action] ?? 0) + 1;
  return counts;
}
