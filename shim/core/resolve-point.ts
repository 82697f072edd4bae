/**
 * Whether a point is in the US (the 50 states, DC and Puerto Rico) and in which state, from the ZIP points of the
 * served version (gazetteer/points): a point is in the US when a ZIP point lies within US_POINT_MILES, and takes that
 * nearest ZIP's state. Outside, the swap or sign fix that gives a US point is named (docs/CONTRACT.md, Location).
 */
import { readCoordinates } from './coordinates.ts';
import { ApiError } from './errors.ts';
import { nearestInTile, type Nearest } from './point-index.ts';
import { readRequired, type SiteReader } from './reader.ts';
import { keys, POINT_TILE_DEGREES, PointGazetteer, pointTile, type PointGazetteerT } from './site-format.ts';

/**
 * A point is in the US when a US ZIP point (ZCTA internal point or postal point) lies this close, in miles: the
 * farthest GeoNames place of the states from its nearest ZIP point is 42.7 miles (Kotzebue, AK). A foreign town
 * closer than this to the border (Windsor, Tijuana) passes, with the state of its nearest ZIP.
 */
export const US_POINT_MILES = 50;

const LISTED = 'is listed in meta.json but missing';
const ACCEPTED = ['ZIP', 'ZIP+4', 'City, ST', 'lat,lng'];

/** The tiles meta.json lists, as a set (one per version's meta). */
const listedSets = new WeakMap<readonly string[], Set<string>>();

/** The state of the ZIP point nearest (lat, lng) within US_POINT_MILES; null when none is that close; undefined when the version has no points index. */
export async function usStateAt(reader: SiteReader, lat: number, lng: number): Promise<string | null | undefined> {
  const listed = reader.meta.gazetteer.points;
  if (listed === undefined) return undefined;
  let listedSet = listedSets.get(listed);
  if (listedSet === undefined) listedSets.set(listed, (listedSet = new Set(listed)));
  const dLat = US_POINT_MILES / 69;
  const dLng = US_POINT_MILES / (69 * Math.max(0.05, Math.cos((Math.min(89, Math.abs(lat) + dLat) * Math.PI) / 180)));
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
  const best: Nearest = { miles: US_POINT_MILES, rank: -1, at: -1, state: null };
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
function fixes(lat: number, lng: number, text: [string, string]): { lat: number; lng: number; text: string }[] {
  const [a, b] = text;
  const neg = (t: string): string => (t.startsWith('-') ? t.slice(1) : `-${t.replace(/^\+/, '')}`);
  return [
    { lat, lng: -lng, text: `${a},${neg(b)}` },
    { lat: lng, lng: lat, text: `${b},${a}` },
    { lat: lng, lng: -lat, text: `${b},${neg(a)}` },
    { lat: -lat, lng, text: `${neg(a)},${b}` },
  ].filter((f) => f.lat !== lat || f.lng !== lng);
}

/**
 * The state of a point in the US, or null when the version cannot tell (no points index). Rejects ApiError
 * `location_not_understood` for a point outside the US, naming the swap or sign fix that gives a US point.
 */
export async function stateOfPoint(
  reader: SiteReader,
  p: { lat: number; lng: number; input: string; parameter?: string },
): Promise<string | null> {
  const state = await usStateAt(reader, p.lat, p.lng);
  if (state !== null) return state ?? null;
  const parameter = p.parameter ?? 'location';
  let fix: string | null = null;
  // The caller's own digits, so the fix repeats them exactly ("-74.0060", not "-74.006").
  let text: [string, string] = [String(p.lat), String(p.lng)];
  try {
    text = readCoordinates(p.input)?.text ?? text;
  } catch {
    // Not plain decimals: the numbers as read.
  }
  for (const f of fixes(p.lat, p.lng, text)) {
    if (f.lat < -90 || f.lat > 90 || f.lng < -180 || f.lng > 180) continue;
    if ((await usStateAt(reader, f.lat, f.lng)) !== null) {
      fix = f.text;
      break;
    }
  }
  const sent = parameter === 'lat' ? `lat,lng ${JSON.stringify(p.input)}` : `${parameter} ${JSON.stringify(p.input)}`;
  throw new ApiError(
    'location_not_understood',
    `${sent} is a point outside the United States (the service covers the 50 states, DC and Puerto Rico only; ` +
      `read as latitude ${p.lat}, longitude ${p.lng}).` +
      (fix === null
        ? ' Check the point, or send the person\'s ZIP or "City, ST".'
        : ` Did you mean ${JSON.stringify(fix)}? (latitude first; US longitudes are negative, west of Greenwich.)`),
    { parameter, accepted: ACCEPTED },
  );
}
