// Re-running a read-modify-write when the store rejects it with 409 Conflict (a stale resourceVersion),
// the way client-go's RetryOnConflict does: a few quick tries, then the conflict goes to the caller.
import type { KubeObject, Store } from '../../store/types.js';
import { isApiError } from '../../util/errors.js';

export interface RetryOptions {
  /** Attempts in total. Default 5. */
  steps?: number;
  /** Pause between attempts. Default 10 ms. */
  delayMs?: number;
  /** Growth of the pause per attempt. Default 1 (constant). */
  factor?: number;
  /** Random extra pause, as a fraction of the pause. Default 0.1. */
  jitter?: number;
}

export function isConflict(e: unknown): boolean {
  return isApiError(e) && e.code === 409 && e.reason === 'Conflict';
}

/**
 * Runs `fn` (which must re-read what it modifies) until it does not throw a Conflict, at most `steps`
 * times. Other errors, and the last Conflict, are thrown.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const steps = Math.max(1, options.steps ?? 5);
  let delay = options.delayMs ?? 10;
  const factor = options.factor ?? 1;
  const jitter = options.jitter ?? 0.1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || attempt >= steps) throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * jitter)));
    delay *= factor;
  }
}

/**
 * retryOnConflict for a read-modify-write of one object: the first attempt works on `known` (the cached
 * or just-read copy, saving a read), every later one on the object read from the store again, since a
 * Conflict means it changed meanwhile. `fresh` is undefined when the object is gone.
 */
export async function retryOnConflictFrom(
  store: Pick<Store, 'get'>,
  resource: string,
  obj: { namespace: string; name: string },
  known: KubeObject | undefined,
  fn: (fresh: KubeObject | undefined) => Promise<void>,
  options: RetryOptions = {},
): Promise<void> {
  let first = known;
  await retryOnConflict(async () => {
    const fresh = first ?? (await store.get(resource, obj.namespace, obj.name));
    first = undefined;
    await fn(fresh);
  }, options);
}
