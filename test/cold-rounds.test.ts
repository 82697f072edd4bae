/**
 * A cold query's store reads in rounds (bench/cold/round-store.ts counts them by dependency depth): the first objects a
 * request needs are read beside meta.json and still checked against the hashes meta.json records, so a damaged one is
 * a 503 and its restored copy is served without a restart; the answers equal those of a warm source.
 */
import { describe, expect, it } from 'vitest';
import { RoundStore } from '../bench/cold/round-store.ts';
import { StoreError } from '../shim/contract/errors.ts';
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

/** Queries and the most round trips after the pointer each may take: a city's document is named by meta.json. */
const QUERIES: [Record<string, string>, number][] = [
  [{ lat: '41.8781', lng: '-87.6298', radius_miles: '1' }, 4],
  [{ location: '40.7128,-74.006', radius_miles: '15' }, 4],
  [{ zip: '60601', radius_miles: '15' }, 4],
  [{ location: 'Chicago, IL', radius_miles: '50' }, 5],
  [{ lat: '39.5', lng: '-116.5', radius_miles: '50' }, 4],
];

describe('cold query rounds', () => {
  it('reads a lat,lng or ZIP query in at most 4 round trips after the pointer, a city in 5, with the warm answers', async () => {
    const warm = createService(createSiteSource(new FolderStore(site)));
    for (const [q, most] of QUERIES) {
      const rounds = new RoundStore(new FolderStore(site));
      const cold = await createService(createSiteSource(rounds)).findAttorneys(q, CTX);
      expect(cold).toEqual(await warm.findAttorneys(q, CTX));
      expect(rounds.rounds[0]).toEqual(['current.json']);
      // meta.json shares its round with the first objects of the query.
      expect(rounds.rounds[1]?.some((k) => k.endsWith('/meta.json'))).toBe(true);
      expect(rounds.rounds[1]?.some((k) => k.endsWith('/coverage-cells.json'))).toBe(true);
      expect(rounds.roundsAfterPointer).toBeLessThanOrEqual(most);
    }
  });

  it('checks an object read beside meta.json against its hash: 503, then served once restored, without a restart', async () => {
    const store = new DamagingStore(new FolderStore(site));
    const service = createService(createSiteSource(store));
    const q = { lat: '41.8781', lng: '-87.6298', radius_miles: '15' };
    for (const name of ['/cells/index.json', '/coverage-cells.json']) {
      store.damaged.add(name);
      const fresh = createService(createSiteSource(store));
      await expect(fresh.findAttorneys(q, CTX)).rejects.toBeInstanceOf(StoreError);
      store.damaged.clear();
      const again = await fresh.findAttorneys(q, CTX);
      expect(again).toEqual(await service.findAttorneys(q, CTX));
    }
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
