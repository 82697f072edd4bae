/**
 * What a cold query reads outside the cell tree: a meta.json of a few KiB besides the cell index it carries (the hashes
 * of most documents are in small hashes/ documents, read beside the document they check, in the same round trip), no
 * cells/index.json, and for a point on the water near the coast no US outline; answers unchanged, a damaged hashes/
 * document a 503 like any other object.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CountingStore } from '../bench/lib/counting-store.ts';
import { RoundStore } from '../bench/cold/round-store.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { placeOfPoint } from '../shim/places/boundary.ts';
import { COAST_MILES, US_POINT_MILES, usStateAt } from '../shim/places/resolve-point.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';

const site = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** One cold query: its answer, its reads (key, bytes) and its rounds. */
async function cold(q: Record<string, string>, inner: Store = new FolderStore(site)) {
  const rounds = new RoundStore(inner);
  const store = new CountingStore(rounds);
  const answer = await createService(createSiteSource(store)).findAttorneys(q, CTX);
  return { answer, reads: store.reads, rounds: rounds.rounds };
}

const offTree = (reads: readonly { key: string }[]): string[] =>
  reads.map((r) => r.key).filter((k) => !k.includes('/cells/'));

describe('a cold query outside the cell tree', () => {
  const forms: [string, Record<string, string>][] = [
    ['lat,lng', { location: '41.8781,-87.6298', radius_miles: '15' }],
    ['ZIP', { zip: '60601', radius_miles: '15' }],
    ['City, ST', { location: 'New York, NY', radius_miles: '50' }],
    ['a name alone', { location: 'Philadelphia', radius_miles: '15' }],
  ];
  it.each(forms)(
    '%s: meta.json under 32 KiB besides the cell index, at most 6 objects off the tree, the warm answer',
    async (_, q) => {
      const warm = await createService(createSiteSource(new FolderStore(site))).findAttorneys(q, CTX);
      const { answer, reads, rounds } = await cold(q);
      expect(answer).toEqual(warm);
      const meta = reads.find((r) => r.key.endsWith('/meta.json'));
      const metaText = readFileSync(join(site, meta?.key ?? 'meta.json'), 'utf8');
      const { cell_index: carried, ...root } = JSON.parse(metaText) as { cell_index?: unknown };
      expect(meta?.bytes).toBe(Buffer.byteLength(metaText));
      expect(Buffer.byteLength(JSON.stringify(root))).toBeLessThan(32 * 1024);
      // The cell index comes with meta.json, as cells/index.json holds it, and is not read again.
      expect(carried).toEqual(
        JSON.parse(readFileSync(join(site, (meta?.key ?? '').replace(/meta\.json$/, 'cells/index.json')), 'utf8')),
      );
      expect(reads.filter((r) => r.key.endsWith('/cells/index.json'))).toEqual([]);
      expect(offTree(reads).length, offTree(reads).join(' ')).toBeLessThanOrEqual(6);
      // A hashes/ document is read in the round of the document it checks, never in a round of its own.
      for (const [i, round] of rounds.entries()) {
        const docs = round.filter((k) => k.includes('/hashes/'));
        if (docs.length > 0) expect(round.length, round.join(' ')).toBeGreaterThan(docs.length);
        if (i === 0) expect(docs).toEqual([]);
      }
      expect(rounds.filter((r) => !r.every((k) => k === 'current.json')).length).toBeLessThanOrEqual(3);
    },
  );

  it('a damaged hashes/ document is a 503; once restored the next request answers, without a restart', async () => {
    const q = { zip: '60601', radius_miles: '15' };
    let damaged = true;
    const inner = new FolderStore(site);
    const store: Store = {
      kind: 'damaging',
      async get(key) {
        const bytes = await inner.get(key);
        if (bytes === null || !damaged || !key.endsWith('/hashes/zip-6.json')) return bytes;
        const copy = Uint8Array.from(bytes);
        copy[copy.length - 2] = (copy[copy.length - 2] ?? 0) ^ 1;
        return copy;
      },
    };
    const service = createService(createSiteSource(store));
    await expect(service.findAttorneys(q, CTX)).rejects.toBeInstanceOf(StoreError);
    damaged = false;
    const warm = await createService(createSiteSource(new FolderStore(site))).findAttorneys(q, CTX);
    expect(await service.findAttorneys(q, CTX)).toEqual(warm);
  });
});

describe('a point on the water', () => {
  /** The rule without the shortcut: the US outline read whenever no other region holds the point. */
  async function fullRule(lat: number, lng: number): Promise<string | null> {
    const reader = await createSiteSource(new FolderStore(site)).current();
    const place = await placeOfPoint(reader, lat, lng);
    if (place?.kind === 'state') return place.state;
    if (place?.kind !== 'us_waters' && place?.kind !== 'none') return null;
    const state = await usStateAt(reader, lat, lng, place.kind === 'us_waters' ? US_POINT_MILES : COAST_MILES);
    return state ?? null;
  }

  it('near the coast reads no US outline, and is placed in the state the full rule gives', async () => {
    // New York 10 mi S (the Lower Bay), Chicago 10 mi E (Lake Michigan), off Miami Beach, Long Island Sound: each
    // inside the box of the US outline (87 KB), which was read for all of them before.
    for (const [lat, lng] of [
      [40.5681, -74.006],
      [41.8781, -87.4348],
      [25.79, -80.1],
      [41.05, -73.2],
    ] as const) {
      const reader = await createSiteSource(new FolderStore(site)).current();
      // In no state: on the US's own water, or outside its 1:50m outline too (the Lower Bay).
      expect(['us_waters', 'none'], `${lat},${lng}`).toContain((await placeOfPoint(reader, lat, lng))?.kind);
      const { answer, reads } = await cold({ location: `${lat},${lng}`, radius_miles: '15' });
      expect(answer.location.state, `${lat},${lng}`).toBe(await fullRule(lat, lng));
      expect(offTree(reads).filter((k) => k.endsWith('/gazetteer/boundary/c-840.json'))).toEqual([]);
    }
  });

  it('anywhere on a grid over the Great Lakes and the coasts, in the state the full rule gives (or refused the same)', async () => {
    const service = createService(createSiteSource(new FolderStore(site)));
    let water = 0;
    for (let lat = 41.5; lat <= 47.5; lat += 0.5) {
      for (let lng = -92; lng <= -76; lng += 0.5) {
        const full = await fullRule(lat, lng);
        const got = await service
          .findAttorneys({ location: `${lat},${lng}`, radius_miles: '1' }, CTX)
          .then((a) => a.location.state)
          .catch(() => null);
        expect(got, `${lat},${lng}`).toBe(full);
        const reader = await createSiteSource(new FolderStore(site)).current();
        if ((await placeOfPoint(reader, lat, lng))?.kind === 'us_waters') water++;
      }
    }
    expect(water).toBeGreaterThan(20);
  });
});
