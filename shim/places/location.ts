/**
 * Parsing of the `location` parameter into one of its forms (docs/CONTRACT.md, Location). Pure: no reads; resolution is resolve.ts.
 *
 * Accepted, after trimming:
 * - ZIP: `60601`; ZIP+4 as `60601-1234`, `60601 1234` or `606011234` (the +4 is dropped).
 * - City: `City, ST` with a USPS code of the 50 states, DC or PR, or the state's name (`Anchorage, Alaska`),
 *   case-insensitive. The comma may be left out (`Austin TX`, `Austin Texas`). A trailing `, USA`/`, US` is ignored.
 *   A trailing ZIP (`Chicago, IL 60601`, `Chicago, Illinois 60606`, `IL 60601`, as in an address line) is used as the
 *   ZIP, being the more precise of the two, once resolve.ts has checked it lies in the state given; `ZIP 60601` too.
 *   A name or street address before a ZIP without a state (`Chicago 60601`) is the ZIP; resolve.ts notes a name that
 *   is not the ZIP's place.
 * - Words around a place (`downtown Chicago`, `near Austin, TX`, `the Denver area`; loose.ts): the place without them
 *   is kept beside the text as sent, and answered (with a note) only when the text as sent names no place.
 *   A curated nickname (nicknames.ts: `NYC`, `Philly`) stands for its city; a curated region (regions.ts: `Long
 *   Island`) is refused, naming cities in it.
 * - Name: a place name without a state (`Springfield`): resolve.ts answers it or names the candidates.
 * - Point: `lat,lng` in decimal degrees, or with degree signs and hemisphere letters (coordinates.ts).
 * A county or a street address without a ZIP is refused with what to send instead.
 */
import { regionAbroad } from './abroad.ts';
import { CoordinatesError, readCoordinates } from './coordinates.ts';
import { ApiError } from '../contract/errors.ts';
import { hereCore, looseCore } from './loose.ts';
import { lostZeroHint } from './lost-zero.ts';
import { nicknamePlace } from './nicknames.ts';
import { areaWordOf, regionOf, type Region } from './regions.ts';
import { nullProto } from '../format/dict.ts';
import { normaliseCityName } from '../format/site-format.ts';
import { STATE_NAME_MAX_WORDS, stateCodeOf, statesSpelledNear, US_STATE_CODES, US_STATES } from './state-names.ts';

/** The location form the caller used, before resolution. `input` is the location as sent. */
export type LocationArg =
  | { form: 'location'; value: string }
  | { form: 'zip'; zip: string }
  | { form: 'point'; lat: number; lng: number; input: string };

/** USPS codes of places with ZIP codes that the gazetteer does not cover (territories, military mail). */
const UNCOVERED_CODES: Readonly<Record<string, string>> = nullProto({
  AS: 'American Samoa',
  GU: 'Guam',
  MP: 'the Northern Mariana Islands',
  VI: 'the U.S. Virgin Islands',
  FM: 'Micronesia',
  MH: 'the Marshall Islands',
  PW: 'Palau',
  AA: 'military mail (AA)',
  AE: 'military mail (AE)',
  AP: 'military mail (AP)',
});

/** A location as the caller wrote it, parsed but not yet resolved. `parameter` names where it came from (default `location`). */
export type ParsedLocation =
  | {
      kind: 'zip';
      zip: string;
      input: string;
      parameter?: string;
      /** The USPS code of the state an address line gave with its ZIP ("Austin, TX 78701"), checked against the ZIP's. */
      stated?: string;
      /** The place name sent before the ZIP without a state ("Chicago 60601"), compared with the ZIP's place. */
      named?: string;
      /** The street address sent before the ZIP ("123 Main St 60601"), which the service does not locate. */
      street?: string;
      /** The text as sent when words around the place were left out ("near 60601"): the answer says how it was read. */
      loosely?: string;
    }
  | {
      kind: 'city';
      city: string;
      state: string;
      input: string;
      parameter?: string;
      nickname?: string;
      /** A place named inside the city ("Buckhead" of "Buckhead, Atlanta, GA"), or a street address (`address`). */
      inside?: { text: string; address: boolean };
      /** The text before the state as one name, tried first when "X in City" may be a name itself ("Lake in the Hills"). */
      whole?: string;
      /** The place without the words around it ("downtown Chicago, IL" -> Chicago, IL), answered when this one is unknown. */
      loose?: ParsedLocation;
      /** The text as sent when this is the place read without the words around it (see `loose`). */
      loosely?: string;
    }
  | {
      kind: 'name';
      name: string;
      input: string;
      parameter?: string;
      /** As for a city: the place without the words around it ("downtown Chicago" -> Chicago). */
      loose?: ParsedLocation;
      loosely?: string;
    }
  /** A place named with a country or province abroad ("Toronto, Canada"): refused, naming US places of its name. */
  | { kind: 'abroad'; place: string; region: string; input: string; parameter?: string }
  | { kind: 'point'; lat: number; lng: number; input: string; parameter?: string };

