/**
 * The cold path's query sets (lat,lng at each radius, "City, ST" at the default limit and at the largest, a place
 * inside a city, ZIP, a place name without a state) and how one query is asked: a set whose refusals are answers (an
 * ambiguous name is a 400 with candidates) counts them as refused.
 */
import { createService } from '../../shim/answer/service-impl.ts';
import { LIMIT } from '../../shim/contract/constants.ts';
import { ApiError } from '../../shim/contract/errors.ts';
import type { Service } from '../../shim/answer/service.ts';
import type { AttorneysResponseT } from '../../shim/contract/schemas.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { allMetroPoints, loadMetros, pointArgs, type QueryPoint } from '../lib/points.ts';

/** The end of the label of a set (and the name of each query) that asks the largest `limit`. */
export const LARGEST_LIMIT = `, limit ${LIMIT.max}`;

/** One query of a cold set: a name for the report and the findAttorneys arguments. */
export interface ColdQuery {
  name: string;
  args: Record<string, string>;
}

/** A labelled set of cold queries ("lat,lng at 15 mi"). */
export interface ColdQuerySet {
  label: string;
  queries: ColdQuery[];
  /** The set's 400 answers are measured too (a name of places in several states is refused with candidates). */
  refusals?: boolean;
}

/**
 * Names sent without a state beside the metros' principal cities: places in many states (refused with candidates),
 * neighbourhoods the gazetteer knows, a name best known abroad, and a misspelling read as the one clearly meant.
 */
export const EXTRA_NAMES = [
  'Springfield',
  'Columbus',
  'Kansas City',
  'Brooklyn',
  'Harlem',
  'Buckhead',
  'Toronto',
  'Pheonix',
] as const;

/**
 * Places named inside a city, beside each metro's "100 Main St, <first principal city>" (a street address) and "<second
 * principal city> in <first principal city>": a neighbourhood within reach of its city, one in the "X in City" form, a
 * name that holds " in " ("Lake in the Hills"), a road near a town, a street address, and places farther than the city's
 * area.
 */
export const INSIDE_PLACES = [
  'Buckhead, Atlanta, GA',
  'Buckhead in Atlanta, GA',
  'Harlem, New York, NY',
  'Brooklyn in New York, NY',
  'Hollywood, Los Angeles, CA',
  'Lake in the Hills, IL',
  'I-10 near Baytown, TX',
  '350 5th Ave, New York, NY',
  'Long Beach, Los Angeles, CA',
  'Downtown, Chicago, IL',
] as const;

/** INSIDE_PLACES, then each metro's street address and "X in City" forms (see INSIDE_PLACES). */
export function placesInsideCities(): string[] {
  const perMetro = loadMetros().flatMap((m) => {
    const [first, second] = m.principal_cities;
    if (first === undefined) return [];
    const other = second?.replace(/, [A-Z]{2}$/, '');
    return [`100 Main St, ${first}`, ...(other === undefined ? [] : [`${other} in ${first}`])];
  });
  return [...new Set([...INSIDE_PLACES, ...perMetro])];
}

/** Radius of the "City, ST" and name sets: the widest, the one reading the most. */
const PLACE_RADIUS = '50';

/** The metros' principal cities without their state, once each in metros.json order, then EXTRA_NAMES. */
export function namesWithoutState(): string[] {
  const cities = loadMetros().flatMap((m) => m.principal_cities.map((c) => c.replace(/, [A-Z]{2}$/, '')));
  return [...new Set([...cities, ...EXTRA_NAMES])];
}

/**
 * Every metro (centre and four 10-mile offsets) at each radius, the metros' principal cities as "City, ST" at 50 miles,
 * places named inside a city (placesInsideCities) at 50 miles, when `zips` are given (metro-zips.ts) each metro's central ZIP at 15 miles (the default radius), and the names of
 * namesWithoutState at 50 miles.
 */
