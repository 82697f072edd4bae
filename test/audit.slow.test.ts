/**
 * The auditor's tools (docs/AUDIT.md) on the generated sample site with a real local server: verify agrees with an
 * honest server, and names the query and the difference when the published records and the served answers disagree;
 * the manifest check catches modified, missing and unlisted objects; diff counts match the inputs' place ids.
 */
import { serialiseAt } from '../generator/write/json.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSites, formatDiff, type SiteDiff } from '../generator/audit/diff.ts';
import { checkManifest } from '../generator/audit/manifest.ts';
import { parseQuery, seededRandom } from '../generator/audit/queries.ts';
import { greatCircleMiles } from '../generator/audit/recompute.ts';
import { compareTree, scanOffices } from '../generator/site/scan.ts';
import { buildCells } from '../generator/write/cells.ts';
import { sealCellTree } from '../generator/write/cell-hashes.ts';
import { CellBlock, CellRecords, type CellRecordsT } from '../shim/format/cell-format.ts';
import { openSite, type SiteLocation } from '../generator/site/site.ts';
import { formatVerifyReport, verify, verifyExitCode, type VerifyReport } from '../generator/audit/verify.ts';
import { generateLive } from './helpers/generate-live.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { keys, Manifest, Pointer, type FirmDocT, type StoredOfficeT } from '../shim/format/site-format.ts';
import { readFirmDoc, writeFirmDoc } from './helpers/firm-pack.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../shim/store/s3-client.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { recordMetaHash } from './helpers/rehash.ts';
import { startS3rver } from '../bench/lib/s3rver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const SITE = process.env.TEST_SITE_DIR as string;
const folder = (dir: string): SiteLocation => ({ kind: 'folder', dir });
const temp = mkdtempSync(join(tmpdir(), 'iad-audit-'));

function versionOf(site: string): string {
  return Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
}

function readRecords(site: string, block: string, chunk: number): CellRecordsT {
  return CellRecords.parse(
    JSON.parse(readFileSync(join(site, keys.cellRecords(versionOf(site), block, chunk)), 'utf8')),
  );
}

function writeRecords(site: string, rec: CellRecordsT): void {
  writeFileSync(join(site, keys.cellRecords(versionOf(site), rec.block, rec.chunk)), `${JSON.stringify(rec)}\n`);
}

/** Replace a copy's cell tree by the objects `build` gives for its offices. */
async function writeCells(
  site: string,
  build: (offices: StoredOfficeT[]) => {
    index: unknown;
    groups: { cell: string; schema_version: number }[];
    shared?: { cell: string; schema_version: number }[];
    blocks: { cell: string; schema_version: number }[];
    records: { block: string; chunk: number }[];
  },
): Promise<void> {
  const opened = await openSite(folder(site));
  const tree = build((await scanOffices(opened)).offices);
  const v = opened.version;
  rmSync(join(site, keys.root(v), 'cells'), { recursive: true });
  const put = (key: string, value: unknown): void => {
    mkdirSync(dirname(join(site, key)), { recursive: true });
    writeFileSync(join(site, key), serialiseAt(key, value));
  };
  put(keys.cellIndex(v), tree.index);
  // meta.json records the index's sha256 (schema 4); an older generator's tree comes with no hashes at all.
  const metaPath = join(site, keys.meta(v));
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { sha256?: Record<string, string>; cell_index?: unknown };
  delete meta.cell_index;
  if ((tree.index as { schema_version?: number }).schema_version === 4 && meta.sha256 !== undefined) {
    meta.sha256['cells/index.json'] = createHash('sha256')
      .update(`${JSON.stringify(tree.index)}\n`)
      .digest('hex');
  } else delete meta.sha256;
  writeFileSync(metaPath, `${JSON.stringify(meta)}\n`);
  recordMetaHash(site);
  for (const g of tree.groups) put(keys.cellGroup(v, g.cell, g.schema_version), g);
  for (const a of tree.shared ?? []) put(keys.cellShared(v, a.cell, a.schema_version), a);
  for (const b of tree.blocks) put(keys.cellBlock(v, b.cell), b);
  for (const r of tree.records) put(keys.cellRecords(v, r.block, r.chunk), r);
}

