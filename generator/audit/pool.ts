/** Bounded-concurrency map, for reading many objects from a store without opening thousands of requests at once. */

/** `fn` over `items`, at most `concurrency` at a time; results in input order. The first failure rejects (others finish). */
export async function mapPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}

/** A progress line writer to stderr that prints at most every `everyMs` milliseconds (and always the last step). */
export function progressEvery(log: ((line: string) => void) | undefined, everyMs = 1000): (done: number, total: number, what: string) => void {
  let last = 0;
  return (done, total, what) => {
    if (log === undefined) return;
    const now = performance.now();
    if (done === total || now - last >= everyMs) {
      last = now;
      log(`${what}: ${done}/${total}`);
    }
  };
}