/** The accepted location forms, as a problem's `accepted` lists them. */
export const ACCEPTED = ['ZIP', 'ZIP+4', 'City, ST', 'lat,lng'];
/** The accepted location forms, as a problem's `detail` names them, with an example of each. */
export const FORMS =
  'a 5-digit ZIP ("60601"), ZIP+4 ("60601-1234"), "City, ST" ("Austin, TX") or "lat,lng" ("41.88,-87.63")';

const ZIP_RE = /^(\d{5})(?:[-\s]?\d{4})?$/;
// Never starting inside a run of spaces (where a start one space earlier matches the same): tried from every space of a
// long run, the pattern took time quadratic in it (5 ms for "60601" and 190 spaces).
const COUNTRY_SUFFIX_RE = /(?<!\s)\s*,?\s*\b(?:u\.?s\.?a?\.?|united states(?: of america)?)$/i;
/**
 * What an assistant's formatting puts before a value: markdown emphasis, code or quote marks, a list bullet or number,
 * a pin or other pictograph, a label ("Location:", "city="). A dash is one only before a space: "-87.63" is a number.
 */
const DECORATION_LEAD_RE =
  /^(?:[\s*_`~>•·◦▪‣→⇒➜➤★☆✓✔#]|[-–—](?=\s)|\p{Extended_Pictographic}|\d{1,2}[.)](?=\s)|(?:location|city|place|address|area|zip\s*code|zip)\s*[:=])+/iu;
/**
 * ...and after it: the closing marks and pictographs. Starting only where a run of them starts (as COUNTRY_SUFFIX_RE):
 * tried from every mark of a long run, the pattern took time quadratic in it (54 µs for 190 spaces; 1.5 µs now).
 */
const DECORATION_TRAIL_RE = /(?<![\s*_`~★☆✓✔]|\p{Extended_Pictographic})(?:[\s*_`~★☆✓✔]|\p{Extended_Pictographic})+$/u;
/** A value wrapped whole in straight or curly quotes. */
const WRAPPING_QUOTES_RE = /^["'“‘](.*)["'”’]$/s;
const TRAILING_ZIP_RE = /^(.*[^\s,:])[\s,:]+(\d{5}(?:-\d{4})?)$/;
/** Several ZIPs and nothing else ("60601 or 60602", "60601 and 60602", "60601/60602", "60601, 60602"). */
const ZIP_LIST_RE = /^\d{5}(?:-\d{4})?(?:\s*(?:[,;/&+|]|\s(?:or|and|to|vs\.?)\s)?\s*\d{5}(?:-\d{4})?)+$/i;
/** A ZIP as a spreadsheet prints a number ("60601.0"), or with the letter O for a zero ("6O601"). */
const ZIP_AS_NUMBER_RE = /^(\d{5})\.0+$/;
const ZIP_WITH_LETTER_O_RE = /^(?=(?:\D*\d){3})(?=.*[oO])[\doO]{5}$/;
/** The uncovered US areas by name (normalised as normaliseCityName folds it) -> UNCOVERED_CODES code. */
const UNCOVERED_NAMES: Readonly<Record<string, string>> = nullProto({
  guam: 'GU',
  americansamoa: 'AS',
  northernmarianaislands: 'MP',
  northernmarianas: 'MP',
  cnmi: 'MP',
  saipan: 'MP',
  usvirginislands: 'VI',
  virginislands: 'VI',
  usvi: 'VI',
  palau: 'PW',
  marshallislands: 'MH',
  micronesia: 'FM',
});
/** What may stand before a ZIP as its label: "ZIP", "zip code", "ZIP Code", "postal code". */
const ZIP_LABEL_RE = /^(?:zip(?:\s*code)?|postal\s+code)$/i;
/** A county, parish or borough named as the place ("Harris County", "Cook Co."). */
const COUNTY_RE = /^(.*\S)\s+(county|co\.?|parish|borough)$/i;
/** "X near City", "X in City": a place, landmark or road named beside the city it is in or near. */
const NEAR_RE = /^(.+?)\s+(?:near|in|by|off|outside(?: of)?|around|close to)\s+(.+)$/i;
/** Words for where the person is, which are not a place: the caller must ask for one. */
const HERE_RE =
  /^(?:(?:(?:lawyers?|attorneys?|law firms?)\s+)?(?:near|around|close to)\s+(?:me|here|us)|nearby|here|me|my (?:current )?location|current location|where i am|my area|local|(?:my |at )?(?:home|house|work|office|job)|my (?:place|neighbou?rhood|town|city)|any ?where|every ?where|unknown|none|n\/?a|not sure|i don'?t know|idk)$/i;
/** The country by a name COUNTRY_SUFFIX_RE leaves alone ("America" before a place is no part of its name). */
const COUNTRY_ALONE_RE = /^(?:the\s+)?(?:(?:united\s+states\s+of\s+)?america|united\s+states|u\.?s\.?a?\.?)$/i;
/** Two decimal numbers inside other text ("lat: 41.88, lng: -87.63", "@41.88,-87.63", a map link): a point, not a place. */
const EMBEDDED_PAIR_RE = /([+-]?\d{1,3}\.\d+)[^\d.]{1,16}?([+-]?\d{1,3}\.\d+)/;
/** Two numbers each written with a decimal comma, apart by a comma, a semicolon or a space ("41,88, -87,63"). */
const DECIMAL_COMMA_PAIR_RE = /^([+-]?\d{1,3}),(\d+)\s*(?:[,;]\s*|\s+)([+-]?\d{1,3}),(\d+)$/;
/** A state's name with the word "state" ("Washington state", "state of Washington"): [before "state", after "state of"]. */
const STATE_WORD_RE = /^(?:(.*\S)\s+state|state\s+of\s+(.+))$/i;
/** "City/ST", "City; ST", "City | ST", "City (ST)": a mark other than a comma between a city and (what may be) its state. */
const CITY_SLASH_STATE_RE =
  /^([^,/;|()]*\p{L}[^,/;|()]*?)\s*(?:[/;|]\s*(\p{L}[^,/;|()]*)|\(\s*(\p{L}[^,/;|()]*?)\s*\))$/u;
/** A direction or position before a state's name ("West Texas", "Upstate New York"): a part of the state. */
const PART_OF_STATE_RE =
  /^(?:north|south|east|west|(?:north|south)(?:east|west)|northern|southern|eastern|western|(?:north|south)(?:east|west)ern|central|middle|upstate|downstate|coastal|rural)$/i;
/** A street address: a house number, then a word ("350 5th Ave", "1600 Pennsylvania Ave NW"). */
const ADDRESS_RE = /^\d+[a-z]?\s+\S/i;

function notUnderstood(detail: string, parameter: string): ApiError {
  return new ApiError('location_not_understood', detail, { parameter, accepted: ACCEPTED });
}

function quote(s: string): string {
  return JSON.stringify(s);
}

function point(
  lat: number,
  lng: number,
  text: [string, string] | undefined,
  input: string,
  parameter: string,
): ParsedLocation {
  const latOk = lat >= -90 && lat <= 90;
  const lngOk = lng >= -180 && lng <= 180;
  if (latOk && lngOk) return { kind: 'point', lat, lng, input, parameter };
  // "60601 60602": two ZIPs (the person's and another, or a list), not a point out of range.
  if (text !== undefined && text.every((t) => /^\d{5}$/.test(t))) throw zipListRefusal(input, parameter);
  const swapped = lng >= -90 && lng <= 90 && lat >= -180 && lat <= 180;
  const [latText, lngText] = text ?? [String(lat), String(lng)];
  throw new ApiError(
    'invalid_parameter',
    `${parameter} ${quote(input)} is not a valid "lat,lng": latitude must be from -90 to 90 and longitude from -180 to 180 (decimal degrees)` +
      (swapped ? `. It looks like "lng,lat"; send latitude first: "${lngText},${latText}".` : '.'),
    { parameter, accepted: ACCEPTED },
  );
}

/**
 * The refusal of several ZIPs in one location ("60601 or 60602"): which one is the person's is theirs to say, so none is
 * picked (read as a ZIP after a street, the last one would be; "or" after a ZIP would be read as Oregon).
 */
function zipListRefusal(input: string, parameter: string): ApiError {
  return notUnderstood(
    `${parameter} ${quote(input)} holds more than one 5-digit ZIP code, not one place; send one ZIP: the person's own, where distances should be measured from (ask them which, if unsure).`,
    parameter,
  );
}

