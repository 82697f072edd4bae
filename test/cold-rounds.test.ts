/**
 * A cold query's store reads in rounds (bench/cold/round-store.ts counts them by dependency depth): the first objects a
 * request needs are read beside meta.json and still checked against the hashes meta.json records, so a damaged one is
 * a 503 and its restored copy is served without a restart; the answers equal those of a warm source.
 */
import { describe, expect, it } from 'vitest';
import { RoundStore } from '../bench/cold/round-store.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { coveragePieceOf } from '../shim/places/coverage.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { SpeculativeReads } from '../shim/search/speculative-reads.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';

const site = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** A store whose objects under keys ending in one of `damaged` come back with one byte changed. */
class DamagingStore implements Store {
  readonly kind = 'damaging';
  readonly damaged = new Set<string>();
  private readonly inner: Store;
  constructor(inner: Store) {
    this.inner = inner;
  }
  async get(key: string): Promise<Uint8Array | null> {
    const bytes = await this.inner.get(key);
    if (bytes === null || ![...this.damaged].some((d) => key.endsWith(d))) return bytes;
    const copy = Uint8Array.from(bytes);
    copy[copy.length - 2] = (copy[copy.length - 2] ?? 0) ^ 1;
    return copy;
  }
}

/** Queries and the most round trips after the pointer each may take. */
const QUERIES: [Record<string, string>, number][] = [
  [{ lat: '41.8781', lng: '-87.6298', radius_miles: '1' }, 3],
  [{ location: '40.7128,-74.006', radius_miles: '15' }, 3],
  [{ zip: '60601', radius_miles: '15' }, 3],
  [{ location: 'Chicago, IL', radius_miles: '50' }, 3],
  [{ location: 'Philadelphia, PA', radius_miles: '1' }, 3],
  [{ lat: '39.5', lng: '-116.5', radius_miles: '50' }, 3],
  // A misspelt name read as the one place clearly meant (its search starts beside the city document all the same).
  [{ location: 'Pheonix', radius_miles: '50' }, 3],
  // Out of coverage, read as Louisiana: the note looks up Venice, CA's metro in the third round.
  [{ location: 'Venice, LA', radius_miles: '15' }, 3],
  // In no state: Lake Michigan 10 miles north of Chicago (a ZIP point within 14 miles), and mid-lake (none within 14,
  // inside the US outline: the ZIP points within 50 miles in the third round; four rounds before boundary tiles).
  [{ lat: '42.0229', lng: '-87.6298', radius_miles: '15' }, 3],
  [{ lat: '43.5', lng: '-87.0', radius_miles: '15' }, 3],
];

describe('cold query rounds', () => {
  it('reads a lat,lng, ZIP or city query in at most 3 round trips after the pointer, with the warm answers', async () => {
    const warm = createService(createSiteSource(new FolderStore(site)));
    for (const [q, most] of QUERIES) {
      const rounds = new RoundStore(new FolderStore(site));
      const cold = await createService(createSiteSource(rounds)).findAttorneys(q, CTX);
      expect(cold).toEqual(await warm.findAttorneys(q, CTX));
      expect(rounds.rounds[0]).toEqual(['current.json']);
      // meta.json shares its round with the first objects of the query.
      expect(rounds.rounds[1]?.some((k) => k.endsWith('/meta.json'))).toBe(true);
      // A point reads its coverage piece there; a ZIP, or a place name, the piece of the point its ZIP3 or names
      // document gives, beside the search's first cell objects. None reads the whole document.
      const coverageRound = rounds.rounds.findIndex((r) => r.some((k) => k.includes('/coverage-cells/')));
      const place = q.location !== undefined && !/\d/.test(q.location);
      expect(coverageRound, JSON.stringify(q)).toBe(q.zip !== undefined || place ? 2 : 1);
      expect(rounds.rounds.flat().some((k) => k.endsWith('/coverage-cells.json'))).toBe(false);
      expect(rounds.roundsAfterPointer).toBeLessThanOrEqual(most);
    }
  });

  it('reads every block a search needs in the round of its group trees, at any radius (the plan from the cell index)', async () => {
    const warm = createService(createSiteSource(new FolderStore(site)));
    // Metro centres of the sample, and points up to about 20 miles from them, at each radius and two limits.
    const centres: [number, number][] = [
      [41.8781, -87.6298],
      [40.7128, -74.006],
      [39.9526, -75.1652],
    ];
    let seed = 7;
    const next = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const [lat0, lng0] of centres) {
      for (let k = 0; k < 6; k++) {
        const lat = (lat0 + (next() - 0.5) * 0.6).toFixed(4);
        const lng = (lng0 + (next() - 0.5) * 0.8).toFixed(4);
        for (const radius of ['1', '15', '50']) {
          for (const limit of ['1', '25']) {
            const q = { lat, lng, radius_miles: radius, limit };
            const rounds = new RoundStore(new FolderStore(site));
            const cold = await createService(createSiteSource(rounds)).findAttorneys(q, CTX);
            expect(cold).toEqual(await warm.findAttorneys(q, CTX));
            const late = rounds.rounds.slice(3).flat();
            expect(late.filter((k) => k.includes('/cells/blocks/') || k.includes('/cells/groups/'))).toEqual([]);
            // On land or on the water (Lake Michigan, a harbour: placed by the US waters and the ZIP points).
            expect(rounds.roundsAfterPointer, JSON.stringify(q)).toBeLessThanOrEqual(3);
          }
        }
      }
    }
  });

  it('checks an object read beside meta.json against its hash: 503, then served once restored, without a restart', async () => {
    const store = new DamagingStore(new FolderStore(site));
    const service = createService(createSiteSource(store));
    const q = { lat: '41.8781', lng: '-87.6298', radius_miles: '15' };
    // The point's coverage piece is read beside meta.json (which carries the cell index), the block beside its group
    // (before its hash is known).
    const piece = `/${coveragePieceOf(41.8781, -87.6298)}`;
    for (const name of ['/meta.json', piece, '/cells/blocks/822667fffffffff.pb']) {
      store.damaged.add(name);
      const fresh = createService(createSiteSource(store));
      await expect(fresh.findAttorneys(q, CTX)).rejects.toBeInstanceOf(StoreError);
      store.damaged.clear();
      const again = await fresh.findAttorneys(q, CTX);
      expect(again).toEqual(await service.findAttorneys(q, CTX));
    }
  });

  it('answers a city whose names document is damaged from its city document alone, the same answer', async () => {
    const q = { location: 'Chicago, IL', radius_miles: '15' };
    const expected = await createService(createSiteSource(new FolderStore(site))).findAttorneys(q, CTX);
    const store = new DamagingStore(new FolderStore(site));
    store.damaged.add('/gazetteer/names/ch.json');
    expect(await createService(createSiteSource(store)).findAttorneys(q, CTX)).toEqual(expected);
  });
});

describe('SpeculativeReads', () => {
  it('hands a read out once, for its own key only, and drops what is cleared', async () => {
    const reads: string[] = [];
    const spec = new SpeculativeReads({
      get: (key) => {
        reads.push(key);
        return Promise.resolve(new TextEncoder().encode(key));
      },
    });
    expect(spec.start(['a', 'b', 'a'])).toBe(2);
    const a = spec.take('a');
    expect(new TextDecoder().decode((await a?.get('a')) ?? new Uint8Array())).toBe('a');
    await expect(a?.get('b')).rejects.toThrow(/asked for b/);
    expect(spec.take('a')).toBeUndefined();
    spec.clear();
    expect(spec.take('b')).toBeUndefined();
    expect(reads).toEqual(['a', 'b']);
  });
});
