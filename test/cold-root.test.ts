/**
 * What a cold query reads outside the cell tree: a meta.json of a few KiB besides the cell index it carries, no
 * cells/index.json, no hashes/ document (the gazetteer documents carry proofs to meta.json's gazetteer_root), and for a
 * point on the water near the coast no US outline; answers unchanged, a gazetteer document with damaged bytes or proof
 * a 503 like any other object, and a version from before the proofs read by its hashes/ documents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { withoutProofs } from './helpers/without-proofs.ts';
import { CountingStore } from '../bench/lib/counting-store.ts';
import { RoundStore } from '../bench/cold/round-store.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { placeOfPoint } from '../shim/places/boundary.ts';
import { COAST_MILES, US_POINT_MILES, usStateAt } from '../shim/places/resolve-point.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { keys } from '../shim/format/site-format.ts';
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

const version = (): string =>
  (JSON.parse(readFileSync(join(site, keys.pointer), 'utf8')) as { version: string }).version;

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
    '%s: meta.json under 32 KiB besides the cell index, at most 5 objects off the tree, no hashes/ document, the warm answer',
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
      expect(offTree(reads).length, offTree(reads).join(' ')).toBeLessThanOrEqual(5);
      // The gazetteer documents carry their proofs: no hashes/ document is read.
      expect(reads.filter((r) => r.key.includes('/hashes/'))).toEqual([]);
      expect(rounds.filter((r) => !r.every((k) => k === 'current.json')).length).toBeLessThanOrEqual(3);
    },
  );

  /** A store over the test site whose object `name` (a key suffix) is changed by `change` while `on()`. */
  function changing(name: string, change: (bytes: Uint8Array) => Uint8Array): { store: Store; off: () => void } {
    let on = true;
    const inner = new FolderStore(site);
    const store: Store = {
      kind: 'damaging',
      async get(key) {
        const bytes = await inner.get(key);
        return bytes === null || !on || !key.endsWith(name) ? bytes : change(Uint8Array.from(bytes));
      },
    };
    return { store, off: () => void (on = false) };
  }

  const flip = (at: (bytes: Uint8Array) => number) => (bytes: Uint8Array) => {
    const k = at(bytes);
    bytes[k] = (bytes[k] ?? 0) ^ 1;
    return bytes;
  };
  it.each([
    ['its bytes', flip((b) => b.length - 3)],
    // The tenth hex digit of the first sibling, after the position's colon.
    ['a sibling in its proof', flip((b) => b.indexOf(0x3a, '{"merkle":"'.length) + 10)],
    [
      'its proof cut short',
      (b: Uint8Array) => new TextEncoder().encode(new TextDecoder().decode(b).replace(/:[0-9a-f]{64}/, ':')),
    ],
  ] as const)(
    'a ZIP document with %s damaged is a 503; once restored the next request answers, without a restart',
    async (_, change) => {
      const q = { zip: '60601', radius_miles: '15' };
      const { store, off } = changing('/gazetteer/zip/606.json', change);
      const service = createService(createSiteSource(store));
      await expect(service.findAttorneys(q, CTX)).rejects.toBeInstanceOf(StoreError);
      off();
      const warm = await createService(createSiteSource(new FolderStore(site))).findAttorneys(q, CTX);
      expect(await service.findAttorneys(q, CTX)).toEqual(warm);
    },
  );

  it('a ZIP document moved to the key of another is a 503: its proof names its own key', async () => {
    const other = readFileSync(join(site, keys.root(version()), 'gazetteer/zip/100.json'));
    const { store } = changing('/gazetteer/zip/606.json', () => Uint8Array.from(other));
    await expect(
      createService(createSiteSource(store)).findAttorneys({ zip: '60601', radius_miles: '15' }, CTX),
    ).rejects.toBeInstanceOf(StoreError);
  });

  it('a version generated before the proofs (no gazetteer_root) checks its gazetteer documents by hashes/, the same answers', async () => {
    const older = withoutProofs(site);
    onTestFinished(() => older.remove());
    const store = new FolderStore(older.dir);
    for (const [, q] of forms) {
      const warm = await createService(createSiteSource(new FolderStore(site))).findAttorneys(q, CTX);
      const rounds = new RoundStore(store);
      const counting = new CountingStore(rounds);
      expect(await createService(createSiteSource(counting)).findAttorneys(q, CTX)).toEqual(warm);
      expect(counting.reads.filter((r) => r.key.includes('/hashes/')).length).toBeGreaterThan(0);
    }
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
