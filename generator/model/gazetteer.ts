/**
 * The gazetteer documents of a published version (docs/CONTRACT.md, Location): ZIPs by ZIP3 and place names by state
 * and runs of first letters packed up to CITY_DOC_BYTES (the biggest, Pennsylvania's "s" alone, is 32,858 bytes, where
 * the whole state was 299,303),
 * built from Census ZCTA internal points and GeoNames postal codes and places (gazetteer-sources.ts).
 * Deterministic: same packages, same documents, keys sorted.
 */
import { haversineMiles } from '../../shim/search/geo.ts';
import { US_STATE_CODES, US_STATES } from '../../shim/places/state-names.ts';
import {
  cityBucket,
  normaliseCityName,
  type CityEntryT,
  type CityGazetteerT,
  type NameGazetteerT,
  type PointGazetteerT,
  type ZipGazetteerT,
} from '../../shim/format/site-format.ts';
import { buildBoundaries } from './boundary.ts';
import { ABROAD_MIN_POPULATION, buildNameIndex, buildPointTiles } from './gazetteer-index.ts';
import { CITY_PARTS } from './neighbourhoods.ts';
import {
  readAbroad,
  readPlaces,
  readPostal,
  readZctas,
  type PlaceRow,
  type PostalRow,
  type ZctaRow,
} from './gazetteer-sources.ts';

type ZipEntryT = ZipGazetteerT['zips'][string];

/** Same-named GeoNames places closer than this are one place (duplicates, a town and its section), in miles. */
const SAME_PLACE_MILES = 10;
/** The postal place of a name joins a same-named GeoNames place this close to it, in miles. */
const POSTAL_JOIN_MILES = 25;
/** A GeoNames place with no ZIP of its own name takes the nearest ZIP this close as its representative, in miles. */
const NEAREST_ZIP_MILES = 10;
/** Puerto Rico's ZIP3s; its ZCTAs have no postal row in the GeoNames US file, so their state comes from here. */
const PR_ZIP3 = new Set(['006', '007', '009']);
/** Not current populated places: historical, abandoned, destroyed. */
const SKIP_FEATURES = new Set(['PPLQ', 'PPLH', 'PPLW', 'PPLCH']);
/** Suffixes GeoNames keeps but people leave out ("New York City", "Washington, D.C."): indexed without them when free. */
const ALIAS_SUFFIX_RE = /^(.+?)[\s,]+(?:city|township|d\.?\s?c\.?)$/i;

const STATES = new Set(US_STATE_CODES);
const STATE_NAMES = new Set(Object.values(US_STATES).map(normaliseCityName));

/** Tiers, best first: a GeoNames place, a GeoNames section of a place (PPLX), a postal place name only, a suffix alias. */
const Tier = { Place: 0, Section: 1, Postal: 2, Alias: 3 } as const;
type TierT = (typeof Tier)[keyof typeof Tier];

interface Candidate {
  name: string;
  lat: number;
  lng: number;
  zip: string | null;
  population: number | null;
  tier: TierT;
  zips: number;
}

interface ZipPoint {
  zip: string;
  lat: number;
  lng: number;
  name: string;
  /** A Census ZCTA (an area where people live), not a PO-box or unique ZIP. */
  zcta: boolean;
}