/** The refusal of a state named alone ("Texas", "Washington state"): the same words resolve-name.ts gives "TX". */
function stateRefusal(input: string, parameter: string): ApiError {
  return notUnderstood(
    `${parameter} ${quote(input)} names a state, not a place; ask the person for their city or ZIP, then send it as "City, ST" or a 5-digit ZIP.`,
    parameter,
  );
}

/** The refusal of a county: counties are not places the service resolves, and which part the person is in matters. */
function countyRefusal(input: string, county: string, parameter: string): ApiError {
  return notUnderstood(
    `${parameter} ${quote(input)} names a county (${county}); counties are not accepted, since distances need one point. ` +
      `Ask the person for their ZIP code or their city, and send it as a 5-digit ZIP or "City, ST".`,
    parameter,
  );
}

/** The refusal of a region ("Long Island"): not one point either, so the person is asked which of its cities, or their ZIP. */
function regionRefusal(input: string, region: Region, parameter: string): ApiError {
  const [first = '', second = ''] = region.cities;
  return notUnderstood(
    `${parameter} ${quote(input)} names a region (${region.name}), not one place; distances need one point. ` +
      `Ask the person which city they are in (its cities include ${region.cities.join('; ')}) or for their ZIP code, ` +
      `and send it as "City, ST" (${quote(first)}, ${quote(second)}) or a 5-digit ZIP.`,
    parameter,
  );
}