export function coldQuerySets(
  radii: readonly number[],
  points: readonly QueryPoint[] = allMetroPoints(),
  zips: readonly { metro: string; zip: string }[] = [],
): ColdQuerySet[] {
  const sets: ColdQuerySet[] = radii.map((radius) => ({
    label: `lat,lng at ${radius} mi`,
    queries: points.map((p) => ({ name: `${p.label}, ${radius} mi`, args: pointArgs(p, radius) })),
  }));
  const cities = loadMetros().flatMap((m) => m.principal_cities);
  sets.push({
    label: `"City, ST" at ${PLACE_RADIUS} mi`,
    queries: cities.map((c) => ({
      name: `${c}, ${PLACE_RADIUS} mi`,
      args: { location: c, radius_miles: PLACE_RADIUS },
    })),
  });
  // The most firms a caller may ask for: more record chunks, and inside blocks farther out, than the default's.
  sets.push({
    label: `"City, ST" at ${PLACE_RADIUS} mi${LARGEST_LIMIT}`,
    queries: cities.map((c) => ({
      name: `${c}, ${PLACE_RADIUS} mi${LARGEST_LIMIT}`,
      args: { location: c, radius_miles: PLACE_RADIUS, limit: String(LIMIT.max) },
    })),
  });
  sets.push({
    label: `place inside a city at ${PLACE_RADIUS} mi`,
    queries: placesInsideCities().map((p) => ({
      name: `${p}, ${PLACE_RADIUS} mi`,
      args: { location: p, radius_miles: PLACE_RADIUS },
    })),
  });
  if (zips.length > 0)
    sets.push({
      label: 'ZIP at 15 mi',
      queries: zips.map((z) => ({ name: `${z.zip} (${z.metro}), 15 mi`, args: { zip: z.zip, radius_miles: '15' } })),
    });
  sets.push({
    label: `name without a state at ${PLACE_RADIUS} mi`,
    queries: namesWithoutState().map((n) => ({
      name: `${n}, ${PLACE_RADIUS} mi`,
      args: { location: n, radius_miles: PLACE_RADIUS },
    })),
    refusals: true,
  });
  return sets;
}

/** The findAttorneys request context of the cold measurements. */
export const COLD_CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/**
 * Ask one cold query: 'answered' (the answer passed to `onAnswer`), or 'refused' when the service answers it with a 400
 * (any other failure is thrown).
 */
export async function askCold(
  service: Service,
  args: Record<string, string>,
  onAnswer?: (answer: AttorneysResponseT) => void,
): Promise<'answered' | 'refused'> {
  try {
    // Asked first: `onAnswer?.(await ...)` would not evaluate its argument, and so not ask, when onAnswer is absent.
    const answer = await service.findAttorneys(args, COLD_CTX);
    onAnswer?.(answer);
    return 'answered';
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) return 'refused';
    throw err;
  }
}

/** Whether `args` is refused as a point outside the US (any other refusal or failure is thrown). */
async function outsideUs(service: Service, args: Record<string, string>): Promise<boolean> {
  try {
    await service.findAttorneys(args, COLD_CTX);
    return false;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'location_not_understood') return true;
    throw err;
  }
}

/**
 * `sets` without the queries the site refuses as outside the US: a 10-mile offset can leave the country (east of
 * Detroit is Windsor, Ontario) or go out to sea, and a refusal reads only what the boundary check needs. A set whose
 * refusals are measured keeps every query.
 */
export async function answerableSets(siteDir: string, sets: ColdQuerySet[]): Promise<ColdQuerySet[]> {
  const service = createService(createSiteSource(new FolderStore(siteDir)));
  const out: ColdQuerySet[] = [];
  for (const set of sets) {
    if (set.refusals === true) {
      out.push(set);
      continue;
    }
    const queries: ColdQuery[] = [];
    for (const q of set.queries) if (!(await outsideUs(service, q.args))) queries.push(q);
    out.push({ ...set, queries });
  }
  return out;
}
