/** Read access to one published version of the site, as the core sees it. Implemented in shim/search/site-reader.ts. */
import type { ZodType } from 'zod';
import { StoreError } from '../contract/errors.ts';
import type { MetaT } from '../format/site-format.ts';
import type { PackSpan, SearchRound } from './block-packs.ts';

/** One consistent version of the site: every read goes to the same `version` (never two versions in one answer). */
export interface SiteReader {
  readonly version: string;
  readonly meta: MetaT;
  /**
   * The parsed object at `key` (a full store key, e.g. keys.cellBlock(version, cell)), or null when it does not exist.
   * `sha256` is the hash the object's parent records for it (objects meta.json names are looked up there). In a version
   * that records hashes, an object with none is not part of the version (null, nothing read) and a listed object that
   * is missing is a StoreError. Rejects with StoreError when the store fails, the bytes do not match the hash or the
   * object does not match `schema`; such a read is never cached.
   */
  json<T>(key: string, schema: ZodType<T>, sha256?: string): Promise<T | null>;
  /** sha256 of meta.json as the pointer that named this version records it (absent for older pointers). */
  readonly metaSha256?: string;
  /**
   * Starts reading `keys` (full store keys) whose checking hash is not known yet, so they share a round trip with the
   * reads of their `parents`: a later json() of one of them takes the bytes and checks them against the hash it is
   * given, exactly as a read made then. Nothing is read when every parent is cached (the children are then asked
   * without waiting for a parent, and a planned child that is not needed is not read); keys already cached are skipped.
   * Keys with a span in `spans` (block-packs.ts) are read as slices of range requests of their packs where the store
   * reads ranges. Given the search `round` they belong to, inside a request that tallies its reads (read-tally.ts), the
   * ranges are joined further when the request's store requests so far, this round's (the parents not cached among
   * them) and the reserve the round keeps for later ones would pass the cold target (block-packs.ts fitRuns). Returns a
   * function that drops the reads not taken (call it once the caller is done). Absent on readers that cannot.
   */
  readonly prefetch?: (
    keys: readonly string[],
    parents: readonly string[],
    spans?: ReadonlyMap<string, PackSpan>,
    round?: SearchRound,
  ) => () => void;
  /**
   * Starts reading `keys` (full store keys) that are not cached, those with a span in `spans` as slices of range requests
   * of their packs where the store reads ranges, so a json() of each takes them; for objects a search is about to read
   * together; their ranges joined to fit the request given the search `round`, as prefetch's. Returns a function that
   * drops the reads not taken. Absent on readers that cannot.
   */
  readonly preread?: (keys: readonly string[], spans: ReadonlyMap<string, PackSpan>, round?: SearchRound) => () => void;
  /** The bytes stored at a full store key, unchecked and uncached (version-object.ts checks them); absent on readers that cannot. */
  readonly storedBytes?: (key: string) => Promise<Uint8Array | null>;
}

/**
 * Keys of a version (full store keys, e.g. keys.cellIndex(version)) that the caller will read first: when the version's
 * meta.json must be read, they are read beside it (site-reader.ts, speculative-reads.ts), each checked against the hash meta.json records
 * before use, so a cold request's first reads share meta's round trip instead of following it.
 */
export type EarlyKeys = (version: string) => readonly string[];

/** The parsed object at `key`, which the version must hold: missing is a StoreError (503), never an empty answer. */
export async function readRequired<T>(
  reader: SiteReader,
  key: string,
  schema: ZodType<T>,
  why = 'is missing from the served version',
  sha256?: string,
): Promise<T> {
  const value = await reader.json(key, schema, sha256);
  if (value === null) throw new StoreError(`${key} ${why}`, key);
  return value;
}
