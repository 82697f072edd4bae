/** Parsing and resolving the location forms through gazetteer documents in a MemoryStore, and metroForPoint. */
import { cellToLatLng, gridDisk, latLngToCell } from 'h3-js';
import type { ZodType } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGazetteer } from '../generator/model/gazetteer.ts';
import { metroForPoint } from '../shim/places/coverage.ts';
import { parsedFromArg, parseLocation, type ParsedLocation } from '../shim/places/location.ts';
import { US_STATE_CODES } from '../shim/places/state-names.ts';
import type { SiteReader } from '../shim/search/reader.ts';
import { resolveLocation } from '../shim/places/resolve.ts';
import { Location } from '../shim/contract/schemas.ts';
import { keys, type CoverageCellsT, type MetaT } from '../shim/format/site-format.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { StoreError } from '../shim/store/types.ts';
import { asyncRejection, rejection } from './helpers/api-error.ts';

const VERSION = 'test-1';

/** A SiteReader over a MemoryStore that parses each object with the schema it is asked for, as the real one does. */
class MemoryReader implements SiteReader {
  readonly version = VERSION;
  readonly meta: MetaT;
  readonly reads: string[] = [];
  private readonly store: MemoryStore;
  constructor(store: MemoryStore, gazetteer: MetaT['gazetteer']) {
    this.store = store;
    this.meta = { version: VERSION, gazetteer } as MetaT;
  }
  async json<T>(key: string, schema: ZodType<T>): Promise<T | null> {
    this.reads.push(key);
    const bytes = await this.store.get(key);
    if (bytes === null) return null;
    const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    if (!parsed.success) throw new StoreError(`object does not match its schema: ${parsed.error.message}`, key);
    return parsed.data;
  }
}

const NYC = { lat: 40.7128, lng: -74.006 };
const PHILLY = { lat: 39.9526, lng: -75.1652 };
/** Hand-made coverage: a disk of res-5 cells around New York and Philadelphia, and one cell measured by both (New York first). */
function coverageCells(): CoverageCellsT {
  const cells: Record<string, string[]> = {};
  for (const c of gridDisk(latLngToCell(NYC.lat, NYC.lng, 5), 3)) cells[c] = ['new-york'];
  for (const c of gridDisk(latLngToCell(PHILLY.lat, PHILLY.lng, 5), 2)) cells[c] = ['philadelphia'];
  const between = latLngToCell(40.33, -74.6, 5);
  cells[between] = ['new-york', 'philadelphia'];
  return { schema_version: 1, res: 5, cells };
}

let store: MemoryStore;
let reader: MemoryReader;
beforeAll(() => {
  const g = buildGazetteer();
  store = new MemoryStore();
  for (const [zip3, doc] of g.zips) store.set(keys.zip(VERSION, zip3), JSON.stringify(doc));
  for (const [st, buckets] of g.cities)
    for (const [b, doc] of buckets) store.set(keys.city(VERSION, st, b), JSON.stringify(doc));
  store.set(keys.coverageCells(VERSION), JSON.stringify(coverageCells()));
  const cities = Object.fromEntries([...g.cities].map(([st, b]) => [st, [...b.keys()].join('')]));
  reader = new MemoryReader(store, { zip3: [...g.zips.keys()].sort(), cities });
});

const resolve = (input: string) => resolveLocation(parseLocation(input), reader);
/** The sentence closing the note of an answer at a place's centre point, with its leading space. */
const C = (place: string): string =>
  ` Distances are from the centre point of ${place}, not from a street address; a ZIP code gives a closer point.`;

