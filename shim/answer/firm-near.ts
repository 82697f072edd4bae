/** A firm answer seen from the person's point: each office's distance, and the other offices nearest first. */
import { haversineMiles } from '../search/geo.ts';
import type { FirmResponseT, OfficeT } from '../contract/schemas.ts';
import { roundMiles } from './shape.ts';
import type { Point } from './firm-params.ts';

function withDistance(office: OfficeT, miles: number): OfficeT {
  return { ...office, distance_miles: roundMiles(miles) };
}

const milesFrom = (point: Point, o: OfficeT): number => haversineMiles(point.lat, point.lng, o.lat, o.lng);

/**
 * `body` with `distance_miles` from `point` (2 decimals) on the office and every other office, the others ordered by
 * the exact distance (ties by listing_id, as without a point). Pure; `body` is not changed.
 */
export function firmNearPoint(body: FirmResponseT, point: Point): FirmResponseT {
  const others = body.other_offices
    .map((office) => ({ office, miles: milesFrom(point, office) }))
    .sort((a, b) => a.miles - b.miles || (a.office.listing_id < b.office.listing_id ? -1 : 1))
    .map((o) => withDistance(o.office, o.miles));
  return { ...body, office: withDistance(body.office, milesFrom(point, body.office)), other_offices: others };
}
