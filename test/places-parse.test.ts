/** The forms of `location` people and models write (docs/CONTRACT.md, Location): parsing only, no reads. */
import { describe, expect, it } from 'vitest';
import { readCoordinates } from '../shim/places/coordinates.ts';
import { parseLocation } from '../shim/places/location.ts';
import { looseCore } from '../shim/places/loose.ts';
import { NICKNAMES } from '../shim/places/nicknames.ts';
import { normaliseCityName } from '../shim/format/site-format.ts';
import { stateCodeOf, US_STATE_CODES, US_STATES } from '../shim/places/state-names.ts';
import { rejection } from './helpers/api-error.ts';

describe('states as people write them', () => {
  it('reads every code, every full name in any case, and AP abbreviations', () => {
    for (const code of US_STATE_CODES) {
      expect(stateCodeOf(code.toLowerCase())).toBe(code);
      expect(stateCodeOf(US_STATES[code]!.toUpperCase())).toBe(code);
    }
    expect(stateCodeOf('Calif.')).toBe('CA');
    expect(stateCodeOf('N.Y.')).toBe('NY');
    expect(stateCodeOf('Ontario')).toBeNull();
  });

  it('takes "City, State", "City State" and a trailing ZIP after a state name', () => {
    expect(parseLocation('Anchorage, Alaska')).toMatchObject({ kind: 'city', city: 'Anchorage', state: 'AK' });
    expect(parseLocation('Saint Paul, Minnesota')).toMatchObject({ kind: 'city', city: 'Saint Paul', state: 'MN' });
    expect(parseLocation('Washington, District of Columbia')).toMatchObject({
      kind: 'city',
      city: 'Washington',
      state: 'DC',
    });
    expect(parseLocation('Kansas City Missouri')).toMatchObject({ kind: 'city', city: 'Kansas City', state: 'MO' });
    expect(parseLocation('Chicago, Illinois 60606')).toMatchObject({ kind: 'zip', zip: '60606' });
    expect(parseLocation('Chicago Illinois 60606-1234')).toMatchObject({ kind: 'zip', zip: '60606', stated: 'IL' });
    // The state of an address line is kept, for the resolver to check against the ZIP's own.
    expect(parseLocation('Austin, TX 60601')).toMatchObject({ kind: 'zip', zip: '60601', stated: 'TX' });
    expect(parseLocation('IL 60601')).toMatchObject({ kind: 'zip', zip: '60601', stated: 'IL' });
    // A label before the ZIP is no state: nothing to check.
    for (const labelled of ['ZIP 60601', 'zip code 60601', 'Zip Code: 60601', 'postal code 60601'])
      expect(parseLocation(labelled), labelled).toEqual({
        kind: 'zip',
        zip: '60601',
        input: labelled,
        parameter: 'location',
      });
    // A city with a ZIP and no state is read as the ZIP, the name kept for the resolver to compare with the ZIP's place.
    expect(parseLocation('Chicago 60601')).toMatchObject({ kind: 'zip', zip: '60601', named: 'Chicago' });
    // A pair in brackets, as some tools print it.
    expect(parseLocation('(41.88, -87.63)')).toMatchObject({ kind: 'point', lat: 41.88, lng: -87.63 });
    expect(parseLocation('[41.88,-87.63]')).toMatchObject({ kind: 'point', lat: 41.88, lng: -87.63 });
    expect(parseLocation('Brooklyn, New York, NY')).toMatchObject({
      kind: 'city',
      city: 'New York',
      state: 'NY',
      inside: { text: 'Brooklyn', address: false },
    });
    expect(parseLocation('I-10 near Baytown, TX')).toMatchObject({
      city: 'Baytown',
      inside: { text: 'I-10', address: false },
      whole: 'I-10 near Baytown',
    });
    expect(parseLocation('Chelsea, Manhattan, NY')).toMatchObject({ city: 'Manhattan', inside: { text: 'Chelsea' } });
    expect(parseLocation('Austin, Travis County, TX')).toEqual({
      kind: 'city',
      city: 'Austin',
      state: 'TX',
      input: 'Austin, Travis County, TX',
      parameter: 'location',
    });
    expect(parseLocation('New York, New York, NY')).not.toHaveProperty('inside');
  });
});

