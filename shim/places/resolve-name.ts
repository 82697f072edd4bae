/**
 * A place name sent without a state (docs/CONTRACT.md, Location): one place of that name, or one at least
 * DOMINANCE times as populous as the next, resolves with a note naming the others; several comparable places are
 * 400 `ambiguous_location` with the candidates, for the caller to ask the person which one.
 */
import { countryName, hasForeignLetters, localNameAbroad, regionAbroad } from './abroad.ts';
import { ApiError, type CandidateT } from '../contract/errors.ts';
import { readRequired, type SiteReader } from '../search/reader.ts';
import { ACCEPTED, FORMS } from './location.ts';
import { LISTED, metrosAt, namesakes, resolveCity, suggestions, type CityQuery } from './resolve-city.ts';
import { spelledOut } from './abbreviations.ts';
import { shapeHint } from './shape-hints.ts';
import { clearReading, nearNameEntries } from './spelling.ts';
import type { LocationT } from '../contract/schemas.ts';
import {
  keys,
  NameGazetteer,
  namePrefix,
  normaliseCityName,
  type NameEntryT,
  type NameGazetteerT,
} from '../format/site-format.ts';
import { isStateName, stateCodeOf, statesNamed, statesSpelledNear, US_STATES } from './state-names.ts';

/** A place is read as the one meant when its population is at least this many times the next same-named place's. */
export const DOMINANCE = 10;
/**
 * A place read without its state must have at least this many people (or be the city a nickname names): a smaller one is
 * more often a neighbourhood, park or part of a larger city elsewhere ("Central Park" was Central Park, WA; "Buckhead",
 * Atlanta's, was the town of Buckhead, GA), so the caller is asked rather than answered from it.
 */
export const SMALL_PLACE = 10_000;
/** Most candidates an ambiguous_location answer lists. */
export const MAX_CANDIDATES = 10;
/** Most other places a note names. */
const MAX_OTHERS = 5;

function placeList(entries: NameEntryT[], max: number): string {
  const shown = entries
    .slice(0, max)
    .map((e) => `${e[1]}, ${e[0]}`)
    .join('; ');
  return entries.length > max ? `${shown} and ${entries.length - max} more` : shown;
}

function noState(name: string, input: string, parameter: string, hint: string): ApiError {
  return new ApiError(
    'location_not_understood',
    `${parameter} ${JSON.stringify(input)} has no state${hint} Send the place as "City, ST" with the state's 2-letter code or name, or send ${FORMS}.`,
    { parameter, accepted: ACCEPTED },
  );
}

function notUnderstood(detail: string, parameter: string): ApiError {
  return new ApiError('location_not_understood', detail, { parameter, accepted: ACCEPTED });
}

/** A state's name sent as the place (`sent`: the parameter and its value, quoted). */
function stateNotPlace(sent: string, parameter: string): ApiError {
  return notUnderstood(
    `${sent} names a state, not a place; ask the person for their city or ZIP, then send it as "City, ST" or a 5-digit ZIP.`,
    parameter,
  );
}

/** A state's name misspelt (`codes`: the states it is one slip from) sent as the place. */
function stateSlip(sent: string, codes: readonly string[], parameter: string): ApiError {
  const named = codes.map((c) => US_STATES[c] ?? c).join(' or ');
  return notUnderstood(
    `${sent} looks like the name of a state (${named}) misspelt, and a state is not a place; ask the person for their ` +
      `city or ZIP, then send it as "City, ${codes.length === 1 ? codes[0] : 'ST'}" or a 5-digit ZIP.`,
    parameter,
  );
}

const OUTSIDE = 'the service covers US locations only (the 50 states, DC and Puerto Rico) and has no data there';

/** The US places of a name, as candidates (most populous first, at most MAX_CANDIDATES), with whether each is covered. */
async function candidatesOf(reader: SiteReader, entries: readonly NameEntryT[]): Promise<CandidateT[]> {
  const shown = entries.slice(0, MAX_CANDIDATES);
  const metros = await metrosAt(
    reader,
    shown.map((e) => [e[2], e[3]]),
  );
  return shown.map(([state, city], i) => ({ city, state, covered: metros[i] !== null }));
}

function candidateList(candidates: readonly CandidateT[]): string {
  return candidates.map((c) => `${c.city}, ${c.state} (${c.covered ? 'covered' : 'not covered'})`).join('; ');
}

/**
 * The refusal of a place abroad (`abroad`: "Toronto, Canada"), naming it first and the US places of the same name as
 * candidates: `ambiguous_location` when there are some, else `location_not_understood`.
 */
