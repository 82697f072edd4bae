/**
 * A least-recently-used map bounded by a byte budget, on `lru-cache` (its `maxSize` with a size per entry): each entry
 * carries a cost, and storing one evicts the least recently used until the total fits. Serves the shim's parsed-object
 * cache (site-reader.ts), its answer cache (http/answer-cache.ts) and the per-office answer bytes (answer-json.ts).
 * What this adds to the library: a budget of 0 stores nothing (lru-cache needs a positive bound), a cost is charged
 * at least 1 byte (lru-cache sizes are positive integers), and evictions are counted.
 */
import { LRUCache } from 'lru-cache';

/** Byte-bounded LRU of values of type V keyed by string. */
export class ByteLru<V extends object> {
  private readonly lru: LRUCache<string, V> | null;
  private evicted = 0;

  readonly budget: number;
  /** `budget` in bytes; 0 stores nothing. */
  constructor(budget: number) {
    this.budget = budget;
    this.lru =
      budget >= 1
        ? new LRUCache<string, V>({
            maxSize: budget,
            dispose: (_value, _key, reason) => {
              if (reason === 'evict') this.evicted++;
            },
          })
        : null;
  }

  /** The value stored under `key`, marked as most recently used; undefined when absent. */
  get(key: string): V | undefined {
    return this.lru?.get(key);
  }

  /**
   * Store `value` at `cost` bytes (at least 1), replacing any value of `key` (the same value too, charged anew), then
   * evict the least recently used until the total fits; false when the entry alone exceeds the budget (nothing stored,
   * and any old value of `key` dropped).
   */
  set(key: string, value: V, cost: number): boolean {
    const size = Math.max(1, Math.ceil(cost));
    if (this.lru === null || size > this.budget) {
      this.lru?.delete(key);
      return false;
    }
    // lru-cache keeps the old size when the same value is stored again under its key: drop it first so the cost counts.
    if (this.lru.peek(key) === value) this.lru.delete(key);
    this.lru.set(key, value, { size });
    return true;
  }

  /** Sum of the stored entries' costs. */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  /** Number of stored entries. */
  get size(): number {
    return this.lru?.size ?? 0;
  }

  /** Entries evicted to make room so far (replacements of a key are not evictions). */
  get evictions(): number {
    return this.evicted;
  }
}
