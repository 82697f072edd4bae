/** Which shard objects to read for a radius query. Pure: the index in, cells out; callers filter offices by exact distance. */
import { cellsCoveringCircle } from './geo.ts';
import type { ShardIndexT } from './site-format.ts';

/** A shard plan: one resolution and the non-empty cells at it that overlap the circle, sorted. */
export interface ShardPlan {
  res: number;
  cells: string[];
}

/**
 * Among the index's resolutions, the one whose non-empty cells overlapping the circle of `radiusMiles` (miles) around
 * (lat, lng) number at most max_shards_per_query with the fewest total bytes (ties: fewer cells, then coarser).
 * When no resolution fits the bound, the coarsest. Every office within the circle lies in one of the planned cells.
 */
export function planShards(index: ShardIndexT, lat: number, lng: number, radiusMiles: number): ShardPlan {
  const resolutions = [...index.resolutions].sort((a, b) => a - b);
  let best: (ShardPlan & { bytes: number }) | null = null;
  let coarsest: ShardPlan | null = null;
  for (const res of resolutions) {
    const present = index.cells[String(res)] ?? {};
    const cells: string[] = [];
    let bytes = 0;
    for (const cell of cellsCoveringCircle(lat, lng, radiusMiles, res)) {
      const entry = present[cell];
      if (entry === undefined) continue;
      cells.push(cell);
      bytes += entry[1];
    }
    coarsest ??= { res, cells };
    if (cells.length > index.max_shards_per_query) continue;
    if (best === null || bytes < best.bytes || (bytes === best.bytes && cells.length < best.cells.length)) best = { res, cells, bytes };
  }
  if (best !== null) return { res: best.res, cells: best.cells };
  return coarsest ?? { res: resolutions[0] ?? 0, cells: [] };
}
