/**
 * Neutrality: flip every firm's sponsored and profile_type in the inputs, regenerate, and the API must return the same
 * firms in the same order at the same distances for every query; only the flags shown change.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLive } from './helpers/generate-live.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

type Result = {
  listing_id: string;
  distance_miles: number;
  sponsored: boolean;
  profile_type: string;
  offices_within_radius: number;
};
type Search = { covered: boolean; firms_within_radius: number; results: Result[] };

const QUERIES = [
  'zip=60601&limit=25',
  'zip=10001&radius_miles=5&limit=25',
  'zip=90012&radius_miles=50&limit=25',
  'location=Houston,%20TX&limit=25',
  'location=Dallas,%20TX&radius_miles=30&limit=25',
  'location=Boston,%20MA&limit=10',
  'location=Miami,%20FL&radius_miles=1&limit=25',
  'location=33.4484,-112.074&radius_miles=20&limit=25',
  'lat=47.6062&lng=-122.3321&limit=25',
  'lat=39.7392&lng=-104.9903&radius_miles=50&limit=25',
  'zip=30303&limit=3',
  'zip=94103&radius_miles=12.5&limit=25',
];

let temp: string;
let original: TestServer;
let flipped: TestServer;

beforeAll(async () => {
  const siteDir = process.env.TEST_SITE_DIR as string;
  const week = (JSON.parse(readFileSync(join(siteDir, 'current.json'), 'utf8')) as { week: string }).week;
  const data = resolve('data');
  temp = mkdtempSync(join(tmpdir(), 'iad-neutrality-'));
  const dataDir = join(temp, 'data');
  const weekDir = join(dataDir, 'weeks', week);
  mkdirSync(weekDir, { recursive: true });
  symlinkSync(join(data, 'metros.json'), join(dataDir, 'metros.json'));
  if (existsSync(join(data, 'corrections.jsonl')))
    symlinkSync(join(data, 'corrections.jsonl'), join(dataDir, 'corrections.jsonl'));
  for (const file of ['dataset.json', 'places.jsonl', 'samples.jsonl'])
    symlinkSync(join(data, 'weeks', week, file), join(weekDir, file));

  const flags = readFileSync(join(data, 'weeks', week, 'flags.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { firm: string; profile_type: 'standard' | 'enhanced'; sponsored: boolean });
  expect(flags.length).toBeGreaterThan(1000);
  const flippedFlags = flags.map((f) => ({
    ...f,
    profile_type: f.profile_type === 'standard' ? 'enhanced' : 'standard',
    sponsored: !f.sponsored,
  }));
  writeFileSync(join(weekDir, 'flags.jsonl'), flippedFlags.map((f) => JSON.stringify(f)).join('\n') + '\n');

  const flippedSite = join(temp, 'site');
  await generateLive({ dataDir, outDir: flippedSite, week, quiet: true });
  original = await startTestServer();
  flipped = await startTestServer({ SITE_DIR: flippedSite });
});

afterAll(async () => {
  await original?.close();
  await flipped?.close();
  if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
});

describe('order does not depend on sponsored or profile_type', () => {
  it('gives the same firms in the same order with flipped flags', async () => {
    let compared = 0;
    for (const query of QUERIES) {
      const a = (await request(original.url, `/v1/attorneys?${query}`)).body as Search;
      const b = (await request(flipped.url, `/v1/attorneys?${query}`)).body as Search;
      expect(a.covered, query).toBe(true);
      expect(b.covered).toBe(a.covered);
      expect(b.firms_within_radius, query).toBe(a.firms_within_radius);
      const strip = (r: Result): unknown[] => [r.listing_id, r.distance_miles, r.offices_within_radius];
      expect(b.results.map(strip), query).toEqual(a.results.map(strip));

      // The flags did change, so the equality above is not vacuous.
      for (const [i, r] of a.results.entries()) {
        const other = b.results[i] as Result;
        expect(other.sponsored, `${query} ${r.listing_id}`).toBe(!r.sponsored);
        expect(other.profile_type).not.toBe(r.profile_type);
      }
      // Ascending distance (shown rounded to 2 decimals, so equal shown values may be in either listing_id order).
      const d = a.results.map((r) => r.distance_miles);
      expect(d, query).toEqual([...d].sort((x, y) => x - y));
      compared += a.results.length;
    }
    expect(compared).toBeGreaterThan(150);
  });

  it('shows the flipped flags on the firm documents too, with the same offices', async () => {
    const a = (await request(original.url, '/v1/attorneys?location=Chicago,%20IL&limit=5')).body as Search;
    for (const r of a.results) {
      const fa = (await request(original.url, `/v1/firms/${r.listing_id}`)).body as {
        firm: { sponsored: boolean };
        other_offices: { listing_id: string }[];
      };
      const fb = (await request(flipped.url, `/v1/firms/${r.listing_id}`)).body as {
        firm: { sponsored: boolean };
        other_offices: { listing_id: string }[];
      };
      expect(fb.firm.sponsored).toBe(!fa.firm.sponsored);
      expect(fb.other_offices.map((o) => o.listing_id)).toEqual(fa.other_offices.map((o) => o.listing_id));
    }
  });
});
