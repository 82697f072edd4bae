/**
 * Resolution of a parsed location to a point and its measured metro (docs/CONTRACT.md, Location), through the gazetteer documents of the served version:
 * one ZIP3 document for a ZIP, one document of the state's names from a run of first letters for a city, nothing
 * for a point; plus the coverage cells for `metro`. "Did you mean" hints come from that same document (names of the same
 * first letter at least).
 */
import { ApiError } from './errors.ts';
import { metroForPoint } from './coverage.ts';
import { US_STATES, type ParsedLocation } from './location.ts';
import { readRequired, type SiteReader } from './reader.ts';
import type { LocationT } from './schemas.ts';
import { CityGazetteer, CityGazetteerState, cityDocument, CoverageCells, keys, normaliseCityName, ZipGazetteer, type CityEntryT } from './site-format.ts';

const ACCEPTED = ['ZIP', 'ZIP+4', 'City, ST', 'lat,lng'];
const FORMS = 'a 5-digit ZIP, "City, ST" or "lat,lng"';
/** Why a gazetteer document meta.json lists may not be missing: the place would pass for unknown. */
const LISTED = 'is listed in meta.json but missing';

/** Levenshtein distance, stopping early once it exceeds `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The city document that would hold normalised name `key` in `state`, or null when the version has none: one of the
 * state's split documents (meta.json gazetteer.cities), or in a version generated before the split its whole-state
 * document (gazetteer.states), so a new shim still serves an older published week.
 */
async function cityDocumentFor(reader: SiteReader, state: string, key: string): Promise<{ cities: Record<string, CityEntryT> } | null> {
  const g = reader.meta.gazetteer;
  if (g.cities !== undefined) {
    const starts = g.cities[state];
    const bucket = starts === undefined ? null : cityDocument(key, starts);
    return bucket === null ? null : readRequired(reader, keys.city(reader.version, state, bucket), CityGazetteer, LISTED);
  }
  return g.states?.includes(state) === true ? readRequired(reader, keys.cityState(reader.version, state), CityGazetteerState, LISTED) : null;
}

/** Up to three names of the bucket closest in spelling to `key` (one edit per five letters, at most two), most populous first. */
function closeMatches(key: string, cities: Record<string, CityEntryT>): string[] {
  const max = Math.min(2, Math.max(1, Math.floor(key.length / 5)));
  const found: [number, number, string][] = [];
  for (const [k, e] of Object.entries(cities)) {
    const d = editDistance(key, k, max);
    if (d <= max) found.push([d, e.population ?? -1, e.name]);
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1] || (a[2] < b[2] ? -1 : 1));
  return [...new Set(found.map((f) => f[2]))].slice(0, 3);
}

/** The measured metro containing (lat, lng), or null when the point is outside every metro's coverage. */
export async function metroAt(reader: SiteReader, lat: number, lng: number): Promise<string | null> {
  // Without the coverage cells, covered:false would be a guess passed off as an answer.
  return metroForPoint(await readRequired(reader, keys.coverageCells(reader.version), CoverageCells), lat, lng);
}

/**
 * Resolve a parsed location to the public `location` object, reading only the ZIP3 or city gazetteer document and the
 * coverage cells of the reader's version. Rejects ApiError `location_not_understood` for an unknown ZIP or city, and
 * StoreError when the store fails.
 */
export async function resolveLocation(parsed: ParsedLocation, reader: SiteReader): Promise<LocationT> {
  const parameter = parsed.parameter ?? 'location';
  if (parsed.kind === 'point') {
    const { lat, lng } = parsed;
    return { input: parsed.input, kind: 'point', lat, lng, zip: null, city: null, state: null, metro: await metroAt(reader, lat, lng), source: 'input', approximate: false };
  }

  if (parsed.kind === 'zip') {
    const zip3 = parsed.zip.slice(0, 3);
    const doc = reader.meta.gazetteer.zip3.includes(zip3) ? await readRequired(reader, keys.zip(reader.version, zip3), ZipGazetteer, LISTED) : null;
    const entry = doc?.zips[parsed.zip];
    if (entry === undefined) {
      throw new ApiError(
        'location_not_understood',
        `ZIP ${parsed.zip} is not a known US ZIP code (50 states, DC and Puerto Rico); check it, or send ${FORMS}.`,
        { parameter, accepted: ACCEPTED },
      );
    }
    const [lat, lng, city, state, source] = entry;
    return {
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
  }

  const key = normaliseCityName(parsed.city);
  const doc = await cityDocumentFor(reader, parsed.state, key);
  const entry = doc?.cities[key];
  if (entry === undefined) {
    const close = doc === null || key === '' ? [] : closeMatches(key, doc.cities);
    const hint =
      close.length > 0
        ? `Did you mean ${close.map((n) => JSON.stringify(`${n}, ${parsed.state}`)).join(' or ')}?`
        : 'Check the spelling and the state code';
    throw new ApiError(
      'location_not_understood',
      `No place named ${JSON.stringify(parsed.city)} is known in ${US_STATES[parsed.state] ?? parsed.state} (${parsed.state}). ` +
        `${hint}${close.length > 0 ? ' Or' : ', or'} send ${FORMS}.`,
      { parameter, accepted: ACCEPTED },
    );
  }
  const location: LocationT = {
    input: parsed.input,
    kind: 'city',
    lat: entry.lat,
    lng: entry.lng,
    zip: entry.zip,
    city: entry.name,
    state: parsed.state,
    metro: await metroAt(reader, entry.lat, entry.lng),
    source: entry.source,
    approximate: true,
  };
  if (entry.candidates > 1) {
    location.note =
      `${entry.candidates} places named ${entry.name} in ${parsed.state}; chose the most populous` +
      (entry.population !== null ? ` (population ${entry.population.toLocaleString('en-US')})` : '') +
      '. For another one, send its ZIP or "lat,lng".';
  }
  return location;
}
