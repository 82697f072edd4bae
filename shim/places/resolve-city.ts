/**
 * Resolution of "City, ST" through the state's city document (docs/CONTRACT.md, Location), with the notes an
 * assistant must relay: the most populous of same-named places, a nickname read, a state code that is also a
 * covered city's nickname ("Venice LA"). "Did you mean" hints come from the same document.
 */
import { coveragePiece, metroForPoint } from './coverage.ts';
import { cityHashDoc } from '../format/hash-docs.ts';
import { ApiError } from '../contract/errors.ts';
import { nicknamePlace } from './nicknames.ts';
import { readRequired, type SiteReader } from '../search/reader.ts';
import type { LocationT } from '../contract/schemas.ts';
import {
  CityGazetteer,
  CityGazetteerState,
  cityDocument,
  CoverageCells,
  HashDoc,
  keys,
  NameGazetteer,
  namePrefix,
  normaliseCityName,
  type CityEntryT,
  type NameEntryT,
} from '../format/site-format.ts';
import { spelledOut } from './abbreviations.ts';
import { clearReading, nearNames, type Near } from './spelling.ts';
import { US_STATES } from './state-names.ts';
import { ACCEPTED, FORMS } from './location.ts';
import { cityHint } from './city-hint.ts';

/** Why a gazetteer document meta.json lists may not be missing: the place would pass for unknown. */
export const LISTED = 'is listed in meta.json but missing';

/** Up to three labels of `near` (nearNames), covered places first among equally near ones, then most populous. */
export async function suggestions<T>(
  reader: SiteReader,
  near: readonly Near<T>[],
  point: (e: T) => [number, number],
  label: (e: T) => string,
): Promise<string[]> {
  // Covered-first needs the coverage of each; the nearest few are enough for three suggestions.
  const nearest = near.slice(0, 8);
  const metros = await metrosAt(
    reader,
    nearest.map((n) => point(n.value)),
  );
  const ranked = nearest.map((n, i): [number, number, number, string] => [
    n.distance,
    metros[i] !== null ? 0 : 1,
    -(n.population ?? -1),
    label(n.value),
  ]);
  ranked.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || (a[3] < b[3] ? -1 : 1));
  return [...new Set(ranked.map((r) => r[3]))].slice(0, 3);
}

/**
 * The city document that would hold normalised name `key` in `state`, or null when the version has none: one of the
 * state's split documents (meta.json gazetteer.cities), or in a version generated before the split its whole-state
 * document (gazetteer.states), so a new shim still serves an older published week.
 */
async function cityDocumentFor(
  reader: SiteReader,
  state: string,
  name: string,
): Promise<{ cities: Record<string, CityEntryT> } | null> {
  const g = reader.meta.gazetteer;
  if (g.cities !== undefined) {
    const starts = g.cities[state];
    const bucket = starts === undefined ? null : cityDocument(name, starts);
    if (bucket === null) return null;
    const key = keys.city(reader.version, state, bucket);
    // It carries its proof: read alone.
    if (reader.meta.gazetteer_root !== undefined) return readRequired(reader, key, CityGazetteer, LISTED);
    // Read beside its hash document when that is not cached yet (one round trip for the two).
    const drop = reader.prefetch?.([key], [keys.root(reader.version) + cityHashDoc(name)]);
    try {
      return await readRequired(reader, key, CityGazetteer, LISTED, await cityHash(reader, key, name));
    } finally {
      drop?.();
    }
  }
  return g.states?.includes(state) === true
    ? readRequired(reader, keys.cityState(reader.version, state), CityGazetteerState, LISTED)
    : null;
}

/**
 * The sha256 of city document `key` from the hashes/ document of the name's first character (cityHashDoc); undefined
 * when that document does not record it (the reader then looks in the one of the city document's own key).
 */
async function cityHash(reader: SiteReader, key: string, name: string): Promise<string | undefined> {
  const doc = cityHashDoc(name);
  if (reader.meta.sha256?.[doc] === undefined) return undefined;
  return (await reader.json(keys.root(reader.version) + doc, HashDoc))?.sha256[
    key.slice(keys.root(reader.version).length)
  ];
}

/**
 * The measured metro containing (lat, lng), or null when the point is outside every metro's coverage: from the point's
 * coverage piece when the version has them (a few KiB, coverage.ts), else from coverage-cells.json.
 */
export async function metroAt(reader: SiteReader, lat: number, lng: number): Promise<string | null> {
  const rel = coveragePiece(reader.meta, lat, lng);
  // The version has pieces, and none where the point is: no metro measures it.
  if (rel === null) return null;
  const key = rel === undefined ? keys.coverageCells(reader.version) : keys.root(reader.version) + rel;
  // Without the coverage cells, covered:false would be a guess passed off as an answer.
  return metroForPoint(await readRequired(reader, key, CoverageCells), lat, lng);
}

