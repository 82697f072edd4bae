/**
 * The nearest ZIP point of a points tile by a latitude-sorted index, built once per parsed tile: a lookup walks out
 * from the point's latitude and stops where latitude alone puts every further point beyond the best found, instead of
 * measuring every point of the tile (a new point's state was a quarter of a search's CPU). Pure.
 */
import { EARTH_RADIUS_MILES } from '../contract/constants.ts';
import { haversineMiles } from './geo.ts';
import type { PointGazetteerT } from '../format/site-format.ts';

const RAD = Math.PI / 180;
/** Miles of great-circle distance per degree of latitude: a lower bound of any distance from its latitude difference. */
const MILES_PER_DEGREE = EARTH_RADIUS_MILES * RAD;
/** Slack on that bound against rounding, so a point whose computed distance may equal the best is always measured. */
const SLACK = 1e-9;

/** A tile's points sorted by latitude (ties by their place in the document). */
interface TileIndex {
  lat: Float64Array;
  lng: Float64Array;
  /** Place of each sorted point in the document's `points`. */
  at: Int32Array;
}

const indexes = new WeakMap<PointGazetteerT, TileIndex>();

/** Bytes of memory the index of a tile of `points` points holds (site-reader.ts charges them to the cached tile). */
export const INDEX_BYTES_PER_POINT = 8 + 8 + 4;

function indexOf(doc: PointGazetteerT): TileIndex {
  let index = indexes.get(doc);
  if (index !== undefined) return index;
  const n = doc.points.length;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (doc.points[a]?.[0] ?? 0) - (doc.points[b]?.[0] ?? 0) || a - b);
  index = { lat: new Float64Array(n), lng: new Float64Array(n), at: Int32Array.from(order) };
  for (let i = 0; i < n; i++) {
    const p = doc.points[order[i] ?? 0];
    index.lat[i] = p?.[0] ?? 0;
    index.lng[i] = p?.[1] ?? 0;
  }
  indexes.set(doc, index);
  return index;
}

/**
 * The best ZIP point so far of a nearest-point search over tiles taken in any order: the one nearest, and among equally
 * near ones the last in the scan order (tile rank, then place in the tile), which is the one the full scan in that
 * order with `<=` keeps.
 */
export interface Nearest {
  miles: number;
  rank: number;
  at: number;
  state: string | null;
}

/** Latitude difference in degrees beyond which no point can be within `miles` (or equal to it). */
export function latReach(miles: number): number {
  return (miles * (1 + SLACK) + SLACK) / MILES_PER_DEGREE;
}

/** Update `best` with the points of tile `doc` (rank `rank` in the scan order) near (lat, lng). */
export function nearestInTile(doc: PointGazetteerT, rank: number, lat: number, lng: number, best: Nearest): void {
  const index = indexOf(doc);
  const n = index.lat.length;
  // First sorted point at or above lat.
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((index.lat[mid] ?? 0) < lat) lo = mid + 1;
    else hi = mid;
  }
  let up = lo;
  let down = lo - 1;
  for (;;) {
    const reach = latReach(best.miles);
    const upGap = up < n ? (index.lat[up] ?? 0) - lat : Infinity;
    const downGap = down >= 0 ? lat - (index.lat[down] ?? 0) : Infinity;
    const goUp = upGap <= downGap;
    if ((goUp ? upGap : downGap) > reach) return;
    const i = goUp ? up++ : down--;
    const d = haversineMiles(lat, lng, index.lat[i] ?? 0, index.lng[i] ?? 0);
    const at = index.at[i] ?? 0;
    if (d < best.miles || (d === best.miles && (rank > best.rank || (rank === best.rank && at > best.at)))) {
      best.miles = d;
      best.rank = rank;
      best.at = at;
      best.state = doc.points[at]?.[2] ?? null;
    }
  }
}
