/** `npm run collect` as the operator runs it, against the loopback Text Search fake: help, dry run, kill -9 and resume, replay, collect -> generate -> serve. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { gridPoints } from '../data/collect/grid.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { PlaceRecord } from '../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../shim/contract/constants.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { claimsFile, dataDir, fakeWorld, metro, metros, sampleOffices } from './helpers/collect-fixture.ts';
import { startPlacesFake } from './helpers/places-fake.ts';
import { startTestServer } from './helpers/server.ts';

const KEY = 'cli-key-Q7v2-secret';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function cliArgs(args: string[]): string[] {
  return ['data/collect/cli.ts', ...args];
}

/** Runs node with `args` asynchronously (the fake answers from this process, so it must not be blocked). */
function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

/** `npm run collect -- args` with GOOGLE_PLACES_API_KEY set to `key` (or unset). */
function collect(
  args: string[],
  key: string | null = KEY,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GOOGLE_PLACES_API_KEY;
  if (key !== null) env.GOOGLE_PLACES_API_KEY = key;
  return run(cliArgs(args), env);
}

/** Every file under `dir` as text (gzip files unpacked). */
function allText(dir: string): string {
  let out = '';
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const buf = readFileSync(path);
    out += (path.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8');
  }
  return out;
}

function weekFiles(dir: string, week: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(join(dir, 'weeks', week)).sort())
    out[f] = readFileSync(join(dir, 'weeks', week, f), 'utf8');
  return out;
}

