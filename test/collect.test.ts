/** The collector against a loopback Text Search fake: field mask, paging, retries, budget, resume, ingestion. */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCoverage, metrosCovering } from '../generator/model/coverage.ts';
import { PlaceRecord, SampleRecord } from '../generator/inputs/schema.ts';
import { readLogFile } from '../data/collect/answers-log.ts';
import { GooglePlacesProvider, RetriesExhaustedError } from '../data/collect/google-places.ts';
import { gridPoints } from '../data/collect/grid.ts';
import { openingHoursOf, placeRecordOf } from '../data/collect/ingest.ts';
import { parseOperatorFlags } from '../data/collect/operator-flags.ts';
import { ApiPlace } from '../data/collect/places-api.ts';
import { Budget } from '../data/collect/pricing.ts';
import { FatalProviderError } from '../data/collect/provider.ts';
import { runCollection } from '../data/collect/run.ts';
import { MEASURED_QUERIES } from '../shim/contract/constants.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { claimsFor, dataDir, fakeWorld, metro, metros, sampleOffices } from './helpers/collect-fixture.ts';
import { fakeRanking, startPlacesFake, type Fault } from './helpers/places-fake.ts';

const KEY = 'test-key-Zx81-do-not-log';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function provider(
  url: string,
  budget: Budget,
  extra: Partial<ConstructorParameters<typeof GooglePlacesProvider>[0]> = {},
): { p: GooglePlacesProvider; sleeps: number[] } {
  const sleeps: number[] = [];
  const p = new GooglePlacesProvider({
    endpoint: url,
    apiKey: KEY,
    pages: 1,
    budget,
    timeoutMs: 2000,
    maxAttempts: 4,
    backoff: { baseMs: 10, capMs: 5000 },
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...extra,
  });
  return { p, sleeps };
}

describe('grid', () => {
  const all = gridPoints(metros());
  it('covers every metro with stable, unique points inside its radius and its measured area', () => {
    const coverage = buildCoverage(metros());
    const ids = new Set(all.map((p) => p.pointId));
    expect(ids.size).toBe(all.length);
    expect(all.length).toBeGreaterThan(2500);
    expect(all.length).toBeLessThan(4500);
    for (const m of metros()) {
      const mine = all.filter((p) => p.metro === m.slug);
      expect(mine.length, m.slug).toBeGreaterThan(20);
      for (const p of mine) {
        expect(haversineMiles(p.lat, p.lng, m.center.lat, m.center.lng)).toBeLessThanOrEqual(m.radius_miles + 0.001);
        expect(metrosCovering(coverage, p.lat, p.lng), p.pointId).toContain(m.slug);
      }
    }
    expect(gridPoints(metros())).toEqual(all);
  });
});

