/**
 * The boundary tiles of a version (docs/SITE-FORMAT.md, "Boundary tiles"): the boundary regions cut by a grid of
 * BOUNDARY_TILES over its box, each tile holding every region whose box meets it, with the edges crossing the tile and the
 * parity of those west of it (shim/places/boundary-tile.ts), so a point reads one tile and gets the answer the whole
 * outlines give. Deterministic: regions in index order, polygons and edges in document order.
 */
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import {
  boundaryTile,
  type BoundaryIndexT,
  type BoundaryRegionT,
  type BoundaryTilePolygonT as TilePolygon,
  type BoundaryTileT,
  type BoundaryTilesT,
} from '../../shim/format/site-format.ts';

/** One polygon's rings in its own longitudes (0-360° when it crosses 180°, as shim/places/boundary.ts reads it). */
interface Shape {
  w: 0 | 1;
  rings: number[][];
  box: [number, number, number, number];
}

function shapeOf(flat: number[][]): Shape {
  let minX = Infinity;
  let maxX = -Infinity;
  for (const ring of flat)
    for (let i = 0; i + 1 < ring.length; i += 2) {
      minX = Math.min(minX, ring[i] ?? 0);
      maxX = Math.max(maxX, ring[i] ?? 0);
    }
  // The shim's rule: longitudes spanning more than half the globe cross 180°.
  const w = maxX - minX > 180 ? 1 : 0;
  const rings = flat.map((ring) => ring.map((v, i) => (i % 2 === 0 && w === 1 && v < 0 ? v + 360 : v)));
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings)
    for (let i = 0; i + 1 < ring.length; i += 2) {
      const x = ring[i] ?? 0;
      const y = ring[i + 1] ?? 0;
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    }
  return { w, rings, box };
}

/**
 * The polygon cut for the tile [x0, x1] x [y0, y1] (in its own longitudes), or null when it holds no point of the tile.
 * `c` holds the original coordinates of the edges meeting the box; the rest never count (east, below, above) or count by
 * latitude alone (west, kept as `p` and `b`).
 */
function cut(shape: Shape, flat: number[][], x0: number, x1: number, y0: number, y1: number): TilePolygon | null {
  const c: number[][] = [];
  const flips = new Map<number, number>();
  shape.rings.forEach((ring, r) => {
    const orig = flat[r] ?? [];
    let run: number[] | null = null;
    for (let i = 0; i + 3 < ring.length; i += 2) {
      const ax = ring[i] ?? 0;
      const ay = ring[i + 1] ?? 0;
      const bx = ring[i + 2] ?? 0;
      const by = ring[i + 3] ?? 0;
      const outside = Math.max(ay, by) < y0 || Math.min(ay, by) > y1;
      const west = Math.max(ax, bx) < x0;
      const east = Math.min(ax, bx) > x1;
      if (!outside && !west && !east) {
        if (run === null) c.push((run = [orig[i] ?? 0, orig[i + 1] ?? 0]));
        run.push(orig[i + 2] ?? 0, orig[i + 3] ?? 0);
        continue;
      }
      run = null;
      if (west && !outside) for (const y of [ay, by]) flips.set(y, (flips.get(y) ?? 0) ^ 1);
    }
  });
  let parity = 0;
  const b: number[] = [];
  for (const [y, odd] of [...flips].sort((p, q) => p[0] - q[0])) {
    if (odd === 0) continue;
    if (y < y0) parity ^= 1;
    else if (y <= y1) b.push(y);
  }
  if (c.length === 0 && parity === 0 && b.length === 0) return null;
  return { w: shape.w, p: parity === 1 ? 1 : 0, b, c };
}

/**
 * The tiles of a grid of `degrees` (a whole number dividing 180) over its box, by tile name (boundaryTile), sorted:
 * every tile of the box, with no regions where none meets it, so a tile the store lacks is a store failure, never a
 * point placed nowhere.
 */
export function buildBoundaryTiles(
  index: BoundaryIndexT,
  regions: ReadonlyMap<string, BoundaryRegionT>,
  grid: BoundaryTilesT,
): Map<string, BoundaryTileT> {
  const tiles = new Map<string, BoundaryTileT>();
  const { degrees } = grid;
  const D = degrees;
  const [west, south, east, north] = grid.bbox;
  for (let row = Math.floor(south / D); row * D < north; row++)
    for (let col = Math.floor(west / D); col * D < east; col++) {
      const name = boundaryTile(row * D, col * D, D);
      tiles.set(name, {
        schema_version: SCHEMA_VERSIONS.gazetteer,
        tile: name,
        lat: row * D,
        lng: col * D,
        degrees,
        regions: [],
      });
    }
  for (const info of index.regions) {
    const doc = regions.get(info.key);
    if (doc === undefined) throw new Error(`boundary tiles: no document for ${info.key}`);
    const shapes = doc.polygons.map(shapeOf);
    const cuts = new Map<string, TilePolygon[]>();
    doc.polygons.forEach((flat, p) => {
      const shape = shapes[p] as Shape;
      const [bx0, by0, bx1, by1] = shape.box;
      for (let row = Math.floor(Math.max(south, by0) / D); row * D <= by1 && row * D < north; row++) {
        // Every column of the box (its east edge out, like its north one: a point there is read from the index).
        for (let col = Math.floor(west / D); col * D < east; col++) {
          const lng0 = col * D;
          const shift = shape.w === 1 && lng0 < 0 ? 360 : 0;
          const x0 = lng0 + shift;
          const x1 = lng0 + D + shift;
          if (x1 < bx0 || x0 > bx1) continue;
          const piece = cut(shape, flat, x0, x1, row * D, row * D + D);
          if (piece === null) continue;
          const name = boundaryTile(row * D, lng0, D);
          let list = cuts.get(name);
          if (list === undefined) cuts.set(name, (list = []));
          list.push(piece);
        }
      }
    });
    for (const [name, polygons] of cuts) {
      // Every cut lies in a row and column of the box, whose tiles were all made above.
      const tile = tiles.get(name);
      if (tile === undefined) throw new Error(`boundary tiles: ${info.key} cut at ${name}, outside the box`);
      tile.regions.push({
        key: info.key,
        name: info.name,
        kind: info.kind,
        code: info.code,
        bbox: info.bbox,
        polygons,
      });
    }
  }
  return new Map([...tiles].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
