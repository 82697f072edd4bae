/**
 * Reads the published site through a Store (objects read by site-json.ts): the pointer (current.json, cached briefly), the meta of the version it
 * names, and parsed objects of that version, cached in memory in an LRU bounded by bytes. A layered version's keys
 * resolve through the map in its meta.json, read once with the meta, so one answer never mixes versions.
 */
import type { ZodType } from 'zod';
import type { EarlyKeys, SiteReader } from './reader.ts';
import { ByteLru } from '../lib/byte-lru.ts';
import { layerResolver } from '../format/layers.ts';
import { HashDoc, keys, Meta, Pointer, POINTER_TTL_MS, type MetaT } from '../format/site-format.ts';
import { hashDocPath } from '../format/hash-docs.ts';
import { openProven, provenRel } from '../format/proofs.ts';
import { binaryCellKind, paths, type BinaryCellKind } from '../format/paths.ts';
import { checkStored, StoreError } from '../contract/errors.ts';
import { checkHash, expectedHash, readsUnhashed, recordsHashes } from '../format/integrity.ts';
import { parseStored, readJson, type ObjectSource } from '../format/site-json.ts';
import { RecordChunk } from '../format/record-chunk.ts';
import { SpeculativeReads } from './speculative-reads.ts';
import { roundReserve, type PackFit, type PackSpan, type SearchRound } from './block-packs.ts';
import { INDEX_BYTES_PER_POINT } from './point-index.ts';
import { StoreDeadlineError } from '../store/deadline.ts';
import { requestDeadline } from '../store/request-deadline.ts';
import { currentTally, tallied } from '../store/read-tally.ts';

/** Hands out the SiteReader of the version being served; a request takes one at its start and uses only that one. */
export interface SiteSource {
  current(early?: EarlyKeys): Promise<SiteReader>;
}

/** Options of createSiteSource. */
export interface SiteSourceOptions {
  /** How long a read of current.json is trusted, in milliseconds (default 5000). */
  pointerTtlMs?: number;
  /**
   * Budget of the parsed-object cache in bytes of memory held (default 64 MiB): each object is charged heldBytes(),
   * its parsed size plus the search columns built from it, not its stored size.
   */
  cacheBytes?: number;
  /**
   * How long after its last good read the last good pointer keeps serving while fresh reads of current.json (or of the
   * meta.json it names) fail their check or time out, in milliseconds (default LAST_GOOD_POINTER_MS); 0 turns it off.
   */
  lastGoodMs?: number;
  /** Told once when a failed pointer read starts serving the last good version, and once when a read succeeds again. */
  onPointer?: (event: PointerEvent) => void;
  /** Clock for the pointer cache, in milliseconds (tests). */
  now?: () => number;
}

/**
 * Default time the last good pointer keeps serving past its last good read: long enough to ride out a damaged or slow
 * current.json until an operator repairs it, short against the release cadence, so a removal released while the
 * pointer cannot be read is served late by at most this long.
 */
export const LAST_GOOD_POINTER_MS = 10 * 60 * 1000;
/** A PointerEvent as one line of the service's log. */
export function pointerEventText(event: PointerEvent): string {
  return event.kind === 'last_good'
    ? `[shim] current.json could not be read (${event.error}); serving the last good version ${event.version} until it can`
    : `[shim] current.json read again; serving version ${event.version}`;
}

/** Least time between two background reads of the pointer while the last good one serves. */
const POINTER_RETRY_MS = 1000;

/** A change of how the pointer is served: from the last good one after a failed read, or fresh again. */
export type PointerEvent =
  { kind: 'last_good'; version: string; error: string } | { kind: 'recovered'; version: string };

/**
 * `first` and, beside each key, the hashes/ document recording its sha256 (read in the same round trip), but for the
 * gazetteer documents, which carry their own proof: a version generated before the proofs reads their hashes/
 * documents once its meta.json is in, a round trip later.
 */
function withHashDocs(version: string, first: readonly string[]): string[] {
  const root = keys.root(version);
  const docs = first.flatMap((key) => {
    const rel = key.startsWith(root) ? key.slice(root.length) : null;
    const doc = rel === null || provenRel(rel) ? null : hashDocPath(rel);
    return doc === null ? [] : [root + doc];
  });
  return [...new Set([...first, ...docs])];
}

/** Counters for tests and benchmarks. */
export interface SiteSourceStats {
  storeReads: number;
  cacheHits: number;
  cachedObjects: number;
  cachedBytes: number;
}