function round5(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedRecord<V>(entries: Iterable<[string, V]>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of [...entries].sort((a, b) => byString(a[0], b[0]))) out[k] = v;
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Every ZIP of the 50 states, DC and PR: ZCTA internal point first, else the GeoNames postal-code point. Sorted by ZIP. */
export function buildZipEntries(zctas: ZctaRow[], postal: PostalRow[]): Map<string, ZipEntryT> {
  const postalByZip = new Map<string, PostalRow>();
  for (const p of postal) if (STATES.has(p.state) && !postalByZip.has(p.zip)) postalByZip.set(p.zip, p);
  const out = new Map<string, ZipEntryT>();
  for (const z of zctas) {
    const p = postalByZip.get(z.zip);
    const state = p?.state ?? (PR_ZIP3.has(z.zip.slice(0, 3)) ? 'PR' : null);
    // Guam, the Virgin Islands and the like have ZCTAs but are outside the gazetteer's states.
    if (state === null) continue;
    out.set(z.zip, [round5(z.lat), round5(z.lng), p?.place ?? '', state, 'census_zcta']);
  }
  for (const p of [...postalByZip.values()].sort((a, b) => byString(a.zip, b.zip))) {
    if (!out.has(p.zip)) out.set(p.zip, [round5(p.lat), round5(p.lng), p.place, p.state, 'geonames_postal']);
  }
  return new Map([...out].sort((a, b) => byString(a[0], b[0])));
}

/** Groups of items where each is within `miles` of another of its group (single linkage), in input order. */
function clusters<T extends { lat: number; lng: number }>(items: T[], miles: number): T[][] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i]!;
      const b = items[j]!;
      if (haversineMiles(a.lat, a.lng, b.lat, b.lng) <= miles) {
        const ra = find(i);
        const rb = find(j);
        if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
      }
    }
  }
  const groups = new Map<number, T[]>();
  items.forEach((item, i) => push(groups, find(i), item));
  return [...groups.values()];
}

/** Nearest ZIP of a state to a point, within NEAREST_ZIP_MILES, through a 0.4-degree grid. */
class ZipGrid {
  private readonly cells = new Map<string, ZipPoint[]>();
  constructor(points: ZipPoint[]) {
    for (const p of points) push(this.cells, `${Math.floor(p.lat * 5)},${Math.floor(p.lng * 5)}`, p);
  }
  nearest(lat: number, lng: number): ZipPoint | null {
    const cy = Math.floor(lat * 5);
    const cx = Math.floor(lng * 5);
    // 0.2 degrees of latitude is ~13.8 miles; of longitude, that times cos(lat).
    const kx = Math.ceil(NEAREST_ZIP_MILES / (13.8 * Math.max(0.1, Math.cos((lat * Math.PI) / 180))));
    let best: ZipPoint | null = null;
    let bestD = NEAREST_ZIP_MILES;
    for (let y = cy - 1; y <= cy + 1; y++) {
      for (let x = cx - kx; x <= cx + kx; x++) {
        for (const p of this.cells.get(`${y},${x}`) ?? []) {
          const d = haversineMiles(lat, lng, p.lat, p.lng);
          if (d < bestD || (d === bestD && best !== null && p.zip < best.zip)) {
            best = p;
            bestD = d;
          }
        }
      }
    }
    return best;
  }
}

function nearestOf(points: ZipPoint[], lat: number, lng: number): ZipPoint | null {
  let best: ZipPoint | null = null;
  let bestD = Infinity;
  for (const p of points) {
    const d = haversineMiles(lat, lng, p.lat, p.lng);
    if (d < bestD) {
      best = p;
      bestD = d;
    }
  }
  return best;
}

function rank(a: Candidate, b: Candidate): number {
  return (
    a.tier - b.tier ||
    (b.population ?? -1) - (a.population ?? -1) ||
    b.zips - a.zips ||
    byString(a.name, b.name) ||
    a.lat - b.lat ||
    a.lng - b.lng
  );
}

/** The most common spelling among a place's ZIPs (ties: alphabetical). */
function commonName(points: ZipPoint[]): string {
  const counts = new Map<string, number>();
  for (const p of points) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || byString(a[0], b[0]))[0]?.[0] ?? '';
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** The ZIP nearest a point, preferring ZCTAs (residential areas) over PO-box and unique ZIPs. */
function representativeZip(points: ZipPoint[], lat: number, lng: number): ZipPoint | null {
  const zctas = points.filter((p) => p.zcta);
  return nearestOf(zctas.length > 0 ? zctas : points, lat, lng);
}

/**
 * Candidates of one normalised name in one state: GeoNames places (same-named ones within SAME_PLACE_MILES merged), and
 * the postal place of that name, which joins a GeoNames place near it or else stands as a candidate of its own.
 */
