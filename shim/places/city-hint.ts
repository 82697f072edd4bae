/**
 * Where a place query probably is, before its city document is read: the state's entry (the most populous) in the
 * names document of the name, whose key follows from the name alone, so a cold request reads it beside meta.json (the
 * city document's key needs meta.json's bucket starts). For a place named inside a city ("Buckhead, Atlanta, GA",
 * "Lake in the Hills, IL", "123 Main St, Atlanta, GA") the hint takes the reading resolve-inside.ts will: the whole
 * name, else the place when it lies within AREA_MILES of the city, else the city. The search may start from that point
 * beside the city document; its answer is used only when the city document resolves the query to exactly that point
 * (service-impl.ts), so the hint changes when a search's reads start, never an answer.
 */
import type { ParsedLocation } from './location.ts';
import type { SiteReader } from '../search/reader.ts';
import { AREA_MILES } from '../contract/constants.ts';
import { haversineMiles } from '../search/geo.ts';
import { keys, namePrefix, NameGazetteer, normaliseCityName } from '../format/site-format.ts';
import { clearReading, nearNameEntries } from './spelling.ts';

type Point = { lat: number; lng: number };

/**
 * The names a query's hint looks up, normalised (empty ones dropped): a name alone or a plain "City, ST"; for a place
 * inside a city the whole "X in City" text, the place X (not a street address) and the city.
 */
function hintNames(parsed: ParsedLocation): string[] {
  const names =
    parsed.kind === 'name'
      ? [parsed.name]
      : parsed.kind !== 'city'
        ? []
        : parsed.inside === undefined
          ? [parsed.city]
          : [parsed.whole ?? '', parsed.inside.address ? '' : parsed.inside.text, parsed.city];
  return names.map(normaliseCityName).filter((k) => k !== '');
}

/** The keys of `version` the hint of `parsed` reads (none but for a place name), read beside meta.json. */
export function cityHintKeys(parsed: ParsedLocation, version: string): string[] {
  return [...new Set(hintNames(parsed).map((k) => keys.names(version, namePrefix(k))))];
}

/**
 * The point of `state`'s place named `name` in the names document (for no state, the most populous place of the name),
 * or null when there is none or the document is not listed. `clear`: a misspelling the resolver reads as one name
 * ("Pheonix") gives that name's point, as resolve-name.ts and resolve-city.ts take the same clear reading.
 */
async function namesEntry(
  reader: SiteReader,
  name: string,
  state: string | undefined,
  clear: boolean,
): Promise<Point | null> {
  const key = normaliseCityName(name);
  const prefix = namePrefix(key);
  if (key === '' || reader.meta.gazetteer.names?.includes(prefix) !== true) return null;
  const names = (await reader.json(keys.names(reader.version, prefix), NameGazetteer))?.names;
  if (names === undefined) return null;
  const entries = names[key] ?? (clear ? clearReading(key, nearNameEntries(key, names))?.value : undefined);
  const entry = state === undefined ? entries?.[0] : entries?.find((e) => e[0] === state);
  return entry === undefined ? null : { lat: entry[2], lng: entry[3] };
}

/**
 * The probable point of a place query (see above), or null when there is none (or a document cannot be read: the hint
 * is not needed for the answer, so a failure only means the search starts later).
 */
export async function cityHint(reader: SiteReader, parsed: ParsedLocation): Promise<Point | null> {
  try {
    if (parsed.kind === 'name') return await namesEntry(reader, parsed.name, undefined, true);
    if (parsed.kind !== 'city') return null;
    const { inside, whole, state } = parsed;
    if (inside === undefined) return await namesEntry(reader, parsed.city, state, true);
    // The three look-ups read at most two names documents, all beside meta.json.
    const [asOne, place, city] = await Promise.all([
      whole === undefined ? null : namesEntry(reader, whole, state, false),
      inside.address ? null : namesEntry(reader, inside.text, state, false),
      namesEntry(reader, parsed.city, state, true),
    ]);
    if (asOne !== null) return asOne;
    if (place !== null && city !== null && haversineMiles(city.lat, city.lng, place.lat, place.lng) <= AREA_MILES)
      return place;
    return city;
  } catch {
    return null;
  }
}
