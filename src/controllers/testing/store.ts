// A Store wrapper for controller tests that breaks watches or cuts a replica off the store to simulate
// faults; tests run it over the real memory store, `openStore({ url: 'memory:' })`.
import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ResourceName,
  Store,
  UpdateOptions,
  WatchHandlers,
  WatchOptions,
  Watcher,
  WriteOptions,
} from '../../store/types.js';
import { errors } from '../../util/errors.js';

interface WrappedWatch {
  inner: Watcher | undefined;
  handlers: WatchHandlers;
  active: boolean;
}

/**
 * Delegates to a store, with faults on demand: `cut('hang')` makes every call hang and drops watch
 * events, as for a replica cut off from PostgreSQL or a killed process; `cut('fail')` rejects calls
 * with 503; `breakWatches(err)` ends open watches with an error.
 */
export class FaultyStore implements Store {
  private mode: 'ok' | 'hang' | 'fail' = 'ok';
  private readonly watches = new Set<WrappedWatch>();
  /** Store calls made (reads and writes), in total and per method. */
  calls = 0;
  readonly callsBy: Record<string, number> = {};

  constructor(readonly inner: Store) {}

  get backend(): Store['backend'] {
    return this.inner.backend;
  }

  cut(mode: 'hang' | 'fail' = 'hang'): void {
    this.mode = mode;
  }

  heal(): void {
    this.mode = 'ok';
  }

  breakWatches(error: Error = errors.internal('watch broken')): void {
    for (const w of [...this.watches]) {
      w.active = false;
      w.inner?.stop();
      this.watches.delete(w);
      queueMicrotask(() => w.handlers.onError(error));
    }
  }

  openWatches(): number {
    return this.watches.size;
  }

  get(resource: ResourceName, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.guard('get', () => this.inner.get(resource, namespace, name));
  }

  list(resource: ResourceName, options?: ListOptions): ReturnType<Store['list']> {
    return this.guard('list', () => this.inner.list(resource, options));
  }

  create(resource: ResourceName, obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.guard('create', () => this.inner.create(resource, obj, options));
  }

  update(resource: ResourceName, obj: KubeObject, options?: UpdateOptions): Promise<KubeObject> {
    return this.guard('update', () => this.inner.update(resource, obj, options));
  }

  delete(
    resource: ResourceName,
    namespace: string,
    name: string,
    options?: DeleteOptions,
  ): ReturnType<Store['delete']> {
    return this.guard('delete', () => this.inner.delete(resource, namespace, name, options));
  }

  watch(options: WatchOptions, handlers: WatchHandlers): Watcher {
    const w: WrappedWatch = { inner: undefined, handlers, active: true };
    if (this.mode === 'fail') {
      queueMicrotask(() => handlers.onError(errors.serviceUnavailable('store unreachable')));
      return { stop: () => undefined };
    }
    this.watches.add(w);
    w.inner = this.inner.watch(options, {
      onEvent: (event) => {
        if (w.active && this.mode === 'ok') handlers.onEvent(event);
      },
      onError: (error) => {
        if (!w.active) return;
        w.active = false;
        this.watches.delete(w);
        handlers.onError(error);
      },
      onProgress: (rv) => {
        if (w.active && this.mode === 'ok') handlers.onProgress?.(rv);
      },
    });
    return {
      stop: () => {
        w.active = false;
        this.watches.delete(w);
        w.inner?.stop();
      },
    };
  }

  currentResourceVersion(): Promise<string> {
    return this.guard('currentResourceVersion', () => this.inner.currentResourceVersion());
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private guard<T>(method: string, call: () => Promise<T>): Promise<T> {
    this.calls++;
    this.callsBy[method] = (this.callsBy[method] ?? 0) + 1;
    if (this.mode === 'hang') return new Promise<T>(() => undefined);
    if (this.mode === 'fail') return Promise.reject(errors.serviceUnavailable('store unreachable'));
    return call();
  }
}
