/**
 * The PostGIS peer of the benchmark: schema, COPY rows, the search query and its result rows, and the comparison of
 * its answer with the shim's. Pure: SQL text and values in, no database here.
 */
import { z } from 'zod';
import { EARTH_RADIUS_MILES } from '../../shim/contract/constants.ts';

/** The WGS84 ellipsoid, whose mean radius PostGIS uses for geography distances with use_spheroid = false. */
const WGS84_A = 6378137;
const WGS84_B = 6356752.314245179;
/** Radius of the sphere of PostGIS's sphere distances, in metres: (2a + b) / 3. */
export const POSTGIS_SPHERE_METRES = (2 * WGS84_A + WGS84_B) / 3;
/**
 * Metres on PostGIS's sphere per mile of the shim's sphere (radius EARTH_RADIUS_MILES): scaling by the ratio of the
 * radii makes a PostGIS circle the same circle in angle as the shim's, so both select the same offices.
 */
export const METRES_PER_SHIM_MILE = POSTGIS_SPHERE_METRES / EARTH_RADIUS_MILES;

/** One office as the peer stores it: what the search needs plus the full record for the offices shown. */
export interface PeerOffice {
  listing_id: string;
  firm_id: string;
  lat: number;
  lng: number;
}

const TABLE_RE = /^[a-z][a-z0-9_]{0,40}$/;

/** A table name for one dataset, e.g. "offices_1m"; only lowercase letters, digits and underscores. */
export function tableName(label: string): string {
  const name = `offices_${label.toLowerCase()}`;
  if (!TABLE_RE.test(name))
    throw new Error(
      `postgis: ${JSON.stringify(label)} does not make a table name (lowercase letters, digits and _ only)`,
    );
  return name;
}

function checkTable(table: string): string {
  if (!TABLE_RE.test(table)) throw new Error(`postgis: bad table name ${JSON.stringify(table)}`);
  return table;
}

/**
 * Statements that create the table of one dataset, to run before COPY: one row per office, a geography(Point,4326)
 * column, the record as text, listing_id with the "C" collation so ORDER BY listing_id is the API's code-unit order.
 */
export function createTableSql(table: string): string[] {
  const t = checkTable(table);
  return [
    'CREATE EXTENSION IF NOT EXISTS postgis',
    `DROP TABLE IF EXISTS ${t}`,
    `CREATE TABLE ${t} (listing_id text COLLATE "C" NOT NULL, firm_id text COLLATE "C" NOT NULL, geog geography(Point, 4326) NOT NULL, record text NOT NULL)`,
  ];
}

/** The COPY statement the rows of copyLine feed (CSV, so a JSON record needs no backslash escaping). */
export function copySql(table: string): string {
  return `COPY ${checkTable(table)} (listing_id, firm_id, geog, record) FROM STDIN WITH (FORMAT csv)`;
}

/** A CSV field, quoted when it holds a quote, comma or line break. */
function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV line of COPY for `office`; `record` is its full stored record (JSON text). Coordinates as EWKT, exact. */
export function copyLine(office: PeerOffice, record: string): string {
  if (!Number.isFinite(office.lat) || !Number.isFinite(office.lng))
    throw new Error(`postgis: office ${office.listing_id} has no finite coordinates`);
  // String(number) is the shortest text that parses back to the same double, so PostGIS stores the shim's coordinates.
  return `${csvField(office.listing_id)},${csvField(office.firm_id)},SRID=4326;POINT(${String(office.lng)} ${String(office.lat)}),${csvField(record)}\n`;
}

/** Statements after COPY: the GiST index on the geography, the key the records are fetched by, and planner statistics. */
export function indexSql(table: string): { gist: string; key: string; analyze: string } {
  const t = checkTable(table);
  return {
    gist: `CREATE INDEX ${t}_geog ON ${t} USING gist (geog)`,
    key: `ALTER TABLE ${t} ADD PRIMARY KEY (listing_id)`,
    analyze: `VACUUM ANALYZE ${t}`,
  };
}

/**
 * The search, parameters $1 lat, $2 lng, $3 radius in metres (radiusMetres), $4 limit: every office within the
 * radius (ST_DWithin on the sphere, through the GiST index), one row per firm by its nearest office (ties by
 * listing_id) with the firm's office count within the radius, ordered by distance then listing_id, limited; each row
 * carries the number of distinct firms within the radius (before the limit) and the shown office's record.
 */
