/**
 * Boundary tiles (gazetteer/tiles/, shim/places/boundary-tile.ts) against the whole outlines, by brute force: at many
 * points (random over the globe and North America, on tile borders, at 180°, and on the outlines themselves: vertices
 * and edge midpoints), the region a point's tile names is the one point-in-polygon-hao names over every whole region
 * document, in the index's order. Then the published tiles: the same as built, read by the shim in place of the index;
 * and a version without them (written before them) placed the same from the index and region documents.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pointInPolygon from 'point-in-polygon-hao';
import { describe, expect, it } from 'vitest';
import { buildBoundaries } from '../generator/model/boundary.ts';
import { buildBoundaryTiles } from '../generator/model/boundary-tiles.ts';
import { tilePolygonHolds } from '../shim/places/boundary-tile.ts';
import { placeOfPoint } from '../shim/places/boundary.ts';
import {
  BOUNDARY_TILES,
  boundaryTile,
  inTiledBox,
  type BoundaryTilesT,
  type BoundaryTileT,
  type MetaT,
} from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { openProven } from '../shim/format/proofs.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { recordMetaHash } from './helpers/rehash.ts';
import { linkSite } from './helpers/site-copy.ts';

const { index, regions } = buildBoundaries();

function inBox([w, s, e, n]: readonly number[], lat: number, lng: number): boolean {
  if (lat < (s ?? 0) || lat > (n ?? 0)) return false;
  return (w ?? 0) <= (e ?? 0) ? lng >= (w ?? 0) && lng <= (e ?? 0) : lng >= (w ?? 0) || lng <= (e ?? 0);
}

/** The oracle: every whole region in index order, each polygon tested by hao (in 0-360° when it crosses 180°). */
const whole = index.regions.map((r) => ({
  key: r.key,
  bbox: r.bbox,
  polygons: (regions.get(r.key)?.polygons ?? []).map((flat) => {
    const xs = flat.flatMap((ring) => ring.filter((_, i) => i % 2 === 0));
    const wrapped = Math.max(...xs) - Math.min(...xs) > 180;
    const rings = flat.map((ring) => {
      const pts: number[][] = [];
      for (let i = 0; i + 1 < ring.length; i += 2) {
        const x = ring[i] ?? 0;
        pts.push([wrapped && x < 0 ? x + 360 : x, ring[i + 1] ?? 0]);
      }
      return pts;
    });
    return { wrapped, rings };
  }),
}));

function wholeAnswer(lat: number, lng: number): string {
  for (const r of whole) {
    if (!inBox(r.bbox, lat, lng)) continue;
    const held = r.polygons.some(
      (p) => pointInPolygon([p.wrapped && lng < 0 ? lng + 360 : lng, lat], p.rings) !== false,
    );
    if (held) return r.key;
  }
  return 'none';
}

function tileAnswer(tiles: ReadonlyMap<string, BoundaryTileT>, degrees: number, lat: number, lng: number): string {
  const tile = tiles.get(boundaryTile(lat, lng, degrees));
  for (const r of tile?.regions ?? [])
    if (inBox(r.bbox, lat, lng) && r.polygons.some((p) => tilePolygonHolds(p, lat, lng))) return r.key;
  return 'none';
}

/** Points to compare at: seeded random ones, tile borders, 180°, and every few vertices and edge midpoints. */
function points(degrees: number): [number, number][] {
  let seed = 3;
  const next = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const out: [number, number][] = [];
  for (let i = 0; i < 20000; i++) out.push([-90 + next() * 180, -180 + next() * 360]);
  for (let i = 0; i < 20000; i++) out.push([15 + next() * 57, -170 + next() * 120]);
  for (let i = 0; i < 3000; i++) {
    const lat = Math.round((-80 + next() * 160) / degrees) * degrees;
    const lng = Math.round((-180 + next() * 360) / degrees) * degrees;
    out.push([lat, -180 + next() * 360], [-90 + next() * 180, lng], [lat, lng]);
    out.push([-90 + next() * 180, 180], [-90 + next() * 180, -180]);
  }
  let k = 0;
  for (const doc of regions.values())
    for (const poly of doc.polygons)
      for (const ring of poly)
        for (let i = 0; i + 3 < ring.length; i += 2) {
          if (k++ % 5 !== 0) continue;
          const [x1, y1, x2, y2] = [ring[i] ?? 0, ring[i + 1] ?? 0, ring[i + 2] ?? 0, ring[i + 3] ?? 0];
          out.push([y1, x1], [(y1 + y2) / 2, (x1 + x2) / 2]);
        }
  return out.filter(([lat, lng]) => lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180);
}