/** Rewrite a copy's cell tree, consistently, from its offices as `edit` changes them (a server serving other data). */
const rewriteCells = (site: string, edit: (offices: StoredOfficeT[]) => StoredOfficeT[]): Promise<void> =>
  writeCells(site, (offices) => {
    const tree = buildCells(edit(offices));
    sealCellTree(tree);
    return tree;
  });

/** A full copy of the sample site (never hard links: the copies are modified). */
function copySite(name: string): string {
  const dir = join(temp, name);
  cpSync(SITE, dir, { recursive: true });
  return dir;
}

/** Run the CLI as a user would (asynchronously, so the in-process server keeps answering). */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['generator/audit/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** An office of the largest block (a dense spot), with the block's cell. */
function denseOffice(site: string, skip = 0): { office: StoredOfficeT; block: string } {
  const dir = join(site, keys.root(versionOf(site)), 'cells', 'blocks');
  const blocks = readdirSync(dir).map((f) =>
    CellBlock.parse(decodeStored(readFileSync(join(dir, f)), `cells/blocks/${f}`)),
  );
  const block = blocks.sort((a, b) => b.listing.length - a.listing.length || (a.cell < b.cell ? -1 : 1))[0]?.cell ?? '';
  return { office: readRecords(site, block, 0).offices[skip] as StoredOfficeT, block };
}

function mismatches(r: VerifyReport): { query: string; differences: string[] }[] {
  return (r.live?.queries ?? []).filter((q) => q.status === 'mismatch');
}

let server: TestServer;
afterAll(async () => {
  await server?.close();
  rmSync(temp, { recursive: true, force: true });
});
beforeAll(async () => {
  server = await startTestServer();
});

describe('own haversine', () => {
  it('is the contract formula (R = 3958.8 mi) and equals the shim bit for bit, so no false alarm at a rounding edge', () => {
    expect(greatCircleMiles(0, 0, 0, 1)).toBeCloseTo((3958.8 * Math.PI) / 180, 9);
    expect(greatCircleMiles(40.7128, -74.006, 41.8781, -87.6298)).toBeCloseTo(711.0, 0);
    const rand = seededRandom(5);
    for (let i = 0; i < 20_000; i++) {
      const lat = 25 + rand() * 24;
      const lng = -125 + rand() * 55;
      const lat2 = lat + (rand() - 0.5) * 1.5;
      const lng2 = lng + (rand() - 0.5) * 1.5;
      expect(greatCircleMiles(lat, lng, lat2, lng2)).toBe(haversineMiles(lat, lng, lat2, lng2));
    }
  });
});

describe('audit verify', () => {
  it('passes on the sample site against an honest server for 30 seeded queries, with manifest and cell tree intact', async () => {
    const r = await verify({ site: folder(SITE), url: server.url, sample: 30, seed: 11 });
    expect(r.errors).toEqual([]);
    expect(r.manifest?.problems).toEqual([]);
    expect(r.manifest?.objects).toBeGreaterThan(3_000);
    expect(r.scan?.problems).toEqual([]);
    expect(r.scan?.offices).toBe((await openSite(folder(SITE))).meta.totals.offices);
    expect(r.live?.versionProblems).toEqual([]);
    const queries = r.live?.queries ?? [];
    expect(queries).toHaveLength(30);
    expect(queries.filter((q) => q.status !== 'match')).toEqual([]);
    // The sample is not trivial: most points covered, with results, and firms beyond the limit.
    expect(queries.filter((q) => q.covered === true && (q.results ?? 0) > 0).length).toBeGreaterThan(20);
    expect(queries.some((q) => (q.firmsWithinRadius ?? 0) > (q.results ?? 0))).toBe(true);
    expect(verifyExitCode(r)).toBe(0);
  });

  it('also checks zip and city queries, from the point the live API resolved', async () => {
    const r = await verify({
      site: folder(SITE),
      url: server.url,
      queries: [parseQuery('zip=10001&radius_miles=5'), parseQuery('location=Chicago, IL&limit=3')],
      manifest: false,
      rebuildTree: false,
    });
    expect(r.live?.queries.map((q) => [q.status, q.point?.from])).toEqual([
      ['match', 'live'],
      ['match', 'live'],
    ]);
  });

  it('counts a point abroad or at sea, refused live as the published boundary says, as checked (not an error)', async () => {
    const windsor = 'lat=42.3149&lng=-83.0364&radius_miles=10&limit=5'; // Windsor, Ontario, across the river from Detroit
    const atSea = 'lat=39&lng=-70&radius_miles=50&limit=5'; // the Atlantic, 150 miles off Long Island
    const detroit = 'lat=42.3314&lng=-83.0458&radius_miles=10&limit=5';
    const r = await verify({
      site: folder(SITE),
      url: server.url,
      queries: [parseQuery(windsor), parseQuery(atSea), parseQuery(detroit)],
      manifest: false,
      rebuildTree: false,
    });
    expect(r.live?.queries.map((q) => [q.query, q.status])).toEqual([
      [windsor, 'outside'],
      [atSea, 'outside'],
      [detroit, 'match'],
    ]);
    expect(verifyExitCode(r)).toBe(0);
    expect(formatVerifyReport(r)).toContain('2 outside the US');
  });

  it('fails, naming the query and the office, when a published record chunk was altered but the server answers from the original', async () => {
    const copy = copySite('altered-published');
    const { office, block } = denseOffice(SITE);
    const rec = readRecords(copy, block, 0);
    const moved = rec.offices.find((o) => o.listing_id === office.listing_id) as StoredOfficeT;
    moved.lat = Math.round((moved.lat + 0.02) * 1e6) / 1e6; // 1.4 miles north
    writeRecords(copy, rec);

    const query = `lat=${office.lat + 0.001}&lng=${office.lng}&radius_miles=2&limit=25`;
    const r = await verify({
      site: folder(copy),
      url: server.url,
      queries: [parseQuery(query)],
      sample: 10,
      seed: 3,
      manifest: false,
      rebuildTree: false,
    });
    expect(verifyExitCode(r)).toBe(1);
    const bad = mismatches(r).find((q) => q.query === query);
    expect(bad, 'the tampered query is reported').toBeDefined();
    expect(bad?.differences.some((d) => d.includes(office.listing_id) && /expected .* got /.test(d))).toBe(true);

    // The manifest and the scan (records against the block's columns, and the tree rebuilt) catch the same tampering
    // without any live query.
    const site = await openSite(folder(copy));
    const manifest = await checkManifest(site);
    expect(
      manifest.problems.some((p) => p.startsWith(keys.cellRecords(site.version, block, 0)) && p.includes('sha256')),
    ).toBe(true);
    const scan = await scanOffices(site);
    expect(scan.problems.some((p) => p.includes(office.listing_id) && p.includes('block column'))).toBe(true);
    expect(compareTree(scan, site.version).length).toBeGreaterThan(0);

    // The CLI prints the same as an expected-vs-got report and exits 1.
    const cli = await runCli([
      'verify',
      '--site',
      copy,
      '--url',
      server.url,
      '--query',
      query,
      '--no-manifest',
      '--no-tree',
      '--quiet',
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`MISMATCH /v1/attorneys?${query}`);
    expect(cli.stdout).toContain(office.listing_id);
    expect(cli.stdout).toContain('RESULT: differences found');
  });

  it('refuses a week of an older cell schema, naming the version and what to do', async () => {
    const copy = copySite('older-cells');
    const indexPath = join(copy, keys.cellIndex(versionOf(copy)));
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as Record<string, unknown>;
    for (const old of [2, 6]) {
      writeFileSync(indexPath, `${JSON.stringify({ ...index, schema_version: old })}\n`);
      const site = await openSite(folder(copy));
      const err = await scanOffices(site).catch((e: unknown) => e as Error);
      expect(String(err)).toContain(`version ${site.version} has no readable cell index`);
      expect(String(err)).toContain(
        `cells schema ${old}, but this release reads cells schema 9 or 8 only: generate the week again with this release and publish it`,
      );
    }
  });

  it('fails when the server answers from a copy with an office removed from its cell tree', async () => {
    const copy = copySite('altered-served');
    const { office } = denseOffice(SITE, 1);
    await rewriteCells(copy, (offices) => offices.filter((o) => o.listing_id !== office.listing_id));
    const tampered = await startTestServer({ SITE_DIR: copy });
    try {
      const query = `lat=${office.lat}&lng=${office.lng}&radius_miles=3&limit=25`;
      const r = await verify({
        site: folder(SITE),
        url: tampered.url,
        queries: [parseQuery(query)],
        manifest: false,
        rebuildTree: false,
      });
      expect(verifyExitCode(r)).toBe(1);
      const bad = mismatches(r).find((q) => q.query === query);
      expect(bad?.differences).toContainEqual(
        expect.stringMatching(new RegExp(`^missing from the live answer: ${office.listing_id} \\(0\\.00 mi`)),
      );
    } finally {
      await tampered.close();
    }
  });

  it('reports a live API serving another version', async () => {
    const copy = copySite('other-version');
    const v = versionOf(copy);
    const coverage = JSON.parse(readFileSync(join(copy, keys.coverage(v)), 'utf8')) as { generated_at: string };
    coverage.generated_at = '2026-11-25T14:00:00Z';
    writeFileSync(join(copy, keys.coverage(v)), `${JSON.stringify(coverage)}\n`);
    const r = await verify({
      site: folder(copy),
      url: server.url,
      queries: [parseQuery('lat=41.88&lng=-87.63&radius_miles=1')],
      manifest: false,
      rebuildTree: false,
    });
    expect(verifyExitCode(r)).toBe(1);
    expect(r.live?.versionProblems.join('\n')).toMatch(/does not serve version .*generated_at/);
  });

  it('catches a modified, a missing and an unlisted object, and a manifest rewritten to hide them', async () => {
    const copy = copySite('manifest');
    const v = versionOf(copy);
    const { office } = denseOffice(copy, 2);
    const firm = readFirmDoc(copy, v, office.listing_id) as FirmDocT;
    firm.firm.sponsored = !firm.firm.sponsored;
    const firmKey = writeFirmDoc(copy, v, firm);
    const gone = keys.zip(v, '100');
    unlinkSync(join(copy, gone));
    const extra = `${keys.root(v)}firms/l_aaaaaaaaaaaaaaaa.json`;
    writeFileSync(join(copy, extra), '{}\n');

    const site = await openSite(folder(copy));
    const found = await checkManifest(site);
    expect(found.problems).toContainEqual(expect.stringMatching(new RegExp(`^${firmKey}: sha256 `)));
    expect(found.problems).toContain(`${gone}: listed in the manifest but missing`);
    expect(found.problems).toContain(`${extra}: present but not listed in the manifest`);

    // Rewrite the manifest so that it lists the modified bytes: the version id no longer matches the content.
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(copy, keys.manifest(v)), 'utf8')));
    const bytes = readFileSync(join(copy, firmKey));
    manifest.objects[firmKey] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength };
    writeFileSync(join(copy, keys.manifest(v)), `${JSON.stringify(manifest)}\n`);
    const again = await checkManifest(site);
    expect(again.problems.some((p) => p.startsWith(firmKey))).toBe(false);
    expect(again.problems).toContainEqual(expect.stringMatching(/^version id .* does not match its content/));

    const cli = await runCli(['verify', '--site', copy, '--quiet']);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`${extra}: present but not listed in the manifest`);
  });

  it('checks a site published to S3 (a real S3-protocol server): gzip objects read back, an unlisted object is caught', async () => {
    const small = join(temp, 'basic-site');
    await copyFixtureSite(small);
    const s3 = await startS3rver({ buckets: ['audit'] });
    try {
      await publishSite({ bucket: 'audit', prefix: 'prod/', siteDir: small, quiet: true, ...s3.clientOptions });
      const site: SiteLocation = { kind: 's3', bucket: 'audit', prefix: 'prod/', ...s3.clientOptions };
      const clean = await verify({ site });
      expect(clean.errors).toEqual([]);
      expect(clean.manifest?.problems).toEqual([]);
      expect(clean.scan?.problems).toEqual([]);
      expect(clean.version).toBe(versionOf(small));
      expect(verifyExitCode(clean)).toBe(0);
      const extra = `${keys.root(clean.version)}cells/blocks/8500000ffffffff.json`;
      await s3Client(s3.clientOptions).send(
        new PutObjectCommand({ Bucket: 'audit', Key: `prod/${extra}`, Body: Buffer.from('{}\n') }),
      );
      const dirty = await verify({ site, rebuildTree: false });
      expect(dirty.manifest?.problems).toEqual([`${extra}: present but not listed in the manifest`]);
      expect(verifyExitCode(dirty)).toBe(1);
    } finally {
      await s3.stop();
    }
    // Publishing the fixture to s3rver and reading every object back: 20-40 s alone, over a minute on a loaded machine.
  }, 240_000);

  it('has --help for the tool and each command, and exits 2 on a usage error', async () => {
    const [top, v, d, bad] = await Promise.all([
      runCli(['--help']),
      runCli(['verify', '--help']),
      runCli(['diff', '--help']),
      // Nothing to read (--url alone is the public audit now, test/audit-public.test.ts).
      runCli(['verify']),
    ]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('verify');
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('Usage: npm run audit -- verify');
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('Usage: npm run audit -- diff');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--site');
  });
});

