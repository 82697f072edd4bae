/**
 * `npm run research`: weekly search counts by metro and ZIP3 from a crafted request log, small cells suppressed; and
 * behind CloudFront, from the real edge function's lines joined to the real server's lines.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countSearches, NO_METRO, type ResearchCounts } from '../generator/research/counts.ts';
import { mondayOfIsoWeek } from '../generator/inputs/week.ts';
import { viewerRequestCode } from '../infra/edge-function.ts';
import { loadConfig } from '../shim/edge/env.ts';
import { startServer, type RunningServer } from '../shim/server.ts';
import { forwardedQuery, loadCloudFrontFunction, viewerRequest } from '../bench/lib/cloudfront-runtime.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { recoverable } from './helpers/disclosure.ts';
import { rng } from './helpers/rng.ts';

afterAll(removeTempDirs);

interface Line {
  time: string;
  endpoint: string;
  status: number;
  query_id: string | null;
  metro: string | null;
  zip3: string | null;
  location: string;
  user_agent: string;
  address_hash: string;
  src: null;
  covered: boolean | null;
  result_count: number | null;
}

/** A crafted week of log lines (2026-W47 is 2026-11-16 .. 2026-11-22) plus lines either side and lines that are not searches. */
function craft(): Line[] {
  const rand = rng(47);
  const metros = ['chicago', 'austin', 'boston', null];
  const zip3s = ['606', '787', '021', '100', null];
  const days = ['2026-11-15', '2026-11-16', '2026-11-18', '2026-11-22', '2026-11-23'];
  const out: Line[] = [];
  for (let i = 0; i < 900; i++) {
    const metro = metros[Math.floor(rand() * metros.length * rand())] ?? null;
    const zip3 = zip3s[Math.floor(rand() * zip3s.length * rand())] ?? null;
    const kind = rand();
    const endpoint =
      kind < 0.7 ? '/v1/attorneys' : kind < 0.85 ? '/mcp find_injury_attorneys' : '/v1/firms/{listing_id}';
    const status = rand() < 0.9 ? 200 : 400;
    const search = endpoint !== '/v1/firms/{listing_id}' && status === 200;
    out.push({
      time: `${days[Math.floor(rand() * days.length)] as string}T${String(Math.floor(rand() * 24)).padStart(2, '0')}:00:00.000Z`,
      endpoint,
      status,
      query_id: search ? `q${i}` : null,
      metro: search ? metro : null,
      zip3: search ? zip3 : null,
      location: 'somewhere',
      user_agent: 'test',
      address_hash: 'abcdef0123456789',
      src: null,
      covered: search ? metro !== null : null,
      result_count: search ? 3 : null,
    });
  }
  // One rare ZIP3 with 9 searches (suppressed) and one with exactly 10 (shown).
  for (let i = 0; i < 19; i++)
    out.push({
      ...(out[0] as Line),
      time: '2026-11-17T12:00:00.000Z',
      endpoint: '/v1/attorneys',
      status: 200,
      query_id: `r${i}`,
      metro: 'tampa',
      zip3: i < 9 ? '335' : '336',
    });
  return out;
}

