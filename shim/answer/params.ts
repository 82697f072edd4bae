/**
 * Validation of attorney-search arguments, shared by REST (query-string values: strings, string[] when repeated)
 * and MCP (JSON values), so both give the same codes and messages (docs/CONTRACT.md).
 */
import { LIMIT, PRACTICE_AREAS, RADIUS_MILES, SRC_MAX_LENGTH } from '../contract/constants.ts';
import { ApiError } from '../contract/errors.ts';
import { ATTORNEYS_PARAMS, AttorneysQuery } from '../contract/query-schema.ts';
import type { LocationArg } from '../places/location.ts';
import { lostZeroHint } from '../places/lost-zero.ts';
import { BOUNDARY_TILES } from '../format/site-format.ts';

/** Whether lat=`lngN`&lng=`latN` (the pair the other way round) lies in the box holding every US region. */
function swappedLooksUs(latN: number, lngN: number): boolean {
  const [w, south, e, north] = BOUNDARY_TILES.bbox;
  return lngN >= south && lngN <= north && latN >= w && latN <= e;
}

/** Raw attorney-search arguments: REST passes query-string values (strings, possibly repeated), MCP passes JSON values. */
export type RawArgs = Record<string, unknown>;

/** A validated attorney search. radiusMiles in miles. */
export interface AttorneysArgs {
  location: LocationArg;
  radiusMiles: number;
  limit: number;
  practiceArea: (typeof PRACTICE_AREAS)[number];
  src: string | null;
}

const LOCATION_MAX_LENGTH = AttorneysQuery.shape.location.unwrap().maxLength ?? 200;
const LOCATION_FORMS = ['location', 'zip', 'lat+lng'];
const ACCEPTED_PARAMS: string[] = [...ATTORNEYS_PARAMS];
/** Plain decimal numbers only: no hex, exponents, Infinity, or surrounding space (which Number() would accept). */
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
const ZIP_RE = /^\d{5}$/;
/** Control, format, surrogate, private-use and unassigned code points are not printable. */
const UNPRINTABLE_RE = /\p{C}/u;
const CONTROL_RE = /\p{Cc}/u;

/** Names callers commonly send by mistake, and the accepted parameter they meant. */
const ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    radius: 'radius_miles',
    distance: 'radius_miles',
    miles: 'radius_miles',
    within: 'radius_miles',
    latitude: 'lat',
    longitude: 'lng',
    lon: 'lng',
    long: 'lng',
    zipcode: 'zip',
    zip_code: 'zip',
    postal_code: 'zip',
    postcode: 'zip',
    q: 'location',
    query: 'location',
    near: 'location',
    address: 'location',
    city: 'location',
    loc: 'location',
    max_results: 'limit',
    count: 'limit',
    per_page: 'limit',
    page_size: 'limit',
    num: 'limit',
    practice: 'practice_area',
    category: 'practice_area',
    source: 'src',
  }),
);

/** Names of paging parameters: there is no paging, and the refusal says what gives more firms instead. */
const PAGING = new Set(['page', 'offset', 'skip', 'start', 'cursor', 'page_number', 'pagenumber', 'next', 'after']);
const NO_PAGING =
  `There is no paging: one answer gives the nearest firms, up to ${LIMIT.max} (limit); for firms farther away, send a ` +
  `larger radius_miles (up to ${RADIUS_MILES.max}).`;

/** A distance with its unit ("5 km", "5km", "10 miles"): the number and whether the unit is kilometres. */
const WITH_UNIT_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(km|kms|kilomet(?:er|re)s?|mi|mile|miles)\.?\s*$/i;

/**
 * What to send for a radius written with its unit, or null: kilometres converted to miles ("5 km is about 3.1
 * miles; send radius_miles=3.1"), clamped to the accepted range; miles as the number alone.
 */
function radiusUnitHint(value: unknown): string | null {
  const m = typeof value === 'string' ? WITH_UNIT_RE.exec(value) : null;
  if (m?.[1] === undefined || m[2] === undefined) return null;
  const n = Number(m[1]);
  if (!/^k/i.test(m[2])) {
    return n >= RADIUS_MILES.min && n <= RADIUS_MILES.max ? `send the number alone: radius_miles=${m[1]}.` : null;
  }
  const miles = Math.round((n / 1.609344) * 10) / 10;
  const about = `${m[1]} km is about ${miles} ${miles === 1 ? 'mile' : 'miles'}`;
  if (miles < RADIUS_MILES.min)
    return `${about}, less than the smallest radius; send radius_miles=${RADIUS_MILES.min}.`;
  if (miles > RADIUS_MILES.max) return `${about}, more than the largest radius; send radius_miles=${RADIUS_MILES.max}.`;
  return `${about}; send radius_miles=${miles}.`;
}

