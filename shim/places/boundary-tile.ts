/**
 * Whether a point is inside a region's polygon from one boundary tile (gazetteer/tiles/, docs/SITE-FORMAT.md), with
 * the very answer point-in-polygon-hao gives over the whole polygon. Hao casts a ray west of the point and looks at each
 * edge alone: an edge below or above the tile's latitudes, or east of its longitudes, never counts for a point in the
 * tile; an edge west of it counts exactly when ymin <= lat < ymax. So a tile keeps the edges meeting its box as they
 * are, and of the edges west of it only the parity of those counts: `p` at the tile's south edge, flipping at each
 * latitude of `b`. Pure.
 */
import { orient2d } from 'robust-predicates';
import type { BoundaryTilePolygonT } from '../format/site-format.ts';

/**
 * Hao's test of one edge for the point: 0 when the point is on it, 1 when the ray west crosses it, else 2 (no count);
 * the same arithmetic as point-in-polygon-hao 1.2, edge by edge.
 */
function edgeTest(x1: number, y1: number, x2: number, y2: number, x: number, y: number): 0 | 1 | 2 {
  const u1 = x1 - x;
  const v1 = y1 - y;
  const u2 = x2 - x;
  const v2 = y2 - y;
  if (v1 === 0 && v2 === 0) {
    if ((u2 <= 0 && u1 >= 0) || (u1 <= 0 && u2 >= 0)) return 0;
  } else if ((v2 >= 0 && v1 <= 0) || (v2 <= 0 && v1 >= 0)) {
    const f = orient2d(u1, u2, v1, v2, 0, 0);
    if (f === 0) return 0;
    if ((f > 0 && v2 > 0 && v1 <= 0) || (f < 0 && v2 <= 0 && v1 > 0)) return 1;
  }
  return 2;
}

/**
 * Whether (lat, lng) (in the tile the polygon was cut for) is inside the polygon or on its edge, as point-in-polygon-hao
 * answers over the whole polygon (`!== false`).
 */
export function tilePolygonHolds(p: BoundaryTilePolygonT, lat: number, lng: number): boolean {
  // Longitudes of a polygon across 180° are read in 0-360°, the point's too, as for the whole polygon.
  const fix = (v: number): number => (p.w === 1 && v < 0 ? v + 360 : v);
  const x = fix(lng);
  let k = p.p;
  for (const b of p.b) if (b <= lat) k ^= 1;
  for (const run of p.c) {
    for (let i = 0; i + 3 < run.length; i += 2) {
      const t = edgeTest(fix(run[i] ?? 0), run[i + 1] ?? 0, fix(run[i + 2] ?? 0), run[i + 3] ?? 0, x, lat);
      if (t === 0) return true;
      if (t === 1) k ^= 1;
    }
  }
  return k === 1;
}
