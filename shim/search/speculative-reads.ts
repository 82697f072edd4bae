/**
 * Reads started before the hash that checks them is known: the first keys a request will read, asked beside the
 * version's meta.json (site-reader.ts). Nothing here is trusted: each read is handed, once, to the ordinary read path,
 * which checks its bytes against the hash meta.json (or the parent object) records before parsing or caching them.
 */
import type { ObjectSource } from '../format/site-json.ts';

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
    const started: string[] = [];
    for (const key of keys) {
      if (this.pending.has(key)) continue;
      const read = this.store.get(key);
      // A failure is the taker's to report (its read rejects the same way); untaken, it is dropped quietly.
      read.catch(() => undefined);
      this.pending.set(key, read);
      started.push(key);
    }
    return started;
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