async function abroadRefusal(
  reader: SiteReader,
  q: { input: string; parameter?: string },
  abroad: string,
  entries: readonly NameEntryT[],
): Promise<ApiError> {
  const parameter = q.parameter ?? 'location';
  if (entries.length === 0) {
    return new ApiError(
      'location_not_understood',
      `${parameter} ${JSON.stringify(q.input)} is ${abroad}, outside the United States; ${OUTSIDE}. ` +
        'Tell the person so; if they are in the US, ask for their ZIP or "City, ST" and send that.',
      { parameter, accepted: ACCEPTED },
    );
  }
  const candidates = await candidatesOf(reader, entries);
  const first = candidates[0] as CandidateT;
  return new ApiError(
    'ambiguous_location',
    `${abroad} is outside the United States; ${OUTSIDE}. If the person means ${first.city}, ${first.state}, send ` +
      `${JSON.stringify(`${first.city}, ${first.state}`)}. Ask the person which one they mean (or for their ZIP). ` +
      `US places of that name, most populous first: ${candidateList(candidates)}.`,
    { parameter, accepted: ACCEPTED, candidates },
  );
}

/**
 * The refusal of a well-known part of a large city sent alone ("Pilsen", `parts`: the cities it is part of), naming
 * those cities first, then the US places and the place abroad of the same name: the person may be in any of them.
 */
async function partRefusal(
  reader: SiteReader,
  q: { name: string; parameter?: string },
  parts: readonly NameEntryT[],
  entries: readonly NameEntryT[],
  abroad: readonly [string, string, ...unknown[]] | undefined,
): Promise<ApiError> {
  const parameter = q.parameter ?? 'location';
  const candidates = await candidatesOf(reader, [...parts, ...entries]);
  const cities = parts.map((e) => `${e[1]}, ${e[0]}`).join(' and of ');
  const [one] = entries;
  const namesakes = [
    ...(one === undefined
      ? []
      : [entries.length === 1 ? `${one[1]}, ${one[0]}` : `places in ${entries.length} states`]),
    ...(abroad === undefined ? [] : [`${abroad[0]}, ${countryName(abroad[1])}`]),
  ];
  return new ApiError(
    'ambiguous_location',
    `${JSON.stringify(q.name)} is a neighbourhood of ${cities}${namesakes.length > 0 ? `, and the name of ${namesakes.join(' and of ')}` : ''}; ` +
      'the service holds no point for the neighbourhood and will not guess which is meant. Ask the person which one ' +
      `they mean (or for their ZIP, which gives the closest point). If they are in ${parts.length === 1 ? 'that city' : 'one of those cities'}, ` +
      'send their ZIP, or the city as "City, ST" to search from its centre. ' +
      `The ${parts.length === 1 ? 'city' : 'cities'} first${one === undefined ? '' : ', then the US places of that name'}: ${candidateList(candidates)}.`,
    { parameter, accepted: ACCEPTED, candidates },
  );
}

/** Reject a place named with a country or province abroad ("Toronto, Canada"), listing the US places of its name. */
export async function refuseAbroad(
  reader: SiteReader,
  q: { place: string; region: string; input: string; parameter?: string },
): Promise<never> {
  throw await abroadRefusal(reader, q, `${q.place}, ${q.region}`, await namesakes(reader, q.place));
}

/**
 * The most populous place of a name one edit away, as the names document records it beside the name (`rivals`, found
 * by the generator over every document), when it has more than `times` times the people of every place of the name
 * sent: the person may well have meant it ("Milwaukie" for Milwaukee, WI, "Huston" for Houston, TX).
 */
function largerNearSpelling(
  key: string,
  entries: readonly NameEntryT[],
  doc: NameGazetteerT,
  times: number,
): NameEntryT | null {
  const rival = doc.rivals?.[key];
  const largest = Math.max(0, ...entries.map((e) => e[4] ?? 0));
  return rival !== undefined && (rival[4] ?? 0) > times * largest ? rival : null;
}