describe('coordinates', () => {
  it('reads degree signs, hemisphere letters on either side, minutes and seconds, either order', () => {
    const nyc = { lat: 40.7128, lng: -74.006 };
    for (const s of [
      '40.7128° N, 74.0060° W',
      '40.7128 N 74.0060 W',
      '40.7128N,74.0060W',
      'N40.7128 W74.0060',
      '74.0060° W, 40.7128° N',
      '40.7128°, -74.0060°',
    ]) {
      expect(parseLocation(s), s).toMatchObject({ kind: 'point', ...nyc, input: s });
    }
    const dms = parseLocation('40°42\'46"N 74°0\'22"W');
    expect(dms).toMatchObject({ kind: 'point' });
    if (dms.kind === 'point') expect([dms.lat.toFixed(4), dms.lng.toFixed(4)]).toEqual(['40.7128', '-74.0061']);
    expect(parseLocation('34.0522 -118.2437')).toMatchObject({ kind: 'point', lat: 34.0522, lng: -118.2437 });
    expect(readCoordinates('41.88,-87.63')?.text).toEqual(['41.88', '-87.63']);
  });

  it('refuses coordinates that contradict themselves, saying why', () => {
    expect(rejection(() => parseLocation('40.7 N, 74.0 N')).detail).toMatch(/two latitudes/);
    expect(rejection(() => parseLocation('-40.7 N, 74.0 W')).detail).toMatch(
      /both a minus sign and a hemisphere letter/,
    );
    expect(rejection(() => parseLocation("40°75'N 74°W")).detail).toMatch(/below 60/);
  });
});

describe('nicknames (shim/places/nicknames.ts)', () => {
  it('are stored normalised, each for a covered state code', () => {
    for (const [key, place] of Object.entries(NICKNAMES)) {
      expect(normaliseCityName(key), key).toBe(key);
      expect(US_STATES[place.state], key).toBeDefined();
    }
  });

  it('stand for their city alone or with the same state, and say which nickname was read', () => {
    expect(parseLocation('NYC')).toMatchObject({ kind: 'city', city: 'New York', state: 'NY', nickname: 'NYC' });
    expect(parseLocation('nyc, ny')).toMatchObject({ kind: 'city', city: 'New York', state: 'NY' });
    expect(parseLocation('Philly')).toMatchObject({ kind: 'city', city: 'Philadelphia', state: 'PA' });
    // The postal abbreviation: without it the spelling suggestion offered "Philo, IL".
    expect(parseLocation('Phila.')).toMatchObject({ kind: 'city', city: 'Philadelphia', state: 'PA' });
    expect(parseLocation('Phila, PA')).toMatchObject({ kind: 'city', city: 'Philadelphia', state: 'PA' });
    expect(parseLocation('L.A.')).toMatchObject({ kind: 'city', city: 'Los Angeles', state: 'CA' });
    expect(parseLocation('D.C.')).toMatchObject({ kind: 'city', city: 'Washington', state: 'DC' });
    // "Venice LA": LA as the state code; resolve.ts notes the Los Angeles reading.
    expect(parseLocation('Venice LA')).toMatchObject({ kind: 'city', city: 'Venice', state: 'LA' });
  });
});

describe('names without a state, counties and street addresses', () => {
  it('passes a name without a state to the resolver rather than refusing it', () => {
    expect(parseLocation('Springfield')).toEqual({
      kind: 'name',
      name: 'Springfield',
      input: 'Springfield',
      parameter: 'location',
    });
    expect(parseLocation('New York')).toMatchObject({ kind: 'name', name: 'New York' });
  });

  it('refuses a county, asking for the ZIP or the city', () => {
    for (const s of ['Harris County, TX', 'Cook County IL', 'Orange County', 'Jefferson Parish, LA', 'Cook Co., IL']) {
      const e = rejection(() => parseLocation(s));
      expect(e.code, s).toBe('location_not_understood');
      expect(e.detail, s).toMatch(/names a county.*counties are not accepted.*ZIP code or their city/);
    }
  });

  it('reads a street address with its city as the city, and refuses one without its city or ZIP', () => {
    expect(parseLocation('123 Main St, Springfield, IL')).toMatchObject({
      kind: 'city',
      city: 'Springfield',
      state: 'IL',
      inside: { text: '123 Main St', address: true },
    });
    expect(rejection(() => parseLocation('350 5th Ave New York NY')).detail).toMatch(/street address.*"City, ST"/);
    expect(rejection(() => parseLocation('350 5th Ave')).code).toBe('location_not_understood');
    // With its ZIP, the address is its ZIP.
    expect(parseLocation('233 S Wacker Dr, Chicago, IL 60606')).toMatchObject({ kind: 'zip', zip: '60606' });
  });

  it('asks for a place when the text only says "near me"', () => {
    for (const s of ['near me', 'lawyers near me', 'Near Me', 'my location', 'nearby'])
      expect(rejection(() => parseLocation(s)).detail, s).toMatch(/Ask the person for their city or ZIP code/);
  });

  it('reads a city named with a country or a Canadian province as abroad', () => {
    expect(parseLocation('Toronto, Canada')).toMatchObject({ kind: 'abroad', place: 'Toronto', region: 'Canada' });
    expect(parseLocation('Toronto, ON')).toMatchObject({ kind: 'abroad', region: 'Ontario, Canada' });
    expect(parseLocation('London, UK')).toMatchObject({ kind: 'abroad', region: 'United Kingdom' });
    // US states that are also countries stay states; US territories are not abroad.
    expect(parseLocation('Atlanta, Georgia')).toMatchObject({ kind: 'city', state: 'GA' });
    expect(rejection(() => parseLocation('Hagatna, Guam')).detail).toMatch(/Guam/);
  });
});