// ---------------------------------------------------------------------------------------------------------------------

interface Place {
  place_id: string;
  website: string | null;
  [field: string]: unknown;
}
interface Flag {
  firm: string;
  profile_type: 'standard' | 'enhanced';
  sponsored: boolean;
}

function jsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Places of a week with data/corrections.jsonl applied, when it exists (remove drops, update overrides). */
function placesOf(week: string): Map<string, Place> {
  const places = new Map(jsonl<Place>(join('data/weeks', week, 'places.jsonl')).map((p) => [p.place_id, p]));
  if (existsSync('data/corrections.jsonl')) {
    for (const c of jsonl<{ action: string; place_id: string; set?: Record<string, unknown> }>(
      'data/corrections.jsonl',
    )) {
      const p = places.get(c.place_id);
      if (p === undefined) continue;
      if (c.action === 'remove') places.delete(c.place_id);
      else places.set(c.place_id, { ...p, ...c.set });
    }
  }
  return places;
}

/** Listing id from a place id, computed here from the documented rule: l_ + 16 chars of base32(sha256("listing:" + id)). */
function listingId(placeId: string): string {
  const bytes = createHash('sha256').update(`listing:${placeId}`).digest();
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < 80; i += 5) out += 'abcdefghijklmnopqrstuvwxyz234567'[parseInt(bits.slice(i, i + 5), 2)];
  return `l_${out}`;
}

