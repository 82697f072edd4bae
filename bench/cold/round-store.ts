/**
 * A Store decorator that measures a query's store round trips by dependency depth: reads are held and released in
 * rounds. A round is every read issued while the previous round was in flight or once it settled, before the event
 * loop turns (setImmediate: the shim's core does no other I/O, so by then every read its results allow has been
 * asked). Round k is then exactly the reads whose issue needed a result of round k - 1, so the number of rounds is the
 * longest chain of reads a query waits for one after another, whatever the store's or the machine's speed.
 */
import type { ReadOptions, Store } from '../../shim/store/types.ts';
import { rangeReadKey } from '../lib/counting-store.ts';

interface Held {
  /** The key, or rangeReadKey for a range read. */
  key: string;
  read: () => Promise<Uint8Array | null>;
  settle: (read: Promise<Uint8Array | null>) => void;
}

/**
 * Wraps `inner`, releasing reads in rounds; `rounds` lists the keys of each round since the last reset. Range reads
 * (when `inner` has them) are held and released with the gets, recorded as rangeReadKey.
 */
export class RoundStore implements Store {
  readonly kind: string;
  /** The keys read in each round, in the order asked. */
  rounds: string[][] = [];
  readonly getRange?: (key: string, start: number, end: number, options?: ReadOptions) => Promise<Uint8Array | null>;

  private readonly inner: Store;
  private held: Held[] = [];
  private inFlight = false;
  private scheduled = false;
  constructor(inner: Store) {
    this.inner = inner;
    this.kind = `rounds(${inner.kind})`;
    const { getRange } = inner;
    if (getRange !== undefined) {
      this.getRange = (key, start, end, options) =>
        this.hold(rangeReadKey(key, start, end), () => getRange.call(inner, key, start, end, options));
    }
  }

  get(key: string): Promise<Uint8Array | null> {
    return this.hold(key, () => this.inner.get(key));
  }

  /** Round trips after the pointer: the rounds other than those that read current.json alone. */
  get roundsAfterPointer(): number {
    return this.rounds.filter((r) => !r.every((k) => k === 'current.json')).length;
  }

  /**
   * Resolves once every read asked so far, and every read those led to, has settled: a query's answer can come before
   * reads it started and no longer needs (a refused name's search at its most populous namesake, planned beside the
   * names document), which are store requests all the same.
   */
  async settled(): Promise<void> {
    do await new Promise((r) => setImmediate(r));
    while (this.inFlight || this.scheduled || this.held.length > 0);
  }

  /** Forget the rounds so far (nothing may be in flight). */
  reset(): void {
    this.rounds = [];
  }

  private hold(key: string, read: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    return new Promise<Uint8Array | null>((resolve, reject) => {
      this.held.push({ key, read, settle: (settled) => settled.then(resolve, reject) });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.release();
    });
  }

  private async release(): Promise<void> {
    const batch = this.held;
    this.held = [];
    if (batch.length === 0) return;
    this.inFlight = true;
    this.rounds.push(batch.map((h) => h.key));
    const reads = batch.map((h) => h.read());
    // The round ends when all its reads have settled; only then are their callers told, all at once.
    await Promise.allSettled(reads);
    this.inFlight = false;
    batch.forEach((h, i) => h.settle(reads[i] as Promise<Uint8Array | null>));
    this.schedule();
  }
}