/**
 * Most coverage pieces a look-up of several points reads; past it, it reads coverage-cells.json whole (one object).
 * Candidates spread over the country lie in up to 9 pieces on the sample: 22 objects for a refusal where it read 16.
 */
export const MAX_PIECES = 3;

/**
 * The metros at several points (metroAt of each), their coverage read together in one round trip: the pieces holding
 * them, or coverage-cells.json whole when they lie in more than MAX_PIECES pieces.
 */
export async function metrosAt(reader: SiteReader, points: readonly [number, number][]): Promise<(string | null)[]> {
  const pieces = new Set(points.map(([lat, lng]) => coveragePiece(reader.meta, lat, lng)));
  pieces.delete(null);
  if (pieces.size <= MAX_PIECES) return Promise.all(points.map(([lat, lng]) => metroAt(reader, lat, lng)));
  const cells = await readRequired(reader, keys.coverageCells(reader.version), CoverageCells);
  return points.map(([lat, lng]) => metroForPoint(cells, lat, lng));
}

/** The entry of `city` in `state`, or null when the state has no place of that name. */
export async function cityEntry(reader: SiteReader, city: string, state: string): Promise<CityEntryT | null> {
  const key = normaliseCityName(city);
  return (await cityDocumentFor(reader, state, key))?.cities[key] ?? null;
}

/** A city as the caller sent it: name, state, input and where it came from; `nickname` when a nickname was read. */
export interface CityQuery {
  city: string;
  state: string;
  input: string;
  parameter?: string;
  nickname?: string;
  /** The name as sent, when `city` is the clear reading of a misspelling of it. */
  spelling?: string;
  /** A place or street address named inside the city (resolve-inside.ts). */
  inside?: { text: string; address: boolean };
  /** The text of "X in City" as one name, tried first. */
  whole?: string;
  /** Told the answer's point once it is known, before its metro is read (service-impl.ts starts the search from it). */
  onPoint?: (point: { lat: number; lng: number }) => void;
  /** The text as sent when the place came with words around it ("downtown Chicago"): its own note says where distances are from. */
  loosely?: string;
}

/** The note of a place answered at its centre point: distances are from there, not from the person. */
export function centreNote(place: string): string {
  return `Distances are from the centre point of ${place}, not from a street address; a ZIP code gives a closer point.`;
}

/**
 * The note for a state code that is also a covered city's nickname, when the literal reading is outside coverage and
 * the same name exists in that city's state inside it: "Venice LA" is read as Louisiana, and says Los Angeles was possible.
 */
async function otherReading(reader: SiteReader, q: CityQuery, entry: CityEntryT): Promise<string | null> {
  // Only when the state was written as the code ("Venice LA", "Venice, LA"), not spelt out ("Venice, Louisiana").
  const typed = new RegExp(String.raw`[\s,]${q.state}\.?\s*$`, 'i').test(q.input);
  const alt = typed ? nicknamePlace(q.state.toLowerCase()) : null;
  if (alt === null || alt.state === q.state) return null;
  const found = cityEntry(reader, q.city, alt.state);
  // The piece at the point the names document gives the name in that state (read for the city hint) is read beside
  // the other state's city document: the same point, so the note waits for no round trip of its own.
  void cityHint(reader, { kind: 'city', city: q.city, state: alt.state, input: q.input })
    .then((p) => (p === null ? null : metroAt(reader, p.lat, p.lng)))
    .catch(() => undefined);
  const other = await found;
  if (other === null || (await metroAt(reader, other.lat, other.lng)) === null) return null;
  return (
    `Read as ${entry.name}, ${US_STATES[q.state] ?? q.state} (${q.state}). "${q.state}" is also short for ${alt.city}: ` +
    `for ${other.name} in ${US_STATES[alt.state] ?? alt.state}, send "${other.name}, ${alt.state}".`
  );
}

/** The US places of a name (most populous first), from the names document of its prefix; empty when none. */
export async function namesakes(reader: SiteReader, name: string): Promise<NameEntryT[]> {
  const key = normaliseCityName(name);
  const listed = reader.meta.gazetteer.names;
  if (listed === undefined || key === '' || !listed.includes(namePrefix(key))) return [];
  const doc = await readRequired(reader, keys.names(reader.version, namePrefix(key)), NameGazetteer, LISTED);
  return doc.names[key] ?? [];
}

