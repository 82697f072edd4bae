/**
 * Whether a point is in the US (the 50 states, DC and Puerto Rico) and in which state: inside a state's boundary
 * (boundary.ts). Versions published before the boundary documents decide from their ZIP points (gazetteer/points): a
 * point is in the US when a ZIP point lies within US_POINT_MILES, and takes that nearest ZIP's state. Outside, the
 * refusal names the country where known and the swap or sign fix that gives a US point (docs/CONTRACT.md, Location).
 */
import { readCoordinates } from './coordinates.ts';
import { placeOfPoint, type PointPlace } from './boundary.ts';
import { ApiError } from '../contract/errors.ts';
import { nearestInTile, type Nearest } from '../search/point-index.ts';
import { readRequired, type SiteReader } from '../search/reader.ts';
import { keys, POINT_TILE_DEGREES, PointGazetteer, pointTile, type PointGazetteerT } from '../format/site-format.ts';
import { ACCEPTED } from './location.ts';
import { LISTED } from './resolve-city.ts';

/**
 * In versions without boundary documents, a point is in the US when a US ZIP point (ZCTA internal point or postal
 * point) lies this close, in miles: the farthest GeoNames place of the states from its nearest ZIP point is 42.7 miles
 * (Kotzebue, AK). A foreign town closer than this to the border (Windsor, Tijuana) passes there; the boundaries fix it.
 */
export const US_POINT_MILES = 50;

/** The tiles meta.json lists, as a set (one per version's meta). */
const listedSets = new WeakMap<readonly string[], Set<string>>();

/** The state of the ZIP point nearest (lat, lng) within `miles`; null when none is that close; undefined when the version has no points index. */
export async function usStateAt(
  reader: SiteReader,
  lat: number,
  lng: number,
  miles = US_POINT_MILES,
): Promise<string | null | undefined> {
  const listed = reader.meta.gazetteer.points;
  if (listed === undefined) return undefined;
  let listedSet = listedSets.get(listed);
  if (listedSet === undefined) listedSets.set(listed, (listedSet = new Set(listed)));
  const dLat = miles / 69;
  const dLng = miles / (69 * Math.max(0.05, Math.cos((Math.min(89, Math.abs(lat) + dLat) * Math.PI) / 180)));
  const D = POINT_TILE_DEGREES;
  const tiles: string[] = [];
  for (let y = Math.floor((lat - dLat) / D); y <= Math.floor((lat + dLat) / D); y++) {
    for (let x = Math.floor((lng - dLng) / D); x <= Math.floor((lng + dLng) / D); x++) {
      const tile = pointTile(y * D, x * D);
      if (listedSet.has(tile)) tiles.push(tile);
    }
  }
  // The nearest point, ties going to the last in this scan order (tiles as listed here, points as in their tile);
  // the point's own tile first, so the best found there bounds the walk through the others.
  const best: Nearest = { miles, rank: -1, at: -1, state: null };
  const own = tiles.indexOf(pointTile(lat, lng));
  // Every tile is read, all at once (one store round trip); they are then scanned in the order above.
  const docs = await Promise.all(
    tiles.map((tile) => readRequired(reader, keys.points(reader.version, tile), PointGazetteer, LISTED)),
  );
  for (let k = -1; k < tiles.length; k++) {
    const rank = k < 0 ? own : k;
    if (rank < 0 || (k >= 0 && k === own)) continue;
    nearestInTile(docs[rank] as PointGazetteerT, rank, lat, lng, best);
  }
  return best.state;
}

/** The readings of a point a caller may have meant: sign of the longitude added, latitude and longitude swapped, both; sign of the latitude dropped. */
function fixes(lat: number, lng: number, text: [string, string]): Fix[] {
  const [a, b] = text;
  const neg = (t: string): string => (t.startsWith('-') ? t.slice(1) : `-${t.replace(/^\+/, '')}`);
  const fix = (lat: number, lng: number, latText: string, lngText: string, swapped: boolean): Fix => ({
    lat,
    lng,
    text: `${latText},${lngText}`,
    latText,
    lngText,
    swapped,
  });
  return [
    fix(lat, -lng, a, neg(b), false),
    fix(lng, lat, b, a, true),
    fix(lng, -lat, b, neg(a), true),
    fix(-lat, lng, neg(a), b, false),
  ].filter((f) => f.lat !== lat || f.lng !== lng);
}

/** A reading of a point the caller may have meant, as "lat,lng" text and as the two numbers; `swapped` when they trade places. */
interface Fix {
  lat: number;
  lng: number;
  text: string;
  latText: string;
  lngText: string;
  swapped: boolean;
}

/** What a refusal says of a fix that gives a US point: the swap named as such, for the form the caller used. */
function fixText(fix: Fix, parameter: string, sent: [string, string]): string {
  const why = '(latitude first; US longitudes are negative, west of Greenwich.)';
  if (!fix.swapped) return ` Did you mean ${JSON.stringify(fix.text)}? ${why}`;
  if (parameter === 'lat')
    return (
      ` lat and lng look swapped: lat ${sent[0]} reads as a longitude and lng ${sent[1]} as a latitude; ` +
      `send lat=${fix.latText} and lng=${fix.lngText} (US longitudes are negative).`
    );
  return ` The two numbers look swapped (longitude first); send ${JSON.stringify(fix.text)} ${why}`;
}

