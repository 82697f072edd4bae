/**
 * A least-recently-used map bounded by a byte budget: each entry carries a cost, and storing one evicts the least
 * recently used until the total fits. Serves the shim's parsed-object cache (site-reader.ts) and its answer cache
 * (http/answer-cache.ts). Entries sit on a list from least to most recently used beside a Map that finds them, so a
 * hit moves one entry on the list and never changes the Map (deleting and re-inserting a Map key on every hit, about
 * 35 times per search, was a twentieth of a cache miss).
 */

/** One stored value and its place on the use list. */
interface Entry<V> {
  key: string;
  value: V;
  cost: number;
  /** The next less recently used entry (null: this is the oldest). */
  older: Entry<V> | null;
  /** The next more recently used entry (null: this is the newest). */
  newer: Entry<V> | null;
}

/** Byte-bounded LRU of values of type V keyed by string. */
export class ByteLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private oldest: Entry<V> | null = null;
  private newest: Entry<V> | null = null;
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
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.value;
  }

  /** Store `value` at `cost` bytes, replacing any value of `key`, then evict the oldest until the total fits; false when the entry alone exceeds the budget (nothing stored). */
  set(key: string, value: V, cost: number): boolean {
    if (cost > this.budget) return false;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.total -= old.cost;
      this.unlink(old);
      this.entries.delete(key);
    }
    const entry: Entry<V> = { key, value, cost, older: null, newer: null };
    this.entries.set(key, entry);
    this.append(entry);
    this.total += cost;
    while (this.total > this.budget && this.oldest !== null) {
      const gone = this.oldest;
      this.unlink(gone);
      this.entries.delete(gone.key);
      this.total -= gone.cost;
      this.evicted++;
    }
    return true;
  }

  private unlink(entry: Entry<V>): void {
    if (entry.older === null) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === null) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = null;
    entry.newer = null;
  }

  private append(entry: Entry<V>): void {
    entry.older = this.newest;
    if (this.newest === null) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
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
