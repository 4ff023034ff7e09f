// Keeps one cluster's KindRegistry in step with the CRDs in its store: served versions become kinds
// when a CRD is written and go (with every custom resource) when it is deleted. One watch per cluster.
import type { KubeObject, Store, Watcher, WatchEvent } from '../../store/types.js';
import type { KindRegistry } from '../registry.js';
import { resourceName, type KindDefinition } from '../types.js';
import { CRD_GROUP, CRD_PLURAL, CRD_RESOURCE, CRD_VERSION, CustomResourceDefinition } from './definition.js';
import { reconciledStatus, type CrdObject } from './definition.js';
import { kindsOfCrd, specKey } from './kinds.js';

export interface CrdKindsLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface CrdKindsOptions {
  logger?: CrdKindsLogger;
  /** Delay before listing again after the watch failed (e.g. 410 Expired); default 1 s. */
  retryMs?: number;
}

interface Served {
  key: string;
  /** What this CRD actually got into the registry (a kind clashing with another one is left out). */
  kinds: KindDefinition[];
}

/**
 * The CRD half of an API server: `start()` registers the CRD kind itself (when the registry lacks it)
 * and the kinds of every stored CRD, then follows CRD writes from one store watch. The watch delivers a
 * write of this process before the write returns, so a CRD's kinds are served by the time its POST (or
 * apply) is answered.
 */
export class CrdKinds {
  private readonly served = new Map<string, Served>();
  private watcher: Watcher | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Status writes and custom resource cleanups still running (tests and shutdown wait on them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly registry: KindRegistry,
    private readonly options: CrdKindsOptions = {},
  ) {}

  async start(): Promise<void> {
    if (!this.registry.byUrl(CRD_GROUP, CRD_VERSION, CRD_PLURAL)) this.registry.add(CustomResourceDefinition);
    await this.sync();
  }

  /** Stops following the store; registered kinds stay. */
  stop(): void {
    this.stopped = true;
    this.watcher?.stop();
    this.watcher = undefined;
    if (this.retry) clearTimeout(this.retry);
  }

  /** Resolves once every status write and custom resource cleanup started so far has finished. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Lists the CRDs, reconciles the registry with them, and watches from the list's version. */
  private async sync(): Promise<void> {
    const list = await this.store.list(CRD_RESOURCE);
    if (this.stopped) return;
    const present = new Set<string>();
    for (const crd of list.items) {
      present.add(crd.metadata.name ?? '');
      this.serve(crd);
    }
    for (const name of [...this.served.keys()]) if (!present.has(name)) this.forget(name);
    this.watcher = this.store.watch(
      { resource: CRD_RESOURCE, resourceVersion: list.resourceVersion },
      { onEvent: (event) => this.onEvent(event), onError: (err) => this.onWatchError(err) },
    );
  }

  private onEvent(event: WatchEvent): void {
    if (event.type === 'DELETED') this.forget(event.object.metadata.name ?? '');
    else this.serve(event.object);
  }

  private onWatchError(err: Error): void {
    this.watcher = undefined;
    if (this.stopped) return;
    this.options.logger?.warn({ err }, 'crd kinds: watch ended; listing CRDs again');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.sync().catch((e: unknown) => this.onWatchError(e instanceof Error ? e : new Error(String(e))));
    }, this.options.retryMs ?? 1000);
    this.retry.unref();
  }

  /** Registers the CRD's kinds, replacing those of its previous spec; unchanged specs cost a string compare. */
  private serve(obj: KubeObject): void {
    const crd = obj as CrdObject;
    const name = crd.metadata.name ?? '';
    const key = specKey(crd);
    this.reconcileStatus(crd);
    const current = this.served.get(name);
    if (current?.key === key) return;
    for (const def of current?.kinds ?? []) this.registry.remove(def);
    const kinds: KindDefinition[] = [];
    for (const def of kindsOfCrd(crd, key)) {
      try {
        this.registry.add(def);
        kinds.push(def);
      } catch (err) {
        // Another CRD or a built-in kind serves this group/version/plural already; the first one keeps it.
        this.options.logger?.warn({ err, crd: name }, 'crd kinds: version not served, its names clash');
      }
    }
    this.served.set(name, { key, kinds });
  }

  /** Brings status.acceptedNames/storedVersions/Established up to date; its own write comes back a no-op. */
  private reconcileStatus(crd: CrdObject): void {
    if (crd.metadata.deletionTimestamp) return;
    const status = reconciledStatus(crd);
    if (!status) return;
    const write = this.store.update(CRD_RESOURCE, { ...crd, status }, { subresource: 'status' }).then(
      () => undefined,
      (err: unknown) => {
        // A newer write of the CRD got in first; its event brings another chance.
        if ((err as { code?: number }).code !== 409 && (err as { code?: number }).code !== 404)
          this.options.logger?.warn({ err, crd: crd.metadata.name }, 'crd kinds: status update failed');
      },
    );
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Unregisters a deleted CRD's kinds and deletes its custom resources, as the apiserver's finalizer does. */
  private forget(name: string): void {
    const current = this.served.get(name);
    this.served.delete(name);
    for (const def of current?.kinds ?? []) this.registry.remove(def);
    const def = current?.kinds[0];
    if (!def) return;
    const cleanup = this.deleteResources(name, resourceName(def)).catch((err: unknown) =>
      this.options.logger?.error({ err, crd: name }, 'crd kinds: deleting custom resources failed'),
    );
    this.pending.add(cleanup);
    void cleanup.finally(() => this.pending.delete(cleanup));
  }

  private async deleteResources(crdName: string, resource: string): Promise<void> {
    const { items } = await this.store.list(resource);
    for (const item of items) {
      // Recreated meanwhile: what is stored now belongs to the new CRD.
      if (this.served.has(crdName) || this.stopped) return;
      const { namespace = '', name = '' } = item.metadata;
      try {
        const { deleted, object } = await this.store.delete(resource, namespace, name);
        // Nothing serves the kind any more to remove finalizers, so they cannot hold the object.
        if (!deleted)
          await this.store.update(resource, { ...object, metadata: { ...object.metadata, finalizers: [] } });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
    }
  }
}
