/** A Store decorator that counts the objects and bytes read through it (the cold-path measurement). */
import type { ReadOptions, Store } from '../../shim/store/types.ts';

/** The key a range read is recorded under: `<key>#<start>-<end>` (end exclusive, as getRange takes it). */
export function rangeReadKey(key: string, start: number, end: number): string {
  return `${key}#${start}-${end}`;
}

/** One read seen by a CountingStore. */
export interface StoreRead {
  key: string;
  /** Bytes returned; 0 for a missing key. */
  bytes: number;
  found: boolean;
  /** performance.now() when the read started and when it settled, in ms. */
  startMs: number;
  endMs: number;
}

/** Wraps `inner`, recording every get() and, when `inner` has it, getRange() (keyed by rangeReadKey); reset() starts a new tally. */
export class CountingStore implements Store {
  readonly kind: string;
  reads: StoreRead[] = [];
  readonly getRange?: (key: string, start: number, end: number, options?: ReadOptions) => Promise<Uint8Array | null>;

  private readonly inner: Store;
  constructor(inner: Store) {
    this.inner = inner;
    this.kind = `counting(${inner.kind})`;
    const { getRange } = inner;
    if (getRange !== undefined) {
      this.getRange = (key, start, end, options) =>
        this.record(rangeReadKey(key, start, end), () => getRange.call(inner, key, start, end, options));
    }
  }

  get(key: string): Promise<Uint8Array | null> {
    return this.record(key, () => this.inner.get(key));
  }

  private async record(key: string, read: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const startMs = performance.now();
    const value = await read();
    this.reads.push({ key, bytes: value?.byteLength ?? 0, found: value !== null, startMs, endMs: performance.now() });
    return value;
  }

  /** Objects read since the last reset (missing keys included: each is a request to the store). */
  get objects(): number {
    return this.reads.length;
  }

  /** Bytes read since the last reset. */
  get bytes(): number {
    return this.reads.reduce((n, r) => n + r.bytes, 0);
  }

  /** Forget the reads so far. */
  reset(): void {
    this.reads = [];
  }
}

/**
 * Wraps `inner`, counting reads of keys it has already returned once: what a cache that held them would have saved. A
 * range read counts under rangeReadKey (only the same range again is a reread).
 */
export class RereadStore implements Store {
  readonly kind: string;
  private readonly seen = new Set<string>();
  /** Reads so far, and those of a key read before. */
  reads = 0;
  rereads = 0;
  readonly getRange?: (key: string, start: number, end: number, options?: ReadOptions) => Promise<Uint8Array | null>;

  private readonly inner: Store;
  constructor(inner: Store) {
    this.inner = inner;
    this.kind = `reread(${inner.kind})`;
    const { getRange } = inner;
    if (getRange !== undefined) {
      this.getRange = (key, start, end, options) => {
        this.count(rangeReadKey(key, start, end));
        return getRange.call(inner, key, start, end, options);
      };
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    this.count(key);
    return this.inner.get(key);
  }

  private count(key: string): void {
    this.reads++;
    if (this.seen.has(key)) this.rereads++;
    else this.seen.add(key);
  }
}
