/** Throttled progress lines for long-running tools. */

/** A progress line writer that prints at most every `everyMs` milliseconds (and always the last step). */
export function progressEvery(
  log: ((line: string) => void) | undefined,
  everyMs = 1000,
): (done: number, total: number, what: string) => void {
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
