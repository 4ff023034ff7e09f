// Namespace deletion in a simulated cluster: the hub's own NamespaceReconciler, driven by one watch on
// namespaces and a per-namespace retry timer instead of a full controller manager (no informers, no lease).
import { NamespaceReconciler } from '../controllers/namespace/namespace.controller.js';
import type { ReconcileContext } from '../controllers/runtime/reconcile.js';
import type { Store, Watcher } from '../store/types.js';

const quiet = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child() {
    return quiet;
  },
};

export class SimNamespaces {
  private readonly reconciler: NamespaceReconciler;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<string>();
  private watcher: Watcher | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly store: Store,
    namespacedResources: () => string[],
  ) {
    this.reconciler = new NamespaceReconciler({ store, namespacedResources, recheckAfterMs: 500 });
  }

  async start(): Promise<void> {
    this.watcher = this.store.watch(
      { resource: 'namespaces', resourceVersion: await this.store.currentResourceVersion() },
      {
        onEvent: (event) => {
          if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp)
            this.schedule(event.object.metadata.name ?? '', 0);
        },
        onError: () => undefined,
      },
    );
  }

  private schedule(name: string, afterMs: number): void {
    if (this.abort.signal.aborted || this.timers.has(name)) return;
    const timer = setTimeout(() => {
      this.timers.delete(name);
      void this.run(name);
    }, afterMs);
    timer.unref();
    this.timers.set(name, timer);
  }

  private async run(name: string): Promise<void> {
    if (this.running.has(name)) return this.schedule(name, 200);
    this.running.add(name);
    const ctx = {
      signal: this.abort.signal,
      logger: quiet,
      controller: 'namespace',
      reconcileId: name,
      cache: { get: () => undefined, list: () => [] },
    } as unknown as ReconcileContext; // the reconciler reads the store, never the cache
    try {
      const result = await this.reconciler.reconcile(ctx, { name });
      if (result.requeueAfterMs !== undefined) this.schedule(name, result.requeueAfterMs);
    } catch {
      this.schedule(name, 1000);
    } finally {
      this.running.delete(name);
    }
  }

  stop(): void {
    this.abort.abort();
    this.watcher?.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
