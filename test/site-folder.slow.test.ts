/**
 * The local site folder behaves like the bucket: a server reading it while `release` runs again and again never
 * answers wrongly, kill -9 of `release` at any point leaves a site that answers rightly, later runs remove what killed
 * runs left, and old versions go only after their grace period (the last few kept for rollback).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLive } from './helpers/generate-live.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { STAGING } from '../generator/write/site-folder.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { keys, Manifest, Pointer } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { rng as seededRandom } from './helpers/rng.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const quiet = { quiet: true, log: () => {} };
const P1 = listingIdOf('p1');
const CTX = { publicBaseUrl: 'https://directory.example' };

/** Input variants that differ only in p1's phone, so each gives its own version and its own right answer. */
interface Variant {
  data: string;
  phone: string;
}
const variants: Variant[] = [];
let records: string;

beforeAll(async () => {
  records = await tempDir('site-folder-records');
  for (let i = 0; i < 4; i++) {
    const data = await copyFixture();
    const places = join(data, 'weeks', '2026-W47', 'places.jsonl');
    const phone = `(312) 555-01${String(20 + i)}`;
    const text = await readFile(places, 'utf8');
    const [first, ...rest] = text.split('\n');
    await writeFile(places, [(first as string).replace('(312) 555-0100', phone), ...rest].join('\n'));
    variants.push({ data, phone });
  }
});
afterAll(removeTempDirs);

/**
 * Run the release CLI (the one command that moves the folder's pointer) in a child process, `--out` naming the site;
 * resolves with its exit code (or the signal that ended it).
 */
function runCli(
  args: string[],
  killAfter?: { line: RegExp; delayMs: number } | { delayMs: number },
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const argv = [
    ...args.filter((a) => a !== '--quiet').map((a) => (a === '--out' ? '--site' : a)),
    '--records',
    records,
    '--verify-sample',
    '5',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['generator/release/cli.ts', ...argv], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const kill = (): void => void setTimeout(() => child.kill('SIGKILL'), killAfter?.delayMs ?? 0);
    if (killAfter !== undefined && !('line' in killAfter)) kill();
    let armed = killAfter !== undefined && 'line' in killAfter;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (armed && killAfter !== undefined && 'line' in killAfter && killAfter.line.test(stderr)) {
        armed = false;
        kill();
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every version folder under v/ is complete: its manifest lists exactly its files, each with the right hash. */
async function checkVersions(site: string): Promise<string[]> {
  const versions = (await readdir(join(site, 'v'))).sort();
  for (const v of versions) {
    const manifest = Manifest.parse(JSON.parse(await readFile(join(site, keys.manifest(v)), 'utf8')));
    expect(manifest.version).toBe(v);
    for (const [key, entry] of Object.entries(manifest.objects)) {
      const bytes = await readFile(join(site, key));
      expect(sha256(bytes), key).toBe(entry.sha256);
    }
    const files: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(dir, e.name), `${rel}${e.name}/`);
        else files.push(`${rel}${e.name}`);
      }
    };
    await walk(join(site, keys.root(v)), keys.root(v));
    expect(files.sort()).toEqual([...Object.keys(manifest.objects), keys.manifest(v)].sort());
  }
  return versions;
}

/** The phone the site answers for p1 right now, read the way the shim reads (no pointer cache). */
async function servedPhone(site: string): Promise<string | null> {
  const service = createService(createSiteSource(new FolderStore(site), { pointerTtlMs: 0 }));
  return (await service.getFirm(P1, CTX)).office.phone;
}

describe('a server reading the folder while release runs', () => {
  let server: TestServer;
  let site: string;

  beforeAll(async () => {
    site = join(await tempDir('served'), 'site');
    await generateLive({ dataDir: (variants[0] as Variant).data, outDir: site, ...quiet });
    // No rate limit: four pollers ask as fast as answers come for as long as seven releases take (over 100,000 calls
    // on a loaded machine), and a 429 is not what this test is about.
    server = await startTestServer({ SITE_DIR: site, RATE_LIMIT_PER_HOUR: '0' });
  });
  afterAll(async () => server.close());

  it('sees no false 404, 400 or 503 while versions come and go (grace longer than its pointer cache)', async () => {
    const phones = new Set(variants.map((v) => v.phone));
    const statuses = new Map<string, number>();
    const wrong: string[] = [];
    let stop = false;
    const paths = [
      `/v1/firms/${P1}`,
      '/v1/attorneys?zip=60601&limit=25',
      '/v1/attorneys?location=Chicago,%20IL',
      `/r/${P1}`,
      '/v1/coverage',
    ];
    const poll = async (offset: number): Promise<void> => {
      for (let i = offset; !stop; i++) {
        const path = paths[i % paths.length] as string;
        const res = await fetch(server.url + path, { redirect: 'manual' });
        const text = await res.text();
        const label = `${path.split('?')[0] ?? path} ${res.status}`;
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
        const ok = path.startsWith('/r/') ? res.status === 302 : res.status === 200;
        if (!ok) wrong.push(`${path}: ${res.status} ${text.slice(0, 200)}`);
        else if (path.startsWith('/v1/firms/')) {
          const phone = (JSON.parse(text) as { office: { phone: string } }).office.phone;
          if (!phones.has(phone)) wrong.push(`${path}: phone ${phone}`);
        } else if (path.includes('zip=')) {
          const results = (JSON.parse(text) as { results: { listing_id: string }[] }).results;
          if (!results.some((r) => r.listing_id === P1)) wrong.push(`${path}: p1 missing`);
        }
      }
    };
    const pollers = [0, 1, 2, 3].map(poll);
    // Four inputs in turn, a replaced version deleted 6 s after it stopped being current (the server trusts its
    // pointer for 5 s), one kept: versions are deleted and made again while the server holds old pointers.
    const runs: number[] = [];
    for (let i = 1; i <= 7; i++) {
      const r = await runCli([
        '--data',
        (variants[i % 4] as Variant).data,
        '--out',
        site,
        '--grace-seconds',
        '6',
        '--keep',
        '1',
        '--quiet',
      ]);
      runs.push(r.code ?? -1);
    }
    stop = true;
    await Promise.all(pollers);
    expect(runs.every((c) => c === 0)).toBe(true);
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(200);
    expect(wrong.slice(0, 10)).toEqual([]);
    await checkVersions(site);
    expect(await servedPhone(site)).toBe((variants[7 % 4] as Variant).phone);
  }, 240_000);
});

