/** The queries verify checks: given on the command line, or sampled (seeded) inside the measured metros. */
import { cellToLatLng } from 'h3-js';
import { LIMIT, RADIUS_MILES } from '../../shim/contract/constants.ts';
import type { CoverageCellsT } from '../../shim/format/site-format.ts';

/** One query: the query string sent to /v1/attorneys and what the recomputation needs from it. */
export interface AuditQuery {
  /** Exactly what is sent after `?`, e.g. "lat=41.88&lng=-87.63&radius_miles=15&limit=10". */
  query: string;
  /** The point when the query gives lat and lng; null when the live answer's resolved location must supply it. */
  point: { lat: number; lng: number } | null;
  radiusMiles: number;
  limit: number;
}

/** A --query value that cannot be checked (bad number, missing location). */
export class QueryError extends Error {
  override name = 'QueryError';
}

function num(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw new QueryError(`${name}=${raw} is not a number`);
  return n;
}

/**
 * Parse a --query value ("lat=..&lng=..&radius_miles=..&limit=.." or any other location form the API accepts).
 * Defaults are the API's: radius 15 miles, limit 10.
 */
export function parseQuery(text: string): AuditQuery {
  const query = text.replace(/^\?/, '');
  const params = new URLSearchParams(query);
  const hasPoint = params.has('lat') || params.has('lng');
  if (hasPoint && !(params.has('lat') && params.has('lng'))) throw new QueryError(`"${text}": give both lat and lng`);
  if (!hasPoint && !params.has('location') && !params.has('zip'))
    throw new QueryError(`"${text}": no location (lat and lng, zip or location)`);
  return {
    query,
    point: hasPoint ? { lat: num(params, 'lat', NaN), lng: num(params, 'lng', NaN) } : null,
    radiusMiles: num(params, 'radius_miles', RADIUS_MILES.default),
    limit: num(params, 'limit', LIMIT.default),
  };
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Radii sampled: the API's bounds, the default, and round values people use, plus one uniform draw in three. */
const RADII = [RADIUS_MILES.min, 2, 5, 10, RADIUS_MILES.default, 25, RADIUS_MILES.max];

/**
 * `n` seeded queries: a random measured cell (coverage-cells.json), a point up to 3 miles from its centre, or one time in
 * eight up to 40 miles (so some fall outside coverage, which checks the uncovered answer too), a radius from 1 to 50
 * miles and a limit from 1 to 25.
 */
export function sampleQueries(coverage: CoverageCellsT, n: number, seed: number): AuditQuery[] {
  const rand = seededRandom(seed);
  const cells = Object.keys(coverage.cells).sort();
  if (cells.length === 0) return [];
  const out: AuditQuery[] = [];
  for (let i = 0; i < n; i++) {
    const [cLat, cLng] = cellToLatLng(cells[Math.floor(rand() * cells.length)] as string);
    const miles = (rand() < 1 / 8 ? 40 : 3) * Math.sqrt(rand());
    const bearing = 2 * Math.PI * rand();
    const lat = round5(cLat + (miles / 69.0) * Math.cos(bearing));
    const lng = round5(cLng + (miles / (69.0 * Math.cos((cLat * Math.PI) / 180))) * Math.sin(bearing));
    const radiusMiles =
      rand() < 1 / 3
        ? Math.round((RADIUS_MILES.min + rand() * (RADIUS_MILES.max - RADIUS_MILES.min)) * 10) / 10
        : (RADII[Math.floor(rand() * RADII.length)] as number);
    const limit = LIMIT.min + Math.floor(rand() * (LIMIT.max - LIMIT.min + 1));
    out.push({
      query: `lat=${lat}&lng=${lng}&radius_miles=${radiusMiles}&limit=${limit}`,
      point: { lat, lng },
      radiusMiles,
      limit,
    });
  }
  return out;
}

function round5(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}
