/**
 * Parsing of the `location` parameter into one of three forms (docs/CONTRACT.md, Location). Pure: no reads; resolution is resolve.ts.
 *
 * Accepted, after trimming:
 * - ZIP: `60601`; ZIP+4 as `60601-1234`, `60601 1234` or `606011234` (the +4 is dropped).
 * - City: `City, ST` with a USPS code of the 50 states, DC or PR, case-insensitive. The comma may be left out when the
 *   last word is such a code (`Austin TX`). A trailing `, USA`/`, US` is ignored. A trailing ZIP (`Chicago, IL 60601`,
 *   as in an address line) is used as the ZIP, being the more precise of the two.
 * - Point: `lat,lng` in decimal degrees, latitude -90..90, longitude -180..180.
 */
import { ApiError } from './errors.ts';
import type { LocationArg } from './params.ts';
import { nullProto } from './dict.ts';

/** USPS codes the gazetteer covers (50 states, DC, PR) with their names, sorted by code. */
export const US_STATES: Readonly<Record<string, string>> = nullProto({
  AK: 'Alaska', AL: 'Alabama', AR: 'Arkansas', AZ: 'Arizona', CA: 'California', CO: 'Colorado', CT: 'Connecticut',
  DC: 'District of Columbia', DE: 'Delaware', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', IA: 'Iowa', ID: 'Idaho',
  IL: 'Illinois', IN: 'Indiana', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', MA: 'Massachusetts', MD: 'Maryland',
  ME: 'Maine', MI: 'Michigan', MN: 'Minnesota', MO: 'Missouri', MS: 'Mississippi', MT: 'Montana', NC: 'North Carolina',
  ND: 'North Dakota', NE: 'Nebraska', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NV: 'Nevada',
  NY: 'New York', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania', PR: 'Puerto Rico', RI: 'Rhode Island',
  SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VA: 'Virginia', VT: 'Vermont',
  WA: 'Washington', WI: 'Wisconsin', WV: 'West Virginia', WY: 'Wyoming',
});

/** The USPS state codes the gazetteer covers, sorted. */
export const US_STATE_CODES: readonly string[] = Object.freeze(Object.keys(US_STATES).sort());

/** USPS codes of places with ZIP codes that the gazetteer does not cover (territories, military mail). */
const UNCOVERED_CODES: Readonly<Record<string, string>> = nullProto({
  AS: 'American Samoa', GU: 'Guam', MP: 'the Northern Mariana Islands', VI: 'the U.S. Virgin Islands', FM: 'Micronesia',
  MH: 'the Marshall Islands', PW: 'Palau', AA: 'military mail (AA)', AE: 'military mail (AE)', AP: 'military mail (AP)',
});

/** A location as the caller wrote it, parsed but not yet resolved. `parameter` names where it came from (default `location`). */
export type ParsedLocation =
  | { kind: 'zip'; zip: string; input: string; parameter?: string }
  | { kind: 'city'; city: string; state: string; input: string; parameter?: string }
  | { kind: 'point'; lat: number; lng: number; input: string; parameter?: string };

const FORMS = 'a 5-digit ZIP ("60601"), ZIP+4 ("60601-1234"), "City, ST" ("Austin, TX") or "lat,lng" ("41.88,-87.63")';
const ACCEPTED = ['ZIP', 'ZIP+4', 'City, ST', 'lat,lng'];

