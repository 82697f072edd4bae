/**
 * What one request has read from the store: its store requests (each get and each ranged get is one) and the bytes
 * they returned. A search runs inside runWithTally (service-impl.ts), the site source counts every request it makes to
 * the store (tallied, site-reader.ts), and a round of pack ranges reads the tally to stay within the cold target
 * (block-packs.ts PackFit). A tally opened inside another also counts into the outer one, so a caller (a test, a
 * benchmark) can tally what it calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The reads tallied wraps: a store's (Store) or a site reader's object source (format/site-json.ts ObjectSource). */
export interface Reads {
  get(key: string): Promise<Uint8Array | null>;
  getRange?(key: string, start: number, end: number): Promise<Uint8Array | null>;
}

/** One request's store reads so far. */
export interface ReadTally {
  /** Store requests started (each get and each getRange), finished or not. */
  readonly requests: number;
  /** Bytes the finished requests returned. */
  readonly bytes: number;
  /** Bytes asked by ranged requests not finished yet (a range's size is known when it is asked). */
  readonly pendingBytes: number;
}

/** A tally and the one it was opened inside, which it also counts into. */
interface Tally extends ReadTally {
  requests: number;
  bytes: number;
  pendingBytes: number;
  readonly outer: Tally | undefined;
}

const current = new AsyncLocalStorage<Tally>();

/** Runs `fn` with a fresh tally of its store reads (also counted into the tally it runs inside, if any). */
export function runWithTally<T>(fn: () => T): T {
  return current.run({ requests: 0, bytes: 0, pendingBytes: 0, outer: current.getStore() }, fn);
}

/** The tally of the request being served as it stands now, or undefined outside one (start-up, background work). */
export function currentTally(): ReadTally | undefined {
  const tally = current.getStore();
  return tally === undefined
    ? undefined
    : { requests: tally.requests, bytes: tally.bytes, pendingBytes: tally.pendingBytes };
}

/** Adds to `tally` and every tally it was opened inside. */
function add(tally: Tally | undefined, requests: number, bytes: number, pendingBytes: number): void {
  for (let t = tally; t !== undefined; t = t.outer) {
    t.requests += requests;
    t.bytes += bytes;
    t.pendingBytes += pendingBytes;
  }
}

/**
 * `store` with each request counted in the tally current when it is made (none outside a tally), but for the keys
 * `uncounted` says (the pointer, current.json, which the cold target does not count). Keeps `getRange` only where
 * `store` has it.
 */
export function tallied(store: Reads, uncounted: (key: string) => boolean = () => false): Reads {
  const { getRange } = store;
  const counted = (key: string, asked: number, read: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> => {
    const tally = uncounted(key) ? undefined : current.getStore();
    if (tally === undefined) return read();
    const reading = read();
    add(tally, 1, 0, asked);
    void reading.then(
      (bytes) => add(tally, 0, bytes?.byteLength ?? 0, -asked),
      () => add(tally, 0, 0, -asked),
    );
    return reading;
  };
  return {
    get: (key) => counted(key, 0, () => store.get(key)),
    ...(getRange !== undefined
      ? {
          getRange: (key: string, start: number, end: number) =>
            counted(key, end - start, () => getRange.call(store, key, start, end)),
        }
      : {}),
  };
}