describe('words around a place (shim/places/loose.ts)', () => {
  it('leaves out where the person is relative to the place, and the area around it', () => {
    const cases: [string, string | null][] = [
      ['downtown Chicago', 'Chicago'],
      ['near Austin, TX', 'Austin, TX'],
      ['in the Denver area', 'Denver'],
      ['metro Atlanta', 'Atlanta'],
      ['Chicago, IL area', 'Chicago, IL'],
      ['Houston and surrounding areas', 'Houston'],
      ['outside of Austin, TX', 'Austin, TX'],
      // Nothing around the place, or nothing left of it.
      ['Kansas City', null],
      ['the Bronx', null],
      ['Metropolis', null],
      ['near', null],
      ['downtown', null],
    ];
    for (const [text, core] of cases) expect(looseCore(text), text).toBe(core);
  });

  it('keeps the text as sent first, with the place without the words beside it', () => {
    expect(parseLocation('downtown Chicago')).toMatchObject({
      kind: 'name',
      name: 'downtown Chicago',
      loose: { kind: 'name', name: 'Chicago', loosely: 'downtown Chicago', input: 'downtown Chicago' },
    });
    expect(parseLocation('Near North Side, IL')).toMatchObject({
      kind: 'city',
      city: 'Near North Side',
      loose: { kind: 'city', city: 'North Side', state: 'IL' },
    });
    // "IL area" is no state: only the place without the words parses.
    expect(parseLocation('Chicago, IL area')).toMatchObject({ kind: 'city', city: 'Chicago', state: 'IL' });
    expect(parseLocation('near 60601')).toMatchObject({ kind: 'zip', zip: '60601', loosely: 'near 60601' });
  });

  it('reads a street address before a ZIP without a state', () => {
    expect(parseLocation('123 Main St 60601')).toMatchObject({ kind: 'zip', zip: '60601', street: '123 Main St' });
  });
});

describe('what a place is not made of', () => {
  it('reads a ZIP sent with the country or in quotes as the ZIP', () => {
    // "60601, USA" and "\"60601\"" were "not understood", which reads as if the ZIP were wrong.
    for (const sent of ['60601, USA', '60601 US', '60601, United States', '"60601"', "'60601'", '“60601”'])
      expect(parseLocation(sent), sent).toMatchObject({ kind: 'zip', zip: '60601' });
    expect(parseLocation('"Chicago, IL"')).toMatchObject({ kind: 'city', city: 'Chicago', state: 'IL' });
    expect(rejection(() => parseLocation('USA')).code).toBe('location_not_understood');
  });

  it('leaves out invisible format characters, so none is echoed into an answer', () => {
    expect(parseLocation('60601\u200b')).toMatchObject({ kind: 'zip', zip: '60601', input: '60601' });
    expect(parseLocation('\ufeffChicago, IL')).toMatchObject({ kind: 'city', city: 'Chicago', input: 'Chicago, IL' });
    expect(parseLocation('Chicago\u202e, IL')).toMatchObject({ kind: 'city', city: 'Chicago', input: 'Chicago, IL' });
    expect(rejection(() => parseLocation('\u200b')).detail).toBe(
      'location is empty; send a 5-digit ZIP ("60601"), ZIP+4 ("60601-1234"), "City, ST" ("Austin, TX") or "lat,lng" ("41.88,-87.63").',
    );
  });

  it('says how coordinates are written when two numbers are not', () => {
    for (const sent of ['1e1,-87', 'NaN,NaN', 'Infinity,-87'])
      expect(rejection(() => parseLocation(sent)).detail, sent).toContain(
        'Coordinates are two decimal numbers separated by one comma, latitude first',
      );
  });

  it('names the pair to send when coordinates come inside other text, never asking for a state code', () => {
    // Each was refused as '"lng: -87.63" is not a USPS state code', which sent the caller off for a city and state.
    for (const [sent, pair] of [
      ['lat: 41.88, lng: -87.63', '41.88,-87.63'],
      ['@41.88,-87.63', '41.88,-87.63'],
      ['41.88,-87.63,15z', '41.88,-87.63'],
      ['https://maps.google.com/?q=41.8781,-87.6298', '41.8781,-87.6298'],
      ['latitude 41.88 longitude -87.63', '41.88,-87.63'],
    ] as const) {
      const refusal = rejection(() => parseLocation(sent));
      expect(refusal.code, sent).toBe('location_not_understood');
      expect(refusal.detail, sent).not.toMatch(/USPS|state code/);
      expect(refusal.detail, sent).toContain(`send them alone as "${pair}"`);
    }
    // A street address with a suite number is no pair.
    expect(parseLocation('Suite 2.5, 350 5th Ave, New York, NY')).toMatchObject({ kind: 'city', city: 'New York' });
  });
});