/**
 * A point in no state's boundary (they stop at the shore) and no other country's is in US waters when a US ZIP point
 * lies this close, in miles (about the 12 nautical miles of territorial sea): a pier, a harbour, a beach the boundary
 * generalises away. Inside the US's own 1:50m outline (its lakes and rivers) the US_POINT_MILES reach applies.
 */
export const COAST_MILES = 14;

/**
 * Where a point is: from the boundaries (water by the nearest ZIP point), or in older versions from the ZIP points. A
 * point in no state, territory or other country takes the state of a ZIP point within COAST_MILES whether or not the
 * US outline holds it (the nearest within US_POINT_MILES is then that same point), so the outline is read only when no
 * ZIP point is that near.
 */
async function whereIs(reader: SiteReader, lat: number, lng: number): Promise<PointPlace | null> {
  const near = (miles: number): Promise<string | null | undefined> => usStateAt(reader, lat, lng, miles);
  // In no state, the point is placed by the ZIP points near it (below): their tiles are read beside the other regions,
  // and those of the wider reach beside the US outline when it must be read.
  const coastal = async (): Promise<boolean> => {
    if (typeof (await near(COAST_MILES)) === 'string') return true;
    void near(US_POINT_MILES).catch(() => undefined);
    return false;
  };
  const place = await placeOfPoint(reader, lat, lng, () => void near(COAST_MILES).catch(() => undefined), coastal);
  if (place !== undefined && place.kind !== 'us_waters' && place.kind !== 'none' && place.kind !== 'coast')
    return place;
  if (place !== undefined) {
    // Inside the US outline the wider reach applies, unless a ZIP point within COAST_MILES decides first (as it does
    // anywhere: the outline is then not read, 'coast', or from a boundary tile read anyway).
    let state = await near(COAST_MILES);
    if (state === null && place.kind === 'us_waters') state = await near(US_POINT_MILES);
    return typeof state === 'string' ? { kind: 'state', state, name: state } : { kind: 'none' };
  }
  const state = await near(US_POINT_MILES);
  if (state === undefined) return null;
  return state === null ? { kind: 'none' } : { kind: 'state', state, name: state };
}

/** What the refusal says of where the point is. */
function whereText(place: PointPlace | null): string {
  if (place?.kind === 'country') return `in ${place.name}, outside the United States`;
  if (place?.kind === 'territory') return `in ${place.name}, a US territory the service does not cover`;
  return 'outside the United States';
}

/** What a refusal of a point outside the US accepts and tells the caller to do when no fix is found. */
export interface PointRefusal {
  accepted: readonly string[];
  otherwise: string;
}

/** The search's refusal: the location forms, and the person's ZIP or city. */
const SEARCH_REFUSAL: PointRefusal = {
  accepted: ACCEPTED,
  otherwise: 'Tell the person the service has no data there; if they are in the US, send their ZIP or "City, ST".',
};

/**
 * The state of a point in the US, or null when the version cannot tell (no boundaries, no points index). Rejects
 * ApiError `location_not_understood` for a point outside the 50 states, DC and PR, naming the country where known and
 * the swap or sign fix that gives a US point; `refusal` (default the search's) says what else is accepted.
 */
export async function stateOfPoint(
  reader: SiteReader,
  p: { lat: number; lng: number; input: string; parameter?: string },
  refusal: PointRefusal = SEARCH_REFUSAL,
): Promise<string | null> {
  const place = await whereIs(reader, p.lat, p.lng);
  if (place === null) return null;
  if (place.kind === 'state') return place.state;
  const parameter = p.parameter ?? 'location';
  let fix: Fix | null = null;
  // The caller's own digits, so the fix repeats them exactly ("-74.0060", not "-74.006").
  let text: [string, string] = [String(p.lat), String(p.lng)];
  try {
    text = readCoordinates(p.input)?.text ?? text;
  } catch {
    // Not plain decimals: the numbers as read.
  }
  for (const f of fixes(p.lat, p.lng, text)) {
    if (f.lat < -90 || f.lat > 90 || f.lng < -180 || f.lng > 180) continue;
    if ((await whereIs(reader, f.lat, f.lng))?.kind === 'state') {
      fix = f;
      break;
    }
  }
  // "41,88": whole numbers apart by a comma may be one number with a decimal comma (41.88); a sign fix ("41,-88")
  // would answer a point the person never meant.
  const oneNumber = parameter !== 'lat' && /^\s*[+-]?\d{1,3},\d+\s*$/.test(p.input);
  if (oneNumber) fix = null;
  const sent = parameter === 'lat' ? `lat,lng ${JSON.stringify(p.input)}` : `${parameter} ${JSON.stringify(p.input)}`;
  throw new ApiError(
    'location_not_understood',
    `${sent} is a point ${whereText(place)} (read as latitude ${p.lat}, longitude ${p.lng}); ` +
      'the service covers US locations only: the 50 states, DC and Puerto Rico.' +
      (oneNumber
        ? ` If ${JSON.stringify(p.input.trim())} is one number written with a decimal comma (${p.input.trim().replace(',', '.')}), ` +
          'send latitude and longitude with dots as decimal points and one comma between them, as "lat,lng" ("41.88,-87.63").'
        : fix === null
          ? ` ${refusal.otherwise}`
          : fixText(fix, parameter, text)),
    { parameter, accepted: [...refusal.accepted] },
  );
}
