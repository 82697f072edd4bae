/** Which shard objects to read for a radius query. Pure: the index in, cells out; callers filter offices by exact distance. */
import { cellsCoveringCircle } from './geo.ts';
import type { ShardIndexT } from './site-format.ts';

/** A shard plan: one resolution and the non-empty cells at it that overlap the circle, sorted. */
export interface ShardPlan {
  res: number;
  cells: string[];
}

// Average H3 hexagon area per resolution, in square miles (H3 documentation's table, km² / 2.58999).
const AVG_CELL_AREA_SQ_MILES: Record<number, number> = { 2: 33_898, 3: 4_842, 4: 691.7, 5: 98.8, 6: 14.1, 7: 2.02, 8: 0.288 };

// Plans are memoised per index (one per published version): most queries come from ZIP and city centroids, and
// covering a circle with H3 cells is most of a warm query's CPU time. Bounded so odd inputs cannot grow it forever.
const MEMO_LIMIT = 20_000;
const memo = new WeakMap<ShardIndexT, Map<string, ShardPlan>>();

/** planShards with a bounded per-index memo; same answer, computed once per (point, radius). */
export function planShardsCached(index: ShardIndexT, lat: number, lng: number, radiusMiles: number): ShardPlan {
  let plans = memo.get(index);
  if (plans === undefined) memo.set(index, (plans = new Map()));
  const key = `${lat},${lng},${radiusMiles}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = planShards(index, lat, lng, radiusMiles);
    if (plans.size >= MEMO_LIMIT) plans.clear();
    plans.set(key, plan);
  }
  return plan;
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
  for (const [i, res] of resolutions.entries()) {
    // A resolution whose cells would number several times the bound even if all were empty-free is skipped unless it
    // is the coarsest: it could only fit the bound where offices are sparse, and then a coarser plan is cheap too.
    const area = AVG_CELL_AREA_SQ_MILES[res];
    if (i > 0 && area !== undefined && (Math.PI * radiusMiles * radiusMiles) / area > 4 * index.max_shards_per_query) continue;
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