describe('Google Places adapter', () => {
  it('sends the documented request with a field mask of only the directory fields', async () => {
    const fake = await startPlacesFake({ apiKey: KEY, places: fakeWorld('austin', 40) });
    try {
      const { p } = provider(fake.url, new Budget(1, 35));
      const m = metro('austin');
      const answer = await p.search('car accident lawyer', { lat: m.center.lat, lng: m.center.lng });
      expect(fake.requests).toHaveLength(1);
      const seen = fake.requests[0]!;
      expect(seen.headers['x-goog-api-key']).toBe(KEY);
      const mask = String(seen.headers['x-goog-fieldmask']).split(',');
      expect(mask.sort()).toEqual(
        [
          'places.id',
          'places.displayName',
          'places.formattedAddress',
          'places.addressComponents',
          'places.location',
          'places.nationalPhoneNumber',
          'places.websiteUri',
          'places.regularOpeningHours',
          'places.primaryType',
          'places.primaryTypeDisplayName',
          'places.businessStatus',
          'nextPageToken',
        ].sort(),
      );
      expect(mask.some((f) => /rating|review/i.test(f))).toBe(false);
      expect(seen.body).toEqual({
        textQuery: 'car accident lawyer',
        pageSize: 20,
        languageCode: 'en',
        regionCode: 'US',
        locationBias: { circle: { center: { latitude: m.center.lat, longitude: m.center.lng }, radius: 4000 } },
      });
      // Rank = the provider's order: the fake's own ranking, independently computed.
      expect(answer.places.map((x) => x.id)).toEqual(
        fakeRanking(fakeWorld('austin', 40), 'car accident lawyer', m.center.lat, m.center.lng)
          .slice(0, 20)
          .map((x) => x.id),
      );
      expect(answer.requests).toBe(1);
      expect(JSON.stringify(answer)).not.toMatch(/rating|review/i);
    } finally {
      await fake.close();
    }
  });

  it('follows nextPageToken for deeper pages and stops at the last page', async () => {
    const world = fakeWorld('austin', 40);
    const fake = await startPlacesFake({ apiKey: KEY, places: world });
    try {
      const m = metro('austin');
      const { p } = provider(fake.url, new Budget(1, 35), { pages: 3 });
      const answer = await p.search('truck accident lawyer', m.center);
      const expected = fakeRanking(world, 'truck accident lawyer', m.center.lat, m.center.lng).map((x) => x.id);
      expect(expected.length).toBe(60);
      expect(answer.places.map((x) => x.id)).toEqual(expected);
      expect(answer.requests).toBe(3);
      expect(fake.requests.map((r) => (r.body as { pageToken?: string }).pageToken === undefined)).toEqual([
        true,
        false,
        false,
      ]);
      // A small world ends paging early: no token, no further request.
      const small = await startPlacesFake({ apiKey: KEY, places: world.slice(0, 25) });
      try {
        const { p: p2 } = provider(small.url, new Budget(1, 35), { pages: 3 });
        const a2 = await p2.search('truck accident lawyer', m.center);
        expect(a2.places).toHaveLength(25);
        expect(small.requests).toHaveLength(2);
      } finally {
        await small.close();
      }
    } finally {
      await fake.close();
    }
  });

  it('retries 429 (honouring Retry-After), 5xx and timeouts with growing backoff; bills only answered requests', async () => {
    const faults: Record<number, Fault> = {
      1: { status: 429, retryAfter: '3' },
      2: { status: 500 },
      3: { delayMs: 1500 },
      4: { status: 503 },
    };
    const fake = await startPlacesFake({ apiKey: KEY, places: fakeWorld('austin', 40), fault: (n) => faults[n] });
    try {
      const budget = new Budget(1, 35);
      const { p, sleeps } = provider(fake.url, budget, {
        maxAttempts: 5,
        timeoutMs: 300,
        backoff: { baseMs: 100, capMs: 10_000 },
      });
      const answer = await p.search('personal injury lawyer', metro('austin').center);
      expect(answer.places.length).toBe(20);
      expect(fake.requests).toHaveLength(5);
      // Retry-After: 3 wins over the jittered 50 ms; later waits are jitter (0.5) x 100 x 2^(n-1).
      expect(sleeps).toEqual([3000, 100, 200, 400]);
      // The answered request and the timed-out one (which may have been billed) count; the error answers do not.
      expect(budget.requests).toBe(2);
      expect(answer.requests).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('gives up after the last attempt, and stops at once on 400/403 without the key in the message', async () => {
    const fake = await startPlacesFake({
      apiKey: KEY,
      places: fakeWorld('austin', 40),
      fault: () => ({ status: 500 }),
    });
    try {
      const { p } = provider(fake.url, new Budget(1, 35));
      await expect(p.search('personal injury lawyer', metro('austin').center)).rejects.toBeInstanceOf(
        RetriesExhaustedError,
      );
      expect(fake.requests).toHaveLength(4);
    } finally {
      await fake.close();
    }
    const real = await startPlacesFake({ apiKey: 'another-key', places: [] });
    try {
      const { p } = provider(real.url, new Budget(1, 35));
      const err = await p.search('personal injury lawyer', metro('austin').center).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FatalProviderError);
      expect((err as Error).message).toContain('API key not valid');
      expect((err as Error).message).not.toContain(KEY);
      expect(real.requests).toHaveLength(1);
    } finally {
      await real.close();
    }
  });

  it('checks the budget before each request', async () => {
    const fake = await startPlacesFake({ apiKey: KEY, places: fakeWorld('austin', 40) });
    try {
      // $0.10 at $35 per 1,000 buys two requests, not three.
      const { p } = provider(fake.url, new Budget(0.1, 35), { pages: 3 });
      await expect(p.search('personal injury lawyer', metro('austin').center)).rejects.toThrow(/budget reached/);
      expect(fake.requests).toHaveLength(2);
    } finally {
      await fake.close();
    }
  });
});

function readWeek(dir: string, week: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(join(dir, 'weeks', week)).sort())
    out[f] = readFileSync(join(dir, 'weeks', week, f), 'utf8');
  return out;
}

describe('collection run', () => {
  const week = '2026-W48';
  const austin = [metro('austin')];
  const total = gridPoints(austin).length * MEASURED_QUERIES.length;
  const claimed = claimsFor(fakeWorld('austin', 60));
  const run = (
    out: string,
    p: GooglePlacesProvider,
    budget: Budget | null,
    resume: boolean,
    claims: Map<string, boolean> = claimed,
  ) =>
    runCollection({
      outDir: out,
      week,
      metros: austin,
      provider: p,
      spentUsd: () => budget?.spentUsd ?? 0,
      resume,
      collectedAt: '2026-11-25T14:00:00Z',
      concurrency: 4,
      flags: { firms: new Map(), claimed: claims },
      quiet: true,
      onLogOpen: (n) => budget?.addSpent(n),
    });

  it('stops at the budget, resumes without buying any sample twice, and writes the same week as one clean run', async () => {
    const world = fakeWorld('austin', 60);
    const fake = await startPlacesFake({ apiKey: KEY, places: world });
    try {
      const clean = dataDir('collect-clean');
      const split = dataDir('collect-split');
      dirs.push(clean, split);
      const b1 = new Budget(1000, 35);
      const r1 = await run(clean, provider(fake.url, b1).p, b1, false);
      expect(r1.status).toBe('complete');
      expect(fake.billed()).toBe(total);

      const before = fake.requests.length;
      const small = new Budget(2, 35); // 57 requests
      const r2 = await run(split, provider(fake.url, small).p, small, false);
      expect(r2.status).toBe('budget');
      expect(r2.done).toBe(57);
      expect(fake.requests.length - before).toBe(57);
      expect(existsSync(join(split, 'weeks', week))).toBe(false);
      // Without --resume an existing run is never touched.
      await expect(run(split, provider(fake.url, small).p, small, false)).rejects.toThrow(/--resume/);
      const more = new Budget(1000, 35);
      const r3 = await run(split, provider(fake.url, more).p, more, true);
      expect(r3.status).toBe('complete');
      expect(r3.boughtThisRun).toBe(total - 57);
      expect(fake.requests.length - before).toBe(total);
      expect(more.requests).toBe(total);
      expect(readWeek(split, week)).toEqual(readWeek(clean, week));
      // A finished week's archive replaces the checkpoint; resuming it buys nothing.
      expect(existsSync(join(split, 'raw', week, 'answers.jsonl'))).toBe(false);
      const again = new Budget(1000, 35);
      const r4 = await run(split, provider(fake.url, again).p, again, true);
      expect(r4.status).toBe('complete');
      expect(r4.boughtThisRun).toBe(0);
      expect(readWeek(split, week)).toEqual(readWeek(clean, week));
    } finally {
      await fake.close();
    }
  });

  it('writes no week while an office lacks a claimed status, lists those offices, and writes it on --resume once they are given', async () => {
    const world = fakeWorld('austin', 60);
    const fake = await startPlacesFake({ apiKey: KEY, places: world });
    const out = dataDir('collect-claims');
    dirs.push(out);
    try {
      const partial = new Map([...claimed].slice(0, 40));
      const b = new Budget(1000, 35);
      const r = await run(out, provider(fake.url, b).p, b, false, partial);
      expect(r.status).toBe('claims');
      expect(existsSync(join(out, 'weeks', week))).toBe(false);
      const needed = readFileSync(join(out, 'raw', week, 'claims-needed.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { place_id: string; claimed: null; name: string });
      // Brute force: the law offices that appeared in any sample and are not in the partial claims.
      const law = new Set(world.filter((w) => w.primaryType === 'lawyer').map((w) => w.id));
      const appeared = new Set<string>();
      for (const p of gridPoints(austin))
        for (const q of MEASURED_QUERIES)
          for (const x of fakeRanking(world, q, p.lat, p.lng).slice(0, 20)) appeared.add(x.id);
      expect(needed.map((n) => n.place_id)).toEqual(
        [...appeared].filter((id) => law.has(id) && !partial.has(id)).sort(),
      );
      expect(needed.every((n) => n.claimed === null && n.name !== '')).toBe(true);
      const requests = fake.requests.length;
      const again = await run(out, provider(fake.url, b).p, b, true);
      expect(again.status).toBe('complete');
      expect(fake.requests.length).toBe(requests);
      expect(existsSync(join(out, 'raw', week, 'claims-needed.jsonl'))).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('writes the documented formats with ranks as answered, and drops ratings and reviews everywhere', async () => {
    const world = fakeWorld('austin', 60);
    const fake = await startPlacesFake({ apiKey: KEY, places: world, leakRatings: true });
    const out = dataDir('collect-formats');
    dirs.push(out);
    try {
      const b = new Budget(1000, 35);
      const r = await run(out, provider(fake.url, b).p, b, false);
      expect(r.status).toBe('complete');
      const files = readWeek(out, week);
      const samples = files['samples.jsonl']!.trimEnd()
        .split('\n')
        .map((l) => SampleRecord.parse(JSON.parse(l)));
      const places = files['places.jsonl']!.trimEnd()
        .split('\n')
        .map((l) => PlaceRecord.parse(JSON.parse(l)));
      expect(samples).toHaveLength(total);
      // Brute force: every sample's ranked list is the fake's own top 20 from that point.
      for (const s of samples)
        expect(s.ranked).toEqual(
          fakeRanking(world, s.query, s.lat, s.lng)
            .slice(0, 20)
            .map((x) => x.id),
        );
      // Cafes keep their rank but get no place record; law offices round-trip to the sample's records.
      const byId = new Map(places.map((p) => [p.place_id, p]));
      expect([...byId.keys()].some((id) => id.startsWith('ChIJcafe'))).toBe(false);
      expect(samples.some((s) => s.ranked.some((id) => id.startsWith('ChIJcafe')))).toBe(true);
      const sample = new Map(world.map((w) => [w.id, w]));
      for (const p of places) expect(sample.has(p.place_id)).toBe(true);
      expect(JSON.parse(files['dataset.json']!)).toEqual({
        schema_version: 1,
        name: expect.any(String),
        synthetic: false,
        week,
        collected_at: '2026-11-25T14:00:00Z',
      });
      // No rating, rating count or review in any file the collector wrote, the archive included.
      const archive = gunzipSync(readFileSync(join(out, 'raw', week, 'answers.jsonl.gz'))).toString('utf8');
      expect(fake.requests.some((q) => q.status === 200)).toBe(true);
      for (const text of [...Object.values(files), archive]) {
        expect(text).not.toMatch(/rating|userRatingCount|review/i);
        expect(text).not.toContain(KEY);
      }
      expect(readLogFile(join(out, 'raw', week, 'answers.jsonl.gz')).answers).toHaveLength(total);
    } finally {
      await fake.close();
    }
  });
});

describe('ingestion and operator flags', () => {
  it("turns an API place into the documented place record (round trip of the sample's records)", () => {
    const world = fakeWorld('austin', 30);
    const records = sampleOffices('austin', 30);
    expect(records.length).toBeGreaterThan(50);
    for (const r of records) {
      const place = ApiPlace.parse(world.find((w) => w.id === r.place_id));
      const { timezone: _tz, ...expected } = r;
      expect(placeRecordOf(place, r.claimed)).toEqual(expected);
    }
    const cafe = ApiPlace.parse(world.find((w) => w.id.startsWith('ChIJcafe')));
    expect(placeRecordOf(cafe, false)).toBe('not-a-law-office');
    expect(placeRecordOf({ ...ApiPlace.parse(world[0]), businessStatus: 'CLOSED_PERMANENTLY' }, false)).toBe('closed');
  });

  it("converts 24-hour and overnight opening periods to the generator's form", () => {
    const p = ApiPlace.parse({ id: 'x', regularOpeningHours: { periods: [{ open: { day: 0, hour: 0, minute: 0 } }] } });
    expect(openingHoursOf(p)).toEqual({ periods: [{ open: { day: 0, time: '0000' } }] });
    const q = ApiPlace.parse({
      id: 'y',
      regularOpeningHours: {
        periods: [{ open: { day: 5, hour: 18, minute: 30 }, close: { day: 6, hour: 2, minute: 0 } }],
      },
    });
    expect(openingHoursOf(q)).toEqual({
      periods: [{ open: { day: 5, time: '1830' }, close: { day: 6, time: '0200' } }],
    });
    expect(openingHoursOf(ApiPlace.parse({ id: 'z' }))).toBeNull();
  });

  it('reads the operator flags file as documented in data/README.md, and names a bad line', () => {
    const readme = readFileSync('data/README.md', 'utf8');
    const example = /<!-- example: operator-flags\.jsonl -->\s*```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const flags = parseOperatorFlags(example!, 'README');
    expect(flags.claimed.get('ChIJIWrmmgzS2m2EIX-nP44Lqn3')).toBe(true);
    expect(flags.firms.get('martinez-injury-lawyers.example')?.profile_type).toBe('enhanced');
    expect(() => parseOperatorFlags('{"place_id":"a","claimed":"yes"}\n', 'f.jsonl')).toThrow(/f\.jsonl line 1/);
  });
});