/** A decimal number written with a comma ("41,88", "-87,63"): the same number with a dot, or null. */
function decimalComma(value: unknown): string | null {
  return typeof value === 'string' && /^\s*[+-]?\d+,\d+\s*$/.test(value) ? value.trim().replace(',', '.') : null;
}

/** `value` written as a decimal number with a hemisphere letter of `letters` after or before it, as the signed number; else null. */
function hemisphere(value: unknown, letters: 'NS' | 'EW'): string | null {
  if (typeof value !== 'string') return null;
  const m = /^\s*(?:([NSEW])\s*)?(\d{1,3}(?:\.\d+)?)\s*°?\s*([NSEW])?\s*$/i.exec(value);
  const letter = (m?.[1] ?? m?.[3])?.toUpperCase();
  if (m === null || letter === undefined || (m[1] !== undefined && m[3] !== undefined) || !letters.includes(letter))
    return null;
  return letter === 'S' || letter === 'W' ? `-${m[2]}` : (m[2] ?? null);
}

/** The accepted parameter an unknown name most likely meant, or null. */
function suggestion(name: string): string | null {
  const n = name.toLowerCase().replace(/-/g, '_');
  if (ACCEPTED_PARAMS.includes(n)) return n;
  return ALIASES.get(n) ?? null;
}