/** Resolve a name without a state, or reject with `ambiguous_location` (candidates) or `location_not_understood`. */
export async function resolveName(
  reader: SiteReader,
  q: {
    name: string;
    input: string;
    parameter?: string;
    spelling?: boolean;
    onPoint?: CityQuery['onPoint'];
    loosely?: string;
  },
): Promise<LocationT> {
  const parameter = q.parameter ?? 'location';
  const key = normaliseCityName(q.name);
  const listed = reader.meta.gazetteer.names;
  // A version written before names without a state were indexed: ask for the state.
  if (listed === undefined || key === '') throw noState(q.name, q.input, parameter, '.');
  const prefix = namePrefix(key);
  const doc = listed.includes(prefix)
    ? await readRequired(reader, keys.names(reader.version, prefix), NameGazetteer, LISTED)
    : null;
  const entries = doc?.names[key];
  // A city abroad under its own name ("München", "Roma"), which the names document lists under its English one.
  const local = localNameAbroad(key);
  const abroad = doc?.abroad?.[key] ?? (local === null ? undefined : [local[0], local[1]]);
  // A well-known part of a large city ("Pilsen", "Bel Air"): asked about before a namesake answers or a place abroad
  // refuses the name (it was refused as Pilsen, Czechia, and answered from Bel Air, MD).
  const parts = doc?.parts?.[key];
  if (parts !== undefined && parts.length > 0) throw await partRefusal(reader, q, parts, entries ?? [], abroad);
  // The best-known holder of the name is abroad (Toronto, London): say so first, whatever the US namesakes. Not for a
  // state's name: "Virginia" is the state to a person asking here, never first Virginia, South Africa.
  if (abroad !== undefined && !isStateName(key))
    throw await abroadRefusal(reader, q, `${abroad[0]}, ${countryName(abroad[1])}`, entries ?? []);
  // A country or province named alone ("Canada", "Ontario"), when no US place of 10,000 people or more has its name:
  // it was "known only as Canada, KY, a small place". "Georgia" stays the state; "Lebanon" the US places, as before.
  // (The country names are built on first use, about 15 ms once per process: asked only when no large place has the name.)
  const small = (entries ?? []).every((e) => (e[4] ?? 0) < SMALL_PLACE);
  const country = !small || isStateName(key) ? null : regionAbroad(q.name);
  if (country !== null) throw await abroadRefusal(reader, q, country, entries ?? []);
  if (entries === undefined || entries.length === 0) {
    // "N Las Vegas", "Colorado Spgs": the name spelled out, before it is read as a state's or corrected.
    const full = spelledOut(q.name);
    if (full !== q.name && q.spelling !== true) {
      // A store failure is a 503, as for any read; a refusal of the spelled-out name is the answer when the name is
      // known that way ("W Springfield" asks which West Springfield), else the name as sent is read on.
      const spelled = await resolveName(reader, { ...q, name: full }).catch((err: unknown) => {
        if (err instanceof ApiError && err.code !== 'ambiguous_location') return null;
        throw err;
      });
      if (spelled !== null) return spelled;
    }
    const sent = `${parameter} ${JSON.stringify(q.input)}`;
    // "TX" alone is a state too; "unknown" or "N/A" told only "has no state" read as if a state would make them places.
    // Before any spelling is corrected: "Missouri" was read as Missoula, MT, one slip away.
    if (isStateName(key) || stateCodeOf(q.name) !== null) throw stateNotPlace(sent, parameter);
    // A state's name one slip away ("Tennesee"): the state, not the village it is also a slip of (Tennessee, IL).
    const slipOf = q.spelling === true ? [] : statesSpelledNear(q.name);
    if (slipOf.length > 0) throw stateSlip(sent, slipOf, parameter);
    const near = doc === null ? [] : nearNameEntries(key, doc.names);
    // A name with letters of another language ("München") is more likely a place abroad than a slip of a US name
    // spelled otherwise (Muncie, IN): it is never read as one without asking; the close names are offered instead.
    const foreign = hasForeignLetters(q.name);
    const clear = q.spelling === true || foreign ? null : clearReading(key, near);
    const [top, second] = clear?.value ?? [];
    // A place's name with an "s" added is more often the region around it than a slip ("Hamptons" was answered from
    // Hampton, VA; "Catskills", "Ozarks"): offered, never read without asking.
    const plural = top !== undefined && key.endsWith('s') && normaliseCityName(top[1]) === key.slice(0, -1);
    if (top !== undefined && !plural && (second === undefined || (top[4] ?? 0) >= DOMINANCE * (second[4] ?? 0))) {
      // One reading is clearly meant ("Pheonix"): answer it as that name would be, and say which spelling was read.
      const location = await resolveName(reader, { ...q, name: top[1], spelling: true });
      const read = `No place named ${JSON.stringify(q.name)} is known; read as ${top[1]}, the closest spelling and far the most populous.`;
      location.note = location.note === undefined ? read : `${read} ${location.note}`;
      return location;
    }
    const close = await suggestions(
      reader,
      near,
      (es) => [es[0]?.[2] ?? 0, es[0]?.[3] ?? 0],
      (es) => `${es[0]?.[1]}, ${es[0]?.[0]}`,
    );
    const elsewhere = (foreign ? ` If it is a place outside the United States, ${OUTSIDE}.` : '') + shapeHint(q.input);
    if (close.length === 0)
      throw notUnderstood(
        `${sent} is no US place name this service knows (and no state was sent with it).${elsewhere} If it is a place, send it as ` +
          `"City, ST" with the state's 2-letter code or name; otherwise ask the person for their city or ZIP, and send ${FORMS}.`,
        parameter,
      );
    throw noState(
      q.name,
      q.input,
      parameter,
      `, and no US place is named ${JSON.stringify(q.name)}.${elsewhere} Did you mean ${close.map((c) => JSON.stringify(c)).join(' or ')}?`,
    );
  }
  const [top, second] = entries as [NameEntryT, ...NameEntryT[]];
  const topPopulation = top[4];
  const dominant = second === undefined || (topPopulation !== null && topPopulation >= DOMINANCE * (second[4] ?? 0));
  // "Washington" is also a state: unless the place is that state's own namesake ("New York"), ask.
  const stateToo = isStateName(key) && normaliseCityName(US_STATES[top[0]] ?? '') !== key;
  // A far larger place one spelling away is asked about rather than passed over: answering Milwaukie, OR to a person
  // in Milwaukee who slipped a letter would list lawyers two thousand miles away. Beside places that are asked about
  // anyway, it is named when it is larger than all of them.
  const rival =
    doc === null || q.spelling === true
      ? null
      : largerNearSpelling(key, entries, doc, dominant && !stateToo ? DOMINANCE : 1);
  if (rival !== null) {
    const candidates = await candidatesOf(reader, [rival, ...entries]);
    const [meant, ...named] = candidates as [CandidateT, ...CandidateT[]];
    throw new ApiError(
      'ambiguous_location',
      `${JSON.stringify(q.name)} is the name of ${entries.length === 1 ? `${top[1]}, ${top[0]}` : `places in ${entries.length} states`}, ` +
        `but ${meant.city}, ${meant.state}, one letter away, is far more populous than ${entries.length === 1 ? 'it' : 'any of them'}; ` +
        `the service will not guess. Ask the person which one they mean (or for their ZIP), then send it as "City, ST". ` +
        `Most populous first: ${candidateList([meant, ...named])}.`,
      { parameter, accepted: ACCEPTED, candidates },
    );
  }
  if (dominant && !stateToo && (topPopulation === null || topPopulation < SMALL_PLACE)) {
    const candidates = await candidatesOf(reader, entries);
    const people =
      topPopulation === null
        ? 'a place whose population it does not hold'
        : `a place of ${topPopulation.toLocaleString('en-US')} people`;
    throw new ApiError(
      'ambiguous_location',
      `${JSON.stringify(q.name)} without a state is known to this service only as ${top[1]}, ${top[0]}, ${people}` +
        `${entries.length > 1 ? ` (or smaller places: ${placeList(entries.slice(1), MAX_OTHERS)})` : ''}; the service will not guess ` +
        `that the person is there: the name may be a neighbourhood, park or part of a city elsewhere. Ask the person which ` +
        `city and state they are in (or for their ZIP); send "${top[1]}, ${top[0]}" if they are there, or the part with its ` +
        `city as "${q.name}, City, ST".`,
      { parameter, accepted: ACCEPTED, candidates },
    );
  }
  if (dominant && !stateToo) {
    const location = await resolveCity(reader, {
      city: top[1],
      state: top[0],
      input: q.input,
      parameter,
      onPoint: q.onPoint,
      ...(q.loosely === undefined ? {} : { loosely: q.loosely }),
    });
    const others = entries.slice(1);
    const read =
      `No state was given; read as ${top[1]}, ${top[0]}` +
      (topPopulation === null ? '' : ` (population ${topPopulation.toLocaleString('en-US')})`) +
      // The names document keeps one place per state: a state may hold more of the name (resolveCity names them), and
      // a neighbourhood the gazetteer does not hold may share it, so no more is claimed than that.
      (others.length === 0
        ? '; no other state has a place of that name that this service knows.'
        : `. Other places of that name: ${placeList(others, MAX_OTHERS)}; if the person meant one of those, send it as "City, ST".`);
    location.note = location.note === undefined ? read : `${read} ${location.note}`;
    return location;
  }
  const candidates = await candidatesOf(reader, entries);
  const shown = candidates;
  const list = candidateList(candidates);
  throw new ApiError(
    'ambiguous_location',
    `${JSON.stringify(q.name)} is the name of ${entries.length === 1 ? `${top[1]}, ${top[0]}` : `places in ${entries.length} states`}${stateToo ? `, and of a state (${statesNamed(key) ?? 'a state'})` : ''}; ` +
      `the service will not guess. Ask the person which one they mean (or for their ZIP), then send it as "City, ST". ` +
      `Most populous first${entries.length > shown.length ? ` (the ${shown.length} largest)` : ''}: ${list}.`,
    { parameter, accepted: ACCEPTED, candidates },
  );
}
