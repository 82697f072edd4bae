/**
 * Smoke test of the benchmarks: the naive baseline answers exactly what the shim answers (so it is a fair baseline),
 * the counting store counts, and the report writer produces every section. No timing assertions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ColdS3Report } from '../bench/cold/cold-s3.ts';
import { CountingStore } from '../bench/lib/counting-store.ts';
import { RoundStore } from '../bench/cold/round-store.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { kindOf } from '../bench/cold/cold.ts';
import { LARGEST_LIMIT } from '../bench/cold/query-sets.ts';
import { NaiveIndex, naiveService } from '../bench/lib/naive.ts';
import { densePoints, pointArgs } from '../bench/lib/points.ts';
import { renderReport, SECTIONS, type BenchResults } from '../bench/report.ts';
import { fmtBytes, spread } from '../bench/lib/stats.ts';
import type { Service } from '../shim/answer/service.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { keys, Meta, Pointer } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';

const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };
let site: string;
let shim: Service;
let naive: Service;
let index: NaiveIndex;

beforeAll(async () => {
  site = process.env.TEST_SITE_DIR as string;
  const source = createSiteSource(new FolderStore(site));
  shim = createService(source);
  index = await NaiveIndex.load(new FolderStore(site));
  naive = naiveService(index, source);
});

describe('naive baseline', () => {
  it('holds every office of the site once', () => {
    const pointer = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8')));
    const meta = Meta.parse(JSON.parse(readFileSync(join(site, keys.meta(pointer.version)), 'utf8')));
    expect(index.size).toBe(meta.totals.offices);
  });

  const points = densePoints().filter((_, i) => i % 5 === 0 || i === 1);
  const cases = [1, 15, 50].flatMap((radius) => points.map((p) => ({ radius, p })));
  it.each(cases)('answers like the shim at $p.label, $radius mi', async ({ radius, p }) => {
    const args = { ...pointArgs(p, radius, 25) };
    const [a, b] = await Promise.all([shim.findAttorneys(args, CTX), naive.findAttorneys(args, CTX)]);
    expect(b.covered).toBe(a.covered);
    expect(b.firms_within_radius).toBe(a.firms_within_radius);
    expect(b.location).toEqual(a.location);
    const strip = (r: typeof a.results): unknown[] =>
      r.map((x) => [x.listing_id, x.distance_miles, x.offices_within_radius, x.name]);
    expect(strip(b.results)).toEqual(strip(a.results));
    if (radius >= 15) expect(a.results.length).toBeGreaterThan(0);
  });

  it('answers like the shim by ZIP and by city, and outside every metro', async () => {
    for (const args of [
      { zip: '60601', radius_miles: '10' },
      { location: 'Los Angeles, CA', radius_miles: '5' },
      { lat: '39.5', lng: '-116.5', radius_miles: '50' },
    ]) {
      const [a, b] = await Promise.all([shim.findAttorneys(args, CTX), naive.findAttorneys(args, CTX)]);
      expect(b.covered).toBe(a.covered);
      expect(b.firms_within_radius).toBe(a.firms_within_radius);
      expect(b.results.map((r) => r.listing_id)).toEqual(a.results.map((r) => r.listing_id));
    }
  });
});

describe('counting store', () => {
  it('counts every object and byte a cold query reads, and its rounds by dependency depth', async () => {
    const rounds = new RoundStore(new FolderStore(site));
    const store = new CountingStore(rounds);
    await createService(createSiteSource(store)).findAttorneys(pointArgs({ lat: 41.8781, lng: -87.6298 }, 15), CTX);
    const kinds = store.reads.map((r) => kindOf(r.key));
    expect(kinds).toContain('pointer');
    // meta.json carries the cell index: cells/index.json is not read.
    expect(kinds).toContain('meta.json');
    expect(kinds).not.toContain('cell index');
    expect(kinds).toContain('cell group');
    // Blocks, shared pages and record chunks come as byte ranges of their groups' packs (recorded as
    // `<key>#<start>-<end>`), never as objects of their own.
    expect(kinds).toContain('cell pack range');
    expect(kinds).not.toContain('cell block');
    expect(kinds).not.toContain('cell records');
    // The last round asks the record chunks of the firms shown.
    expect(rounds.rounds.at(-1)?.every((k) => kindOf(k) === 'cell pack range')).toBe(true);
    const direct = await Promise.all(
      store.reads.map(async (r) => {
        const folder = new FolderStore(site);
        const range = /^(.*)#(\d+)-(\d+)$/.exec(r.key);
        const bytes =
          range === null
            ? await folder.get(r.key)
            : await folder.getRange(range[1] ?? '', Number(range[2]), Number(range[3]));
        return bytes?.byteLength ?? 0;
      }),
    );
    expect(store.bytes).toBe(direct.reduce((x, y) => x + y, 0));
    // Every read is in exactly one round, the pointer alone in the first.
    expect(rounds.rounds.flat().sort()).toEqual(store.reads.map((r) => r.key).sort());
    expect(rounds.rounds[0]).toEqual(['current.json']);
    expect(rounds.roundsAfterPointer).toBe(rounds.rounds.length - 1);
    store.reset();
    expect(store.objects).toBe(0);
  });

  it('counts reads asked together as one round and chained reads as one each', async () => {
    const bytes = new TextEncoder().encode('x');
    const rounds = new RoundStore(
      new MemoryStore(
        new Map([
          ['a', bytes],
          ['b', bytes],
          ['c', bytes],
          ['d', bytes],
        ]),
      ),
    );
    await Promise.all([rounds.get('a'), rounds.get('b')]);
    // c needs a; d is asked beside c after a microtask of its own; the missing key is a round trip too.
    await rounds.get('a').then(async () => {
      await Promise.resolve();
      await Promise.all([rounds.get('c'), Promise.resolve().then(() => rounds.get('d'))]);
    });
    expect(await rounds.get('missing')).toBeNull();
    expect(rounds.rounds).toEqual([['a', 'b'], ['a'], ['c', 'd'], ['missing']]);
    rounds.reset();
    expect(rounds.rounds).toEqual([]);
  });
});

describe('report writer', () => {
  const base: BenchResults = {
    machine: {
      cpuModel: 'Test CPU',
      cores: 2,
      memoryBytes: 2 ** 33,
      os: 'Linux',
      node: 'v20.0.0',
      commit: 'abc123',
      dirty: false,
      loadStart: 1,
      loadEnd: 1,
    },
    command: 'npm run bench',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000,
    quick: true,
    sample: {
      siteDir: 'bench/out/site-sample',
      version: 'v1',
      offices: 9080,
      generate: null,
      shards: {
        indexBytes: 100,
        perRes: [
          {
            kind: 'blocks (columns)',
            count: 2,
            medianBytes: 10,
            maxBytes: 20,
            medianOffices: 1,
            maxOffices: 2,
            totalBytes: 30,
          },
        ],
      },
    },
  };

  it('writes every section, saying what was skipped', () => {
    const md = renderReport(base);
    for (const heading of SECTIONS) expect(md).toContain(heading);
    expect(md).toContain('Test CPU, 2 cores');
    expect(md).toContain('`abc123`');
    expect(md).toContain('`npm run bench`');
    expect(md).toContain('Skipped');
  });

  it("judges generate on both weeks of the scale run, and shows each week's progress", () => {
    const cost = (wallMs: number, peakRssBytes: number) => ({
      ok: true,
      wallMs,
      peakRssBytes,
      method: 'GNU time',
      command: 'node generator/cli.ts',
      stdout: '',
    });
    const scale = (first: ReturnType<typeof cost>, next: ReturnType<typeof cost> | null): BenchResults['scale'] => ({
      requested: 1000,
      attempts: [
        {
          offices: 1000,
          inputsReused: true,
          synthMs: null,
          weeks: ['2026-W46', '2026-W47'],
          generate: first,
          next,
          logs: [['generate [1.0s 10MB peak 10MB] reading'], []],
        },
      ],
      measured: 1000,
      shards: null,
      latency: null,
      cold: null,
    });
    const row =
      /\| generate the 1,000-office site in < 3 min and < 2\.00 GiB peak RSS, first week and next week \| ([^|]+) \| ([^\n]+) \|/;
    const met = renderReport({ ...base, scale: scale(cost(170_000, 1.5 * 1024 ** 3), cost(179_000, 1.9 * 1024 ** 3)) });
    expect(met.match(row)?.slice(1, 3)).toEqual([
      '**met**',
      '2026-W46 (empty folder): 170.00 s, 1.50 GiB; 2026-W47 (beside it): 179.00 s, 1.90 GiB',
    ]);
    expect(met).toContain('| 1,000 | 2026-W47, beside 2026-W46 | ok | 179.00 s | 1.90 GiB | – |');
    expect(met).toContain("The generator's progress, 1,000 offices, 2026-W46");
    expect(met).not.toContain("The generator's progress, 1,000 offices, 2026-W47");
    // Either week over time or memory, or the next week not run, misses the target.
    for (const [first, next] of [
      [cost(170_000, 1e9), cost(181_000, 1e9)],
      [cost(170_000, 1e9), cost(170_000, 2.1 * 1024 ** 3)],
      [cost(170_000, 1e9), null],
    ] as const) {
      expect(renderReport({ ...base, scale: scale(first, next) }).match(row)?.[1]).toBe('**missed**');
    }
  });

  it("says how many of the slow warm queries' reads were re-reads, and never calls first reads re-reads", () => {
    const result = (target: string, radiusMiles: number, p99: number, reads: number, rereads: number) => ({
      target,
      radiusMiles,
      p50: spread([0.5]),
      p99: spread([p99]),
      p50Runs: [0.5, 0.5, 0.5],
      queries: 300,
      storeReadsTimed: reads,
      storeRereadsTimed: rereads,
      firmsWithinRadius: 10,
    });
    const scale = (reads: number, rereads: number): BenchResults['scale'] => ({
      requested: 1000,
      attempts: [],
      measured: 1000,
      shards: null,
      latency: {
        results: [result('shim small', 1, 0.4, 0, 0), result('shim large', 1, 6.9, reads, rereads)],
        shimRatio: new Map(),
        naiveRatio: new Map(),
      },
      cold: null,
    });
    const note = (md: string): string =>
      /- \*warm p99 at [\d,]+ offices <= 5 ms at every radius[^\n]*/.exec(md)?.[0] ?? '';
    const first = note(renderReport({ ...base, scale: scale(773, 0) }));
    expect(first).toContain('(1 mi: 773 reads in 900 queries, 0 of them re-reads)');
    expect(first).toContain('first reads, which a larger cache does not save');
    const again = note(renderReport({ ...base, scale: scale(773, 500) }));
    expect(again).toContain('1 mi: 773 reads in 900 queries, 500 of them re-reads');
    expect(again).toContain('objects the cache had let go, which a larger cache would keep');
    expect(again).not.toContain('which a larger cache does not save');
    // A few reads while timed (the pointer's refresh) are not named as the cause.
    expect(note(renderReport({ ...base, scale: scale(3, 0) }))).not.toContain('reads in 900 queries');
  });

  it('marks a target met or missed from the figures', () => {
    const one = (v: number): ReturnType<typeof spread> => spread([v]);
    const cold = (bytes: number) => ({
      label: 'lat,lng at 15 mi',
      queries: 1,
      objects: { median: 5, max: 5 },
      bytes: { median: bytes, max: bytes },
      shardObjects: { median: 1, max: 1 },
      rounds: { median: 3, max: 3 },
      worst: { query: 'q', objects: 5, bytes, rounds: 3, byKind: { 'cell block': { objects: 1, bytes } } },
      deepest: { query: 'q', rounds: ['meta.json', 'cell index', 'cell block'] },
    });
    // The cold targets are judged at national scale: without a scale site they are not judged, whatever the sample shows.
    const scale = (bytes: number): BenchResults['scale'] => ({
      requested: 1,
      attempts: [],
      measured: 1,
      shards: null,
      latency: null,
      cold: [cold(bytes)],
    });
    const sampleOnly = renderReport({ ...base, cold: { reads: [cold(5_000_000)], first: null } });
    expect(sampleOnly).toMatch(/\| cold path <= 20 objects[^\n]*\| not measured \| not judged: no scale site/);
    const met = renderReport({ ...base, cold: { reads: [cold(1000)], first: null }, scale: scale(1000) });
    expect(met).toMatch(/cold path[^\n]*\| \*\*met\*\*/);
    const missed = renderReport({ ...base, cold: { reads: [cold(1000)], first: null }, scale: scale(5_000_000) });
    expect(missed).toMatch(/cold path[^\n]*\| \*\*missed\*\*/);
    // A set asking the largest limit: the rows give the maxima at the default limit beside the overall ones.
    expect(met).not.toContain('at the default limit');
    const largest = {
      ...cold(2_000_000),
      label: `"City, ST" at 50 mi${LARGEST_LIMIT}`,
      objects: { median: 33, max: 33 },
    };
    const withLargest = renderReport({
      ...base,
      cold: { reads: [cold(1000), largest], first: null },
      scale: scale(1000),
    });
    expect(withLargest).toMatch(
      /\| cold path <= 20 objects[^\n]*max 33 objects[^\n]*; at the default limit \(10\): max 5 objects \|/,
    );
    expect(withLargest).toContain(`; at the default limit (10): max ${fmtBytes(1000)} |`);
    // Over S3: decoded bytes above the target, wire bytes below it; each target row names its measure.
    const s3: ColdS3Report = {
      server: 's3rver',
      publish: { objects: 1, gzipped: 1, rawBytes: 10, sentBytes: 5, ms: 1 },
      passes: 1,
      sets: [
        {
          ...cold(5_000_000),
          wireBytes: { median: 400_000, max: 400_000 },
          rounds: { median: 5, max: 5 },
          worstWire: { query: 'q', objects: 5, wireBytes: 400_000, decodedBytes: 5_000_000 },
          latencyMs: { median: 10, p99: 20, max: 20, samples: 1 },
        },
      ],
    };
    const both = renderReport({ ...base, cold: { reads: [cold(5_000_000)], first: null, s3 }, scale: scale(1000) });
    expect(both).toMatch(/\| cold path <= 20 objects[^\n]*\| \*\*met\*\*/);
    expect(both).toMatch(/\| cold path <= 3 store round trips[^\n]*\| \*\*missed\*\* \| max 5 round trips/);
    expect(both).toMatch(/\| cold path <= 1 MiB[^\n|]*\*\*decoded\*\*[^\n]*\| \*\*missed\*\* \| max 4\.8 MiB decoded/);
    expect(both).toMatch(
      /\| cold path <= 1 MiB[^\n|]*\*\*on the wire\*\*[^\n]*\| \*\*met\*\* \| max 390\.6 KiB on the wire/,
    );
    expect(both).toContain('### Over S3 (s3rver, gzip as published)');
    expect(both).toContain('Cold latency p99 (loopback)');
    expect(renderReport({ ...base, cold: { reads: [cold(1000)], first: null } })).toMatch(
      /on the wire[^\n]*\| not measured \| skipped/,
    );
    const http = renderReport({
      ...base,
      http: {
        results: [],
        shimOverStatic: new Map([[15, one(0.9)]]),
        distinctOverStatic: new Map([[15, one(0.8)]]),
        shimOverNaive: new Map([[15, one(2)]]),
        jitterMiles: 2,
        connections: 10,
        durationSec: 5,
        paths: 15,
      },
    });
    // Judged on the worse of the two shim rows.
    expect(http).toMatch(/throughput[^\n]*\| \*\*met\*\* \| 15 mi: 0\.80x/);
  });
});
