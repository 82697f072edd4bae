/**
 * A Service whose attorney search is one PostGIS query (bench/peers/postgis-sql.ts); parsing, location resolution, coverage
 * lookup and shaping are the real code, so against the shim only the search differs (as with the naive baseline).
 */
import type { SiteReader } from '../../shim/search/reader.ts';
import { coveredSearch } from '../../shim/search/search.ts';
import type { Service } from '../../shim/answer/service.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { StoredOffice } from '../../shim/format/site-format.ts';
import { parseSearchRows, radiusMetres, searchSql, type PeerAnswer } from './postgis-sql.ts';

/** The one method of a pg Client or Pool the peer uses. */
export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Run the search on `table` (a prepared statement per connection). */
export async function peerSearch(
  db: Queryable,
  table: string,
  lat: number,
  lng: number,
  radiusMiles: number,
  limit: number,
): Promise<PeerAnswer> {
  const { rows } = await db.query({
    name: `search_${table}`,
    text: searchSql(table),
    values: [lat, lng, radiusMetres(radiusMiles), limit],
  });
  return parseSearchRows(rows);
}

/** The service with findAttorneys answered by PostGIS over `table`, which must hold the version `source` serves. */
export function postgisService(db: Queryable, table: string, source: { current(): Promise<SiteReader> }): Service {
  return createService(source, {
    search: coveredSearch(async (_reader, lat, lng, radiusMiles, limit) => {
      const found = await peerSearch(db, table, lat, lng, radiusMiles, limit);
      return {
        firms: found.firmsWithinRadius,
        hits: found.hits.map((h) => ({
          office: StoredOffice.parse(JSON.parse(h.record)),
          distanceMiles: h.distanceMiles,
          officesWithinRadius: h.officesWithinRadius,
        })),
      };
    }),
  });
}
