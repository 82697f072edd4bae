/** A Store decorator that counts the objects and bytes read through it (the cold-path measurement). */
import type { Store } from '../shim/store/types.ts';

/** One read seen by a CountingStore. */
export interface StoreRead {
  key: string;
  /** Bytes returned; 0 for a missing key. */
  bytes: number;
  found: boolean;
}

/** Wraps `inner`, recording every get(); reset() starts a new tally. */
export class CountingStore implements Store {
  readonly kind: string;
  reads: StoreRead[] = [];

  constructor(private readonly inner: Store) {
    this.kind = `counting(${inner.kind})`;
  }

  async get(key: string): Promise<Uint8Array | null> {
    const value = await this.inner.get(key);
    this.reads.push({ key, bytes: value?.byteLength ?? 0, found: value !== null });
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
