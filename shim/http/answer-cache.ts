/**
 * The shim's answer cache: finished /v1/attorneys answers (status, headers, encoded body bytes) per normalised query,
 * served version and content encoding, bounded by bytes, least recently used evicted first.
 *
 * The key is what the answer is computed from and nothing else: the parsed location with the parameter name dropped
 * (so `zip=60601` and `location=60601`, or `lat=41.88&lng=-87.63` and `location=41.88,-87.63`, share an entry, as they
 * share a query_id), radius and limit with defaults made explicit, and the practice area. `src` only names the caller,
 * parameter order is irrelevant. The version is part of every key, so an answer is never served for another version.
 */
import { ByteLru } from '../lib/byte-lru.ts';
import { parseSearch } from '../answer/search-request.ts';
import type { RawArgs } from '../answer/params.ts';
import type { LogFields } from './request-log.ts';

/** The representation an entry holds: one per content coding the server may choose. */
export type AnswerCoding = 'identity' | 'br' | 'gzip';

/** One finished answer in one coding: every header but the per-caller ones (RateLimit, Date), and the body bytes. */
export interface CachedAnswer {
  status: number;
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
  /** What the request log needs from the answer (query id, covered, counts, metro, ZIP3). */
  log: LogFields;
}

/** Hits, misses and size, for tests and the benchmark. */
export interface AnswerCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  evictions: number;
}

/** Per-entry overhead counted beside the body and headers (key, Map slot, objects), in bytes. */
const ENTRY_OVERHEAD = 256;

/**
 * The cache key of a query string's arguments, or null when they are not a valid search (the app answers the 400).
 * The pipeline reads the key off its parsed request (SearchRequest.key); this is for callers holding raw arguments.
 */
export function answerKey(raw: RawArgs): string | null {
  const search = parseSearch(raw);
  return search.ok ? search.key : null;
}

/** Queries remembered as seen once (per generation; two generations are kept), so a repeat is stored on its second sight. */
const SEEN_PER_GENERATION = 16_384;

/** A byte-bounded LRU of finished answers keyed by version, coding and normalised query. */
export class AnswerCache {
  private readonly lru: ByteLru<CachedAnswer>;
  private readonly counts = { hits: 0, misses: 0 };
  /**
   * Queries answered once and not stored: keeping every answer made a miss about a fifth dearer (the garbage collector
   * moving thousands of retained 17 KB answers, nearly all of new points that never come again). Two generations
   * bound it: when the newer fills, the older is dropped.
   */
  private seen = new Set<string>();
  private seenBefore = new Set<string>();

  readonly maxBytes: number;
  /** `maxBytes` 0 disables the cache (nothing is stored). */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
    this.lru = new ByteLru(maxBytes);
  }

  private static slot(version: string, coding: AnswerCoding, key: string): string {
    return `${version}\u0000${coding}\u0000${key}`;
  }

  /** The answer stored for this version, coding and key, marked as most recently used; undefined on a miss. */
  get(version: string, coding: AnswerCoding, key: string): CachedAnswer | undefined {
    const hit = this.lru.get(AnswerCache.slot(version, coding, key));
    if (hit === undefined) this.counts.misses++;
    else this.counts.hits++;
    return hit;
  }

  /**
   * Whether an answer of this version and key is worth storing: true on its second sight (the first call for it
   * returns false and remembers it), so a query asked once costs no stored answer.
   */
  seenAgain(version: string, key: string): boolean {
    const slot = `${version}\u0000${key}`;
    if (this.seen.has(slot) || this.seenBefore.has(slot)) return true;
    if (this.seen.size >= SEEN_PER_GENERATION) {
      this.seenBefore = this.seen;
      this.seen = new Set();
    }
    this.seen.add(slot);
    return false;
  }

  /** Store an answer; evicts the least recently used until the total fits. An answer larger than the budget is not stored. */
  set(version: string, coding: AnswerCoding, key: string, answer: CachedAnswer): void {
    const slot = AnswerCache.slot(version, coding, key);
    let cost = ENTRY_OVERHEAD + slot.length * 2 + answer.body.byteLength;
    for (const [name, value] of answer.headers) cost += name.length + value.length;
    this.lru.set(slot, answer, cost);
  }

  /** Counters and current size. */
  stats(): AnswerCacheStats {
    return { ...this.counts, evictions: this.lru.evictions, entries: this.lru.size, bytes: this.lru.bytes };
  }
}
