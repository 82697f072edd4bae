/**
 * Radius search over the published cell tree (cell-search.ts): exact distance, nearest office per firm, ordered by
 * distance then listing_id, with the exact number of firms within the radius. Pure apart from the reader.
 */
import { cellSearch, type FirmHit } from './cell-search.ts';
import type { SiteReader } from './reader.ts';

/** A resolved point in degrees with the measured metro containing it (resolve.ts), or null when outside every metro. */
export interface SearchPoint {
  lat: number;
  lng: number;
  metro: string | null;
}

/** What a search found. When not covered, hits is empty and firmsWithinRadius is 0. */
export interface SearchOutcome {
  covered: boolean;
  firmsWithinRadius: number;
  /** At most `limit` firms, nearest first. */
  hits: FirmHit[];
}

/**
 * Firms with an office within `radiusMiles` of the point, by nearest office, at most `limit`.
 * A point outside every measured metro is not covered: no results, even if offices lie within the radius.
 * A covered point gets every office within the radius, including offices just outside its metro's coverage.
 */
export async function search(reader: SiteReader, point: SearchPoint, radiusMiles: number, limit: number): Promise<SearchOutcome> {
  const { lat, lng, metro } = point;
  if (metro === null) return { covered: false, firmsWithinRadius: 0, hits: [] };
  const found = await cellSearch(reader, lat, lng, radiusMiles, limit);
  return { covered: true, firmsWithinRadius: found.firms, hits: found.hits };
}
