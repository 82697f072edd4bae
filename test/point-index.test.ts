/**
 * The state of a point through the latitude-sorted points index (shim/search/point-index.ts) against the full scan it
 * replaced: every ZIP point of every tile within reach measured, the nearest kept, ties to the last scanned.
 */
import type { ZodType } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGazetteer } from '../generator/model/gazetteer.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { nearestInTile, type Nearest } from '../shim/search/point-index.ts';
import type { SiteReader } from '../shim/search/reader.ts';
import { US_POINT_MILES, usStateAt } from '../shim/places/resolve-point.ts';
import { keys, POINT_TILE_DEGREES, pointTile, type MetaT, type PointGazetteerT } from '../shim/format/site-format.ts';
import { rng } from './helpers/rng.ts';

const VERSION = 'test-point-index';

let tiles: Map<string, PointGazetteerT>;
let reader: SiteReader;
beforeAll(() => {
  tiles = buildGazetteer().points;
  const gazetteer = { points: [...tiles.keys()].sort() } as MetaT['gazetteer'];
  const byKey = new Map([...tiles].map(([tile, doc]) => [keys.points(VERSION, tile), doc]));
  reader = {
    version: VERSION,
    meta: { version: VERSION, gazetteer } as MetaT,
    json<T>(key: string, _schema: ZodType<T>): Promise<T | null> {
      return Promise.resolve((byKey.get(key) ?? null) as T | null);
    },
  };
});

/** The full scan: every point of the listed tiles around (lat, lng), in tile then document order, `<=` keeping the last. */
function scan(lat: number, lng: number): string | null {
  const listed = reader.meta.gazetteer.points ?? [];
  const dLat = US_POINT_MILES / 69;
  const dLng = US_POINT_MILES / (69 * Math.max(0.05, Math.cos((Math.min(89, Math.abs(lat) + dLat) * Math.PI) / 180)));
  const D = POINT_TILE_DEGREES;
  let best: string | null = null;
  let bestMiles = US_POINT_MILES;
  for (let y = Math.floor((lat - dLat) / D); y <= Math.floor((lat + dLat) / D); y++) {
    for (let x = Math.floor((lng - dLng) / D); x <= Math.floor((lng + dLng) / D); x++) {
      const tile = pointTile(y * D, x * D);
      if (!listed.includes(tile)) continue;
      for (const [pLat, pLng, state] of tiles.get(tile)?.points ?? []) {
        const d = haversineMiles(lat, lng, pLat, pLng);
        if (d <= bestMiles) {
          best = state;
          bestMiles = d;
        }
      }
    }
  }
  return best;
}

describe('the state of a point', () => {
  it('is the full scan’s at random points in and around the states, on ZIP points and on tile edges', async () => {
    const random = rng(27);
    const points: [number, number][] = [];
    // Across the contiguous states and beyond their borders, Alaska, Hawaii and Puerto Rico.
    for (let i = 0; i < 4000; i++) points.push([22 + random() * 30, -128 + random() * 64]);
    for (let i = 0; i < 500; i++) points.push([50 + random() * 22, -180 + random() * 50]);
    for (let i = 0; i < 300; i++) points.push([17 + random() * 6, -162 + random() * 100]);
    // Exactly on ZIP points, a hair off them, and on the lines between tiles.
    const all = [...tiles.values()].flatMap((t) => t.points);
    for (let i = 0; i < 1500; i++) {
      const p = all[Math.floor(random() * all.length)];
      if (p === undefined) continue;
      points.push([p[0], p[1]], [p[0] + 1e-9, p[1] - 1e-9]);
    }
    for (let i = 0; i < 500; i++) {
      const edge = 24 + 4 * Math.floor(random() * 6);
      points.push([edge, -124 + random() * 58], [edge - 1e-12, -124 + random() * 58]);
    }
    const differ: string[] = [];
    for (const [lat, lng] of points) {
      const want = scan(lat, lng);
      const got = await usStateAt(reader, lat, lng);
      if (got !== want) differ.push(`${lat},${lng}: ${String(got)} (scan: ${String(want)})`);
    }
    expect(differ).toEqual([]);
    expect(points.length).toBeGreaterThan(8000);
  });

  it('keeps, of equally near points, the one the scan kept last (tiles in scan order, then document order)', () => {
    const doc = (tile: string, points: [number, number, string][]): PointGazetteerT => ({
      schema_version: 1,
      tile,
      points,
    });
    const a = doc('40_-76', [
      [40.5, -74, 'NJ'],
      [40.5, -74, 'NY'],
      [40.4, -74, 'PA'],
    ]);
    const b = doc('40_-72', [[40.5, -74, 'CT']]);
    const lookup = (order: [PointGazetteerT, number][]): string | null => {
      const best: Nearest = { miles: US_POINT_MILES, rank: -1, at: -1, state: null };
      for (const [d, rank] of order) nearestInTile(d, rank, 40.5, -74, best);
      return best.state;
    };
    expect(lookup([[a, 0]])).toBe('NY');
    expect(
      lookup([
        [a, 0],
        [b, 1],
      ]),
    ).toBe('CT');
    expect(
      lookup([
        [b, 1],
        [a, 0],
      ]),
    ).toBe('CT');
    expect(
      lookup([
        [b, 0],
        [a, 1],
      ]),
    ).toBe('NY');
  });

  it('takes a point exactly as far as the best so far, as the scan’s <= does, and none farther', () => {
    const exact = 40 + US_POINT_MILES / ((3958.8 * Math.PI) / 180);
    const d = haversineMiles(40, -100, exact, -100);
    const tile: PointGazetteerT = { schema_version: 1, tile: '40_-100', points: [[exact, -100, 'NE']] };
    const best: Nearest = { miles: d, rank: -1, at: -1, state: null };
    nearestInTile(tile, 0, 40, -100, best);
    expect(best.state).toBe('NE');
    const short: Nearest = { miles: d * (1 - 1e-12), rank: -1, at: -1, state: null };
    nearestInTile(tile, 0, 40, -100, short);
    expect(short.state).toBe(null);
  });
});
