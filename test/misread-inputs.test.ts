/**
 * Inputs an assistant may pass on from a person that were misread or refused without a way forward: a city abroad
 * spelled as it is there ("München"), swapped lat/lng, decimal commas, km for miles, paging, "Chicago/IL",
 * "Washington state", regions and parts of a state read as small towns ("NorCal", "West Texas"). Over REST and
 * through the real MCP SDK client on the real server; each asserts what the person would be told.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startTestServer();
  client = new Client({ name: 'misread-inputs', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function rest(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/attorneys?${query}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function mcp(args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const r = (await client.callTool({ name: 'find_injury_attorneys', arguments: args })) as {
    isError?: boolean;
    content: { text: string }[];
  };
  return { isError: r.isError === true, text: r.content.map((c) => c.text).join('\n') };
}

describe('a city abroad under its own spelling', () => {
  it('is refused as that city abroad, never read as a different US town (München is not Muncie, IN)', async () => {
    for (const [sent, place] of [
      ['München', 'Munich, Germany'],
      ['Munchen', 'Munich, Germany'],
      ['Muenchen', 'Munich, Germany'],
      ['Koeln', 'Cologne, Germany'],
      ['Wien', 'Vienna, Austria'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain(`${JSON.stringify(sent)} is ${place}, outside the United States`);
      expect(r.body.detail, sent).not.toMatch(/Muncie|Koln, |read as/);
      const m = await mcp({ location: sent });
      expect(m.isError, sent).toBe(true);
      expect(m.text, sent).toContain(`is ${place}, outside the United States`);
    }
  });

  it('that a small US place shares is named first, with the US place as a candidate (Roma: Rome, Italy; Roma, TX)', async () => {
    const r = await rest('location=Roma');
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(
      /^Rome, Italy is outside the United States.*If the person means Roma, TX, send "Roma, TX"/,
    );
  });

  it('with letters of another language, is not silently corrected to a US name of other spelling', async () => {
    for (const sent of ['Düsselburg', 'Milwauké']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toMatch(
        /If it is a place outside the United States, the service covers US locations only .* and has no data there\./,
      );
    }
    // Asked, not answered: the close US name is offered for the person to confirm.
    expect((await rest(`location=${encodeURIComponent('Milwauké')}`)).body.detail).toMatch(
      /no US place is named "Milwauké"\..*Did you mean .*"Milwaukee, WI"/,
    );
  });

  it('keeps US names written with their own accents (Española, Cañon City)', async () => {
    for (const [sent, city] of [
      ['Española', 'Española'],
      ['Cañon City', 'Cañon City'],
      ['Española, NM', 'Española'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      expect((r.body.location as { city: string }).city, sent).toBe(city);
    }
  });
});

describe('refusals that name the way forward', () => {
  it('page or offset: says there is no paging, and what gives more firms', async () => {
    for (const name of ['page', 'offset']) {
      const r = await rest(`location=60601&${name}=2`);
      expect(r.status, name).toBe(400);
      expect(r.body.code, name).toBe('unknown_parameter');
      expect(r.body.detail, name).toMatch(
        new RegExp(
          `^Unknown parameter "${name}"\\. There is no paging: one answer gives the nearest firms, up to 25 \\(limit\\); ` +
            'for firms farther away, send a larger radius_miles \\(up to 50\\)\\. Accepted parameters: ',
        ),
      );
      const m = await mcp({ location: '60601', [name]: 2 });
      expect(m.isError, name).toBe(true);
      expect(m.text, name).toContain('There is no paging: one answer gives the nearest firms, up to 25 (limit)');
    }
  });

  it('a radius in km: says radius_miles is in miles and gives the miles to send', async () => {
    const r = await rest('location=60601&radius_miles=5%20km');
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe(
      'radius_miles must be a number from 1 to 50 (miles); got "5 km". radius_miles is in miles: 5 km is about 3.1 miles; send radius_miles=3.1.',
    );
    const m = await mcp({ location: '60601', radius_miles: '5 km' });
    expect(m.text).toContain('5 km is about 3.1 miles; send radius_miles=3.1.');
    // "radius=5km": the name and the unit at once.
    const named = await rest('location=60601&radius=5km');
    expect(named.body.detail).toMatch(
      /Did you mean radius_miles\? It is in miles: 5 km is about 3\.1 miles; send radius_miles=3\.1\./,
    );
    // Beyond the range once converted: the nearest accepted value.
    expect((await rest('location=60601&radius_miles=100km')).body.detail).toMatch(
      /100 km is about 62\.1 miles, more than the largest radius; send radius_miles=50\./,
    );
    // "10 miles": the number alone.
    expect((await rest('location=60601&radius_miles=10%20miles')).body.detail).toMatch(
      /send the number alone: radius_miles=10\./,
    );
  });

  it('a decimal comma in coordinates: refused with the values written with dots, never read as other numbers', async () => {
    const r = await rest('lat=41%2C88&lng=-87%2C63');
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/got "41,88"\. Use a dot as the decimal point: send lat=41\.88&lng=-87\.63\./);
    const m = await mcp({ lat: '41,88', lng: '-87,63' });
    expect(m.text).toMatch(/Use a dot as the decimal point: send lat=41\.88&lng=-87\.63\./);
    for (const sent of ['41,88, -87,63', '41,88,-87,63', '41,88;-87,63', '41,88 -87,63']) {
      const l = await rest(`location=${encodeURIComponent(sent)}`);
      expect(l.status, sent).toBe(400);
      expect(l.body.detail, sent).toMatch(/decimal commas?.*send "41\.88,-87\.63"/);
      const lm = await mcp({ location: sent });
      expect(lm.text, sent).toMatch(/send "41\.88,-87\.63"/);
    }
    // "41,88" alone: not read as latitude 41, longitude 88 with a sign fix offered ("41,-88").
    const one = await rest(`location=${encodeURIComponent('41,88')}`);
    expect(one.status).toBe(400);
    expect(one.body.detail).not.toMatch(/Did you mean/);
    expect(one.body.detail).toMatch(/If "41,88" is one number written with a decimal comma \(41\.88\)/);
  });

  it("a state's name misspelt: asks whether the state one slip away is meant, naming the text to send", async () => {
    for (const [sent, meant] of [
      ['Chicago, Ilinois', '"Chicago, IL" (Illinois)'],
      ['Miami, Flordia', '"Miami, FL" (Florida)'],
      ['Houston, Texsa', '"Houston, TX" (Texas)'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain(`is not a USPS state code. Did you mean ${meant}?`);
    }
  });

  it('"home", "work", "my town": asks where the person is, never reads them as Home, WA', async () => {
    for (const sent of ['home', 'my home', 'at home', 'work', 'my office', 'my town']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain('does not name a place, and the service cannot tell where the person is');
      expect(r.body.detail, sent).not.toContain('Home, WA');
    }
  });

  it('a city with the wrong state: names the states where a place of that name is, to check with the person', async () => {
    const r = await rest(`location=${encodeURIComponent('Chicago, IN')}`);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain(
      'No place named "Chicago" is known in Indiana (IN). A place of that name is in Illinois (IL): did you mean "Chicago, IL"? Check the state with the person',
    );
    const m = await mcp({ location: 'Seattle, OR' });
    expect(m.isError).toBe(true);
    expect(m.text).toContain('did you mean "Seattle, WA"?');
    // A name known nowhere is still told to check its spelling.
    expect((await rest(`location=${encodeURIComponent('Qwxz, TX')}`)).body.detail).toContain(
      'Check the spelling and the state code',
    );
  });

  it("a place and its city without the state: says to send the city's state code after them", async () => {
    const r = await rest(`location=${encodeURIComponent('Buckhead, Atlanta')}`);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain(
      'If "Atlanta" is the city "Buckhead" is in, send "Buckhead, Atlanta, ST" with the city\'s 2-letter state code.',
    );
    // The form it names is answered.
    expect((await rest(`location=${encodeURIComponent('Harlem, NYC, NY')}&limit=1`)).body.location).toMatchObject({
      city: 'Harlem',
      state: 'NY',
    });
  });

  it('a ZIP written as a number or with the letter O: refused naming the ZIP to send, if it is the ZIP', async () => {
    for (const [sent, zip, how] of [
      ['60601.0', '60601', 'written as a number'],
      ['6O601', '60601', 'with the letter O for a zero'],
      ['O2139', '02139', 'with the letter O for a zero'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toBe(
        `location ${JSON.stringify(sent)} looks like the ZIP code ${zip} ${how}; if it is, send "${zip}".`,
      );
    }
  });

  it('a ZIP before the city: the refusal as a street address says to send the ZIP alone if it is one', async () => {
    for (const sent of ['30303 Atlanta', '30303 (Atlanta)', '30303, Georgia', '30303, GA']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain('If 30303 is the ZIP code, send it alone: "30303".');
    }
  });

  it('a hemisphere letter on lat or lng: refused with the signed numbers to send', async () => {
    for (const [query, send] of [
      ['lat=41.88N&lng=87.63W', 'send lat=41.88&lng=-87.63'],
      ['lat=41.88&lng=W87.63', 'send lat=41.88&lng=-87.63'],
      ['lat=33.9%20S&lng=151.2%20E', 'send lat=-33.9&lng=151.2'],
    ] as const) {
      const r = await rest(query);
      expect(r.status, query).toBe(400);
      expect(r.body.detail, query).toContain(
        `Write the hemisphere as the sign (S and W negative, N and E positive): ${send}.`,
      );
    }
  });

  it('two ZIP codes in one location: asks for the person\'s own ZIP, not for a valid "lat,lng" or a state', async () => {
    // "or" after a ZIP was read as Oregon, and "60601 and 60602" answered from 60602 as if "60601 and" were a street.
    const lists = ['60601 or 60602', '60601 and 60602', '60601/60602', '60601 & 60602', '60601; 60602, 60603'];
    for (const sent of ['60601 60602', '60601, 60602', '60601,60602', ...lists]) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain('holds more than one 5-digit ZIP code, not one place; send one ZIP');
      expect(r.body.detail, sent).not.toMatch(/\bOR\b|Oregon/);
      expect(r.body.detail, sent).not.toMatch(/latitude must be/);
      const m = await mcp({ location: sent });
      expect(m.text, sent).toContain('send one ZIP');
    }
  });
});

describe('lat and lng swapped, both in range (a point in the Antarctic whose swap is in the US)', () => {
  it('says the two look swapped and gives them the other way round, as parameters over REST and MCP', async () => {
    const r = await rest('lat=-87.63&lng=41.88');
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(
      /lat and lng look swapped: lat -87\.63 reads as a longitude and lng 41\.88 as a latitude; send lat=41\.88 and lng=-87\.63 \(US longitudes are negative\)\./,
    );
    expect(r.body.detail).not.toMatch(/Did you mean "/);
    const m = await mcp({ lat: -87.63, lng: 41.88 });
    expect(m.isError).toBe(true);
    expect(m.text).toMatch(/lat and lng look swapped: .*send lat=41\.88 and lng=-87\.63 /);
    // Swapped and the longitude's sign lost: the pair to send has it.
    expect((await rest('lat=87.63&lng=41.88')).body.detail).toMatch(/look swapped: .*send lat=41\.88 and lng=-87\.63 /);
  });

  it('says so for a "lat,lng" text too, with the text to send', async () => {
    const r = await rest(`location=${encodeURIComponent('-87.63,41.88')}`);
    expect(r.body.detail).toMatch(/The two numbers look swapped \(longitude first\); send "41\.88,-87\.63"/);
    const m = await mcp({ location: '-87.63,41.88' });
    expect(m.text).toMatch(/The two numbers look swapped \(longitude first\); send "41\.88,-87\.63"/);
  });
});

describe('a state written the ways people write it', () => {
  it('reads "City (ST)", "City; ST", "City | ST" and "street, City ST" with the state as sent', async () => {
    for (const [sent, note] of [
      ['Austin (TX)', null],
      ['Austin; TX', null],
      ['Austin | TX', null],
      ['123 Main St, Austin TX', 'The street address "123 Main St" is not located'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      const location = r.body.location as { city: string; state: string; note?: string };
      expect([location.city, location.state], sent).toEqual(['Austin', 'TX']);
      expect(location.note ?? '', sent).not.toContain('closest spelling');
      if (note !== null) expect(location.note, sent).toContain(note);
    }
  });

  it('reads "City/ST" as "City, ST"', async () => {
    for (const sent of ['Chicago/IL', 'Chicago / IL', 'Chicago/Illinois']) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      const location = r.body.location as { city: string; state: string; note?: string };
      expect(location, sent).toMatchObject({ city: 'Chicago', state: 'IL' });
      // Read as written, not as a misspelling of it.
      expect(location.note ?? '', sent).not.toMatch(/spelling/);
    }
    const m = await mcp({ location: 'Chicago/IL', limit: 1 });
    expect(m.isError).toBe(false);
    expect(m.text).toMatch(/ of Chicago, IL \(/);
  });

  it('answers "Washington state" as it answers a state alone: ask for the city or ZIP', async () => {
    const bare = (await rest('location=Texas')).body.detail as string;
    expect(bare).toBe(
      'location "Texas" names a state, not a place; ask the person for their city or ZIP, then send it as "City, ST" or a 5-digit ZIP.',
    );
    for (const sent of ['Washington state', 'Washington State', 'New York state', 'state of Washington']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.code, sent).toBe('location_not_understood');
      expect(r.body.detail, sent).toBe(bare.replace('"Texas"', JSON.stringify(sent)));
      const m = await mcp({ location: sent });
      expect(m.text, sent).toContain(`${JSON.stringify(sent)} names a state, not a place`);
    }
    // With a city before it, the state is read as the state.
    const city = await rest(`location=${encodeURIComponent('Seattle, Washington state')}&limit=1`);
    expect(city.status).toBe(200);
    expect(city.body.location).toMatchObject({ city: 'Seattle', state: 'WA' });
  });
});

describe('a region, a part of a state or city, or a state by its nickname (each also a small place somewhere)', () => {
  it('is refused naming what it is, never answered from the small place of that name', async () => {
    // Each was answered from the place in brackets: a person in Northern California was shown lawyers in Illinois.
    for (const [sent, what, not] of [
      ['NorCal', 'names a region (Northern California)', 'Normal, IL'],
      ['Jersey Shore', 'names a region (the Jersey Shore, NJ', 'Jersey Shore, PA'],
      ['West Texas', 'names part of Texas', 'West, TX'],
      ['Central PA', 'names part of Pennsylvania', 'Central City, PA'],
      ['Midwest', 'names a region of several states (the Midwest)', 'Midwest City, OK'],
      ['New England', 'names a region of six states', 'New England, ND'],
      ['NoVA', 'names a part of Virginia (Northern Virginia)', 'Nova, OH'],
      ['Midtown', 'names a part of a city', 'Midtown, TN'],
      ['Big Island', 'names the island of Hawaii (HI)', 'Big Island, VA'],
      ['Chicagoland', 'names the Chicago metro area, IL', 'Chicago Lawn, IL'],
      ['Hamptons', 'names a region (the Hamptons, NY', 'Hampton, VA'],
      ['Catskills', 'names a region (the Catskills, NY)', 'read as Catskill'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(400);
      expect(r.body.code, sent).toBe('location_not_understood');
      expect(r.body.detail, sent).toContain(`location ${JSON.stringify(sent)} ${what}`);
      expect(r.body.detail, sent).toMatch(/Ask the person which city they are in/);
      expect(JSON.stringify(r.body), sent).not.toContain(not);
      const m = await mcp({ location: sent });
      expect(m.isError, sent).toBe(true);
      expect(m.text, sent).toContain(what);
    }
  });

  it('offers, never answers, the place a plural name is an "s" away from (a region\'s name more often than a slip)', async () => {
    const r = await rest('location=Daytons');
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('Did you mean "Dayton, OH"');
    // A slip that is not a plural is still read as the place it clearly is.
    expect(((await rest('location=Pheonix&limit=1')).body.location as { city: string }).city).toBe('Phoenix');
  });

  it('still answers the small place when its state is sent, and the states whose names start with a direction', async () => {
    for (const [sent, city, state] of [
      ['West, TX', 'West', 'TX'],
      ['Jersey Shore, PA', 'Jersey Shore', 'PA'],
      ['Midwest City', 'Midwest City', 'OK'],
      ['East Lansing MI', 'East Lansing', 'MI'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      const location = r.body.location as { city: string; state: string };
      expect([location.city, location.state], sent).toEqual([city, state]);
    }
    for (const sent of ['West Virginia', 'North Carolina', 'South Dakota']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain('names a state, not a place');
    }
  });

  it('asks for the city when a name without a state is known only as a small place (a park or neighbourhood elsewhere)', async () => {
    // Each was answered from the small place: a person near Central Park in New York was shown lawyers in Washington.
    for (const [sent, place] of [
      ['Central Park', 'Central Park, WA, a place of 2,685 people'],
      ['Grant Park', 'Grant Park, IL, a place of 1,289 people'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(400);
      expect(r.body.code, sent).toBe('ambiguous_location');
      expect(r.body.detail, sent).toContain(
        `${JSON.stringify(sent)} without a state is known to this service only as ${place}`,
      );
      expect(r.body.detail, sent).toContain(`or the part with its city as "${sent}, City, ST"`);
      const m = await mcp({ location: sent });
      expect(m.isError, sent).toBe(true);
      expect(m.text, sent).toContain('Ask the person which city and state they are in');
    }
    // With its city, the neighbourhood; with its state, the small place; a large place still answers without one.
    const inCity = await rest(`location=${encodeURIComponent('Buckhead, Atlanta, GA')}&limit=1`);
    expect(inCity.status).toBe(200);
    expect((inCity.body.location as { metro: string }).metro).toBe('atlanta');
    const withState = await rest(`location=${encodeURIComponent('Central Park, WA')}&limit=1`);
    expect(withState.status).toBe(200);
    expect((await rest('location=Chicago&limit=1')).status).toBe(200);
  });

  it('asks where the person is for a well-known neighbourhood sent alone, naming its city first', async () => {
    // Each was answered from a namesake or refused as abroad: Pilsen, Chicago as Pilsen, Czechia ("tell the person so"),
    // Bel Air, Los Angeles from Bel Air, MD, "the only US place of that name".
    for (const [sent, first, namesake] of [
      ['Pilsen', 'Chicago, IL', 'Pilsen, Czechia'],
      ['Gold Coast', 'Chicago, IL', 'Gold Coast, Australia'],
      ['Bel Air', 'Los Angeles, CA', 'Bel Air, MD'],
      ['Buckhead', 'Atlanta, GA', 'Buckhead, GA'],
      ['SoHo', 'New York, NY', null],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(400);
      expect(r.body.code, sent).toBe('ambiguous_location');
      expect(r.body.detail, sent).toContain(`${JSON.stringify(sent)} is a neighbourhood of ${first}`);
      if (namesake !== null) expect(r.body.detail, sent).toContain(`the name of ${namesake}`);
      else expect(r.body.detail, sent).not.toContain('the name of');
      expect(r.body.detail, sent).not.toContain('outside the United States');
      const [city, state] = first.split(', ');
      expect((r.body.candidates as { city: string; state: string; covered: boolean }[])[0], sent).toEqual({
        city,
        state,
        covered: true,
      });
      const m = await mcp({ location: sent });
      expect(m.isError, sent).toBe(true);
      expect(m.text, sent).toContain('Ask the person which one they mean');
    }
    // With its city or its state, it is answered as before.
    expect((await rest(`location=${encodeURIComponent('Pilsen, Chicago, IL')}&limit=1`)).status).toBe(200);
    const md = await rest(`location=${encodeURIComponent('Bel Air, MD')}&limit=1`);
    expect(md.status).toBe(200);
    expect((md.body.location as { state: string }).state).toBe('MD');
  });

  it("reads a name with a sentence's mark after it as the name, not as a misspelling", async () => {
    for (const sent of ['Chicago!', 'chicago?', 'Chicago, IL?']) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      expect((r.body.location as { city: string }).city, sent).toBe('Chicago');
      expect(JSON.stringify(r.body.location), sent).not.toContain('closest spelling');
    }
  });

  it('reads a part of a city named with its city as the city, saying so ("Midtown Atlanta")', async () => {
    for (const [sent, city] of [
      ['Midtown Atlanta', 'Atlanta'],
      ['Uptown Charlotte', 'Charlotte'],
      ['Southside Chicago', 'Chicago'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      const location = r.body.location as { city: string; note: string };
      expect(location.city, sent).toBe(city);
      expect(location.note, sent).toContain(`Read ${JSON.stringify(sent)} as ${city}`);
    }
  });

  it('asks which is meant when a name is also what people call a state (Jersey, Carolina)', async () => {
    for (const [sent, states, place] of [
      ['Jersey', 'New Jersey', 'Jersey City, NJ'],
      ['Carolina', 'North Carolina or South Carolina', 'Carolina, PR'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.code, sent).toBe('ambiguous_location');
      expect(r.body.detail, sent).toContain(`and of a state (${states}); the service will not guess`);
      expect(r.body.detail, sent).toContain(place);
    }
  });
});

describe("a state's name, the country, or words that are no place", () => {
  it('a state named alone is the state: never answered from a place one slip away, never first a place abroad', async () => {
    // Missouri was answered from Missoula, MT ("the closest spelling"); Virginia led with Virginia, South Africa.
    const missouri = await rest('location=Missouri');
    expect(missouri.status).toBe(400);
    expect(missouri.body.detail).toBe(
      'location "Missouri" names a state, not a place; ask the person for their city or ZIP, then send it as "City, ST" or a 5-digit ZIP.',
    );
    const virginia = await rest('location=Virginia');
    expect(virginia.status).toBe(400);
    expect(virginia.body.code).toBe('ambiguous_location');
    expect(virginia.body.detail).toMatch(
      /^"Virginia" is the name of .*, and of a state \(Virginia\); the service will not guess/,
    );
    expect(virginia.body.detail).not.toContain('South Africa');
    const indiana = await rest('location=Indiana');
    expect(indiana.body.detail).toMatch(/^"Indiana" is the name of Indiana, PA, and of a state \(Indiana\)/);
    const m = await mcp({ location: 'Missouri' });
    expect(m.isError).toBe(true);
    expect(m.text).toContain('names a state, not a place');
    expect(m.text).not.toContain('Missoula');
  });

  it("a state's name misspelt is asked about as the state, not offered as the village it is also a slip of", async () => {
    for (const [sent, state, code] of [
      ['Tennesee', 'Tennessee', 'TN'],
      ['Virgina', 'Virginia', 'VA'],
      ['Floria', 'Florida', 'FL'],
      ['Califonia', 'California', 'CA'],
      ['Missisippi', 'Mississippi', 'MS'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toBe(
        `location ${JSON.stringify(sent)} looks like the name of a state (${state}) misspelt, and a state is not a place; ` +
          `ask the person for their city or ZIP, then send it as "City, ${code}" or a 5-digit ZIP.`,
      );
    }
    // A place of that exact name still resolves with its state, and a city's slip is still read as the city.
    expect((await rest('location=Tennessee%2C%20IL&limit=1')).status).toBe(200);
    const phoenix = await rest('location=Pheonix&limit=1');
    expect((phoenix.body.location as { city: string }).city).toBe('Phoenix');
  });

  it('the country by any of its names, and words for no place at all, ask for the city or ZIP', async () => {
    for (const sent of ['America', 'the USA', 'the United States of America', 'US'])
      expect((await rest(`location=${encodeURIComponent(sent)}`)).body.detail, sent).toContain(
        'names the country, not a place',
      );
    for (const sent of ['my area', 'N/A', 'none', 'unknown', 'anywhere']) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain('does not name a place, and the service cannot tell where the person is');
    }
  });

  it('a US area the service does not cover, or a country named alone, is said to be one', async () => {
    for (const [sent, area] of [
      ['Guam', 'Guam'],
      ['USVI', 'the U.S. Virgin Islands'],
      ['Saipan', 'the Northern Mariana Islands'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}`);
      expect(r.status, sent).toBe(400);
      expect(r.body.detail, sent).toContain(
        `location ${JSON.stringify(sent)} names ${area}, which the service does not cover`,
      );
    }
    // "Canada" was "known only as Canada, KY, a small place"; Canada, KY stays a candidate.
    const canada = await rest('location=Canada');
    expect(canada.body.detail).toMatch(/^Canada is outside the United States; .*If the person means Canada, KY, send/);
    expect((await rest('location=Germany')).body.detail).toContain('"Germany" is Germany, outside the United States');
    // A US place of 10,000 people or more keeps the name: Ontario, CA; and Georgia is the state.
    expect(((await rest('location=Ontario&limit=1')).body.location as { state: string }).state).toBe('CA');
    expect((await rest('location=Georgia')).body.detail).toContain('names a state, not a place');
  });

  it('two places, or a sentence around one, are refused saying so and naming what to send', async () => {
    const two = await rest(`location=${encodeURIComponent('Dallas or Fort Worth')}`);
    expect(two.status).toBe(400);
    expect(two.body.detail).toContain(
      'It seems to name more than one place ("Dallas" and "Fort Worth"), and distances are measured from one point',
    );
    const sentence = await rest(`location=${encodeURIComponent('I was in an accident in Dallas')}`);
    expect(sentence.status).toBe(400);
    expect(sentence.body.detail).toContain('It reads as a sentence: send only the place (perhaps "Dallas")');
    const m = await mcp({ location: 'Plano and Frisco' });
    expect(m.isError).toBe(true);
    expect(m.text).toContain('("Plano" and "Frisco")');
    // A place whose name has "and" in it is still that place.
    expect((await rest(`location=${encodeURIComponent('Town and Country, MO')}&limit=1`)).status).toBe(200);
  });

  it('a name held without its population is not called small (the Bronx)', async () => {
    const r = await rest('location=Bronx');
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('Bronx, NY, a place whose population it does not hold');
    expect(r.body.detail).not.toContain('a small place');
  });
});

describe('the marks an assistant formats a value with', () => {
  it('are left out: markdown, a bullet or number, a pin, a label; the answer echoes the value as sent', async () => {
    // Each was refused as if the marks were part of the place: "TX**" was no state, "• Dallas" no place in Texas.
    for (const sent of [
      '**Dallas, TX**',
      '`Dallas, TX`',
      '• Dallas, TX',
      '- Dallas, TX',
      '1. Dallas, TX',
      '📍 Dallas, TX',
      'Dallas, TX 📍',
      'Location: Dallas, TX',
      'city=Dallas, TX',
    ]) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      expect(r.body.location, sent).toMatchObject({ input: sent, city: 'Dallas', state: 'TX' });
    }
    const zip = await rest(`location=${encodeURIComponent('**60601**')}&limit=1`);
    expect(zip.body.location).toMatchObject({ kind: 'zip', zip: '60601' });
    const m = await mcp({ location: '📍 Dallas, TX', limit: 1 });
    expect(m.isError).toBe(false);
    expect(m.text).toContain('Dallas, TX');
  });

  it('leave a negative number a number, and words for no place still no place', async () => {
    const swapped = await rest(`location=${encodeURIComponent('-87.63,41.88')}`);
    expect(swapped.status).toBe(400);
    expect(swapped.body.detail).toContain('read as latitude -87.63, longitude 41.88');
    expect((await rest(`location=${encodeURIComponent('**near me**')}`)).body.detail).toContain(
      'does not name a place',
    );
  });
});

describe('a place named with the abbreviations of an address line', () => {
  it('is the place spelled out, never the place its abbreviation is one letter from', async () => {
    // "N. Las Vegas, NV" was answered from Las Vegas ("the closest spelling"), "S. Portland, ME" from Portland: each is a
    // city of its own. The others were refused as no place.
    for (const [sent, city, state] of [
      ['N. Las Vegas, NV', 'North Las Vegas', 'NV'],
      ['S. Portland, ME', 'South Portland', 'ME'],
      ['W Palm Beach', 'West Palm Beach', 'FL'],
      ['Arlington Hts, IL', 'Arlington Heights', 'IL'],
      ['Colorado Spgs, CO', 'Colorado Springs', 'CO'],
    ] as const) {
      const r = await rest(`location=${encodeURIComponent(sent)}&limit=1`);
      expect(r.status, sent).toBe(200);
      expect(r.body.location, sent).toMatchObject({ input: sent, city, state });
      expect(JSON.stringify(r.body.location), sent).not.toContain('closest spelling');
    }
    const m = await mcp({ location: 'N. Las Vegas, NV', limit: 1 });
    expect(m.text).toContain('North Las Vegas, NV');
    // "N Dallas" spells out to no place: refused as sent, not answered from Dallas.
    const north = await rest('location=N%20Dallas');
    expect(north.status).toBe(400);
    expect(north.body.detail).toContain('location "N Dallas" is no US place name this service knows');
  });
});