/**
 * The refusal of a part of a state or of a city named without which one ("West Texas", "Midtown", "the Panhandle"):
 * the gazetteer holds small places of those names (West, TX; Midtown, TN) that would be answered instead.
 */
function partRefusal(input: string, what: string, parameter: string): ApiError {
  return notUnderstood(
    `${parameter} ${quote(input)} names ${what}, not one place; distances need one point. ` +
      'Ask the person which city they are in, or for their ZIP code, and send it as "City, ST" or a 5-digit ZIP.',
    parameter,
  );
}

/**
 * The refusal of `s` (no comma) as a state named with a direction ("West Virginia") or a part of one ("West Texas",
 * "Central PA"), which the gazetteer would read as the town of West, TX (sent as "West, TX"); null for anything else.
 * `split` is splitTrailingState(s), passed when the caller has it.
 */
function partOfState(
  s: string,
  input: string,
  parameter: string,
  split = s.includes(',') ? null : splitTrailingState(s),
): ApiError | null {
  if (split === null || !PART_OF_STATE_RE.test(split[0].trim())) return null;
  if (stateCodeOf(s) !== null) return stateRefusal(input, parameter);
  return partRefusal(input, `part of ${US_STATES[stateCodeOf(split[1]) ?? ''] ?? split[1].trim()}`, parameter);
}