export function searchSql(table: string): string {
  const t = checkTable(table);
  return `WITH q AS (SELECT ST_SetSRID(ST_MakePoint($2::float8, $1::float8), 4326)::geography AS g),
near AS (
  SELECT o.firm_id, o.listing_id, ST_Distance(o.geog, q.g, false) AS d
  FROM ${t} o, q
  WHERE ST_DWithin(o.geog, q.g, $3::float8, false)
),
firms AS (
  SELECT DISTINCT ON (firm_id) firm_id, listing_id, d, count(*) OVER (PARTITION BY firm_id) AS n
  FROM near
  ORDER BY firm_id, d, listing_id
),
shown AS (
  SELECT listing_id, d, n, count(*) OVER () AS firms FROM firms ORDER BY d, listing_id LIMIT $4::int
)
SELECT s.listing_id, s.d, s.n, s.firms, o.record FROM shown s JOIN ${t} o USING (listing_id) ORDER BY s.d, s.listing_id`;
}

/** The radius parameter ($3) of searchSql for a radius in the API's miles. */
export function radiusMetres(radiusMiles: number): number {
  return radiusMiles * METRES_PER_SHIM_MILE;
}

// pg returns float8 as a number and bigint (count) as a string.
const SearchRow = z.object({
  listing_id: z.string(),
  d: z.number(),
  n: z.union([z.string().regex(/^\d+$/), z.number().int()]),
  firms: z.union([z.string().regex(/^\d+$/), z.number().int()]),
  record: z.string(),
});

/** One firm of a peer answer. */
export interface PeerHit {
  listingId: string;
  distanceMiles: number;
  officesWithinRadius: number;
  record: string;
}

/** What the peer answered for one query. */
export interface PeerAnswer {
  firmsWithinRadius: number;
  hits: PeerHit[];
}

/** The rows of searchSql as an answer (no rows: no firm within the radius). */
export function parseSearchRows(rows: readonly unknown[]): PeerAnswer {
  const parsed = rows.map((r, i) => {
    const row = SearchRow.safeParse(r);
    if (!row.success)
      throw new Error(
        `postgis: search row ${i} is not (listing_id, d, n, firms, record): ${row.error.issues[0]?.message ?? ''}`,
      );
    return row.data;
  });
  const firms = new Set(parsed.map((r) => Number(r.firms)));
  if (firms.size > 1) throw new Error(`postgis: search rows disagree on the firm count: ${[...firms].join(', ')}`);
  return {
    firmsWithinRadius: parsed.length === 0 ? 0 : Number(parsed[0]?.firms),
    hits: parsed.map((r) => ({
      listingId: r.listing_id,
      distanceMiles: r.d / METRES_PER_SHIM_MILE,
      officesWithinRadius: Number(r.n),
      record: r.record,
    })),
  };
}

/** The part of an API answer the comparison looks at. */
export interface ComparableAnswer {
  firms_within_radius: number;
  results: readonly { listing_id: string; distance_miles: number; offices_within_radius: number }[];
}

/**
 * The first difference between the shim's answer and the peer's (listing ids in order, firms within the radius,
 * offices within the radius per firm, distances to within one step of the API's 0.01-mile rounding), or null when they agree.
 */
export function answerDifference(shim: ComparableAnswer, peer: ComparableAnswer): string | null {
  if (shim.firms_within_radius !== peer.firms_within_radius)
    return `firms_within_radius: shim ${shim.firms_within_radius}, postgis ${peer.firms_within_radius}`;
  if (shim.results.length !== peer.results.length)
    return `results: shim ${shim.results.length}, postgis ${peer.results.length}`;
  for (const [i, a] of shim.results.entries()) {
    const b = peer.results[i];
    if (b === undefined) return `results[${i}]: missing from postgis`;
    if (a.listing_id !== b.listing_id) return `results[${i}].listing_id: shim ${a.listing_id}, postgis ${b.listing_id}`;
    if (a.offices_within_radius !== b.offices_within_radius)
      return `results[${i}].offices_within_radius: shim ${a.offices_within_radius}, postgis ${b.offices_within_radius}`;
    if (Math.abs(a.distance_miles - b.distance_miles) > 0.01 + 1e-9)
      return `results[${i}].distance_miles: shim ${a.distance_miles}, postgis ${b.distance_miles}`;
  }
  return null;
}