describe('npm run collect', () => {
  it('prints its help, and refuses bad options with a usage error naming them', async () => {
    const help = await collect(['--help']);
    expect(help.status).toBe(0);
    for (const opt of [
      '--week',
      '--metro',
      '--provider',
      '--from',
      '--endpoint',
      '--out',
      '--budget-usd',
      '--dry-run',
      '--resume',
      'GOOGLE_PLACES_API_KEY',
    ])
      expect(help.stdout).toContain(opt);
    const bad = await collect(['--metro', 'gotham', '--dry-run']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"gotham"');
    expect((await collect(['--week', '2026-47', '--dry-run'])).stderr).toContain('--week must be an ISO week');
    const scratch = [dataDir('collect-nokey'), dataDir('collect-badbudget')];
    dirs.push(...scratch);
    const noKey = await collect(['--metro', 'austin', '--out', scratch[0]!], null);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain('GOOGLE_PLACES_API_KEY is not set');
    expect((await collect(['--metro', 'austin', '--budget-usd', 'lots', '--out', scratch[1]!])).stderr).toContain(
      '--budget-usd must be a non-negative number, got "lots"',
    );
  });

  it('--dry-run prints the grid points, requests and cost of a full 27-metro week and buys nothing', async () => {
    const fake = await startPlacesFake({ apiKey: KEY, places: [] });
    try {
      const r = await collect(['--dry-run', '--endpoint', fake.url]);
      expect(r.status).toBe(0);
      const points = gridPoints(metros()).length;
      const requests = points * MEASURED_QUERIES.length;
      const total = r.stdout.split('\n').find((l) => l.startsWith('total'));
      expect(total?.split(/\s+/)).toEqual([
        'total',
        String(points),
        String(requests),
        `$${(Math.ceil((requests * 35) / 10) / 100).toFixed(2)}`,
      ]);
      expect(r.stdout.split('\n').filter((l) => metros().some((m) => l.startsWith(`${m.slug} `)))).toHaveLength(27);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  it('after kill -9 mid-run, --resume buys only what is missing and writes the same bytes as a clean run', async () => {
    const world = fakeWorld('austin', 60);
    const fake = await startPlacesFake({ apiKey: KEY, places: world, fault: () => ({ delayMs: 30 }) });
    const week = '2026-W48';
    const flagsDir = dataDir('collect-cli-flags');
    dirs.push(flagsDir);
    writeFileSync(join(flagsDir, 'operator-flags.jsonl'), claimsFile(world));
    const common = [
      '--flags',
      join(flagsDir, 'operator-flags.jsonl'),
      '--metro',
      'austin',
      '--week',
      week,
      '--endpoint',
      fake.url,
      '--budget-usd',
      '50',
      '--rps',
      '200',
      '--concurrency',
      '4',
      '--collected-at',
      '2026-11-25T14:00:00Z',
    ];
    try {
      const clean = dataDir('collect-cli-clean');
      const killed = dataDir('collect-cli-killed');
      dirs.push(clean, killed);
      const c = await collect([...common, '--out', clean]);
      expect(c.status, c.stderr).toBe(0);
      const total = gridPoints([metro('austin')]).length * MEASURED_QUERIES.length;
      expect(c.stderr).toContain(`${total} of ${total} samples`);

      const env = { ...process.env, GOOGLE_PLACES_API_KEY: KEY };
      const child = spawn(process.execPath, cliArgs([...common, '--out', killed]), {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const log = join(killed, 'raw', week, 'answers.jsonl');
      const lines = (): number => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 2 : 0);
      while (lines() < 80) {
        if (child.exitCode !== null) throw new Error(`collect ended before it was killed: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const bought = new Set(
        readFileSync(log, 'utf8')
          .split('\n')
          .slice(1)
          .filter((l) => l.endsWith('}'))
          .map((l) => {
            const a = JSON.parse(l) as { point_id: string; query: string; lat: number; lng: number };
            return `${a.lat},${a.lng}|${a.query}`;
          }),
      );
      expect(bought.size).toBeGreaterThanOrEqual(80);
      expect(bought.size).toBeLessThan(total);
      expect(existsSync(join(killed, 'weeks', week))).toBe(false);

      const seenBefore = fake.requests.length;
      const again = await collect([...common, '--out', killed]);
      expect(again.status).toBe(2 - 1);
      expect(again.stderr).toContain('--resume');
      const resumed = await collect([...common, '--out', killed, '--resume']);
      expect(resumed.status, resumed.stderr).toBe(0);
      const after = fake.requests.slice(seenBefore).map((q) => {
        const b = q.body as {
          textQuery: string;
          locationBias: { circle: { center: { latitude: number; longitude: number } } };
        };
        return `${b.locationBias.circle.center.latitude},${b.locationBias.circle.center.longitude}|${b.textQuery}`;
      });
      expect(after.filter((k) => bought.has(k))).toEqual([]);
      expect(after.length).toBe(total - bought.size);
      expect(weekFiles(killed, week)).toEqual(weekFiles(clean, week));
      expect(existsSync(join(killed, 'raw', week, 'answers.jsonl.gz'))).toBe(true);

      // Replaying the archive rebuilds the same week without a key or a request.
      const replay = dataDir('collect-cli-replay');
      dirs.push(replay);
      const before = fake.requests.length;
      const r = await collect(
        [
          '--provider',
          'recorded',
          '--from',
          join(clean, 'raw', week, 'answers.jsonl.gz'),
          '--metro',
          'austin',
          '--out',
          replay,
          '--flags',
          join(flagsDir, 'operator-flags.jsonl'),
        ],
        null,
      );
      expect(r.status, r.stderr).toBe(0);
      expect(weekFiles(replay, week)).toEqual(weekFiles(clean, week));
      expect(fake.requests.length).toBe(before);

      // The key is in no output and no file.
      for (const text of [c.stderr, c.stdout, stderr, resumed.stderr, again.stderr, allText(clean), allText(killed)])
        expect(text).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  }, 240_000);

  it('stops with exit 3 at the budget, and on a refused key with exit 1, never printing the key', async () => {
    const fake = await startPlacesFake({ apiKey: 'the-right-key', places: fakeWorld('austin', 40) });
    try {
      const out = dataDir('collect-cli-refused');
      dirs.push(out);
      const refused = await collect([
        '--metro',
        'austin',
        '--week',
        '2026-W48',
        '--endpoint',
        fake.url,
        '--budget-usd',
        '5',
        '--out',
        out,
        '--quiet',
      ]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('API key not valid');
      expect(refused.stderr + refused.stdout + allText(out)).not.toContain(KEY);
      const out2 = dataDir('collect-cli-budget');
      dirs.push(out2);
      const budget = await collect(
        [
          '--metro',
          'austin',
          '--week',
          '2026-W48',
          '--endpoint',
          fake.url,
          '--budget-usd',
          '0.35',
          '--out',
          out2,
          '--quiet',
          '--rps',
          '200',
        ],
        'the-right-key',
      );
      expect(budget.status).toBe(3);
      expect(budget.stderr).toMatch(/budget reached.*--resume and a larger --budget-usd/s);
      expect(fake.billed()).toBe(10);
    } finally {
      await fake.close();
    }
  });

  it('collect -> release -> the local server answers a search from the collected week', async () => {
    const world = fakeWorld('new-york', 50);
    const fake = await startPlacesFake({ apiKey: KEY, places: world });
    const out = dataDir('collect-e2e');
    const site = mkdtempSync(join(tmpdir(), 'iad-collect-site-'));
    dirs.push(out, site, `${site}-releases`);
    const week = '2026-W48';
    try {
      // The operator's flags: a claimed status for every listing (a first, b second) and a firm line.
      const [a, b] = world;
      const firm = sampleOffices('new-york', 50).find((p) => p.place_id === a!.id)!;
      const domain = new URL(firm.website ?? 'https://none.example').hostname.replace(/^www\./, '');
      writeFileSync(
        join(out, 'operator-flags.jsonl'),
        `${JSON.stringify({ firm: domain, profile_type: 'enhanced', sponsored: true })}\n${claimsFile(world)}`,
      );
      // The command, as is: default budget (the grid's estimate plus 10%).
      const r = await collect([
        '--provider',
        'google-places',
        '--endpoint',
        fake.url,
        '--metro',
        'new-york',
        '--week',
        week,
        '--out',
        out,
        '--rps',
        '500',
        '--concurrency',
        '8',
      ]);
      expect(r.status, r.stderr).toBe(0);
      const gen = await run([
        'generator/release/cli.ts',
        '--data',
        out,
        '--site',
        site,
        '--week',
        week,
        '--records',
        `${site}-releases`,
        // One metro of 27 was collected: the other metros have no offices or samples, as the operator would force.
        '--force',
        'metro-coverage=only new-york was collected in this test',
      ]);
      expect(gen.status, gen.stderr).toBe(0);
      const places = readFileSync(join(out, 'weeks', week, 'places.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => PlaceRecord.parse(JSON.parse(l)));
      expect(places.find((p) => p.place_id === a!.id)?.claimed).toBe(true);
      expect(places.find((p) => p.place_id === b!.id)?.claimed).toBe(false);
      if (firm.website !== null)
        expect(readFileSync(join(out, 'weeks', week, 'flags.jsonl'), 'utf8')).toBe(
          `${JSON.stringify({ firm: domain, profile_type: 'enhanced', sponsored: true })}\n`,
        );
      const server = await startTestServer({ SITE_DIR: site });
      try {
        const [lat, lng] = [40.7484, -73.9857];
        const res = await fetch(`${server.url}/v1/attorneys?lat=${lat}&lng=${lng}&radius_miles=10&limit=5`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as {
          covered: boolean;
          results: { listing_id: string; distance_miles: number; map_visibility: unknown }[];
        };
        expect(body.covered).toBe(true);
        // Brute force over the collected week: the first firm is the one with the nearest office.
        const nearest = [...places].sort(
          (x, y) => haversineMiles(lat, lng, x.lat, x.lng) - haversineMiles(lat, lng, y.lat, y.lng),
        )[0]!;
        expect(body.results[0]?.distance_miles).toBeCloseTo(haversineMiles(lat, lng, nearest.lat, nearest.lng), 2);
        expect(body.results.length).toBe(5);
        expect(body.results.some((x) => x.map_visibility !== null)).toBe(true);
        const firm = await fetch(`${server.url}/v1/firms/${listingIdOf(a!.id)}`);
        expect(firm.status).toBe(200);
        expect(JSON.stringify(await firm.json())).toContain('"google_listing_claimed":true');
      } finally {
        await server.close();
      }
    } finally {
      await fake.close();
    }
  }, 240_000);
});
