// Bounded concurrency for independent async steps: a reconcile writing a thousand ClusterSummaries, a
// client reading discovery. Every step runs; the first failure is thrown once all have settled.

/**
 * Runs `f` over `items` with at most `limit` calls in flight. Waits for every call, then throws the first
 * error if any failed, so a caller that retries never overlaps with steps of its previous attempt.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  f: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          await f(item);
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}
