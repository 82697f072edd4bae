/**
 * Each request's store reads, tallied (shim/store/read-tally.ts): every request the site source makes to the store but
 * the pointer's counts in the tally of the request it serves, never in another's; and the query-aware join the site
 * reader makes from it (block-packs.ts fitRuns): a round that would take its request over 20 requests joins more of
 * its ranges, counting the parents it reads in the same round, within the bytes; without a tally or a round, the ranges
 * are those packRuns gives alone. A cold search under its tally gets the same answer in no more requests.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createService } from '../shim/answer/service-impl.ts';
import { keys } from '../shim/format/site-format.ts';
import type { PackSpan, SearchRound } from '../shim/search/block-packs.ts';
import type { SiteReader } from '../shim/search/reader.ts';
import { search as cellTreeSearch } from '../shim/search/search.ts';
import { createSiteSource, type SiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { currentTally, runWithTally, tallied, type ReadTally } from '../shim/store/read-tally.ts';
import type { Store } from '../shim/store/types.ts';
import { minimalMeta } from './helpers/minimal-meta.ts';

const SITE = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };
const KIB = 1024;

/** A store that counts the requests made to it (at the call) and the bytes they return, but the pointer's; and the ranges asked. */
class CountingStore implements Store {
  readonly kind = 'counting';
  requests = 0;
  bytes = 0;
  readonly ranges: [string, number, number][] = [];
  private readonly inner: Store;
  private readonly delayMs: number;
  constructor(inner: Store, delayMs = 0) {
    this.inner = inner;
    this.delayMs = delayMs;
  }
  private async counted(key: string, read: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const pointer = key === keys.pointer;
    if (!pointer) this.requests++;
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const bytes = await read();
    if (!pointer) this.bytes += bytes?.byteLength ?? 0;
    return bytes;
  }
  get(key: string): Promise<Uint8Array | null> {
    return this.counted(key, () => this.inner.get(key));
  }
  getRange(key: string, start: number, end: number): Promise<Uint8Array | null> {
    this.ranges.push([key, start, end]);
    return this.counted(key, () => this.inner.getRange!(key, start, end));
  }
}

