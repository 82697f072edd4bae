/** Which shard objects to read for a radius query. Pure: the index in, cells out; callers filter offices by exact distance. */
import { cellToLatLng } from 'h3-js';
import { boundingBox, circumradiusMiles, edgeMiles, haversineMiles } from './geo.ts';
import type { ShardIndexT } from './site-format.ts';

/** A shard plan: one resolution and the non-empty cells at it that overlap the circle, sorted. */
export interface ShardPlan {
  res: number;
  cells: string[];
}

// Average H3 hexagon area per resolution, in square miles (H3 documentation's table, km² / 2.58999).
const AVG_CELL_AREA_SQ_MILES: Record<number, number> = { 2: 33_898, 3: 4_842, 4: 691.7, 5: 98.8, 6: 14.1, 7: 2.02, 8: 0.288 };

/**
 * The index's non-empty cells of one resolution in latitude order, with centres (degrees) and byte sizes, so a plan
 * is a band search and a haversine per nearby cell instead of an H3 grid disk per query. Circumradii (miles) are
 * computed on first need (NaN until then): only cells near the circle's edge need them.
 */
interface CellTable {
  ids: string[];
  lat: Float64Array;
  lng: Float64Array;
  bytes: Float64Array;
  circumradius: Float64Array;
  /** An upper bound on any cell's circumradius at this resolution, in miles (1.25 average edges; the largest is 1.10). */
  reach: number;
}

const tables = new WeakMap<ShardIndexT, Map<number, CellTable>>();

function cellTable(index: ShardIndexT, res: number): CellTable {
  let perRes = tables.get(index);
  if (perRes === undefined) tables.set(index, (perRes = new Map()));
  let table = perRes.get(res);
  if (table !== undefined) return table;
  const rows = Object.entries(index.cells[String(res)] ?? {}).map(([id, entry]) => {
    const [lat, lng] = cellToLatLng(id);
    return { id, lat, lng, bytes: entry[1] };
  });
  rows.sort((a, b) => a.lat - b.lat || (a.id < b.id ? -1 : 1));
  table = {
    ids: rows.map((r) => r.id),
    lat: Float64Array.from(rows, (r) => r.lat),
    lng: Float64Array.from(rows, (r) => r.lng),
    bytes: Float64Array.from(rows, (r) => r.bytes),
    circumradius: new Float64Array(rows.length).fill(Number.NaN),
    reach: 1.25 * edgeMiles(res),
  };
  perRes.set(res, table);
  return table;
}

/** First position in the ascending `values` whose value is >= x. */
function lowerBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The table's cells that may overlap the circle of `radiusMiles` around (lat, lng), sorted, with their total bytes:
 * a cell is kept when its centre lies within radius + its own circumradius (the rule of cellsCoveringCircle in geo.ts,
 * applied to the non-empty cells only).
 */
function overlapping(table: CellTable, lat: number, lng: number, radiusMiles: number): { cells: string[]; bytes: number } {
  const [, minLat, , maxLat] = boundingBox(lat, lng, radiusMiles + table.reach);
  const cells: string[] = [];
  let bytes = 0;
  for (let i = lowerBound(table.lat, minLat); i < table.ids.length; i++) {
    const cLat = table.lat[i] ?? 0;
    if (cLat > maxLat) break;
    const d = haversineMiles(lat, lng, cLat, table.lng[i] ?? 0);
    if (d > radiusMiles + table.reach) continue;
    if (d > radiusMiles) {
      let r = table.circumradius[i] ?? Number.NaN;
      if (Number.isNaN(r)) table.circumradius[i] = r = circumradiusMiles(table.ids[i] ?? '', cLat, table.lng[i] ?? 0);
      if (d - r > radiusMiles) continue;
    }
    cells.push(table.ids[i] ?? '');
    bytes += table.bytes[i] ?? 0;
  }
  return { cells: cells.sort(), bytes };
}

// Plans are memoised per index (one per published version): most queries come from ZIP and city centroids.
// Bounded so odd inputs cannot grow it forever.
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
    const { cells, bytes } = overlapping(cellTable(index, res), lat, lng, radiusMiles);
    coarsest ??= { res, cells };
    if (cells.length > index.max_shards_per_query) continue;
    if (best === null || bytes < best.bytes || (bytes === best.bytes && cells.length < best.cells.length)) best = { res, cells, bytes };
  }
  if (best !== null) return { res: best.res, cells: best.cells };
  return coarsest ?? { res: resolutions[0] ?? 0, cells: [] };
}
