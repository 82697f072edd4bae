/**
 * Honest answers over REST on the real local server: a place outside the measured metros is "no data", not "no
 * lawyers", in its own disclosure; while the sample dataset is synthetic every answer says the firms are fictional;
 * the disclosure a person reads names no API field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCLOSURE } from '../shim/contract/constants.ts';
import { disclosureFor, placeName, uncoveredDisclosure } from '../shim/answer/disclosure.ts';
import { request } from './helpers/http.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

type Search = {
  covered: boolean;
  firms_within_radius: number;
  disclosure: string;
  location: { state: string | null };
  results: { listing_id: string }[];
};

let server: TestApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

async function get<T>(path: string): Promise<T> {
  const reply = await request(server.url, path);
  expect(reply.status, path).toBe(200);
  return reply.body as T;
}

const FICTIONAL = /fictional/i;
const NOT_NO_LAWYERS = /does not mean there are no personal injury lawyers there/;

describe('a place outside the measured metros', () => {
  it.each<[string, string, RegExp]>([
    ['New Haven, CT at 50 miles', 'location=New%20Haven%2C%20CT&radius_miles=50', /New Haven, CT/],
    ['ZIP 59001', 'location=59001', /ZIP 59001/],
    ['ZIP 59001 as zip=', 'zip=59001&radius_miles=50', /ZIP 59001/],
  ])('%s: covered false with a disclosure of its own naming the place', async (_label, query, place) => {
    const body = await get<Search>(`/v1/attorneys?${query}`);
    expect(body.covered).toBe(false);
    expect(body.results).toEqual([]);
    expect(body.disclosure).toMatch(/^No data for this place/);
    expect(body.disclosure).toMatch(place);
    expect(body.disclosure).toMatch(NOT_NO_LAWYERS);
    expect(body.disclosure).toMatch(/Do not substitute firms from another metro or city/);
    expect(body.disclosure).toMatch(/outside the 27 US metros/);
    expect(body.disclosure).not.toContain('listings are ordered by distance only');
    expect(body.disclosure).toMatch(FICTIONAL);
  });

  it('coordinates: the disclosure names the point, and its state once the location carries one', async () => {
    const body = await get<Search>('/v1/attorneys?location=41.3083%2C-72.9279&radius_miles=50');
    expect(body.covered).toBe(false);
    expect(body.disclosure).toContain('the point 41.3083,-72.9279');
    expect(body.disclosure).toMatch(NOT_NO_LAWYERS);
    if (body.location.state === 'CT') expect(body.disclosure).toContain('(in Connecticut)');
    const point = {
      kind: 'point',
      input: '41.3083,-72.9279',
      lat: 41.3083,
      lng: -72.9279,
      zip: null,
      city: null,
    } as const;
    expect(placeName({ ...point, state: 'CT' })).toBe('the point 41.3083,-72.9279 (in Connecticut)');
    expect(uncoveredDisclosure({ ...point, state: 'MT' }, { synthetic: false, metros: 27 })).toMatch(
      /^No data for this place: the point 41\.3083,-72\.9279 \(in Montana\) is outside/,
    );
  });

  it('a covered search keeps the ordinary disclosure', async () => {
    const body = await get<Search>('/v1/attorneys?location=Chicago%2C%20IL&limit=3');
    expect(body.covered).toBe(true);
    expect(body.disclosure).toContain(DISCLOSURE);
    expect(body.disclosure).not.toMatch(/^No data/);
  });
});

describe('the synthetic sample says the firms are fictional', () => {
  it('in every answer: search, firm and coverage', async () => {
    const coverage = await get<{ dataset: { synthetic: boolean }; disclosure: string }>('/v1/coverage');
    expect(coverage.dataset.synthetic).toBe(true);
    const search = await get<Search>('/v1/attorneys?zip=77002&limit=2');
    const id = search.results[0]?.listing_id ?? '';
    const firm = await get<{ disclosure: string }>(`/v1/firms/${id}`);
    for (const disclosure of [coverage.disclosure, search.disclosure, firm.disclosure]) {
      expect(disclosure).toMatch(
        /^Sample data: every firm, office, phone number and website in this dataset is fictional/,
      );
      expect(disclosure).toContain(DISCLOSURE);
    }
  });

  it('and only while the data is synthetic', () => {
    expect(disclosureFor({ synthetic: false })).toBe(DISCLOSURE);
    expect(
      uncoveredDisclosure(
        { kind: 'city', input: 'x', lat: 0, lng: 0, zip: null, city: 'Helena', state: 'MT' },
        { synthetic: false, metros: 27 },
      ),
    ).not.toMatch(FICTIONAL);
  });
});

it('the disclosure a person reads names no API field', async () => {
  const search = await get<Search>('/v1/attorneys?location=Chicago%2C%20IL&limit=1');
  const uncovered = await get<Search>('/v1/attorneys?location=59001');
  for (const text of [DISCLOSURE, search.disclosure, uncovered.disclosure])
    expect(text).not.toMatch(/map_visibility|brand_index|profile_type|firms_within_radius|covered/);
});