describe('kill -9 of release', () => {
  it('never leaves a site that answers wrongly, and later runs remove the leftovers', async () => {
    const parent = await tempDir('killed');
    const site = join(parent, 'site');
    const rng = seededRandom(20261122);
    // A leftover of the previous generator (a temporary sibling) is removed too.
    await mkdir(join(parent, 'site.tmp-AbC123', 'v'), { recursive: true });
    let served: string | null = null;
    let killed = 0;
    for (let i = 0; i < 10; i++) {
      const variant = variants[i % 2] as Variant;
      const args = ['--data', variant.data, '--out', site, '--grace-seconds', '0', '--keep', '1'];
      // Half the kills at a uniform moment of a whole run, half inside the write, rename and prune phase.
      const at =
        i % 2 === 0 ? { delayMs: Math.floor(rng() * 2500) } : { line: /gazetteer:/, delayMs: Math.floor(rng() * 900) };
      const r = await runCli(args, at);
      if (r.signal === 'SIGKILL') killed++;
      else expect(r.code, r.stderr).toBe(0);
      const phone = existsSync(join(site, keys.pointer)) ? await servedPhone(site) : null;
      // The site answers with the previous run's answer or this one's, never anything else or nothing after a success.
      if (r.code === 0) expect(phone).toBe(variant.phone);
      else expect([served, variant.phone], `run ${i}`).toContain(phone);
      served = phone;
      if (existsSync(join(site, 'v'))) await checkVersions(site);
    }
    expect(killed).toBeGreaterThan(3);
    // A clean run clears every leftover: no staging folder, no temporary sibling, only whole versions.
    const final = await runCli([
      '--data',
      (variants[3] as Variant).data,
      '--out',
      site,
      '--grace-seconds',
      '0',
      '--keep',
      '2',
      '--quiet',
    ]);
    expect(final.code, final.stderr).toBe(0);
    expect((await readdir(parent)).sort()).toEqual(['site']);
    expect((await readdir(site)).sort()).toEqual(['current.json', 'v']);
    const versions = await checkVersions(site);
    expect(versions.length).toBeLessThanOrEqual(2);
    expect(await servedPhone(site)).toBe((variants[3] as Variant).phone);
  }, 240_000);
});

describe('retention', () => {
  it('keeps replaced versions through the grace period and the last few for rollback, then removes them', async () => {
    const site = join(await tempDir('retain'), 'site');
    const ids: string[] = [];
    for (const v of variants) ids.push((await generateLive({ dataDir: v.data, outDir: site, ...quiet })).version);
    // Default grace (a minute): nothing replaced a moment ago is deleted.
    expect((await readdir(join(site, 'v'))).sort()).toEqual([...ids].sort());
    // Once the grace period has passed, only the last `keep` (current included) stay.
    for (const [i, id] of ids.slice(0, 3).entries()) {
      const old = new Date(Date.now() - 3_600_000 + i * 1000);
      await utimes(join(site, 'v', id), old, old);
    }
    const r = await generateLive({
      dataDir: (variants[3] as Variant).data,
      outDir: site,
      retention: { keep: 3 },
      ...quiet,
    });
    // The same inputs as the live version: the live version itself, its changes document (and previous) kept.
    expect(r.version).toBe(ids[3]);
    expect(r.previousVersion).toBe(ids[2]);
    expect(r.pruned.sort()).toEqual([ids[0]]);
    expect((await readdir(join(site, 'v'))).sort()).toEqual([ids[1], ids[2], ids[3]].sort());
    // Generating an older week's inputs again over a newer live version is a new version (its changes document compares
    // with the live one, so the older version's bytes never change); the one it replaced starts its grace period.
    const back = await generateLive({
      dataDir: (variants[1] as Variant).data,
      outDir: site,
      retention: { keep: 1, graceMs: 60_000 },
      ...quiet,
    });
    expect(back.version).not.toBe(ids[1]);
    expect(back.pruned.sort()).toEqual([ids[1], ids[2]].sort());
    expect(Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).version).toBe(back.version);
    expect(existsSync(join(site, STAGING))).toBe(false);
  });

  it('the same inputs again restore an object lost from the served version without taking the version away', async () => {
    const site = join(await tempDir('repair'), 'site');
    const { version } = await generateLive({ dataDir: (variants[0] as Variant).data, outDir: site, ...quiet });
    const lost = join(site, firmPackKey(site, version, P1));
    const bytes = await readFile(lost);
    await writeFile(lost, '');
    await generateLive({ dataDir: (variants[0] as Variant).data, outDir: site, ...quiet });
    expect((await readFile(lost)).equals(bytes)).toBe(true);
    await checkVersions(site);
  });
});
