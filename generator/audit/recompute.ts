/**
 * The auditor's own answer to a radius query, from a full list of published offices: great-circle distance to every
 * office, those within the radius, nearest office per firm, order by distance then listing_id, limit. Pure; it shares
 * no search code with the shim (see docs/AUDIT.md for why the haversine is written here again).
 */
import { latLngToCell } from 'h3-js';
import type { CoverageCellsT, StoredOfficeT } from '../../shim/format/site-format.ts';

/** Earth radius of the public contract (docs/CONTRACT.md), in miles. */
export const AUDIT_EARTH_RADIUS_MILES = 3958.8;

const DEG = Math.PI / 180;

/** Haversine great-circle distance between two points in decimal degrees, in miles (R = 3958.8 mi). */
export function greatCircleMiles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const sinHalfDLat = Math.sin(((lat2 - lat1) * DEG) / 2);
  const sinHalfDLng = Math.sin(((lng2 - lng1) * DEG) / 2);
  const h = sinHalfDLat * sinHalfDLat + Math.cos(lat1 * DEG) * Math.cos(lat2 * DEG) * (sinHalfDLng * sinHalfDLng);
  return 2 * AUDIT_EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Miles rounded to 2 decimals, as the API shows distance_miles. */
export function twoDecimals(miles: number): number {
  return Math.round(miles * 100) / 100;
}

/** One firm of the recomputed answer, by its nearest office. `miles` is exact. */
export interface ExpectedResult {
  office: StoredOfficeT;
  miles: number;
  officesWithinRadius: number;
}

/** The recomputed answer to one query. */
export interface ExpectedAnswer {
  covered: boolean;
  /** First metro listed for the point's coverage cell, or null. */
  metro: string | null;
  firmsWithinRadius: number;
  /** Offices within the radius, all firms (before one-per-firm and limit). */
  officesWithinRadius: number;
  results: ExpectedResult[];
}

function byDistanceThenId(a: ExpectedResult, b: ExpectedResult): number {
  if (a.miles !== b.miles) return a.miles - b.miles;
  return a.office.listing_id < b.office.listing_id ? -1 : a.office.listing_id > b.office.listing_id ? 1 : 0;
}

/**
 * Recompute GET /v1/attorneys for the point (lat, lng), radius in miles and limit, from every published office and the
 * coverage cells. Outside coverage the answer is empty by contract, whatever lies within the radius.
 */
export function recomputeAnswer(
  offices: readonly StoredOfficeT[],
  coverage: CoverageCellsT,
  lat: number,
  lng: number,
  radiusMiles: number,
  limit: number,
): ExpectedAnswer {
  const metros = coverage.cells[latLngToCell(lat, lng, coverage.res)];
  if (metros === undefined || metros.length === 0)
    return { covered: false, metro: null, firmsWithinRadius: 0, officesWithinRadius: 0, results: [] };
  const perFirm = new Map<string, ExpectedResult>();
  let within = 0;
  for (const office of offices) {
    const miles = greatCircleMiles(lat, lng, office.lat, office.lng);
    if (miles > radiusMiles) continue;
    within++;
    const hit = { office, miles, officesWithinRadius: 1 };
    const best = perFirm.get(office.firm_id);
    if (best === undefined) perFirm.set(office.firm_id, hit);
    else {
      best.officesWithinRadius++;
      if (byDistanceThenId(hit, best) < 0) {
        best.office = office;
        best.miles = miles;
      }
    }
  }
  const firms = [...perFirm.values()].sort(byDistanceThenId);
  return {
    covered: true,
    metro: metros[0] ?? null,
    firmsWithinRadius: firms.length,
    officesWithinRadius: within,
    results: firms.slice(0, limit),
  };
}