/** Brute force: the week's answered searches counted by a key. */
function expected(lines: Line[], key: 'metro' | 'zip3'): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of lines) {
    const day = l.time.slice(0, 10);
    if (day < '2026-11-16' || day > '2026-11-22' || l.status !== 200 || l.query_id === null) continue;
    const k = l[key] ?? (key === 'metro' ? NO_METRO : '(no ZIP)');
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function check(counts: ResearchCounts, lines: Line[]): void {
  for (const [key, cells] of [
    ['metro', counts.by_metro],
    ['zip3', counts.by_zip3],
  ] as const) {
    const want = expected(lines, key);
    expect(cells.map((c) => c.key)).toEqual([...want.keys()].sort());
    for (const c of cells) {
      const n = want.get(c.key) as number;
      // Under 10 always suppressed; 10 or more shown exactly unless suppressed to protect another (research-nested.test.ts).
      if (n < 10) expect(c).toEqual({ key: c.key, searches: null, suppressed: true });
      else if (c.searches !== null) expect(c).toEqual({ key: c.key, searches: n });
    }
    expect(cells.filter((c) => c.searches !== null).length).toBeGreaterThan(0);
  }
  expect(counts.by_zip3.find((c) => c.key === '335')).toEqual({ key: '335', searches: null, suppressed: true });
  // 335 (9) and 336 (10) are Tampa's only ZIP3s: Tampa and 336 both shown would give 335 away.
  const tampa = counts.by_metro.find((c) => c.key === 'tampa');
  const z336 = counts.by_zip3.find((c) => c.key === '336');
  expect(tampa?.searches === null || z336?.searches === null).toBe(true);
  expect(recoverable(counts)).toEqual([]);
}

describe('research counts', () => {
  it('counts the week by metro and ZIP3 like a brute-force count, suppressing cells under 10', () => {
    const lines = craft();
    const counts = countSearches(lines, '2026-W47', '2026-11-16', '2026-11-22');
    check(counts, lines);
    expect(counts.searches).toBe([...expected(lines, 'metro').values()].reduce((a, b) => a + b, 0));
    expect(countSearches(lines.slice(0, 5), '2026-W47', '2026-11-16', '2026-11-22').searches).toBeNull();
  });

  it('the CLI reads the local log files of the week and a CloudWatch export, and has --help', async () => {
    const lines = craft();
    const dir = await tempDir('research');
    const log = join(dir, 'log');
    await mkdir(log);
    const byDay = new Map<string, Line[]>();
    for (const l of lines) byDay.set(l.time.slice(0, 10), [...(byDay.get(l.time.slice(0, 10)) ?? []), l]);
    // Half the days locally, the other half as a CloudWatch export (events with the line in "message").
    const days = [...byDay.keys()].sort();
    const cloud: string[] = [];
    for (const [i, day] of days.entries()) {
      const text = (byDay.get(day) as Line[]).map((l) => JSON.stringify(l));
      if (i % 2 === 0) await writeFile(join(log, `requests-${day}.jsonl`), `${text.join('\n')}\n`);
      else
        cloud.push(
          ...text.map((t) =>
            JSON.stringify({ timestamp: 0, message: JSON.stringify({ type: 'request', ...JSON.parse(t) }) }),
          ),
        );
    }
    await writeFile(join(dir, 'export.jsonl'), `${cloud.join('\n')}\nnot json\n`);
    const out = join(dir, 'out');
    const cli = spawnSync(
      process.execPath,
      [
        'generator/research/cli.ts',
        '--week',
        '2026-W47',
        '--log',
        log,
        '--cloudwatch',
        join(dir, 'export.jsonl'),
        '--out',
        out,
      ],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toContain('1 unreadable skipped');
    const counts = JSON.parse(await readFile(join(out, '2026-W47.json'), 'utf8')) as ResearchCounts;
    check(counts, lines);
    const help = spawnSync(process.execPath, ['generator/research/cli.ts', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--cloudwatch/);
  });
});

/** The ISO week ("2026-W48") holding UTC day `day`. */
function isoWeekOf(day: string): string {
  const year = Number(day.slice(0, 4));
  for (const y of [year - 1, year, year + 1]) {
    for (let w = 1; w <= 53; w++) {
      const week = `${y}-W${String(w).padStart(2, '0')}`;
      const monday = mondayOfIsoWeek(week);
      const sunday = new Date(Date.parse(`${monday}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
      if (day >= monday && day <= sunday) return week;
    }
  }
  throw new Error(`no ISO week holds ${day}`);
}

describe('research counts behind CloudFront: edge lines joined to function lines', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const siteDir = process.env.TEST_SITE_DIR;
    if (siteDir === undefined) throw new Error('TEST_SITE_DIR is not set');
    const logDir = await tempDir('research-log');
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SITE_DIR: siteDir,
      LOG_DIR: logDir,
      ANSWER_CACHE_MIB: '0',
      RATE_LIMIT_PER_HOUR: '0',
      PUBLIC_BASE_URL: 'https://directory.example',
    });
    server = await startServer(config);
  });
  afterAll(async () => {
    await server.close();
  });

  it('counts every search, cache hits included, by the metro and ZIP3 the function resolved; the function log alone misses the hits', async () => {
    const kvsId = 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
    const edgeFn = loadCloudFrontFunction(
      viewerRequestCode(kvsId),
      kvsId,
      new Map([[`salt-${new Date().toISOString().slice(0, 10)}`, 'ab'.repeat(32)]]),
    );
    // Viewer queries in different spellings of the same searches, repeated (later ones are cache hits), and bad ones.
    const queries = [
      'lat=41.8781&lng=-87.6298',
      'lng=-87.6298&lat=41.8781&radius_miles=15',
      'location=41.8781,-87.6298',
      'zip=60601',
      'location=60601&limit=10',
      'location=Chicago%2C+IL',
      'zip=10001&radius_miles=5',
      'location=Austin,%20TX&limit=3',
      'lat=30.2672&lng=-97.7431&src=my-app',
      'zip=60601&radius_miles=500',
      'location=Qwxyzville,%20TX',
      'lat=91&lng=0',
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((r) => `lat=41.8781&lng=-87.6298&radius_miles=${r}`),
    ];
    const rand = rng(48);
    const viewer = Array.from({ length: 240 }, () => queries[Math.floor(rand() * queries.length)] as string);
    // A toy CloudFront: the edge function, then a cache of 200s keyed on the forwarded query, then the real server.
    const cdn = new Map<string, { metro: string | null; zip: string | null }>();
    const truth = { metro: new Map<string, number>(), zip3: new Map<string, number>() };
    let hits = 0;
    for (const q of viewer) {
      const forwarded = forwardedQuery(
        await edgeFn.handler(viewerRequest('/v1/attorneys', q, { ip: '203.0.113.7', userAgent: 'research-test' })),
      );
      let answer = cdn.get(forwarded);
      if (answer !== undefined) hits++;
      else {
        const res = await fetch(`${server.url}/v1/attorneys?${forwarded}`);
        const body = (await res.json()) as { location?: { metro: string | null; zip: string | null } };
        if (res.status === 200 && body.location !== undefined) cdn.set(forwarded, (answer = body.location));
      }
      if (answer === undefined) continue;
      const m = answer.metro ?? NO_METRO;
      const z = answer.zip !== null && /^\d{5}$/.test(answer.zip) ? answer.zip.slice(0, 3) : '(no ZIP)';
      truth.metro.set(m, (truth.metro.get(m) ?? 0) + 1);
      truth.zip3.set(z, (truth.zip3.get(z) ?? 0) + 1);
    }
    expect(hits).toBeGreaterThan(150);
    expect(viewer.length - hits).toBeGreaterThanOrEqual(10);
    await server.log.flush();
    const dir = await tempDir('research-edge');
    // The edge lines as a CloudWatch export: events whose message is the logged line after a request id.
    await writeFile(
      join(dir, 'edge.jsonl'),
      `${edgeFn.logs.map((l, i) => JSON.stringify({ timestamp: 0, message: `req${i}\t${l}` })).join('\n')}\n`,
    );
    const week = isoWeekOf(new Date().toISOString().slice(0, 10));
    const run = (extra: string[]): ResearchCounts => {
      const out = join(dir, `out-${extra.length}`);
      const cli = spawnSync(
        process.execPath,
        ['generator/research/cli.ts', '--week', week, '--log', server.log.dir, '--out', out, ...extra],
        { encoding: 'utf8' },
      );
      expect(cli.status, cli.stderr).toBe(0);
      return JSON.parse(readFileSync(join(out, `${week}.json`), 'utf8')) as ResearchCounts;
    };
    const withEdge = run(['--edge', join(dir, 'edge.jsonl')]);
    const all = [...truth.metro.values()].reduce((a, b) => a + b, 0);
    expect(withEdge.rest_counted_from).toBe('edge');
    expect(withEdge.edge_unresolved).toBe(0);
    expect(withEdge.searches).toBe(all);
    for (const [key, cells] of [
      ['metro', withEdge.by_metro],
      ['zip3', withEdge.by_zip3],
    ] as const) {
      const want = truth[key];
      expect(cells.map((c) => c.key)).toEqual([...want.keys()].sort());
      for (const c of cells) expect(c.searches ?? 0).toBe((want.get(c.key) ?? 0) >= 10 ? want.get(c.key) : 0);
    }
    const functionOnly = run([]);
    expect(functionOnly.rest_counted_from).toBe('function');
    expect(functionOnly.searches).toBe(cdn.size);
    expect(cdn.size).toBeLessThan(all - 150);
  });
});