function candidatesOf(places: PlaceRow[], postal: ZipPoint[], grid: ZipGrid): Candidate[] {
  const placeGroups = clusters(
    [...places].sort(
      (a, b) =>
        Number(a.featureCode === 'PPLX') - Number(b.featureCode === 'PPLX') ||
        b.population - a.population ||
        a.id - b.id,
    ),
    SAME_PLACE_MILES,
  );
  const reps = placeGroups.map((g) => g[0]!);
  const out: Candidate[] = [];
  let joinedTo = -1;
  if (postal.length > 0) {
    // USPS names one post office per name and state, so all ZIPs of a name are one place; outlying ZIPs (large rural
    // ZIPs, a space centre named after its city) must not move it, hence the median of the residential ZIPs.
    const core = postal.some((p) => p.zcta) ? postal.filter((p) => p.zcta) : postal;
    const lat = median(core.map((p) => p.lat));
    const lng = median(core.map((p) => p.lng));
    let bestD = POSTAL_JOIN_MILES;
    reps.forEach((r, i) => {
      const d = haversineMiles(r.lat, r.lng, lat, lng);
      if (d <= bestD) {
        joinedTo = i;
        bestD = d;
      }
    });
    if (joinedTo < 0) {
      out.push({
        name: commonName(postal),
        lat: round5(lat),
        lng: round5(lng),
        zip: representativeZip(postal, lat, lng)?.zip ?? null,
        population: null,
        tier: Tier.Postal,
        zips: postal.length,
      });
    }
  }
  reps.forEach((r, i) => {
    const own = i === joinedTo ? postal : [];
    out.push({
      name: r.name,
      lat: round5(r.lat),
      lng: round5(r.lng),
      zip: (representativeZip(own, r.lat, r.lng) ?? grid.nearest(r.lat, r.lng))?.zip ?? null,
      population: r.population,
      tier: r.featureCode === 'PPLX' ? Tier.Section : Tier.Place,
      zips: own.length,
    });
  });
  return out.sort(rank);
}

function entryOf(candidates: Candidate[]): CityEntryT {
  const c = candidates[0]!;
  return {
    name: c.name,
    lat: c.lat,
    lng: c.lng,
    zip: c.zip,
    population: c.population,
    source: c.tier === Tier.Postal ? 'geonames_postal' : 'geonames_place',
    candidates: candidates.length,
  };
}

/**
 * One state's place names: normalised name -> most populous candidate, with the count of candidates; sorted by name.
 * `populations` receives each name's largest known population, also of a place indexed under the name by its alias
 * (DC's "Washington", "New York City" for "New York"), whose entry may be a postal place without one.
 */
function buildState(
  places: PlaceRow[],
  zipPoints: ZipPoint[],
  populations = new Map<string, number>(),
): Map<string, CityEntryT> {
  const grid = new ZipGrid(zipPoints);
  const placesByKey = new Map<string, PlaceRow[]>();
  for (const p of places) push(placesByKey, normaliseCityName(p.name), p);
  const postalByKey = new Map<string, ZipPoint[]>();
  for (const z of zipPoints) if (z.name !== '') push(postalByKey, normaliseCityName(z.name), z);

  const primary = new Map<string, CityEntryT>();
  const aliases = new Map<string, Candidate[]>();
  for (const key of new Set([...placesByKey.keys(), ...postalByKey.keys()])) {
    if (key === '') continue;
    const candidates = candidatesOf(placesByKey.get(key) ?? [], postalByKey.get(key) ?? [], grid);
    primary.set(key, entryOf(candidates));
    for (const c of candidates) {
      if (c.population !== null) populations.set(key, Math.max(populations.get(key) ?? 0, c.population));
      if (c.tier !== Tier.Place && c.tier !== Tier.Section) continue;
      const stem = ALIAS_SUFFIX_RE.exec(c.name)?.[1];
      const alias = stem === undefined ? '' : normaliseCityName(stem);
      // "Kansas, MO" for Kansas City reads as a mistake, not a name people use.
      if (alias !== '' && c.population !== null)
        populations.set(alias, Math.max(populations.get(alias) ?? 0, c.population));
      if (alias !== '' && !STATE_NAMES.has(alias)) push(aliases, alias, { ...c, tier: Tier.Alias });
    }
  }
  for (const [alias, list] of aliases) if (!primary.has(alias)) primary.set(alias, entryOf(list.sort(rank)));
  return new Map([...primary].sort((a, b) => byString(a[0], b[0])));
}

