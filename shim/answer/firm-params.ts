/**
 * The arguments of a firm read (GET /v1/firms/{listing_id} and the get_firm tool) besides the id: the person's point,
 * `lat` and `lng`, both or neither, read and refused exactly as the search reads them; any other name is refused as
 * the search refuses one (400 unknown_parameter naming it and the accepted ones). A point outside the US is refused
 * where the store can tell (Service.getFirm), as the search refuses one (400 location_not_understood).
 */
import { ApiError } from '../contract/errors.ts';
import type { PointRefusal } from '../places/resolve-point.ts';
import { parseAttorneysArgs, type RawArgs } from './params.ts';

/** Query parameters GET /v1/firms/{listing_id} accepts. */
export const FIRM_PARAMS = ['lat', 'lng'] as const;

/** A point in decimal degrees. */
export interface Point {
  lat: number;
  lng: number;
}

/** The person's point as sent: its degrees and the text `lat,lng` the refusals quote. */
export interface SentPoint extends Point {
  input: string;
}

/** How a firm read refuses a point outside the US: only a point is accepted there, and it may be left out. */
export const FIRM_POINT_REFUSAL: PointRefusal = {
  accepted: ['lat,lng'],
  otherwise:
    'Tell the person the service has no data there; if they are in the US, send their own point there, or leave lat and lng out to get the firm without distances.',
};

/**
 * The point of `raw`, or null when neither lat nor lng is sent. `accepted` names every argument the caller may send
 * (the REST query's or the tool's), for the unknown_parameter answer; names in it other than lat and lng are skipped.
 */
export function parseFirmPoint(raw: RawArgs, accepted: readonly string[] = FIRM_PARAMS): SentPoint | null {
  const given = Object.keys(raw).filter((k) => raw[k] !== undefined);
  for (const name of given) {
    if (!accepted.includes(name)) {
      throw new ApiError(
        'unknown_parameter',
        `Unknown parameter ${JSON.stringify(name)}. Accepted parameters: ${accepted.join(', ')}.`,
        { parameter: name, accepted: [...accepted] },
      );
    }
  }
  const hasLat = given.includes('lat');
  const hasLng = given.includes('lng');
  if (!hasLat && !hasLng) return null;
  if (!hasLat || !hasLng) {
    const missing = hasLat ? 'lng' : 'lat';
    throw new ApiError(
      'invalid_parameter',
      `lat and lng must be sent together; ${missing} is missing. Or leave both out to list the other offices nearest to this office first.`,
      { parameter: missing },
    );
  }
  // The search's own reading of the pair: the same bounds, forms and messages (a list, a blank, an exponent...).
  const { location } = parseAttorneysArgs({ lat: raw.lat, lng: raw.lng });
  if (location.form !== 'point') throw new Error('a lat/lng pair was not read as a point');
  return { lat: location.lat, lng: location.lng, input: location.input };
}
