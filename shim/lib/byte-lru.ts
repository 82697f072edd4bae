/**
 * A least-recently-used map bounded by a byte budget: each entry carries a cost, and storing one evicts the least
 * recently used until the total fits. Serves the shim's parsed-object cache (site-reader.ts) and its answer cache
 * (http/answer-cache.ts). A Map keeps insertion order, so re-inserting on use makes its first key the oldest.
 */

/** Byte-bounded LRU of values of type V keyed by string. */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; cost: number }>();
  private total = 0;
  private evicted = 0;

  readonly budget: number;
  /** `budget` in bytes; 0 stores nothing. */
  constructor(budget: number) {
    this.budget = budget;
  }

  /** The value stored under `key`, marked as most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Store `value` at `cost` bytes, replacing any value of `key`, then evict the oldest until the total fits; false when the entry alone exceeds the budget (nothing stored). */
  set(key: string, value: V, cost: number): boolean {
    if (cost > this.budget) return false;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.total -= old.cost;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, cost });
    this.total += cost;
    for (const [k, e] of this.entries) {
      if (this.total <= this.budget) break;
      this.entries.delete(k);
      this.total -= e.cost;
      this.evicted++;
    }
    return true;
  }

  /** Sum of the stored entries' costs. */
  get bytes(): number {
    return this.total;
  }

  /** Number of stored entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Entries evicted to make room so far (replacements of a key are not evictions). */
  get evictions(): number {
    return this.evicted;
  }
}