const ZIP_RE = /^(\d{5})(?:[-\s]?\d{4})?$/;
const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)`;
const POINT_RE = new RegExp(String.raw`^(${NUMBER})\s*,\s*(${NUMBER})$`);
const COUNTRY_SUFFIX_RE = /\s*,?\s*\b(?:u\.?s\.?a?\.?|united states(?: of america)?)$/i;
const TRAILING_ZIP_RE = /^(.*[^\s,])[\s,]+(\d{5}(?:-\d{4})?)$/;

function notUnderstood(detail: string, parameter: string): ApiError {
  return new ApiError('location_not_understood', detail, { parameter, accepted: ACCEPTED });
}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** The USPS code for a state written out in full ("texas" -> "TX"), or null. */
function codeOfStateName(name: string): string | null {
  const wanted = name.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const code of US_STATE_CODES) if (US_STATES[code]?.toLowerCase() === wanted) return code;
  return null;
}

function parsePoint(latText: string, lngText: string, input: string, parameter: string): ParsedLocation {
  const lat = Number(latText);
  const lng = Number(lngText);
  const latOk = lat >= -90 && lat <= 90;
  const lngOk = lng >= -180 && lng <= 180;
  if (latOk && lngOk) return { kind: 'point', lat, lng, input, parameter };
  const swapped = lng >= -90 && lng <= 90 && lat >= -180 && lat <= 180;
  throw new ApiError(
    'invalid_parameter',
    `${parameter} ${quote(input)} is not a valid "lat,lng": latitude must be from -90 to 90 and longitude from -180 to 180 (decimal degrees)` +
      (swapped ? `. It looks like "lng,lat"; send latitude first: "${lngText},${latText}".` : '.'),
    { parameter, accepted: ACCEPTED },
  );
}

function parseCity(cityText: string, stateText: string, input: string, parameter: string): ParsedLocation {
  const city = cityText.replace(/\s+/g, ' ').trim();
  if (!/\p{L}/u.test(city)) {
    throw notUnderstood(`${parameter} ${quote(input)} has no city name before the state; send ${FORMS}.`, parameter);
  }
  const st = stateText.trim();
  const code = st.toUpperCase().replace(/\./g, '');
  if (US_STATES[code] !== undefined) return { kind: 'city', city, state: code, input, parameter };
  const uncovered = UNCOVERED_CODES[code];
  if (uncovered !== undefined) {
    throw notUnderstood(
      `${parameter} ${quote(input)}: ${code} (${uncovered}) is not covered; locations must be in the 50 states, DC or Puerto Rico.`,
      parameter,
    );
  }
  const named = codeOfStateName(st);
  if (named !== null) {
    throw notUnderstood(`${parameter} ${quote(input)}: write the state as its 2-letter USPS code, e.g. ${quote(`${city}, ${named}`)}.`, parameter);
  }
  throw notUnderstood(
    `${parameter} ${quote(input)}: ${quote(st)} is not a USPS state code. Send "City, ST" where ST is one of ${US_STATE_CODES.join(' ')}.`,
    parameter,
  );
}

/**
 * Parse a `location` value into a ZIP, a city with its state, or a point.
 * Throws ApiError `location_not_understood` (unrecognised form, missing or unknown state) or `invalid_parameter`
 * (coordinates out of range); the detail names `parameter` and what is accepted.
 */
export function parseLocation(input: string, parameter = 'location'): ParsedLocation {
  let s = input.trim();
  if (s === '') throw notUnderstood(`${parameter} is empty; send ${FORMS}.`, parameter);

  const zip = ZIP_RE.exec(s);
  if (zip?.[1] !== undefined) return { kind: 'zip', zip: zip[1], input, parameter };

  const point = POINT_RE.exec(s);
  if (point?.[1] !== undefined && point[2] !== undefined) return parsePoint(point[1], point[2], input, parameter);

  if (/^[\d\s+.,-]+$/.test(s)) {
    const digits = s.replace(/\D/g, '');
    const hint =
      /^\d{4}$/.test(s) ? ` A ZIP has 5 digits; if a leading zero was lost, send ${quote(s.padStart(5, '0'))}.` :
      /^\d+$/.test(s) ? ' A ZIP has 5 digits (ZIP+4: 5 digits, a dash, 4 digits).' :
      digits.length > 0 ? ' Coordinates are two decimal numbers separated by one comma, latitude first, with a dot as decimal point.' : '';
    throw notUnderstood(`${parameter} ${quote(input)} is not understood; send ${FORMS}.${hint}`, parameter);
  }

  s = s.replace(COUNTRY_SUFFIX_RE, '').trim();
  const trailingZip = TRAILING_ZIP_RE.exec(s);
  if (trailingZip?.[1] !== undefined && trailingZip[2] !== undefined) {
    const stateBefore = /[,\s]\s*([A-Za-z.]{2,4})$/.exec(trailingZip[1])?.[1]?.toUpperCase().replace(/\./g, '') ?? '';
    // An address line's "City, ST 60601": the ZIP is the more precise of the two. Other trailing numbers fall through.
    if (US_STATES[stateBefore] !== undefined) return { kind: 'zip', zip: trailingZip[2].slice(0, 5), input, parameter };
  }

  const comma = s.lastIndexOf(',');
  if (comma >= 0) return parseCity(s.slice(0, comma), s.slice(comma + 1), input, parameter);

  const lastSpace = s.lastIndexOf(' ');
  const lastWord = lastSpace >= 0 ? s.slice(lastSpace + 1).toUpperCase().replace(/\./g, '') : '';
  if (lastSpace >= 0 && (US_STATES[lastWord] !== undefined || UNCOVERED_CODES[lastWord] !== undefined)) {
    return parseCity(s.slice(0, lastSpace), lastWord, input, parameter);
  }
  if (/\p{L}/u.test(s)) {
    throw notUnderstood(
      `${parameter} ${quote(input)} has no state; add the state's 2-letter USPS code after a comma, as ${quote(`${s}, ST`)} ` +
        `(e.g. "Springfield, IL"), or send a 5-digit ZIP or "lat,lng".`,
      parameter,
    );
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