/** A SiteSource with its cache counters. */
export interface CachedSiteSource extends SiteSource {
  stats(): SiteSourceStats;
}

/**
 * Heap bytes a parsed object takes per stored byte, beyond the search columns counted below. Measured with
 * test/helpers/cache-heap.ts on the test site (node 22, after a full collection, heap plus array buffers): between
 * cache budgets of 4 and 12 MiB the process held 0.88 byte (Node 24: 0.84) per byte charged with 3, and 3.0 per byte when objects
 * were charged their stored size (cell blocks, groups and record chunks are arrays of short numbers and small objects).
 */
export const PARSED_BYTES_PER_STORED_BYTE = 3;
/**
 * Bytes a parsed binary cell object holds per stored byte, with the search columns a search builds from it (cell-search.ts
 * columns and treeOf, shared-lists.ts) less those charged per office or row below. Measured over the million-office
 * site, each kind parsed as this reader parses it into one retained array, in five batches, heap plus array buffers after
 * two full collections; the median batch on Node 22 / 24: 5.37 / 5.39 for the 1,120 blocks (10.8 MB stored), 10.5 /
 * 11.1 for the 163 group trees (0.21 MB), 20.6 / 20.6 for the 439 shared pages (0.72 MB). Group trees keep the charge
 * they had (11.4, 3.8 bytes of JSON per binary byte times 3), within 10% of that. Small objects hold more per byte (1 to
 * 3 KB each of typed-array and object headers): the test site's 34 of each kind (blocks of 2.7 KB on average, group
 * trees of 160 bytes, shared pages of 32) hold 6.2, 26 and 51 (Node 22; 6.1, 35 and 57 on Node 24).
 * Command, per site and kind: node --expose-gc test/helpers/cell-heap.ts <site> <block|group|shared>
 */
const HELD_BYTES_PER_BINARY_BYTE: Record<BinaryCellKind, number> = { block: 5.4, group: 11.4, shared: 20.6 };
/** Typed-array search columns built once per cell block office (cell-search.ts): lat, lng, xyz, listing, unit. */
const COLUMN_BYTES_PER_OFFICE = 8 + 8 + 24 + 4 + 4;
/** Typed arrays built once per cell group row (cell-search.ts treeOf): xyz, reach, units, first, kids, block, slot, below. */
const TREE_BYTES_PER_ROW = 24 + 8 + 4 * 6;

/**
 * What holding `value` (parsed from `storedBytes` bytes at `key`) costs in memory: its parsed size, plus for a cell
 * block or group the search columns built from it, and for a points tile its index (point-index.ts), which live exactly
 * as long as the cached object (WeakMaps keyed on it); for a record chunk, its bytes and the records parsed so far.
 */
export function heldBytes(key: string, storedBytes: number, value: unknown): number {
  if (value instanceof RecordChunk) return value.heldBytes(PARSED_BYTES_PER_STORED_BYTE, storedBytes);
  const kind = binaryCellKind(key);
  let held = Math.ceil(storedBytes * (kind === null ? PARSED_BYTES_PER_STORED_BYTE : HELD_BYTES_PER_BINARY_BYTE[kind]));
  const v = value as { listing?: unknown; rows?: { cell?: unknown }; points?: unknown } | null;
  if (key.includes('/cells/blocks/') && Array.isArray(v?.listing)) held += v.listing.length * COLUMN_BYTES_PER_OFFICE;
  if (key.includes('/cells/groups/') && Array.isArray(v?.rows?.cell)) held += v.rows.cell.length * TREE_BYTES_PER_ROW;
  if (key.includes('/gazetteer/points/') && Array.isArray(v?.points)) held += v.points.length * INDEX_BYTES_PER_POINT;
  return held;
}

