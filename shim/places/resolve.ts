/**
 * Resolution of a parsed location to a point and its measured metro (docs/CONTRACT.md, Location), through the gazetteer
 * documents of the served version: one ZIP3 document for a ZIP, one city document for "City, ST", one names document
 * for a name without a state, the points tiles near a point; plus, for `metro`, the coverage piece of the point (the
 * whole coverage cells in a version written before the pieces).
 */
import { ApiError } from '../contract/errors.ts';
import type { ParsedLocation } from './location.ts';
import { readRequired, type SiteReader } from '../search/reader.ts';
import { ACCEPTED, FORMS } from './location.ts';
import { LISTED, metroAt } from './resolve-city.ts';
import { resolveCityQuery } from './resolve-inside.ts';
import { refuseAbroad, resolveName } from './resolve-name.ts';
import { stateOfPoint } from './resolve-point.ts';
import type { LocationT } from '../contract/schemas.ts';
import {
  BOUNDARY_TILES,
  boundaryTile,
  inTiledBox,
  keys,
  namePrefix,
  normaliseCityName,
  ZipGazetteer,
} from '../format/site-format.ts';
import type { CityQuery } from './resolve-city.ts';
import { coveragePieceOf } from './coverage.ts';
import { nicknamePlace } from './nicknames.ts';

export { metroAt };

/** The note of a ZIP with no area of its own, placed at the point the postal data gives it (usually its town's). */
function fallbackNote(zip: string, city: string, state: string): string {
  return (
    `Approximate point: ZIP ${zip} has no area of its own (a PO box or single-address ZIP), so it is placed at the point ` +
    `the postal data gives it, usually the centre of ${city === '' ? 'its town' : `${city}, ${state}`}; distances are ` +
    'measured from there, not from the person. For exact distances, send the ZIP where the person is or "lat,lng".'
  );
}

/**
 * The keys of `version` that resolving `parsed` reads first whatever its version holds: for a point its coverage piece
 * and boundary tile (the boundary index outside the tiles' box), for a ZIP its ZIP3 document, for a place named with a
 * country abroad the names document of its name. Read beside meta.json by a cold request. A ZIP's or a place name's
 * coverage piece follows from its point, in the next round (a "City, ST" or a name alone reads its names document
 * beside meta.json for the city hint: city-hint.ts).
 */
export function locationKeys(parsed: ParsedLocation, version: string): string[] {
  if (parsed.kind === 'zip') return [keys.zip(version, parsed.zip.slice(0, 3))];
  if (parsed.kind === 'point')
    return [
      keys.root(version) + coveragePieceOf(parsed.lat, parsed.lng),
      inTiledBox(BOUNDARY_TILES, parsed.lat, parsed.lng)
        ? keys.boundaryTile(version, boundaryTile(parsed.lat, parsed.lng))
        : keys.boundaryIndex(version),
    ];
  const name = parsed.kind === 'abroad' ? normaliseCityName(parsed.place) : '';
  return name === '' ? [] : [keys.names(version, namePrefix(name))];
}

/**
 * A ZIP's point, from its ZIP3 document (the read resolveLocation makes), before its metro is known: the search may
 * start from it beside the ZIP's coverage piece. Null for an unknown ZIP or a failed read (resolveLocation says why).
 */
export async function zipPoint(
  parsed: ParsedLocation,
  reader: SiteReader,
): Promise<{ lat: number; lng: number } | null> {
  if (parsed.kind !== 'zip' || !reader.meta.gazetteer.zip3.includes(parsed.zip.slice(0, 3))) return null;
  try {
    const doc = await readRequired(reader, keys.zip(reader.version, parsed.zip.slice(0, 3)), ZipGazetteer, LISTED);
    const entry = doc.zips[parsed.zip];
    return entry === undefined ? null : { lat: entry[0], lng: entry[1] };
  } catch {
    return null;
  }
}

/**
 * Resolve a parsed location to the public `location` object, reading only the gazetteer documents its form needs and
 * the coverage of its point (coverage.ts). `onPoint` is told a place name's point once it is known, before its metro.
 * Rejects ApiError `location_not_understood` for an unknown ZIP or place or a point outside the US,
 * `ambiguous_location` for a name several states share, and StoreError when the store fails.
 */
export async function resolveLocation(
  parsed: ParsedLocation,
  reader: SiteReader,
  onPoint?: CityQuery['onPoint'],
): Promise<LocationT> {
  if ((parsed.kind === 'city' || parsed.kind === 'name') && parsed.loose !== undefined) {
    const { loose, ...whole } = parsed;
    // Resolved beside the text as sent, so it waits for no round trip of its own; its point starts no search, as it
    // is the answer only when the text as sent names no place.
    const fallback = resolveOne(loose, reader).then(
      (location) => ({ location }),
      (error: unknown) => ({ error }),
    );
    try {
      return await resolveOne(whole, reader, onPoint);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'location_not_understood') throw e;
    }
    const read = await fallback;
    if ('error' in read) throw read.error;
    return withLooseNote(read.location, loose);
  }
  const location = await resolveOne(parsed, reader, onPoint);
  return withLooseNote(location, parsed);
}