/** The refusal of a street address without its ZIP, naming the city when the address gives it. */
function addressRefusal(input: string, city: string | null, state: string | null, parameter: string): ApiError {
  const instead =
    city !== null && state !== null ? `the city as ${quote(`${city}, ${state}`)}` : 'the city as "City, ST"';
  // "30303 Atlanta": the number in front may be the ZIP, written before the city rather than after it.
  const lead = /^(\d{5})\s+[\p{L}(]/u.exec(input.trim())?.[1];
  const zipFirst = lead === undefined ? '' : ` If ${lead} is the ZIP code, send it alone: "${lead}".`;
  return notUnderstood(
    `${parameter} ${quote(input)} looks like a street address; street addresses are accepted only with their ZIP code. ` +
      `Send the address's 5-digit ZIP, or ${instead}, or the point as "lat,lng".${zipFirst}`,
    parameter,
  );
}

/** The state part of a "City, ST" form, or an error naming what is wrong with it. */
function stateOf(stateText: string, input: string, parameter: string): string {
  const st = stateText.trim();
  const code = stateCodeOf(st);
  if (code !== null) return code;
  const upper = st.toUpperCase().replace(/\./g, '');
  const uncovered = UNCOVERED_CODES[upper];
  if (uncovered !== undefined) {
    throw notUnderstood(
      `${parameter} ${quote(input)}: ${upper} (${uncovered}) is not covered; locations must be in the 50 states, DC or Puerto Rico.`,
      parameter,
    );
  }
  // "Ilinois", "Flordia": a state's name misspelt; named as a question, since the city must still be asked for with it.
  const near = statesSpelledNear(st);
  const city = input.slice(0, input.lastIndexOf(',')).trim();
  // "Buckhead, Atlanta", "Harlem, NYC": the part after the comma may be the city the place is in, named without its state.
  const inCity =
    city !== '' && /^\p{L}[\p{L} .'-]{2,}$/u.test(st.trim())
      ? ` If ${quote(st.trim())} is the city ${quote(city)} is in, send ${quote(`${city}, ${st.trim()}, ST`)} with the ` +
        "city's 2-letter state code."
      : '';
  const meant =
    near.length === 1 && city !== ''
      ? ` Did you mean ${quote(`${city}, ${near[0]}`)} (${US_STATES[near[0] ?? '']})? Send that if it is the person's state.`
      : inCity;
  throw notUnderstood(
    `${parameter} ${quote(input)}: ${quote(st)} is not a USPS state code.${meant} Send "City, ST" where ST is one of ${US_STATE_CODES.join(' ')} (or the state's name).`,
    parameter,
  );
}

function parseCity(cityText: string, stateText: string, input: string, parameter: string): ParsedLocation {
  const region = stateCodeOf(stateText.trim()) === null ? regionAbroad(stateText) : null;
  if (region !== null && /\p{L}/u.test(cityText)) {
    const place = cityText.split(',').at(-1)?.replace(/\s+/g, ' ').trim() ?? '';
    return { kind: 'abroad', place, region, input, parameter };
  }
  const state = stateOf(stateText, input, parameter);
  // "Buckhead, Atlanta, GA", "Brooklyn, New York, NY", "350 5th Ave, New York, NY": the last part is the city, the
  // ones before it a place or a street address inside it (resolve-inside.ts decides which, and how near).
  const all = cityText
    .split(',')
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '');
  // "Austin, Travis County, TX": a county beside a city adds nothing; "New York, New York, NY" names one place twice.
  const parts = all.filter(
    (p, i) => all.length === 1 || (!COUNTY_RE.test(p) && normaliseCityName(p) !== normaliseCityName(all[i + 1] ?? '')),
  );
  if (parts.length === 0) parts.push(...all.slice(-1));
  let city = parts[parts.length - 1] ?? '';
  let inside = parts.length > 1 ? parts.slice(0, -1).join(', ') : undefined;
  let whole: string | undefined;
  const near = inside === undefined ? NEAR_RE.exec(city) : null;
  if (near?.[1] !== undefined && near[2] !== undefined && /\p{L}/u.test(near[2])) {
    // "I-10 near Baytown", "Buckhead in Atlanta"; unless the whole is one name ("Lake in the Hills").
    whole = city;
    inside = near[1];
    city = near[2];
  }
  if (!/\p{L}/u.test(city)) {
    // "60601, Illinois": the number before the state may be the ZIP itself.
    const zip = /^\d{5}$/.test(city.trim())
      ? ` If ${city.trim()} is the ZIP code, send it alone: "${city.trim()}".`
      : '';
    throw notUnderstood(
      `${parameter} ${quote(input)} has no city name before the state; send ${FORMS}.${zip}`,
      parameter,
    );
  }
  if (ADDRESS_RE.test(city)) throw addressRefusal(input, null, state, parameter);
  const county = COUNTY_RE.exec(city);
  if (county !== null) throw countyRefusal(input, `${city}, ${state}`, parameter);
  const named = regionOf(normaliseCityName(city));
  if (named !== null && named.state === state) throw regionRefusal(input, named, parameter);
  const extra =
    inside === undefined
      ? {}
      : { inside: { text: inside, address: ADDRESS_RE.test(inside) }, ...(whole === undefined ? {} : { whole }) };
  const nick = nicknamePlace(normaliseCityName(city));
  if (nick !== null && nick.state === state)
    return { kind: 'city', city: nick.city, state, input, parameter, nickname: city, ...extra };
  return { kind: 'city', city, state, input, parameter, ...extra };
}

/** "City State" without a comma: the last one to three words when they name a state ("Austin TX", "Saint Paul Minnesota"). */
function splitTrailingState(s: string): [string, string] | null {
  const words = s.split(/\s+/);
  for (let n = Math.min(STATE_NAME_MAX_WORDS, words.length - 1); n >= 1; n--) {
    const tail = words.slice(-n).join(' ');
    if (
      stateCodeOf(tail) !== null ||
      (n === 1 && UNCOVERED_CODES[tail.toUpperCase().replace(/\./g, '')] !== undefined)
    ) {
      return [words.slice(0, -n).join(' '), tail];
    }
  }
  return null;
}

/**
 * Parse a `location` value into a ZIP, a city with its state, a name without a state, or a point.
 * Throws ApiError `location_not_understood` (unrecognised form, unknown state, a county, a street address) or
 * `invalid_parameter` (coordinates out of range); the detail names `parameter` and what is accepted.
 */
export function parseLocation(sent: string, parameter = 'location'): ParsedLocation {
  // Invisible format characters (a zero-width space, a BOM, a right-to-left override) and lone surrogates are no part
  // of a place: left out, so "60601" followed by a zero-width space is the ZIP, and none is echoed into an answer.
  const input = sent.replace(/[\p{Cf}\p{Cs}]/gu, '');
  // "**Dallas, TX**", "• Dallas, TX", "📍 Chicago", "Location: Dallas, TX": the place without the marks around it (read
  // with them, "TX**" was no state and "• Dallas" no place in Texas), echoed as sent.
  const bare = input.replace(DECORATION_LEAD_RE, '').replace(DECORATION_TRAIL_RE, '');
  if (bare !== input.trim() && /[\p{L}\d]/u.test(bare)) return { ...parseLocation(bare, parameter), input };
  // "Brooklyn near me", "near me 60601": read without those words first, so "me" is never taken for Maine.
  const here = hereCore(input);
  if (here !== null) return readLoosely(parseLocation(here, parameter), input);
  const plain = (): ParsedLocation => parsePlain(input, parameter);
  // "my area": the words for where the person is, before "area" is left out as words around a place named "my".
  if (HERE_RE.test(input.trim())) return plain();
  const core = looseCore(input.replace(COUNTRY_SUFFIX_RE, ''));
  if (core === null) return plain();
  // "the Bay Area", "Tampa Bay area", "central PA": a region or part of a state, with or without the words, is refused so.
  const region = regionOf(normaliseCityName(input)) ?? regionOf(normaliseCityName(core));
  if (region !== null) throw regionRefusal(input, region, parameter);
  const part = partOfState(input.trim(), input, parameter);
  if (part !== null) throw part;
  let loose: ParsedLocation;
  try {
    loose = { ...parsePlain(core, parameter), input };
  } catch {
    return plain();
  }
  if (loose.kind !== 'zip' && loose.kind !== 'city' && loose.kind !== 'name') return plain();
  loose.loosely = input.trim();
  // "near 60601": the ZIP is the place; no words around a ZIP make another one.
  if (loose.kind === 'zip') return loose;
  let whole: ParsedLocation;
  try {
    whole = plain();
  } catch {
    // "Chicago, IL area": the text as sent does not parse ("IL area" is no state); the place without the words does.
    return loose;
  }
  // "downtown Chicago": tried as a name first ("Near North Side, IL", "Central Islip" are places), then without.
  return whole.kind === 'city' || whole.kind === 'name' ? { ...whole, loose } : whole;
}

/** `parsed`, read from `input` without words around the place: the answer says how it was read. */
function readLoosely(parsed: ParsedLocation, input: string): ParsedLocation {
  if (parsed.kind !== 'zip' && parsed.kind !== 'city' && parsed.kind !== 'name') return { ...parsed, input };
  const loosely = input.trim();
  if (parsed.kind === 'zip') return { ...parsed, input, loosely };
  const loose = parsed.loose === undefined ? {} : { loose: readLoosely(parsed.loose, input) };
  return { ...parsed, input, loosely, ...loose };
}

/** parseLocation without leaving out the words around a place. */
function parsePlain(input: string, parameter: string): ParsedLocation {
  let s = input.trim();
  if (s === '') throw notUnderstood(`${parameter} is empty; send ${FORMS}.`, parameter);
  // "\"60601\"", "60601, USA": quotes the value was wrapped in, and the country, were read as part of it.
  s = s.replace(WRAPPING_QUOTES_RE, '$1').trim();
  // "Chicago!", "Chicago?": a sentence's mark, not part of the name (it was read as a misspelling of Chicago).
  s = s.replace(/(?<=\p{L})[!?]+$/u, '').trim();
  const country = COUNTRY_ALONE_RE.test(s);
  s = s.replace(COUNTRY_SUFFIX_RE, '').trim();
  if (s === '' || country) {
    throw notUnderstood(
      `${parameter} ${quote(input)} names the country, not a place; ask the person for their city or ZIP, then send ${FORMS}.`,
      parameter,
    );
  }

  const zip = ZIP_RE.exec(s);
  if (zip?.[1] !== undefined) return { kind: 'zip', zip: zip[1], input, parameter };
  if (ZIP_LIST_RE.test(s)) throw zipListRefusal(input, parameter);
  const zipLike = ZIP_AS_NUMBER_RE.exec(s)?.[1] ?? (ZIP_WITH_LETTER_O_RE.test(s) ? s.replace(/o/gi, '0') : null);
  if (zipLike !== null)
    throw notUnderstood(
      `${parameter} ${quote(input)} looks like the ZIP code ${zipLike} ` +
        `${s.includes('.') ? 'written as a number' : 'with the letter O for a zero'}; if it is, send "${zipLike}".`,
      parameter,
    );

  // "41,88, -87,63", "41,88;-87,63": a pair written with decimal commas, never read as other numbers or a place.
  const commas = DECIMAL_COMMA_PAIR_RE.exec(s);
  if (commas !== null) {
    const [, a, b, c, d] = commas;
    throw notUnderstood(
      `${parameter} ${quote(input)} looks like coordinates written with decimal commas; send "${a}.${b},${c}.${d}" ` +
        '(a dot as the decimal point, one comma between latitude and longitude).',
      parameter,
    );
  }

  let coordinates;
  try {
    // "(41.88, -87.63)", "[41.88, -87.63]": a pair as some tools print it.
    coordinates = readCoordinates(/^[([].*[)\]]$/.test(s) ? s.slice(1, -1).trim() : s);
  } catch (e) {
    if (e instanceof CoordinatesError)
      throw notUnderstood(`${parameter}: ${e.message}, as "lat,lng" ("41.88,-87.63").`, parameter);
    throw e;
  }
  if (coordinates !== null) return point(coordinates.lat, coordinates.lng, coordinates.text, input, parameter);

  // "1e1,-87", "NaN,NaN": numbers, though not as coordinates are written.
  const numberish = /^\s*[+-]?(?:[\d.]+(?:e[+-]?\d+)?|nan|inf(?:inity)?)\s*$/i;
  const parts = s.split(',');
  const pair = parts.length === 2 && parts.every((p) => numberish.test(p));
  if (/^[\d\s+.,-]+$/.test(s) || pair) {
    const digits = s.replace(/\D/g, '');
    const hint = /^\d{4}$/.test(s)
      ? ` A ZIP has 5 digits. ${lostZeroHint(s, quote(s.padStart(5, '0')))}`
      : /^\d+$/.test(s)
        ? ' A ZIP has 5 digits (ZIP+4: 5 digits, a dash, 4 digits).'
        : digits.length > 0 || pair
          ? ' Coordinates are two decimal numbers separated by one comma, latitude first, with a dot as decimal point.'
          : '';
    throw notUnderstood(`${parameter} ${quote(input)} is not understood; send ${FORMS}.${hint}`, parameter);
  }

  const embedded = EMBEDDED_PAIR_RE.exec(s);
  if (embedded?.[1] !== undefined && embedded[2] !== undefined) {
    // Read as "City, ST", the second number was refused as a state code, and the caller went off to ask for a city.
    throw notUnderstood(
      `${parameter} ${quote(input)} is not understood: it holds two numbers inside other text. If they are the ` +
        `person's own coordinates, send them alone as "${embedded[1]},${embedded[2]}" (latitude first); otherwise send ${FORMS}.`,
      parameter,
    );
  }

  const trailingZip = TRAILING_ZIP_RE.exec(s);
  if (trailingZip?.[1] !== undefined && trailingZip[2] !== undefined) {
    const before = trailingZip[1];
    const zip = trailingZip[2].slice(0, 5);
    // "ZIP 60601", "zip code: 60601": a label, not a place.
    if (ZIP_LABEL_RE.test(before)) return { kind: 'zip', zip, input, parameter };
    const comma = before.lastIndexOf(',');
    const split = comma >= 0 ? null : splitTrailingState(before);
    const stated =
      comma >= 0
        ? stateCodeOf(before.slice(comma + 1))
        : (stateCodeOf(before) ?? (split === null ? null : (stateCodeOf(split[1]) ?? split[1].toUpperCase())));
    // An address line's "City, ST 60601" (or "IL 60601"): the ZIP is the more precise of the two, and resolve.ts
    // refuses it when its state is not the one given. "Chicago 60601": resolve.ts compares the name with the ZIP's place.
    if (stated !== null) return { kind: 'zip', zip, input, parameter, stated };
    if (/\p{L}/u.test(before) && !before.includes(',')) {
      const text = before.replace(/\s+/g, ' ');
      // "123 Main St 60601": the ZIP is read; the street address is not located (the answer says so).
      return ADDRESS_RE.test(text)
        ? { kind: 'zip', zip, input, parameter, street: text }
        : { kind: 'zip', zip, input, parameter, named: text };
    }
  }

  // "Guam", "USVI": a US area the service does not cover, said so (it was "no US place name this service knows").
  const uncovered = UNCOVERED_CODES[UNCOVERED_NAMES[normaliseCityName(s)] ?? ''];
  if (uncovered !== undefined)
    throw notUnderstood(
      `${parameter} ${quote(input)} names ${uncovered}, which the service does not cover; locations must be in the 50 ` +
        'states, DC or Puerto Rico. It has no data there.',
      parameter,
    );
  if (HERE_RE.test(s)) {
    throw notUnderstood(
      `${parameter} ${quote(input)} does not name a place, and the service cannot tell where the person is. ` +
        'Ask the person for their city or ZIP code, then send it as "City, ST" or a 5-digit ZIP (or "lat,lng" from a device location they share).',
      parameter,
    );
  }
  // Whole, before a trailing state is split off: "South Florida" is a region, not a place named "South".
  const region = regionOf(normaliseCityName(s));
  if (region !== null) throw regionRefusal(input, region, parameter);
  const area = areaWordOf(normaliseCityName(s));
  if (area !== null) throw partRefusal(input, area, parameter);
  // "Washington state", "state of Washington": the state alone, refused as "Washington" the state would be (resolve-name.ts).
  const stateWord = STATE_WORD_RE.exec(s);
  const named = stateWord?.[1] ?? stateWord?.[2];
  if (named !== undefined && stateCodeOf(named) !== null) throw stateRefusal(input, parameter);
  // "Seattle, Washington state", "Seattle Washington state": the word after the state's name is no part of it.
  if (stateWord?.[1] !== undefined) {
    const before = stateWord[1];
    const comma = before.lastIndexOf(',');
    if (comma >= 0 ? stateCodeOf(before.slice(comma + 1)) !== null : splitTrailingState(before) !== null) s = before;
  }
  // "Chicago/IL", "Chicago / Illinois": a slash where the comma goes.
  const slash = CITY_SLASH_STATE_RE.exec(s);
  const slashState = slash?.[2] ?? slash?.[3];
  if (slash?.[1] !== undefined && slashState !== undefined && stateCodeOf(slashState) !== null)
    return parseCity(slash[1], slashState, input, parameter);
  const comma = s.lastIndexOf(',');
  if (comma >= 0) {
    // "123 Main St, Chicago IL": the last part is the city and its state without a comma between them.
    const last = s.slice(comma + 1);
    const split = stateCodeOf(last) === null ? splitTrailingState(last.trim()) : null;
    if (split !== null && /\p{L}/u.test(split[0]) && stateCodeOf(split[1]) !== null)
      return parseCity(`${s.slice(0, comma)}, ${split[0]}`, split[1], input, parameter);
    return parseCity(s.slice(0, comma), last, input, parameter);
  }

  const split = splitTrailingState(s);
  const part = partOfState(s, input, parameter, split);
  if (part !== null) throw part;
  if (split !== null && /\p{L}/u.test(split[0])) return parseCity(split[0], split[1], input, parameter);

  if (ADDRESS_RE.test(s)) throw addressRefusal(input, null, null, parameter);
  const county = COUNTY_RE.exec(s);
  if (county !== null) throw countyRefusal(input, s, parameter);
  if (/\p{L}/u.test(s)) {
    const nick = nicknamePlace(normaliseCityName(s));
    if (nick !== null) return { kind: 'city', city: nick.city, state: nick.state, input, parameter, nickname: s };
    return { kind: 'name', name: s.replace(/\s+/g, ' '), input, parameter };
  }
  throw notUnderstood(`${parameter} ${quote(input)} is not understood; send ${FORMS}.`, parameter);
}

/** The ParsedLocation of a validated location argument (params.ts): parses the `location` form, passes the others. */
export function parsedFromArg(arg: LocationArg): ParsedLocation {
  switch (arg.form) {
    case 'location':
      return parseLocation(arg.value, 'location');
    case 'zip':
      return { kind: 'zip', zip: arg.zip, input: arg.zip, parameter: 'zip' };
    case 'point':
      return { kind: 'point', lat: arg.lat, lng: arg.lng, input: arg.input, parameter: 'lat' };
  }
}