/** The tally `fn` leaves (counted into from the tallies opened inside it), once its reads have ended. */
async function tallyOf<T>(fn: () => Promise<T>): Promise<{ value: T; tally: ReadTally }> {
  return runWithTally(async () => {
    const value = await fn();
    // Reads a search started and no longer waits for (a dropped search's) end on their own.
    await new Promise((r) => setTimeout(r, 50));
    return { value, tally: { ...(currentTally() as ReadTally) } };
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('read tally', () => {
  it('counts the requests and bytes of the request that made them, and of no other', async () => {
    const mem = new MemoryStore();
    mem.set('a.json', 'x'.repeat(100));
    mem.set('b.json', 'y'.repeat(7));
    mem.set('pack.bin', new Uint8Array(4096));
    mem.set(keys.pointer, '{}');
    const store = tallied(mem, (key) => key === keys.pointer);
    // Outside a request nothing is counted, and nothing fails.
    expect(currentTally()).toBeUndefined();
    expect(await store.get('a.json')).not.toBeNull();

    const one = async (gets: number, wait: number): Promise<ReadTally> => {
      for (let i = 0; i < gets; i++) {
        await store.get('a.json');
        await sleep(wait);
      }
      await store.getRange!('pack.bin', 100, 612);
      await store.get(keys.pointer);
      await store.get('missing.json');
      return { ...(currentTally() as ReadTally) };
    };
    const outer = await tallyOf(async () => {
      // Two requests in flight at once, their reads interleaved.
      const [a, b] = await Promise.all([runWithTally(() => one(3, 3)), runWithTally(() => one(5, 1))]);
      return { a, b };
    });
    expect(outer.value.a).toEqual({ requests: 3 + 2, bytes: 3 * 100 + 512, pendingBytes: 0 });
    expect(outer.value.b).toEqual({ requests: 5 + 2, bytes: 5 * 100 + 512, pendingBytes: 0 });
    // The tally they ran inside counts both.
    expect(outer.tally).toEqual({ requests: 12, bytes: 8 * 100 + 2 * 512, pendingBytes: 0 });
    // A range asked and not yet in counts its bytes as pending; a failed read counts as a request, with no bytes.
    const slow = new CountingStore(mem, 20);
    const t = tallied(slow);
    await runWithTally(async () => {
      const reading = t.getRange!('pack.bin', 0, 1000);
      expect(currentTally()).toEqual({ requests: 1, bytes: 0, pendingBytes: 1000 });
      await reading;
      expect(currentTally()).toEqual({ requests: 1, bytes: 1000, pendingBytes: 0 });
      await expect(t.getRange!('pack.bin', 0, 5000)).rejects.toThrow();
      expect(currentTally()).toEqual({ requests: 2, bytes: 1000, pendingBytes: 0 });
    });
  });

  it('gives each search a tally of its own, called in-process without an edge', async () => {
    const seen: (ReadTally | undefined)[] = [];
    const service = createService(createSiteSource(new FolderStore(SITE)), {
      search: (reader, point, radiusMiles, limit) => {
        seen.push(currentTally());
        return cellTreeSearch(reader, point, radiusMiles, limit);
      },
    });
    const q = { location: '40.7128,-74.006', radius_miles: '15' };
    expect(currentTally()).toBeUndefined();
    const cold = await service.findAttorneys(q, CTX);
    const coldSeen = seen.length;
    // Cold: meta.json and the location's first objects are counted by the time the search starts.
    expect(seen[0]?.requests).toBeGreaterThan(0);
    // Warm, the next search starts from a tally of its own, with nothing read.
    expect(await service.findAttorneys(q, CTX)).toEqual(cold);
    expect(seen.slice(coldSeen)).toEqual([{ requests: 0, bytes: 0, pendingBytes: 0 }]);
  });

  it('counts two cold searches in flight at once apart, each as its store saw it', async () => {
    const queries = [
      { location: '40.7128,-74.006', radius_miles: '50', limit: '25' },
      { lat: '41.8781', lng: '-87.6298', radius_miles: '1', limit: '3' },
    ];
    const stores = queries.map(() => new CountingStore(new FolderStore(SITE), 1));
    const services = stores.map((s) => createService(createSiteSource(s)));
    const both = await Promise.all(queries.map((q, i) => tallyOf(() => services[i]!.findAttorneys(q, CTX))));
    both.forEach(({ tally }, i) => {
      expect(tally.requests, JSON.stringify(queries[i])).toBe(stores[i]!.requests);
      expect(tally.bytes, JSON.stringify(queries[i])).toBe(stores[i]!.bytes);
    });
    // The two searches read different amounts (a mixed count would show).
    expect(both[0]!.tally.bytes).not.toBe(both[1]!.tally.bytes);

    // On one cold source, the reads one request shares with the other count once, for the request that made them.
    const shared = new CountingStore(new FolderStore(SITE), 1);
    const service = createService(createSiteSource(shared));
    const together = await Promise.all(queries.map((q) => tallyOf(() => service.findAttorneys(q, CTX))));
    expect(together[0]!.tally.requests + together[1]!.tally.requests).toBe(shared.requests);
    expect(together[0]!.tally.bytes + together[1]!.tally.bytes).toBe(shared.bytes);
    expect(together.map((t) => t.value)).toEqual(both.map((t) => t.value));
  });
});

/** A version `a` whose objects o0..o3 lie in one pack 100, 110 and 120 KiB apart, with two parent objects g0, g1. */
function packedSite(): { mem: MemoryStore; list: string[]; spans: Map<string, PackSpan>; parents: string[] } {
  const mem = new MemoryStore();
  mem.set(keys.pointer, JSON.stringify({ schema_version: 1, version: 'a', week: '2026-W47' }));
  mem.set(keys.meta('a'), JSON.stringify(minimalMeta('a')));
  const pack = new Uint8Array(400 * KIB).fill(0x20);
  const list: string[] = [];
  const spans = new Map<string, PackSpan>();
  [0, 100, 210, 330].forEach((at, n) => {
    const bytes = new TextEncoder().encode(JSON.stringify({ version: 'a', n }));
    pack.set(bytes, at * KIB);
    list.push(`v/a/o${n}.json`);
    spans.set(`v/a/o${n}.json`, { pack: 'v/a/p.bin', start: at * KIB, end: at * KIB + bytes.byteLength });
  });
  mem.set('v/a/p.bin', pack);
  const parents = ['v/a/g0.json', 'v/a/g1.json'];
  for (const [n, key] of parents.entries()) mem.set(key, JSON.stringify({ version: 'a', n }));
  mem.set('v/a/filler.json', '{}');
  mem.set('v/a/big.bin', new Uint8Array(850 * KIB));
  return { mem, list, spans, parents };
}

const Thing = z.object({ version: z.string(), n: z.number() });

/** Reads `filler` until the request's tally counts `n` requests. */
async function chargeTo(reader: SiteReader, n: number): Promise<void> {
  while ((currentTally()?.requests ?? n) < n) await reader.storedBytes!('v/a/filler.json');
}

describe('query-aware join in the site reader', () => {
  /** The ranges of the pack `read` asks (start KiB each) and the objects it read, checked. */
  async function rangesOf(
    read: (reader: SiteReader, site: ReturnType<typeof packedSite>) => Promise<() => void>,
  ): Promise<number[]> {
    const site = packedSite();
    const store = new CountingStore(site.mem);
    const reader = await createSiteSource(store).current();
    const before = store.ranges.length;
    const release = await read(reader, site);
    const asked = store.ranges
      .slice(before)
      .filter(([key]) => key === 'v/a/p.bin')
      .map(([, start]) => start / KIB);
    const requests = store.requests;
    // Each object taken from its range, as the object it is; nothing more read for them.
    for (const [n, key] of site.list.entries()) expect(await reader.json(key, Thing)).toEqual({ version: 'a', n });
    expect(store.requests).toBe(requests);
    release();
    return asked.sort((a, b) => a - b);
  }

  it('joins a round past 20 requests, smallest gaps first, and only with a tally and a round', async () => {
    const all = [0, 100, 210, 330];
    // No tally, or no round: the ranges as packRuns gives them alone (no gap within its 96 KiB).
    expect(await rangesOf(async (r, s) => r.preread!(s.list, s.spans, { last: true }))).toEqual(all);
    expect(
      await rangesOf((r, s) =>
        runWithTally(async () => {
          await chargeTo(r, 18);
          return r.preread!(s.list, s.spans);
        }),
      ),
    ).toEqual(all);
    // 16 + 4: within 20.
    const last = (n: number) => (r: SiteReader, s: ReturnType<typeof packedSite>) =>
      runWithTally(async () => {
        await chargeTo(r, n);
        return r.preread!(s.list, s.spans, { last: true });
      });
    expect(await rangesOf(last(16))).toEqual(all);
    // 17 + 4: the smallest gap joined (100 KiB); 18 + 4: the next (110 KiB) too; 30 + 4: all.
    expect(await rangesOf(last(17))).toEqual([0, 210, 330]);
    expect(await rangesOf(last(18))).toEqual([0, 330]);
    expect(await rangesOf(last(30))).toEqual([0]);
  });

  it('counts the parents a prefetch reads in its round, and keeps the reserve of the search limit', async () => {
    const prefetch =
      (n: number, limit: number, cachedParents = 0) =>
      (r: SiteReader, s: ReturnType<typeof packedSite>) =>
        runWithTally(async () => {
          for (const key of s.parents.slice(0, cachedParents)) await r.json(key, Thing);
          await chargeTo(r, n);
          return r.prefetch!(s.list, s.parents, s.spans, { last: false, limit });
        });
    // 11 + 2 parents + 4 + 3 kept at limit 10: 20, nothing joined; 12: one gap joined.
    expect(await rangesOf(prefetch(11, 10))).toEqual([0, 100, 210, 330]);
    expect(await rangesOf(prefetch(12, 10))).toEqual([0, 210, 330]);
    // A parent cached is not read: 12 + 1 + 4 + 3 = 20.
    expect(await rangesOf(prefetch(12, 10, 1))).toEqual([0, 100, 210, 330]);
    // At limit 25, 6 kept: 12 + 2 + 4 + 6 = 24, three joins wanted, three gaps.
    expect(await rangesOf(prefetch(12, 25))).toEqual([0]);
  });

  it('stops joining at 1 MiB less the margin (and the reserve)', async () => {
    const heavy = (n: number) => (r: SiteReader, s: ReturnType<typeof packedSite>) =>
      runWithTally(async () => {
        // 850 KiB read: one gap of 100 KiB fits below 1 MiB less 16 KiB, not a second.
        await r.storedBytes!('v/a/big.bin');
        await chargeTo(r, n);
        return r.preread!(s.list, s.spans, { last: true });
      });
    expect(await rangesOf(heavy(30))).toEqual([0, 210, 330]);
    // With the reserve of a round that is not the last (128 KiB at limit 10), not even one.
    const kept = (r: SiteReader, s: ReturnType<typeof packedSite>) =>
      runWithTally(async () => {
        await r.storedBytes!('v/a/big.bin');
        await chargeTo(r, 30);
        return r.prefetch!(s.list, s.parents, s.spans, { last: false, limit: 10 });
      });
    expect(await rangesOf(kept)).toEqual([0, 100, 210, 330]);
    // A range asked and not yet in counts as read: 850 KiB of another pack asked in the round before.
    const asked = (r: SiteReader, s: ReturnType<typeof packedSite>) =>
      runWithTally(async () => {
        await chargeTo(r, 30);
        r.preread!(['v/a/big.json'], new Map([['v/a/big.json', { pack: 'v/a/big.bin', start: 0, end: 850 * KIB }]]));
        return r.preread!(s.list, s.spans, { last: true });
      });
    expect(await rangesOf(asked)).toEqual([0, 210, 330]);
  });
});

/** `source` with its readers' rounds dropped: the ranges as packRuns gives them alone, as before the query-aware join. */
function withoutRounds(source: SiteSource): SiteSource {
  return {
    async current(early) {
      const reader = await source.current(early);
      const { prefetch, preread } = reader;
      const stripped: SiteReader = {
        ...reader,
        ...(prefetch !== undefined
          ? {
              prefetch: (k: readonly string[], p: readonly string[], s?: ReadonlyMap<string, PackSpan>) =>
                prefetch(k, p, s),
            }
          : {}),
        ...(preread !== undefined
          ? { preread: (k: readonly string[], s: ReadonlyMap<string, PackSpan>) => preread(k, s) }
          : {}),
      };
      return stripped;
    },
  };
}

/** `source` with the rounds its readers are given recorded in `rounds` (by call: prefetch or preread). */
function recordingRounds(source: SiteSource, rounds: [string, SearchRound | undefined][]): SiteSource {
  return {
    async current(early) {
      const reader = await source.current(early);
      const { prefetch, preread } = reader;
      const recording: SiteReader = {
        ...reader,
        ...(prefetch !== undefined
          ? {
              prefetch: (
                k: readonly string[],
                p: readonly string[],
                s?: ReadonlyMap<string, PackSpan>,
                round?: SearchRound,
              ) => {
                rounds.push(['prefetch', round]);
                return prefetch(k, p, s, round);
              },
            }
          : {}),
        ...(preread !== undefined
          ? {
              preread: (k: readonly string[], s: ReadonlyMap<string, PackSpan>, round?: SearchRound) => {
                rounds.push(['preread', round]);
                return preread(k, s, round);
              },
            }
          : {}),
      };
      return recording;
    },
  };
}

describe('a cold search under its tally', () => {
  it('gets the same answer in no more requests than with the ranges joined as packRuns joins them alone', async () => {
    const queries = [
      { lat: '41.8781', lng: '-87.6298', radius_miles: '15' },
      { location: '40.7128,-74.006', radius_miles: '50' },
      { zip: '60601', radius_miles: '50' },
      { location: 'Philadelphia, PA', radius_miles: '50' },
      { location: 'Houston, TX', radius_miles: '15', limit: '25' },
      { location: 'Los Angeles, CA', radius_miles: '50', limit: '3' },
    ];
    let ranged = 0;
    for (const q of queries) {
      const joined = new CountingStore(new FolderStore(SITE));
      const alone = new CountingStore(new FolderStore(SITE));
      const a = await tallyOf(() => createService(createSiteSource(joined)).findAttorneys(q, CTX));
      const b = await createService(withoutRounds(createSiteSource(alone))).findAttorneys(q, CTX);
      expect(a.value, JSON.stringify(q)).toEqual(b);
      expect(joined.requests, JSON.stringify(q)).toBeLessThanOrEqual(alone.requests);
      expect(a.tally.requests).toBe(joined.requests);
      ranged += joined.ranges.length;
    }
    // The searches do read ranges of packs.
    expect(ranged).toBeGreaterThan(queries.length);
  });

  it('tells the reader which round of the search it reads: the groups and blocks keep the limit reserve', async () => {
    for (const limit of ['3', '25']) {
      const rounds: [string, SearchRound | undefined][] = [];
      const service = createService(recordingRounds(createSiteSource(new FolderStore(SITE)), rounds));
      await service.findAttorneys({ location: 'Philadelphia, PA', radius_miles: '50', limit }, CTX);
      expect(rounds).toContainEqual(['prefetch', { last: false, limit: Number(limit) }]);
      expect(rounds).toContainEqual(['preread', { last: true }]);
      expect(rounds.every(([, round]) => round !== undefined)).toBe(true);
    }
  });
});