/** `location` with a note saying how a place sent with words around it was read ("downtown Chicago"), if it was. */
function withLooseNote(location: LocationT, parsed: ParsedLocation): LocationT {
  if (parsed.kind !== 'zip' && parsed.kind !== 'city' && parsed.kind !== 'name') return location;
  if (parsed.loosely === undefined) return location;
  const place = [location.city, location.state].filter((p) => p !== null).join(', ');
  const as = location.kind === 'zip' ? `ZIP ${location.zip} (${place})` : place;
  const ask = location.kind === 'zip' ? 'send "lat,lng"' : 'ask for their ZIP code (or send "lat,lng")';
  const read =
    `Read ${JSON.stringify(parsed.loosely)} as ${as}: distances are measured from its point, not from where the ` +
    `person is; for distances from there, ${ask}.`;
  location.note = location.note === undefined ? read : `${read} ${location.note}`;
  return location;
}

/** True when `named`, sent before a ZIP without a state ("Chicago 60601"), is the ZIP's place or a nickname of it. */
function namesZipPlace(named: string, city: string, state: string): boolean {
  const key = normaliseCityName(named);
  const nick = nicknamePlace(key);
  if (nick !== null) return nick.state === state && normaliseCityName(nick.city) === normaliseCityName(city);
  return key === normaliseCityName(city);
}

/** resolveLocation of one reading of the location. */
async function resolveOne(
  parsed: ParsedLocation,
  reader: SiteReader,
  onPoint?: CityQuery['onPoint'],
): Promise<LocationT> {
  const parameter = parsed.parameter ?? 'location';
  if (parsed.kind === 'point') {
    const { lat, lng } = parsed;
    const metro = metroAt(reader, lat, lng);
    // Awaited after the state, so a point outside the US is its 400 whatever the coverage read does.
    metro.catch(() => undefined);
    const state = await stateOfPoint(reader, parsed);
    return {
      input: parsed.input,
      kind: 'point',
      lat,
      lng,
      zip: null,
      city: null,
      state,
      metro: await metro,
      source: 'input',
      approximate: false,
    };
  }
  if (parsed.kind === 'name') return resolveName(reader, { ...parsed, onPoint });
  if (parsed.kind === 'abroad') return refuseAbroad(reader, parsed);
  if (parsed.kind === 'city') return resolveCityQuery(reader, { ...parsed, onPoint });

  const zip3 = parsed.zip.slice(0, 3);
  const doc = reader.meta.gazetteer.zip3.includes(zip3)
    ? await readRequired(reader, keys.zip(reader.version, zip3), ZipGazetteer, LISTED)
    : null;
  const entry = doc?.zips[parsed.zip];
  if (entry === undefined) {
    throw new ApiError(
      'location_not_understood',
      `ZIP ${parsed.zip} is not a known US ZIP code (50 states, DC and Puerto Rico); check it, or send ${FORMS}.`,
      { parameter, accepted: ACCEPTED },
    );
  }
  const [lat, lng, city, state, source] = entry;
  // "Austin, TX 60601": the ZIP is in Chicago, IL. Either part may be the slip; answering one would mislead.
  if (parsed.stated !== undefined && parsed.stated !== state) {
    const place = city === '' ? state : `${city}, ${state}`;
    throw new ApiError(
      'location_not_understood',
      `${parameter} ${JSON.stringify(parsed.input)}: ZIP ${parsed.zip} is in ${place}, not in ${parsed.stated}; the two ` +
        `parts disagree and the service will not guess. Ask the person for their ZIP code (or their city as "City, ST") ` +
        `and send that alone.`,
      { parameter, accepted: ACCEPTED },
    );
  }
  const location: LocationT = {
    input: parsed.input,
    kind: 'zip',
    lat,
    lng,
    zip: parsed.zip,
    city: city === '' ? null : city,
    state,
    metro: await metroAt(reader, lat, lng),
    source,
    approximate: true,
  };
  const notes: string[] = [];
  // "Austin 60601": a name is looser than a state ("New York 11201" is Brooklyn, NY to the postal data), so the ZIP
  // is answered, and the answer says where it is.
  if (parsed.named !== undefined && !namesZipPlace(parsed.named, city, state)) {
    const place = city === '' ? state : `${city}, ${state}`;
    notes.push(
      `ZIP ${parsed.zip} is in ${place}, and the name ${JSON.stringify(parsed.named)} sent with it is not that place's ` +
        `name; the ZIP was used. If the person is not in or near ${place}, ask for their ZIP or "City, ST".`,
    );
  }
  if (parsed.street !== undefined)
    notes.push(
      `The street address ${JSON.stringify(parsed.street)} is not located by this service (only a ZIP or "lat,lng" ` +
        `is); distances are measured from the point of ZIP ${parsed.zip}. For exact distances, send "lat,lng".`,
    );
  if (source === 'geonames_postal') notes.push(fallbackNote(parsed.zip, city, state));
  if (notes.length > 0) location.note = notes.join(' ');
  return location;
}