/** The entry "City, ST" names and the query it was read as (a misspelling's clear reading); rejects as resolveCity does. */
export async function locateCity(reader: SiteReader, q: CityQuery): Promise<{ q: CityQuery; entry: CityEntryT }> {
  const parameter = q.parameter ?? 'location';
  const key = normaliseCityName(q.city);
  const doc = await cityDocumentFor(reader, q.state, key);
  const entry = doc?.cities[key];
  if (entry !== undefined) return { q, entry };
  // "N. Las Vegas, NV", "Arlington Hts, IL": the name spelled out, before any spelling is corrected.
  const full = spelledOut(q.city);
  if (full !== q.city && q.spelling === undefined) {
    // Only a refusal falls back to the name as sent: a store failure is a 503, as for any read.
    const spelled = await locateCity(reader, { ...q, city: full }).catch((err: unknown) => {
      if (err instanceof ApiError) return null;
      throw err;
    });
    if (spelled !== null) return spelled;
  }
  const near = doc === null || key === '' ? [] : nearNames(key, Object.entries(doc.cities), (e) => e.population);
  const clear = clearReading(key, near);
  // One reading is clearly meant (far more populous than any other as near): answer it, and say so.
  if (clear !== null && q.spelling === undefined)
    return locateCity(reader, { ...q, city: clear.value.name, spelling: q.city });
  const close = await suggestions(
    reader,
    near,
    (e) => [e.lat, e.lng],
    (e) => e.name,
  );
  // "Chicago, IN": up to three places of the name in other states, from the names document.
  const other = close.length > 0 ? [] : (await namesakes(reader, q.city)).filter((e) => e[0] !== q.state).slice(0, 3);
  const hint =
    close.length > 0
      ? `Did you mean ${close.map((n) => JSON.stringify(`${n}, ${q.state}`)).join(' or ')}?`
      : other.length > 0
        ? `A place of that name is in ${other.map(([st]) => `${US_STATES[st] ?? st} (${st})`).join(', ')}: did you mean ` +
          `${other.map(([st, name]) => JSON.stringify(`${name}, ${st}`)).join(' or ')}? Check the state with the person`
        : 'Check the spelling and the state code';
  throw new ApiError(
    'location_not_understood',
    `No place named ${JSON.stringify(q.city)} is known in ${US_STATES[q.state] ?? q.state} (${q.state}). ` +
      `${hint}${close.length > 0 ? ' Or' : ', or'} send ${FORMS}.`,
    { parameter, accepted: ACCEPTED },
  );
}

/**
 * The public `location` of `entry`, found for `q` (locateCity): its metro and the notes an assistant must relay, the
 * last saying distances are from the place's centre point (`centre` false: the caller's own note says so).
 */
export async function cityLocation(
  reader: SiteReader,
  q: CityQuery,
  entry: CityEntryT,
  centre = q.loosely === undefined,
): Promise<LocationT> {
  q.onPoint?.({ lat: entry.lat, lng: entry.lng });
  const location: LocationT = {
    input: q.input,
    kind: 'city',
    lat: entry.lat,
    lng: entry.lng,
    zip: entry.zip,
    city: entry.name,
    state: q.state,
    metro: await metroAt(reader, entry.lat, entry.lng),
    source: entry.source,
    approximate: true,
  };
  const notes: string[] = [];
  if (q.nickname !== undefined) notes.push(`Read ${JSON.stringify(q.nickname)} as ${entry.name}, ${q.state}.`);
  if (q.spelling !== undefined)
    notes.push(
      `No place named ${JSON.stringify(q.spelling)} is known in ${q.state}; read as ${entry.name}, ${q.state}, the ` +
        'closest spelling and far the most populous. If the person meant another place, ask for their ZIP.',
    );
  if (entry.candidates > 1) {
    notes.push(
      `${entry.candidates} places named ${entry.name} in ${q.state}; chose the most populous` +
        (entry.population !== null ? ` (population ${entry.population.toLocaleString('en-US')})` : '') +
        '. For another one, send its ZIP or "lat,lng".',
    );
  }
  if (location.metro === null && q.nickname === undefined) {
    const other = await otherReading(reader, q, entry);
    if (other !== null) notes.push(other);
  }
  if (centre) notes.push(centreNote(`${entry.name}, ${q.state}`));
  if (notes.length > 0) location.note = notes.join(' ');
  return location;
}

/**
 * Resolve "City, ST" to the public `location` object (`inside` and `whole` are read by resolveCityQuery in
 * resolve-inside.ts, not here). Rejects ApiError `location_not_understood` for an unknown place, with close
 * spellings.
 */
export async function resolveCity(reader: SiteReader, q: CityQuery): Promise<LocationT> {
  const found = await locateCity(reader, q);
  return cityLocation(reader, found.q, found.entry);
}