function firmKey(p: Place): string {
  return p.website === null ? `place:${p.place_id}` : new URL(p.website).hostname.toLowerCase().replace(/^www\./, '');
}

/** Input field -> stored office field it shows up in. */
const FIELD_OF: Record<string, string[]> = {
  name: ['name'],
  street_address: ['address'],
  city: ['city'],
  state: ['state'],
  zip: ['zip'],
  lat: ['lat'],
  lng: ['lng'],
  phone: ['phone'],
  website: ['website_url', 'website_domain', 'firm_id'],
  primary_category: ['primary_category'],
  claimed: ['google_listing_claimed'],
  opening_hours: ['hours'],
  timezone: ['hours'],
};

describe('audit diff', () => {
  let w46: string;
  let w47: string;
  let flippedSite: string;
  let d: SiteDiff;
  const flipped = { sponsored: '', profile: '' };

  beforeAll(async () => {
    w47 = SITE;
    expect(JSON.parse(readFileSync(join(w47, keys.pointer), 'utf8'))).toMatchObject({ week: '2026-W47' });
    w46 = join(temp, 'w46');
    await generateLive({ dataDir: 'data', outDir: w46, week: '2026-W46', quiet: true });

    // W47 again with two firms' flags flipped: the multi-office firm with most offices (sponsored) and one place: firm (profile_type).
    const dataDir = join(temp, 'flip-data');
    const weekDir = join(dataDir, 'weeks', '2026-W47');
    mkdirSync(weekDir, { recursive: true });
    symlinkSync(resolve('data/metros.json'), join(dataDir, 'metros.json'));
    if (existsSync('data/corrections.jsonl'))
      symlinkSync(resolve('data/corrections.jsonl'), join(dataDir, 'corrections.jsonl'));
    for (const f of ['dataset.json', 'places.jsonl', 'samples.jsonl'])
      symlinkSync(resolve('data/weeks/2026-W47', f), join(weekDir, f));
    const counts = new Map<string, number>();
    for (const p of placesOf('2026-W47').values()) counts.set(firmKey(p), (counts.get(firmKey(p)) ?? 0) + 1);
    flipped.sponsored = [...counts]
      .filter(([k]) => !k.startsWith('place:'))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] as string;
    flipped.profile = [...counts.keys()].filter((k) => k.startsWith('place:')).sort()[0] as string;
    const flags = jsonl<Flag>('data/weeks/2026-W47/flags.jsonl').map((f) =>
      f.firm === flipped.sponsored
        ? { ...f, sponsored: !f.sponsored }
        : f.firm === flipped.profile
          ? { ...f, profile_type: f.profile_type === 'standard' ? 'enhanced' : 'standard' }
          : f,
    );
    writeFileSync(join(weekDir, 'flags.jsonl'), flags.map((f) => JSON.stringify(f)).join('\n') + '\n');
    flippedSite = join(temp, 'w47-flipped');
    await generateLive({ dataDir, outDir: flippedSite, week: '2026-W47', quiet: true });

    d = await diffSites(folder(w46), folder(w47));
  });

  it('counts added, removed and changed offices as the two weeks of inputs do', () => {
    const before = placesOf('2026-W46');
    const after = placesOf('2026-W47');
    const added = [...after.keys()]
      .filter((id) => !before.has(id))
      .map(listingId)
      .sort();
    const removed = [...before.keys()]
      .filter((id) => !after.has(id))
      .map(listingId)
      .sort();
    const changedFields = new Map<string, Set<string>>();
    for (const [id, p] of after) {
      const q = before.get(id);
      if (q === undefined) continue;
      const fields = [...new Set([...Object.keys(p), ...Object.keys(q)])].filter(
        (k) => JSON.stringify(p[k]) !== JSON.stringify(q[k]),
      );
      if (fields.length > 0) changedFields.set(listingId(id), new Set(fields.flatMap((f) => FIELD_OF[f] ?? [f])));
    }
    expect(added.length).toBeGreaterThan(50);
    expect(removed.length).toBeGreaterThan(50);
    expect(d.added.map((o) => o.listing_id).sort()).toEqual(added);
    expect(d.removed.map((o) => o.listing_id).sort()).toEqual(removed);
    expect(d.changed.map((o) => o.listing_id).sort()).toEqual([...changedFields.keys()].sort());
    for (const c of d.changed)
      for (const f of c.fields)
        expect(changedFields.get(c.listing_id)?.has(f.field), `${c.listing_id} ${f.field}`).toBe(true);
    expect(d.counts).toMatchObject({
      added: added.length,
      removed: removed.length,
      changed: changedFields.size,
      unchanged: after.size - added.length - changedFields.size,
    });
    expect(d.old).toMatchObject({ week: '2026-W46', offices: before.size, tree_problems: [] });
    expect(d.new).toMatchObject({ week: '2026-W47', offices: after.size, tree_problems: [] });
  });

  it('lists flag changes exactly as the inputs flip them, as changes of that field alone', async () => {
    const f = await diffSites(folder(w47), folder(flippedSite));
    const places = [...placesOf('2026-W47').values()];
    const expected = [
      ...places.filter((p) => firmKey(p) === flipped.sponsored).map((p) => `${listingId(p.place_id)} sponsored`),
      ...places.filter((p) => firmKey(p) === flipped.profile).map((p) => `${listingId(p.place_id)} profile_type`),
    ].sort();
    expect(expected.length).toBeGreaterThan(2);
    expect(f.flag_changes.map((x) => `${x.listing_id} ${x.field}`).sort()).toEqual(expected);
    expect(f.changed.map((x) => `${x.listing_id} ${x.fields.map((y) => y.field).join(',')}`).sort()).toEqual(expected);
    for (const x of f.flag_changes) expect(x.new).not.toBe(x.old);
    expect(f.counts).toMatchObject({
      added: 0,
      removed: 0,
      visibility_moves: 0,
      visibility_changed: 0,
      firms_added: 0,
      firms_removed: 0,
    });
    expect(formatDiff(f)).toMatch(
      /Flag changes \(\d+\):\n {2}l_[a-z2-7]{16} .*: (sponsored (true -> false|false -> true)|profile_type \w+ -> \w+)/,
    );
  });

  it('lists visibility moves of at least the threshold, largest first, with the shares the firm documents publish', async () => {
    const moves = d.visibility_moves;
    expect(moves.length).toBeGreaterThan(0);
    for (let i = 1; i < moves.length; i++)
      expect((moves[i - 1] as { move: number }).move).toBeGreaterThanOrEqual((moves[i] as { move: number }).move);
    for (const m of moves) expect(m.move >= 1 || m.old_metro !== m.metro).toBe(true);
    const v46 = versionOf(w46);
    const v47 = versionOf(w47);
    for (const m of moves.slice(0, 5)) {
      const before = (readFirmDoc(w46, v46, m.listing_id) as FirmDocT).office;
      const after = (readFirmDoc(w47, v47, m.listing_id) as FirmDocT).office;
      expect([m.old_top3, m.new_top3, m.old_appears, m.new_appears]).toEqual([
        before.visibility?.top3_share_pct ?? null,
        after.visibility?.top3_share_pct ?? null,
        before.visibility?.appears_share_pct ?? null,
        after.visibility?.appears_share_pct ?? null,
      ]);
    }
    // A higher threshold lists exactly the moves at least that big (plus metro changes).
    const strict = await diffSites(folder(w46), folder(w47), { threshold: 5 });
    expect(strict.visibility_moves.map((m) => m.listing_id).sort()).toEqual(
      moves
        .filter((m) => m.move >= 5 || m.old_metro !== m.metro)
        .map((m) => m.listing_id)
        .sort(),
    );
  });

  it('prints the same diff as JSON from the command line', async () => {
    const cli = await runCli(['diff', w46, w47, '--json', '--quiet']);
    expect(cli.code).toBe(0);
    const json = JSON.parse(cli.stdout) as SiteDiff;
    expect(json.counts).toEqual(d.counts);
    expect(json.added.map((o) => o.listing_id)).toEqual(d.added.map((o) => o.listing_id));
    const text = await runCli(['diff', w46, w47, '--quiet', '--max', '3']);
    expect(text.stdout).toContain(`Added (${d.counts.added}):`);
    expect(text.stdout).toContain(`... ${d.counts.added - 3} more`);
  });
});
