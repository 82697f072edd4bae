/**
 * A Service whose attorney search is one PostGIS query (bench/postgis-sql.ts); parsing, location resolution, coverage
 * lookup and shaping are the real code, so against the shim only the search differs (as with the naive baseline).
 */
import { DISCLOSURE, ORDER_TEXT } from '../../shim/core/constants.ts';
import { parsedFromArg } from '../../shim/core/location.ts';
import { parseAttorneysArgs } from '../../shim/core/params.ts';
import { queryId } from '../../shim/core/query-id.ts';
import type { SiteReader } from '../../shim/core/reader.ts';
import { resolveLocation } from '../../shim/core/resolve.ts';
import type { Service } from '../../shim/core/service.ts';
import { shapeLocation, shapeResult } from '../../shim/core/shape.ts';
import { StoredOffice } from '../../shim/core/site-format.ts';
import { parseSearchRows, radiusMetres, searchSql, type PeerAnswer } from './postgis-sql.ts';

/** The one method of a pg Client or Pool the peer uses. */
export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Run the search on `table` (a prepared statement per connection). */
export async function peerSearch(db: Queryable, table: string, lat: number, lng: number, radiusMiles: number, limit: number): Promise<PeerAnswer> {
  const { rows } = await db.query({ name: `search_${table}`, text: searchSql(table), values: [lat, lng, radiusMetres(radiusMiles), limit] });
  return parseSearchRows(rows);
}

/** `real` with findAttorneys answered by PostGIS over `table`, which must hold the version `source` serves. */
export function postgisService(real: Service, db: Queryable, table: string, source: { current(): Promise<SiteReader> }): Service {
  return {
    ...real,
    async findAttorneys(args, ctx) {
      const q = parseAttorneysArgs(args);
      const reader = await source.current();
      const location = await resolveLocation(parsedFromArg(q.location), reader);
      const metro = location.metro;
      const found = metro === null ? { firmsWithinRadius: 0, hits: [] } : await peerSearch(db, table, location.lat, location.lng, q.radiusMiles, q.limit);
      return {
        query_id: queryId({ version: reader.version, locationInput: location.input, radiusMiles: q.radiusMiles, limit: q.limit, practiceArea: q.practiceArea }),
        covered: metro !== null,
        location: shapeLocation(location),
        radius_miles_used: q.radiusMiles,
        firms_within_radius: found.firmsWithinRadius,
        order: ORDER_TEXT,
        disclosure: DISCLOSURE,
        results: found.hits.map((h) => shapeResult(StoredOffice.parse(JSON.parse(h.record)), reader.meta, h.distanceMiles, h.officesWithinRadius, ctx.publicBaseUrl)),
      };
    },
  };
}