export function createSiteSource(objects: ObjectSource, opts: SiteSourceOptions = {}): CachedSiteSource {
  // Every store request made here counts in the tally of the request it serves (read-tally.ts), but the pointer's.
  const store = tallied(objects, (key) => key === keys.pointer);
  const ttl = opts.pointerTtlMs ?? POINTER_TTL_MS;
  const now = opts.now ?? Date.now;
  // Each entry keeps the hash it was checked against: a reader expecting another hash for the same key is refused.
  const cache = new ByteLru<{ value: unknown; sha256: string | undefined }>(opts.cacheBytes ?? 64 * 1024 * 1024);
  const inflight = new Map<string, Promise<unknown>>();
  const counters = { storeReads: 0, cacheHits: 0 };

  const lastGoodMs = opts.lastGoodMs ?? LAST_GOOD_POINTER_MS;
  // Reads started beside a meta.json (refresh); null otherwise, so a warm read never passes through them.
  let speculative: SpeculativeReads | null = null;
  // Reads started before their parent object (SiteReader.prefetch), taken once by cachedJson or dropped by their caller.
  const prefetched = new SpeculativeReads(store);
  let pointer: { reader: SiteReader; at: number } | null = null;
  let refreshing: Promise<SiteReader> | null = null;
  // While the last good pointer serves: when the next background read may start (null: fresh reads are succeeding).
  let retryAt: number | null = null;
  // The reader of each version seen recently, so a version keeps one meta and one identity.
  const readers = new Map<string, SiteReader>();

  function cachedJson<T>(
    key: string,
    schema: ZodType<T>,
    sha256: string | undefined,
    listed: boolean,
    rejoin = true,
    open?: (bytes: Uint8Array) => Uint8Array,
  ): Promise<T | null> {
    const hit = cache.get(key);
    if (hit !== undefined && (sha256 === undefined || hit.sha256 === sha256)) {
      counters.cacheHits++;
      return Promise.resolve(hit.value as T);
    }
    const slot = `${key}\u0000${sha256 ?? ''}`;
    const pending = inflight.get(slot);
    if (pending !== undefined) {
      counters.cacheHits++;
      if (!rejoin) return pending as Promise<T | null>;
      // A shared read ends at the deadline of the request that started it; this request may have time left, and then
      // reads the object again under its own deadline rather than fail early with the other's 503.
      return (pending as Promise<T | null>).catch((err: unknown) => {
        const own = requestDeadline();
        if (err instanceof StoreDeadlineError && (own === undefined || own.at > performance.now()))
          return cachedJson(key, schema, sha256, listed, false, open);
        throw err;
      });
    }
    // Bytes read beside meta.json (refresh, counted there) are taken once, and checked against `sha256` like a read made now.
    const early = speculative?.take(key) ?? prefetched.take(key);
    if (early === undefined) counters.storeReads++;
    const load = (async () => {
      try {
        const bytes = await (early ?? store).get(key);
        // A miss, a hash mismatch or a schema failure is never cached: an object restored (or re-published under the
        // same version) is seen at once.
        if (bytes === null) {
          if (listed) throw new StoreError(`${key} is missing from the served version, which records its sha256`, key);
          return null;
        }
        // A proven document is checked by its proof (`sha256` then only names the root it was checked against).
        if (open === undefined) checkHash(key, bytes, sha256);
        const value = parseStored(open === undefined ? bytes : open(bytes), key, schema);
        const entry = { value, sha256 };
        const stored = bytes.byteLength;
        cache.set(key, entry, heldBytes(key, stored, value));
        // A record chunk holds more as its records are parsed: charged again each time, while it is still cached.
        if (value instanceof RecordChunk)
          value.onGrow(() => {
            if (cache.get(key) === entry) cache.set(key, entry, heldBytes(key, stored, value));
          });
        return value;
      } finally {
        inflight.delete(slot);
      }
    })();
    inflight.set(slot, load);
    return load;
  }

  /**
   * What a query-aware join of `round` knows of the request being served (its tally, read-tally.ts), with `loose` whole-
   * object requests of the round made elsewhere; undefined without a round or outside a tally (the ranges then are
   * joined as packRuns joins them alone).
   */
  function fitOf(round: SearchRound | undefined, loose: number): PackFit | undefined {
    const tally = round === undefined ? undefined : currentTally();
    if (round === undefined || tally === undefined) return undefined;
    const reserve = roundReserve(round);
    return {
      requestsSoFar: tally.requests,
      bytesSoFar: tally.bytes + tally.pendingBytes,
      looseRequests: loose,
      reserveRequests: reserve.requests,
      reserveBytes: reserve.bytes,
    };
  }

  function makeReader(version: string, meta: MetaT, metaSha256: string | undefined): SiteReader {
    const prefix = keys.root(version);
    const resolve = layerResolver(version, meta.layers);
    const hashed = recordsHashes(meta);
    const unhashed = readsUnhashed(meta);
    // The cell index meta.json carries (checked with it against the pointer), parsed once by the schema first asked.
    let carriedIndex: { schema: ZodType<unknown>; value: unknown } | undefined;
    function carried<T>(key: string, schema: ZodType<T>): T {
      if (carriedIndex?.schema !== schema) carriedIndex = { schema, value: checkStored(schema, meta.cell_index, key) };
      return carriedIndex.value as T;
    }
    /**
     * Starts reading the uncached `list` (spans by version key), taken once by cachedJson; returns their drop. Given the
     * search `round` they are, inside a request's tally, their ranges are joined to fit the request (block-packs.ts
     * fitRuns), `loose` counting the round's whole-object requests made elsewhere.
     */
    function startReads(
      list: readonly string[],
      spans: ReadonlyMap<string, PackSpan>,
      round?: SearchRound,
      loose = 0,
    ): () => void {
      const stored: string[] = [];
      // Spans by the keys that hold the objects: a layered version's blocks and pack resolve to where they are stored.
      const storedSpans = new Map<string, PackSpan>();
      for (const key of list) {
        const at = key.startsWith(prefix) ? resolve(key) : null;
        if (at === null || cache.get(at) !== undefined) continue;
        stored.push(at);
        const span = spans.get(key);
        const pack = span === undefined ? null : resolve(span.pack);
        if (span !== undefined && pack !== null) storedSpans.set(at, { ...span, pack });
      }
      const started = prefetched.startSpanned(stored, storedSpans, fitOf(round, loose));
      counters.storeReads += started.requests;
      return () => prefetched.drop(started.keys);
    }
    const reader: SiteReader = {
      version,
      meta,
      ...(metaSha256 !== undefined ? { metaSha256 } : {}),
      prefetch(
        list: readonly string[],
        parents: readonly string[],
        spans: ReadonlyMap<string, PackSpan> = new Map(),
        round?: SearchRound,
      ): () => void {
        const cached = (key: string): boolean => {
          const at = key.startsWith(prefix) ? resolve(key) : null;
          return at !== null && cache.get(at) !== undefined;
        };
        if (parents.every(cached)) return () => undefined;
        // The parents not cached are read in this round too (whole), unless a read of one is under way already.
        const loose = round === undefined ? 0 : parents.filter((key) => !cached(key) && !reading(key)).length;
        return startReads(list, spans, round, loose);
      },
      preread: (list, spans, round) => startReads(list, spans, round),
      storedBytes: (key) => {
        counters.storeReads++;
        return store.get(key);
      },
      json<T>(key: string, schema: ZodType<T>, sha256?: string): Promise<T | null> {
        if (!key.startsWith(prefix)) {
          return Promise.reject(new StoreError(`${key} is not part of version ${version}`, key));
        }
        const rel = key.slice(prefix.length);
        if (rel === paths.cellIndex() && meta.cell_index !== undefined) {
          try {
            return Promise.resolve(carried(key, schema));
          } catch (err) {
            return Promise.reject(err);
          }
        }
        const expected = expectedHash(meta, rel, sha256);
        const listed = hashed && !unhashed(rel);
        if (expected !== undefined || !listed) return readAt(key, schema, expected, listed);
        const root = meta.gazetteer_root;
        if (root !== undefined && provenRel(rel)) {
          // Checked by the proof it carries. Missing, it is a store failure: a caller reads only the documents meta.json
          // lists (and every boundary tile of the box exists).
          return readAt(key, schema, `merkle:${root}`, true, (bytes) => openProven(key, rel, bytes, root));
        }
        const doc = hashDocPath(rel);
        if (doc === null || meta.sha256?.[doc] === undefined) return Promise.resolve(null);
        return fromHashDoc(key, rel, prefix + doc, schema);
      },
    };

    /** True when a store read of the object at version key `key` is under way (its request made already). */
    function reading(key: string): boolean {
      const at = key.startsWith(prefix) ? resolve(key) : null;
      if (at === null) return false;
      if (speculative?.has(at) === true || prefetched.has(at)) return true;
      for (const slot of inflight.keys()) if (slot.startsWith(`${at}\u0000`)) return true;
      return false;
    }

    /** `key` read where the layer map puts it, checked against `expected` (or opened by `open`, see cachedJson). */
    function readAt<T>(
      key: string,
      schema: ZodType<T>,
      expected: string | undefined,
      listed: boolean,
      open?: (bytes: Uint8Array) => Uint8Array,
    ): Promise<T | null> {
      // Cached by the key that holds the object: versions layered over the same base share their parsed objects.
      const stored = resolve(key);
      if (stored === null) {
        return listed
          ? Promise.reject(
              new StoreError(`${key} is recorded in version ${version} but its layer map has no entry`, key),
            )
          : Promise.resolve(null);
      }
      return cachedJson(stored, schema, expected, listed, true, open);
    }

    /**
     * `key`, whose sha256 the hashes/ document `docKey` records: that document is read first (checked against meta.json),
     * and when it must come from the store, `key` is read beside it (checked once it is in), so the pair costs one round trip.
     */
    async function fromHashDoc<T>(key: string, rel: string, docKey: string, schema: ZodType<T>): Promise<T | null> {
      const docAt = resolve(docKey);
      const at = resolve(key);
      let started: string[] = [];
      if (docAt !== null && at !== null && cache.get(docAt) === undefined && cache.get(at) === undefined) {
        if (speculative?.has(at) !== true) started = prefetched.startOwned([at]);
        counters.storeReads += started.length;
      }
      try {
        const hashes = await reader.json(docKey, HashDoc);
        const want = hashes?.sha256[rel];
        return want === undefined ? null : await readAt(key, schema, want, true);
      } finally {
        prefetched.drop(started);
      }
    }
    return reader;
  }

  async function refresh(early: EarlyKeys | undefined): Promise<SiteReader> {
    counters.storeReads++;
    // What the last refresh read beside meta.json and no request took is dropped, so no old bytes linger.
    speculative = null;
    const read = await readJson(store, keys.pointer);
    if (read === null) throw new StoreError('no published version: current.json is missing', keys.pointer);
    const { version, meta_sha256: metaSha256 } = checkStored(Pointer, read.value, keys.pointer);
    // A reader is kept per version and meta hash: a meta.json checked against one hash is not trusted for another.
    const slot = `${version}\u0000${metaSha256 ?? ''}`;
    let reader = readers.get(slot);
    if (reader === undefined) {
      counters.storeReads++;
      // Read beside meta.json; a key the version's layer map sends elsewhere is not taken (stored under another key).
      const first = withHashDocs(version, early?.(version) ?? []);
      if (first.length > 0) {
        speculative = new SpeculativeReads(store);
        counters.storeReads += speculative.start(first);
      }
      // The pointer records meta.json's sha256 (the root of every other hash): a mismatch is a StoreError (503), and
      // nothing is kept, so the repaired object is read on the next refresh.
      const metaRead = await readJson(store, keys.meta(version), metaSha256);
      if (metaRead === null) throw new StoreError(`version ${version} has no meta.json`, keys.meta(version));
      const meta = checkStored(Meta, metaRead.value, keys.meta(version));
      if (meta.version !== version) {
        throw new StoreError(`meta.json of ${version} names version ${meta.version}`, keys.meta(version));
      }
      reader = makeReader(version, meta, metaSha256);
      readers.set(slot, reader);
      // Keep only the few most recent versions' readers.
      for (const v of readers.keys()) {
        if (readers.size <= 4) break;
        readers.delete(v);
      }
    }
    pointer = { reader, at: now() };
    if (retryAt !== null) {
      retryAt = null;
      opts.onPointer?.({ kind: 'recovered', version });
    }
    return reader;
  }

  /** The last good reader while it may still serve, else null. */
  function lastGood(): SiteReader | null {
    return pointer !== null && lastGoodMs > 0 && now() - pointer.at < ttl + lastGoodMs ? pointer.reader : null;
  }

  /** A failed pointer read: the last good reader when one may serve (told once per outage), else the failure. */
  function fallBack(err: unknown): SiteReader {
    const reader = lastGood();
    if (!(err instanceof StoreError) || reader === null) throw err;
    if (retryAt === null) opts.onPointer?.({ kind: 'last_good', version: reader.version, error: err.message });
    retryAt = now() + POINTER_RETRY_MS;
    return reader;
  }

  function startRefresh(early?: EarlyKeys): Promise<SiteReader> {
    refreshing ??= refresh(early)
      .catch(fallBack)
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  return {
    current(early?: EarlyKeys): Promise<SiteReader> {
      if (pointer !== null && now() - pointer.at < ttl) return Promise.resolve(pointer.reader);
      // After a failed read the last good version answers at once; one read at a time tries the pointer again.
      const stale = retryAt !== null ? lastGood() : null;
      if (stale !== null) {
        if (refreshing === null && now() >= (retryAt ?? 0)) void startRefresh().catch(() => undefined);
        return Promise.resolve(stale);
      }
      return startRefresh(early);
    },
    stats(): SiteSourceStats {
      return { ...counters, cachedObjects: cache.size, cachedBytes: cache.bytes };
    },
  };
}