describe('parseLocation', () => {
  it('reads a ZIP, a ZIP+4 in three spellings, and a ZIP at the end of an address line', () => {
    expect(parseLocation('60601')).toEqual({ kind: 'zip', zip: '60601', input: '60601', parameter: 'location' });
    for (const s of [
      '60601-1234',
      '60601 1234',
      '606011234',
      ' 60601-1234 ',
      'Chicago, IL 60601',
      'Chicago IL 60601-1234',
    ]) {
      expect(parseLocation(s)).toMatchObject({ kind: 'zip', zip: '60601', input: s });
    }
  });

  it('reads "City, ST", with or without the comma, any case, a trailing country, and DC and PR', () => {
    expect(parseLocation('Austin, TX')).toEqual({
      kind: 'city',
      city: 'Austin',
      state: 'TX',
      input: 'Austin, TX',
      parameter: 'location',
    });
    expect(parseLocation('  st.  louis ,mo ')).toMatchObject({ kind: 'city', city: 'st. louis', state: 'MO' });
    expect(parseLocation('Austin TX')).toMatchObject({ kind: 'city', city: 'Austin', state: 'TX' });
    expect(parseLocation('portland or')).toMatchObject({ kind: 'city', city: 'portland', state: 'OR' });
    expect(parseLocation('Austin, TX, USA')).toMatchObject({ kind: 'city', city: 'Austin', state: 'TX' });
    expect(parseLocation('Washington DC')).toMatchObject({ kind: 'city', city: 'Washington', state: 'DC' });
    expect(parseLocation('San Juan, PR')).toMatchObject({ kind: 'city', state: 'PR' });
    expect(US_STATE_CODES).toHaveLength(52);
  });

  it('reads "lat,lng" in decimal degrees, with range checks', () => {
    expect(parseLocation('41.88,-87.63')).toEqual({
      kind: 'point',
      lat: 41.88,
      lng: -87.63,
      input: '41.88,-87.63',
      parameter: 'location',
    });
    expect(parseLocation('41.88 , -87.63')).toMatchObject({ kind: 'point', lat: 41.88, lng: -87.63 });
    expect(parseLocation('-90,180')).toMatchObject({ kind: 'point', lat: -90, lng: 180 });
    for (const s of ['91,0', '0,181', '-90.0001,0', '0,-180.5']) {
      const e = rejection(() => parseLocation(s));
      expect(e.code).toBe('invalid_parameter');
      expect(e.status).toBe(400);
      expect(e.extra.parameter).toBe('location');
      expect(e.detail).toMatch(/latitude must be from -90 to 90 and longitude from -180 to 180/);
    }
    // Longitude first is a common slip: say so, with the corrected value.
    expect(rejection(() => parseLocation('-122.68,45.52')).detail).toContain('"45.52,-122.68"');
  });

  it('explains what is wrong and what is accepted', () => {
    const cases: [string, string, RegExp][] = [
      ['Springfield, XX', 'location_not_understood', /"XX" is not a USPS state code.*AK AL AR/],
      ['Hagatna, GU', 'location_not_understood', /GU \(Guam\) is not covered/],
      [', IL', 'location_not_understood', /no city name/],
      ['', 'location_not_understood', /location is empty/],
      ['2108', 'location_not_understood', /5 digits.*"02108"/],
      ['606011', 'location_not_understood', /A ZIP has 5 digits/],
      ['41,88,-87,63', 'location_not_understood', /decimal commas; send "41\.88,-87\.63" \(a dot as the decimal point/],
    ];
    for (const [input, code, detail] of cases) {
      const e = rejection(() => parseLocation(input));
      expect(e.code, input).toBe(code);
      expect(e.detail, input).toMatch(detail);
      expect(e.toProblem()).toMatchObject({
        status: 400,
        code,
        parameter: 'location',
        accepted: ['ZIP', 'ZIP+4', 'City, ST', 'lat,lng'],
      });
    }
  });
});

describe('resolveLocation', () => {
  it('resolves a ZIP to its ZCTA point, with the metro of its coverage cell', async () => {
    const loc = await resolve('10001');
    expect(Location.parse(loc)).toEqual(loc);
    expect(loc).toEqual({
      input: '10001',
      kind: 'zip',
      lat: 40.75065,
      lng: -73.99729,
      zip: '10001',
      city: 'New York',
      state: 'NY',
      metro: 'new-york',
      source: 'census_zcta',
      approximate: true,
    });
    expect(reader.reads).toContain(keys.zip(VERSION, '100'));
  });

  it('gives ZIP+4 the same answer as its ZIP, except the input', async () => {
    const plain = await resolve('60601');
    const plus4 = await resolve('60601-1234');
    expect({ ...plus4, input: plain.input }).toEqual(plain);
    expect(plus4.input).toBe('60601-1234');
    expect(plain).toMatchObject({ city: 'Chicago', state: 'IL', metro: null });
  });

  it('resolves a PO-box or unique ZIP through GeoNames postal codes', async () => {
    expect(await resolve('20500')).toMatchObject({
      kind: 'zip',
      city: 'Washington',
      state: 'DC',
      source: 'geonames_postal',
      approximate: true,
    });
  });

  it('rejects an unknown ZIP, naming the parameter it came from', async () => {
    for (const z of ['00000', '10000', '99999']) {
      const e = await asyncRejection(resolve(z));
      expect(e.code).toBe('location_not_understood');
      expect(e.status).toBe(400);
      expect(e.detail).toContain(`ZIP ${z} is not a known US ZIP code`);
      // The same forms, with the same examples, as the parser's problems name.
      expect(e.detail).toContain(
        'send a 5-digit ZIP ("60601"), ZIP+4 ("60601-1234"), "City, ST" ("Austin, TX") or "lat,lng" ("41.88,-87.63")',
      );
    }
    const viaZip = await asyncRejection(resolveLocation(parsedFromArg({ form: 'zip', zip: '00000' }), reader));
    expect(viaZip.extra.parameter).toBe('zip');
  });

  it('resolves "City, ST" to the place, with its representative ZIP', async () => {
    const loc = await resolve('new york, ny');
    expect(Location.parse(loc)).toEqual(loc);
    expect(loc).toMatchObject({
      input: 'new york, ny',
      kind: 'city',
      city: 'New York',
      state: 'NY',
      metro: 'new-york',
      source: 'geonames_postal',
      approximate: true,
    });
    expect(loc.zip).toMatch(/^10\d{3}$/);
    // The one note of a plain "City, ST": where distances are measured from.
    expect(loc.note).toBe(
      'Distances are from the centre point of New York, NY, not from a street address; a ZIP code gives a closer point.',
    );
    expect(await resolve('Ft. Worth TX')).toEqual({ ...(await resolve('Fort Worth, TX')), input: 'Ft. Worth TX' });
    expect(await resolve('Philadelphia, PA')).toMatchObject({ source: 'geonames_place', metro: 'philadelphia' });
  });

  it('takes the most populous of same-named places and says so', async () => {
    const loc = await resolve('Mount Pleasant, PA');
    expect(loc.note).toBe(
      '2 places named Mount Pleasant in PA; chose the most populous (population 4,497). For another one, send its ZIP or "lat,lng".' +
        C('Mount Pleasant, PA'),
    );
  });

  it('rejects an unknown city with a close match in the state, or a spelling hint', async () => {
    const typo = await asyncRejection(resolve('Urbna, IL'));
    expect(typo.code).toBe('location_not_understood');
    expect(typo.detail).toContain('No place named "Urbna" is known in Illinois (IL)');
    expect(typo.detail).toContain('Did you mean "Urbana, IL"');
    // One clear reading (far the most populous as near) is answered, and the note says what was read.
    const clear = await resolve('Chicgo, IL');
    expect([clear.city, clear.state]).toEqual(['Chicago', 'IL']);
    expect(clear.note).toMatch(/^No place named "Chicgo" is known in IL; read as Chicago, IL, the closest spelling/);
    const none = await asyncRejection(resolve('Xyzzyqwert, TX'));
    expect(none.detail).toMatch(/Check the spelling and the state code, or send a 5-digit ZIP/);
    // Right city, wrong state.
    expect((await asyncRejection(resolve('Chicago, IN'))).code).toBe('location_not_understood');
  });

  it('resolves every place name of every state to its entry, reading only the one city document of its bucket', async () => {
    // Parsed documents kept per key, as the real reader's cache does, so 30,000-odd lookups stay quick.
    const parsed = new Map<string, unknown>();
    const reads: string[] = [];
    const cached: SiteReader = {
      version: VERSION,
      meta: reader.meta,
      async json<T>(key: string, schema: ZodType<T>): Promise<T | null> {
        reads.push(key);
        if (!parsed.has(key)) parsed.set(key, await reader.json(key, schema));
        return parsed.get(key) as T | null;
      },
    };
    const g = buildGazetteer();
    let checked = 0;
    const wrong: unknown[] = [];
    for (const [state, buckets] of g.cities) {
      for (const [bucket, doc] of buckets) {
        const expectedReads = JSON.stringify([keys.city(VERSION, state, bucket), keys.coverageCells(VERSION)]);
        for (const [key, e] of Object.entries(doc.cities)) {
          reads.length = 0;
          const loc = await resolveLocation({ kind: 'city', city: key, state, input: `${key}, ${state}` }, cached);
          // A Louisiana place outside coverage may also read California's document: "LA" is Los Angeles too (Venice LA).
          const own = state === 'LA' && loc.metro === null ? reads.slice(0, 2) : reads;
          const ok =
            loc.lat === e.lat &&
            loc.lng === e.lng &&
            loc.city === e.name &&
            loc.zip === e.zip &&
            JSON.stringify(own) === expectedReads;
          if (!ok) wrong.push({ key, state, loc, e, reads: [...reads] });
          checked++;
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(30_000);
  });

  it('knows a name whose first character precedes every city document of its state is unknown, without a read', async () => {
    const r = new MemoryReader(store, {
      ...reader.meta.gazetteer,
      cities: { ...reader.meta.gazetteer.cities, WY: 'c' },
    });
    const error = await asyncRejection(resolveLocation(parseLocation('Afton, WY'), r));
    expect(error.code).toBe('location_not_understood');
    expect(r.reads).toEqual([]);
  });

  it('passes a point through, exact, with its metro or null', async () => {
    expect(await resolve('40.7128,-74.006')).toEqual({
      input: '40.7128,-74.006',
      kind: 'point',
      lat: 40.7128,
      lng: -74.006,
      zip: null,
      city: null,
      state: null,
      metro: 'new-york',
      source: 'input',
      approximate: false,
    });
    expect((await resolve('41.88,-87.63')).metro).toBeNull();
    const p: ParsedLocation = parsedFromArg({ form: 'point', lat: 39.9526, lng: -75.1652, input: '39.9526,-75.1652' });
    expect(await resolveLocation(p, reader)).toMatchObject({ metro: 'philadelphia', input: '39.9526,-75.1652' });
  });

  it('fails with StoreError, not a guess, when the coverage cells are missing', async () => {
    const bare = new MemoryStore();
    await expect(
      resolveLocation(parseLocation('40,-74'), new MemoryReader(bare, reader.meta.gazetteer)),
    ).rejects.toBeInstanceOf(StoreError);
  });

  it('fails with StoreError, not "unknown place", when a gazetteer document the version lists is missing', async () => {
    const holed = new MemoryStore();
    for (const key of [keys.coverageCells(VERSION), keys.city(VERSION, 'IL', 'c')])
      holed.set(key, new TextDecoder().decode((await store.get(key))!));
    const r = new MemoryReader(holed, reader.meta.gazetteer);
    await expect(resolveLocation(parseLocation('97201'), r)).rejects.toBeInstanceOf(StoreError);
    await expect(resolveLocation(parseLocation('Minneapolis, MN'), r)).rejects.toBeInstanceOf(StoreError);
    // A ZIP3 the version has no document for is an unknown ZIP, read from meta.json alone.
    expect(reader.meta.gazetteer.zip3).not.toContain('000');
    expect((await asyncRejection(resolveLocation(parseLocation('00001'), r))).code).toBe('location_not_understood');
  });

  it('treats city names that are JavaScript object keys as ordinary unknown places', async () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) {
      for (const input of [`${name}, IL`, `${name.replace(/_/g, ' ')} TX`, `Con Structor, CA`]) {
        const error = await asyncRejection(resolve(input));
        expect({ input, code: error.code }).toEqual({ input, code: 'location_not_understood' });
        expect(error.detail).not.toMatch(/native code|function|\[object/);
      }
    }
  });
});

describe('metroForPoint', () => {
  const cells = coverageCells();
  it("names the first metro of the point's cell, or null outside every cell", () => {
    expect(metroForPoint(cells, NYC.lat, NYC.lng)).toBe('new-york');
    expect(metroForPoint(cells, PHILLY.lat, PHILLY.lng)).toBe('philadelphia');
    expect(metroForPoint(cells, 40.33, -74.6)).toBe('new-york');
    expect(metroForPoint(cells, 41.88, -87.63)).toBeNull();
    // Brute force: every cell's own centre maps to that cell's first metro.
    for (const [cell, metros] of Object.entries(cells.cells)) {
      const [lat, lng] = cellToLatLng(cell);
      expect(metroForPoint(cells, lat, lng)).toBe(metros[0]);
    }
  });

  it('uses the resolution the cells were published at', () => {
    const fine = latLngToCell(NYC.lat, NYC.lng, 8);
    const atRes8: CoverageCellsT = { schema_version: 1, res: 8, cells: { [fine]: ['new-york'] } };
    expect(metroForPoint(atRes8, NYC.lat, NYC.lng)).toBe('new-york');
    // Same res-5 cell, another res-8 cell: not covered.
    const [lat, lng] = cellToLatLng(
      gridDisk(fine, 3).find(
        (c) => c !== fine && latLngToCell(...cellToLatLng(c), 5) === latLngToCell(NYC.lat, NYC.lng, 5),
      )!,
    );
    expect(metroForPoint(atRes8, lat, lng)).toBeNull();
  });
});