describe('boundary tiles against the whole outlines', () => {
  // The published grid, and 3-degree tiles over the whole globe (180°, the poles, polygons across 180°).
  const grids: BoundaryTilesT[] = [BOUNDARY_TILES, { degrees: 3, bbox: [-180, -90, 180, 90] }];
  for (const grid of grids) {
    const { degrees } = grid;
    it(`name the same region as the whole documents at every point (${degrees}° tiles over ${grid.bbox.join(', ')})`, () => {
      const tiles = buildBoundaryTiles(index, regions, grid);
      const at = points(degrees).filter(([lat, lng]) => inTiledBox(grid, lat, lng));
      const wrong: string[] = [];
      const seen = new Set<string>();
      for (const [lat, lng] of at) {
        const want = wholeAnswer(lat, lng);
        seen.add(want);
        const got = tileAnswer(tiles, degrees, lat, lng);
        if (got !== want) wrong.push(`${lat},${lng}: tile ${got}, whole ${want}`);
      }
      expect(wrong.slice(0, 20)).toEqual([]);
      expect(at.length).toBeGreaterThan(30_000);
      for (const name of tiles.keys()) {
        const [lat = 0, lng = 0] = name.split('_').map(Number);
        expect(inTiledBox(grid, lat, lng), name).toBe(true);
      }
      // Every state, DC, PR and the US waters among the answers, and most countries.
      for (const r of index.regions) if (r.kind !== 'country' && r.kind !== 'territory') expect(seen).toContain(r.key);
      expect(seen.size).toBeGreaterThan(degrees === 3 ? 200 : 20);
    });
  }

  it('are built the same twice (deterministic)', () => {
    const a = buildBoundaryTiles(index, regions, BOUNDARY_TILES);
    expect(JSON.stringify([...buildBoundaryTiles(index, regions, BOUNDARY_TILES)])).toBe(JSON.stringify([...a]));
  });
});

describe('the published boundary tiles', () => {
  const SITE = process.env.TEST_SITE_DIR as string;

  it('are the tiles built from the published regions, listed in meta.json, and read in place of the index', async () => {
    const reader = await createSiteSource(new FolderStore(SITE)).current();
    const meta: MetaT = reader.meta;
    const grid = meta.gazetteer.boundary_tiles as BoundaryTilesT;
    expect(grid).toEqual(BOUNDARY_TILES);
    const built = buildBoundaryTiles(index, regions, grid);
    for (const [name, tile] of [...built].filter((_, i) => i % 37 === 0)) {
      const rel = `gazetteer/tiles/${name}.json`;
      const stored = readFileSync(join(SITE, 'v', reader.version, rel));
      // Stored with its proof in front (shim/format/proofs.ts): without it, the tile as built.
      const own = openProven(rel, rel, stored, meta.gazetteer_root as string);
      expect(new TextDecoder().decode(own)).toBe(`${JSON.stringify(tile)}\n`);
    }
    // Through the shim: Windsor is Canada, Detroit Michigan, mid-Lake Michigan the US waters, open sea nothing.
    const place = async (lat: number, lng: number): Promise<string> => {
      const p = await placeOfPoint(reader, lat, lng);
      return p === undefined ? 'undefined' : 'state' in p ? p.state : 'name' in p ? p.name : p.kind;
    };
    expect(await place(42.3149, -83.0364)).toBe('Canada');
    expect(await place(42.3314, -83.0458)).toBe('MI');
    expect(await place(43.5, -87.0)).toBe('us_waters');
    expect(await place(30, -60)).toBe('none');
    expect(await place(13.4443, 144.7937)).toBe('GU');
  });
});

describe('a version written before the boundary tiles', () => {
  it('places points from the index and region documents, as the tiles do in a version with them', async () => {
    const SITE = process.env.TEST_SITE_DIR as string;
    const copy = linkSite(SITE);
    try {
      const metaPath = copy.own('meta.json');
      const old = JSON.parse(readFileSync(metaPath, 'utf8')) as MetaT;
      delete old.gazetteer.boundary_tiles;
      writeFileSync(metaPath, `${JSON.stringify(old)}\n`);
      recordMetaHash(copy.dir);
      rmSync(copy.own('gazetteer/tiles'), { recursive: true });
      const before = await createSiteSource(new FolderStore(copy.dir)).current();
      const now = await createSiteSource(new FolderStore(SITE)).current();
      const text = (p: Awaited<ReturnType<typeof placeOfPoint>>): string =>
        p === undefined ? 'undefined' : 'state' in p ? p.state : 'name' in p ? p.name : p.kind;
      let seed = 5;
      const next = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
      for (let i = 0; i < 400; i++) {
        const [lat, lng] = [18 + next() * 54, -170 + next() * 110];
        const was = text(await placeOfPoint(before, lat, lng));
        const is = text(await placeOfPoint(now, lat, lng));
        expect(is, `${lat},${lng}`).toBe(was);
      }
    } finally {
      copy.remove();
    }
  });
});
