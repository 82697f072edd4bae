/**
 * query_id: a deterministic identifier of the normalised query on the served version. The same query on the same
 * version always gets the same id, so an answer can be cached (at the edge or in the shim) and its id still names it
 * exactly; another version, or any parameter that changes the answer, gives another id.
 *
 * Normalised query: the location exactly as the answer echoes it (`location.input`: the `location` value as sent, the
 * `zip` value, or `lat,lng` as sent, so `zip=60601` and `location=60601` are one query, and `lat=41.88&lng=-87.63` and
 * `location=41.88,-87.63` are one query), `radius_miles` and `limit` as numbers with their defaults made explicit,
 * and `practice_area`. Parameter order does not matter; `src` is not part of it (it names the caller, not the answer).
 */
import { hash } from 'node:crypto';

/** What a query_id is computed from. radiusMiles in miles. */
export interface NormalisedQuery {
  version: string;
  locationInput: string;
  radiusMiles: number;
  limit: number;
  practiceArea: string;
}

/** Bumped if the normalisation ever changes, so old and new ids never collide. */
const FORMAT = 1;

/** The query_id of `q`: a UUID of version 8 (RFC 9562 custom) whose 122 free bits are the start of a SHA-256. */
export function queryId(q: NormalisedQuery): string {
  const canonical = JSON.stringify([FORMAT, q.version, q.locationInput, q.radiusMiles, q.limit, q.practiceArea]);
  // The one-shot hash: no Hash object per query (a query id is made for every search answered).
  const bytes = hash('sha256', canonical, 'buffer').subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
