/**
 * Radius search over the published cell tree (cell-search.ts): exact distance, nearest office per firm, ordered by
 * distance then listing_id, with the exact number of firms within the radius. Pure apart from the reader.
 */
import { cellSearch, type FirmHit } from './cell-search.ts';
import type { SiteReader } from './reader.ts';

/**
 * A point in degrees with the measured metro containing it (resolve.ts), or null when outside every metro. The metro may
 * still be pending (a `lat,lng` query, whose point is known before its metro): the search then runs beside it.
 */
export interface SearchPoint {
  lat: number;
  lng: number;
  metro: string | null | Promise<string | null>;
}

/** What a search found. When not covered, hits is empty and firmsWithinRadius is 0. */
export interface SearchOutcome {
  covered: boolean;
  firmsWithinRadius: number;
  /** At most `limit` firms, nearest first. */
  hits: FirmHit[];
}

/**
 * A radius search: what createService's `search` option supplies (service-impl.ts). The benchmark's peers (bench/lib/naive.ts,
 * bench/peers/postgis-service.ts) are other searches behind the same service.
 */
export type SearchFn = (
  reader: SiteReader,
  point: SearchPoint,
  radiusMiles: number,
  limit: number,
) => Promise<SearchOutcome>;

/** Firms with an office within `radiusMiles` of (lat, lng) degrees, by nearest office, at most `limit`, nearest first; with their exact number. */
export type FirmFinder = (
  reader: SiteReader,
  lat: number,
  lng: number,
  radiusMiles: number,
  limit: number,
) => Promise<{ firms: number; hits: FirmHit[] }>;

/**
 * The search that finds firms with `find`, at covered points only: a point outside every measured metro is not
 * covered (no results, even if offices lie within the radius); a covered point gets every office within the radius,
 * including offices just outside its metro's coverage. With a pending metro, `find` starts at once, so its store reads
 * share rounds with the metro's, and what it found is dropped when the point is not covered.
 */
export function coveredSearch(find: FirmFinder): SearchFn {
  return async (reader, point, radiusMiles, limit) => {
    const { lat, lng } = point;
    let finding: ReturnType<FirmFinder> | null = null;
    if (point.metro instanceof Promise) {
      finding = find(reader, lat, lng, radiusMiles, limit);
      // Handled here so a failure is not unhandled when the point turns out not covered; awaited below otherwise.
      finding.catch(() => undefined);
    }
    const metro = await point.metro;
    if (metro === null) return { covered: false, firmsWithinRadius: 0, hits: [] };
    const found = await (finding ?? find(reader, lat, lng, radiusMiles, limit));
    return { covered: true, firmsWithinRadius: found.firms, hits: found.hits };
  };
}

/** Firms with an office within `radiusMiles` of the point over the cell tree, by nearest office, at most `limit` (coveredSearch). */
export const search: SearchFn = coveredSearch(cellSearch);