/** A city document grows by whole first letters up to this size in bytes; one letter alone may pass it (PA "s"). */
export const CITY_DOC_BYTES = 32 * 1024;

/**
 * A state's names packed into city documents: names grouped by first character (cityBucket, order 0-9, _, a-z), runs
 * of consecutive characters in one document while it stays within CITY_DOC_BYTES. Keyed by each document's first character.
 */
export function splitCities(state: string, cities: ReadonlyMap<string, CityEntryT>): Map<string, CityGazetteerT> {
  const byChar = new Map<string, [string, CityEntryT][]>();
  for (const entry of cities) push(byChar, cityBucket(entry[0]), entry);
  const out = new Map<string, CityGazetteerT>();
  const size = (d: CityGazetteerT): number => Buffer.byteLength(JSON.stringify(d)) + 1;
  let open: { bucket: string; names: [string, CityEntryT][] } | null = null;
  const close = (): void => {
    if (open !== null)
      out.set(open.bucket, { schema_version: 1, state, bucket: open.bucket, cities: sortedRecord(open.names) });
  };
  for (const c of [...byChar.keys()].sort(byString)) {
    const names = byChar.get(c) ?? [];
    if (
      open !== null &&
      size({ schema_version: 1, state, bucket: open.bucket, cities: sortedRecord([...open.names, ...names]) }) <=
        CITY_DOC_BYTES
    ) {
      open.names.push(...names);
      continue;
    }
    close();
    open = { bucket: c, names: [...names] };
  }
  close();
  return out;
}

/** Cleaned GeoNames places by USPS state code (PR from its country code). */
function placesByState(rows: PlaceRow[]): Map<string, PlaceRow[]> {
  const out = new Map<string, PlaceRow[]>();
  for (const r of rows) {
    const state = r.country === 'PR' ? 'PR' : r.adminCode;
    if (!STATES.has(state) || SKIP_FEATURES.has(r.featureCode)) continue;
    const name = r.name.replace(/\s*\([^)]*\)\s*/g, ' ').trim();
    if (name === '') continue;
    push(out, state, { ...r, name });
  }
  return out;
}

/** The gazetteer of a version, all sorted: ZIP documents by ZIP3, city documents by state then bucket, names by prefix, points by tile. */
export function buildGazetteer(): {
  zips: Map<string, ZipGazetteerT>;
  cities: Map<string, Map<string, CityGazetteerT>>;
  names: Map<string, NameGazetteerT>;
  points: Map<string, PointGazetteerT>;
  boundary: ReturnType<typeof buildBoundaries>;
} {
  const entries = buildZipEntries(readZctas(), readPostal());

  const byZip3 = new Map<string, [string, ZipEntryT][]>();
  const pointsByState = new Map<string, ZipPoint[]>();
  for (const [zip, e] of entries) {
    push(byZip3, zip.slice(0, 3), [zip, e]);
    push(pointsByState, e[3], { zip, lat: e[0], lng: e[1], name: e[2], zcta: e[4] === 'census_zcta' });
  }
  const zips = new Map<string, ZipGazetteerT>();
  for (const zip3 of [...byZip3.keys()].sort(byString)) {
    zips.set(zip3, { schema_version: 1, zips: sortedRecord(byZip3.get(zip3) ?? []) });
  }

  const places = placesByState(readPlaces());
  const cities = new Map<string, Map<string, CityGazetteerT>>();
  const byState = new Map<string, Map<string, CityEntryT>>();
  for (const state of US_STATE_CODES) {
    const populations = new Map<string, number>();
    const names = buildState(places.get(state) ?? [], pointsByState.get(state) ?? [], populations);
    byState.set(
      state,
      new Map([...names].map(([k, e]) => [k, { ...e, population: populations.get(k) ?? e.population }])),
    );
    cities.set(state, splitCities(state, names));
  }
  return {
    zips,
    cities,
    names: buildNameIndex(byState, readAbroad(ABROAD_MIN_POPULATION), CITY_PARTS),
    points: buildPointTiles(zips),
    boundary: buildBoundaries(),
  };
}