/** A caller's value as a refusal names it: a string quoted (cut at 40 characters), else its value or its type. */
export function describeValue(value: unknown): string {
  if (value === '') return 'an empty value';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a value of type ${Array.isArray(value) ? 'array' : typeof value}`;
}

function invalid(parameter: string, detail: string): ApiError {
  return new ApiError('invalid_parameter', detail, { parameter });
}

/** A number from a query-string value or a JSON number; null when it is neither. */
function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && DECIMAL_RE.test(value)) return Number(value);
  return null;
}

function numberInRange(name: string, value: unknown, min: number, max: number, what: string, integer: boolean): number {
  const n = toNumber(value);
  const kind = integer ? 'an integer' : 'a number';
  if (n === null || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw invalid(
      name,
      `${name} must be ${kind} from ${min} to ${max}${what}; got ${n === null ? describeValue(value) : String(value)}.`,
    );
  }
  return n;
}

/** A JSON number sent where text is expected (MCP): "got 60601" alone reads as if the ZIP itself were wrong. */
function numberSent(value: number): string {
  const text = String(value);
  return `got the number ${text}; send it as a string${/^\d{5}$/.test(text) ? `, "${text}"` : ''}.`;
}

function stringValue(name: string, value: unknown, accepted: string): string {
  if (typeof value === 'number') throw invalid(name, `${name} must be ${accepted}; ${numberSent(value)}`);
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(name, `${name} must be ${accepted}; got ${describeValue(value)}.`);
  }
  return value;
}

/** Validate raw arguments into an AttorneysArgs, or throw ApiError with the code and a detail naming the parameter and what is accepted. */
export function parseAttorneysArgs(raw: RawArgs): AttorneysArgs {
  // Own names only (Object.keys), so nothing inherited from Object.prototype ever counts as sent.
  const given = Object.keys(raw).filter((k) => raw[k] !== undefined);

  // Unknown names first: a typo such as radius= must not be reported as some other problem.
  for (const name of given) {
    if (!ACCEPTED_PARAMS.includes(name)) {
      const hint = suggestion(name);
      const key = name.toLowerCase().replace(/-/g, '_');
      let more = '';
      if (PAGING.has(key)) more = ` ${NO_PAGING}`;
      else {
        // "radius=5km", "radius_km=5": the unit matters as much as the name.
        const kmName = /km|kilomet/.test(key);
        const meant = hint ?? (kmName ? 'radius_miles' : null);
        const sent = kmName ? `${String(raw[name]).replace(/\s*(?:km|kms|kilomet\w*)\s*$/i, '')} km` : raw[name];
        const unit = meant === 'radius_miles' ? radiusUnitHint(sent) : null;
        if (meant !== null) more = ` Did you mean ${meant}?${unit === null ? '' : ` It is in miles: ${unit}`}`;
      }
      throw new ApiError(
        'unknown_parameter',
        `Unknown parameter ${JSON.stringify(name)}.${more} Accepted parameters: ${ACCEPTED_PARAMS.join(', ')}.`,
        { parameter: name, accepted: ACCEPTED_PARAMS },
      );
    }
  }
  for (const name of given) {
    const value = raw[name];
    if (Array.isArray(value)) {
      throw invalid(
        name,
        `${name} was given ${value.length === 1 ? 'as a list' : `${value.length} times`}; send it once, as a single value.`,
      );
    }
  }

  const has = (name: string): boolean => given.includes(name);
  const forms = [has('location') && 'location', has('zip') && 'zip', (has('lat') || has('lng')) && 'lat+lng'].filter(
    (f): f is string => typeof f === 'string',
  );
  if (forms.length === 0) {
    throw new ApiError(
      'location_required',
      'A location is required: send exactly one of location (a 5-digit ZIP, ZIP+4, "City, ST" or "lat,lng"), zip (5 digits), or lat with lng.',
      { parameter: 'location', accepted: LOCATION_FORMS },
    );
  }
  if (forms.length > 1) {
    throw new ApiError(
      'invalid_parameter',
      `Send exactly one location form (location, zip, or lat with lng); got ${forms.join(' and ')}.`,
      { parameter: forms.join(','), accepted: LOCATION_FORMS },
    );
  }

  let location: LocationArg;
  if (has('location')) {
    const value = stringValue(
      'location',
      raw.location,
      `a 5-digit ZIP, ZIP+4, "City, ST" or "lat,lng" of at most ${LOCATION_MAX_LENGTH} characters`,
    );
    if ([...value].length > LOCATION_MAX_LENGTH || CONTROL_RE.test(value)) {
      throw invalid(
        'location',
        `location must be a 5-digit ZIP, ZIP+4, "City, ST" or "lat,lng" of at most ${LOCATION_MAX_LENGTH} printable characters.`,
      );
    }
    location = { form: 'location', value };
  } else if (has('zip')) {
    const value = raw.zip;
    if (typeof value !== 'string' || !ZIP_RE.test(value)) {
      // A ZIP of New England or New Jersey read as a number loses its leading zero ("02139" -> 2139).
      const text = typeof value === 'number' ? String(value) : value;
      const lostZero = typeof text === 'string' && /^\d{4}$/.test(text);
      throw invalid(
        'zip',
        `zip must be a 5-digit US ZIP code such as "60601" (for ZIP+4 use location); ` +
          (typeof value === 'number' ? numberSent(value) : `got ${describeValue(value)}.`) +
          (lostZero ? ` ${lostZeroHint(text, `zip=${text.padStart(5, '0')}`)}` : ''),
      );
    }
    location = { form: 'zip', zip: value };
  } else {
    if (!has('lat') || !has('lng')) {
      const missing = has('lat') ? 'lng' : 'lat';
      throw invalid(
        missing,
        `lat and lng must be sent together; ${missing} is missing. Or use location or zip instead.`,
      );
    }
    const [latN, lngN] = [toNumber(raw.lat), toNumber(raw.lng)];
    // A longitude sent as lat (|lat| > 90) with a latitude as lng: name the pair the other way round, when that pair
    // lies where the US does (the boundary tiles' box); lat=91&lng=0 swapped is no US point, so no swap is suggested.
    if (latN !== null && lngN !== null && Math.abs(latN) > 90 && swappedLooksUs(latN, lngN)) {
      throw invalid(
        'lat',
        `lat must be a number from -90 to 90 (decimal degrees); got ${String(raw.lat)}. The two look swapped: ` +
          `send lat=${String(raw.lng)}&lng=${String(raw.lat)} (latitude first; US longitudes are negative).`,
      );
    }
    // "41,88": a decimal comma, as much of Europe writes it; named with the pair to send, never read otherwise.
    const [latDot, lngDot] = [decimalComma(raw.lat), decimalComma(raw.lng)];
    if (latDot !== null || lngDot !== null) {
      const bad = latDot !== null ? 'lat' : 'lng';
      throw invalid(
        bad,
        `${bad} must be a number from ${bad === 'lat' ? '-90 to 90' : '-180 to 180'} (decimal degrees); got ${describeValue(raw[bad])}. ` +
          `Use a dot as the decimal point: send lat=${latDot ?? String(raw.lat)}&lng=${lngDot ?? String(raw.lng)}.`,
      );
    }
    // "41.88N", "87.63 W": a hemisphere letter, which the number itself carries as its sign (W and S negative).
    const [latH, lngH] = [hemisphere(raw.lat, 'NS'), hemisphere(raw.lng, 'EW')];
    if (latH !== null || lngH !== null) {
      const bad = latH !== null ? 'lat' : 'lng';
      throw invalid(
        bad,
        `${bad} must be a number from ${bad === 'lat' ? '-90 to 90' : '-180 to 180'} (decimal degrees); got ${describeValue(raw[bad])}. ` +
          `Write the hemisphere as the sign (S and W negative, N and E positive): send lat=${latH ?? String(raw.lat)}&lng=${lngH ?? String(raw.lng)}.`,
      );
    }
    const lat = numberInRange('lat', raw.lat, -90, 90, ' (decimal degrees)', false);
    const lng = numberInRange('lng', raw.lng, -180, 180, ' (decimal degrees)', false);
    location = { form: 'point', lat, lng, input: `${String(raw.lat)},${String(raw.lng)}` };
  }

  const unit = has('radius_miles') ? radiusUnitHint(raw.radius_miles) : null;
  if (unit !== null) {
    throw invalid(
      'radius_miles',
      `radius_miles must be a number from ${RADIUS_MILES.min} to ${RADIUS_MILES.max} (miles); got ${describeValue(raw.radius_miles)}. ` +
        `radius_miles is in miles: ${unit}`,
    );
  }
  const radiusMiles = has('radius_miles')
    ? numberInRange('radius_miles', raw.radius_miles, RADIUS_MILES.min, RADIUS_MILES.max, ' (miles)', false)
    : RADIUS_MILES.default;
  const limitN = toNumber(raw.limit);
  if (has('limit') && limitN !== null && Number.isInteger(limitN) && limitN > LIMIT.max) {
    throw invalid(
      'limit',
      `limit must be an integer from ${LIMIT.min} to ${LIMIT.max} (firms); got ${String(raw.limit)}. The ${LIMIT.max} ` +
        `nearest firms are the most one answer gives, by design, and there is no paging: send limit=${LIMIT.max}, ` +
        'or a smaller radius_miles to narrow the answer.',
    );
  }
  const limit = has('limit')
    ? numberInRange('limit', raw.limit, LIMIT.min, LIMIT.max, ' (firms)', true)
    : LIMIT.default;

  if (has('practice_area')) {
    const value = raw.practice_area;
    if (!(PRACTICE_AREAS as readonly unknown[]).includes(value)) {
      throw new ApiError(
        'practice_area_unsupported',
        // A model told "car_accident is not supported" retells it as "no car accident lawyers here".
        `practice_area ${describeValue(value)} is not a filter this directory has: it lists personal injury law offices ` +
          'only (the practice that takes car accidents, falls and other injuries) and does not narrow them by the kind ' +
          `of case. Leave practice_area out, or send ${PRACTICE_AREAS.map((p) => JSON.stringify(p)).join(', ')}, the only accepted value.`,
        { parameter: 'practice_area', accepted: [...PRACTICE_AREAS] },
      );
    }
  }

  let src: string | null = null;
  if (has('src')) {
    const value = raw.src;
    if (typeof value !== 'string' || value === '' || [...value].length > SRC_MAX_LENGTH || UNPRINTABLE_RE.test(value)) {
      throw invalid(
        'src',
        `src must be the calling application's name, 1 to ${SRC_MAX_LENGTH} printable characters; got ${describeValue(value)}.`,
      );
    }
    src = value;
  }

  return { location, radiusMiles, limit, practiceArea: PRACTICE_AREAS[0], src };
}

/** Longest location kept in a request log line, in characters. */
const LOGGED_LOCATION_MAX = 200;

function sentText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' | ');
  return JSON.stringify(value);
}

/** The location as the caller sent it, whichever form they used (REST query values or MCP JSON arguments), for the request log. */
export function locationAsSent(raw: RawArgs): string | null {
  const text = sentText(raw.location) ?? sentText(raw.zip);
  if (text !== null) return text.slice(0, LOGGED_LOCATION_MAX);
  const lat = sentText(raw.lat);
  const lng = sentText(raw.lng);
  return lat === null && lng === null ? null : `${lat ?? ''},${lng ?? ''}`.slice(0, LOGGED_LOCATION_MAX);
}
