/**
 * Reads started before the hash that checks them is known: the first keys a request will read, asked beside the
 * version's meta.json (site-reader.ts). Nothing here is trusted: each read is handed, once, to the ordinary read path,
 * which checks its bytes against the hash meta.json (or the parent object) records before parsing or caching them.
 */
import type { ObjectSource } from '../format/site-json.ts';
import {
  packRuns,
  PACK_GAP_BYTES,
  PACK_JOIN_BUDGET_BYTES,
  type PackFit,
  type PackRun,
  type PackSpan,
} from './block-packs.ts';

/** Pending speculative reads by store key; take() hands one out as an ObjectSource for that key, once. */
export class SpeculativeReads {
  private readonly store: ObjectSource;
  private readonly pending = new Map<string, Promise<Uint8Array | null>>();
  constructor(store: ObjectSource) {
    this.store = store;
  }

  /** Starts reading each key not already pending; returns how many reads it started. */
  start(keys: readonly string[]): number {
    return this.startOwned(keys).length;
  }

  /** Starts reading each key not already pending; returns the keys it started (for drop). */
  startOwned(keys: readonly string[]): string[] {
    return this.startSpanned(keys).keys;
  }

  /**
   * Starts reading each key not already pending: those with a span in `spans` (and a store that reads ranges) as
   * slices of range requests of their packs (block-packs.ts packRuns), the others whole. Returns the keys it started
   * (for drop) and the store requests it made. A slice is checked like any read when taken; a pack that is missing
   * sends its objects' reads to the objects themselves. With `fit`, the ranges are joined further to fit the request
   * (block-packs.ts fitRuns); its `looseRequests` are the round's whole-object requests made elsewhere, to which the
   * whole reads started here are added.
   */
  startSpanned(
    keys: readonly string[],
    spans: ReadonlyMap<string, PackSpan> = new Map(),
    fit?: PackFit,
  ): { keys: string[]; requests: number } {
    const started: string[] = [];
    const ranged: [string, PackSpan][] = [];
    const getRange = this.store.getRange?.bind(this.store);
    for (const key of keys) {
      if (this.pending.has(key)) continue;
      started.push(key);
      const span = spans.get(key);
      if (span !== undefined && getRange !== undefined) ranged.push([key, span]);
      else this.hold(key, this.store.get(key));
    }
    let requests = started.length - ranged.length;
    const fitted = fit === undefined ? undefined : { ...fit, looseRequests: fit.looseRequests + requests };
    if (getRange !== undefined)
      for (const run of packRuns(ranged, PACK_GAP_BYTES, PACK_JOIN_BUDGET_BYTES, fitted)) {
        this.holdRun(run, getRange(run.pack, run.start, run.end));
        requests++;
      }
    return { keys: started, requests };
  }

  /** Holds each object of `run` as its slice of `read` (the run's range request), or its own read if the pack is missing. */
  private holdRun(run: PackRun, read: Promise<Uint8Array | null>): void {
    for (const [key, span] of run.spans)
      this.hold(
        key,
        read.then((bytes) =>
          bytes === null ? this.store.get(key) : bytes.subarray(span.start - run.start, span.end - run.start),
        ),
      );
  }

  private hold(key: string, read: Promise<Uint8Array | null>): void {
    // A failure is the taker's to report (its read rejects the same way); untaken, it is dropped quietly.
    read.catch(() => undefined);
    this.pending.set(key, read);
  }

  /** True when a read of `key` is pending (not yet taken). */
  has(key: string): boolean {
    return this.pending.has(key);
  }

  /** Drops the pending reads of `keys` that no one took (their results are never used). */
  drop(keys: readonly string[]): void {
    for (const key of keys) this.pending.delete(key);
  }

  /** The pending read of `key` as a one-key source, removed from the pending set; undefined when there is none. */
  take(key: string): ObjectSource | undefined {
    const read = this.pending.get(key);
    if (read === undefined) return undefined;
    this.pending.delete(key);
    return { get: (k) => (k === key ? read : Promise.reject(new Error(`speculative read of ${key} asked for ${k}`))) };
  }

  /** Drops every pending read (their results are never used). */
  clear(): void {
    this.pending.clear();
  }
}
