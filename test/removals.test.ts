/**
 * Standing removals (data/removals.jsonl): a listing or a whole firm stays out of every later week until lifted, a new
 * place id of a removed firm stays out too, and publish refuses a site (a rollback) that still holds a removed listing.
 */
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../generator/generate.ts';
import { generateLive } from './helpers/generate-live.ts';
import { firmIdOf, listingIdOf } from '../generator/inputs/ids.ts';
import { publishSite, RemovedListingError } from '../generator/publish/publish.ts';
import { release } from '../generator/release/release.ts';
import { readRemovals, weekScans } from '../generator/model/removals.ts';
import { describeFailure } from '../generator/failure.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { FirmPack, keys } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { S3Store } from '../shim/store/s3.ts';
import { addFollowingWeek, copyFixture, readJson, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';

const quiet = { quiet: true, log: () => {} };
const CTX = { publicBaseUrl: 'https://directory.example' };
const ALPHA = ['p1', 'p2', 'p3'];

/** Add week 2026-W48 to a data copy: last week's rows plus a new Alpha office under a new place id. */
async function addNextWeek(data: string): Promise<void> {
  const { from, to } = await addFollowingWeek(data);
  const first = (await readFile(join(from, 'places.jsonl'), 'utf8')).split('\n')[0] as string;
  const p11 = {
    ...(JSON.parse(first) as Record<string, unknown>),
    place_id: 'p11',
    street_address: 'P11 Lake St',
    lat: 41.886,
    lng: -87.63,
  };
  await writeFile(
    join(to, 'places.jsonl'),
    `${await readFile(join(to, 'places.jsonl'), 'utf8')}${JSON.stringify(p11)}\n`,
  );
}

/** Listing ids of every office the site folder serves (through the shim), found by a search around Chicago and Milwaukee. */
async function listed(site: string): Promise<Set<string>> {
  const { version } = await readJson<{ version: string }>(site, keys.pointer);
  // The served version's firm packs alone: the folder holds every kept version's thousands of other objects too.
  const firms = join(site, keys.root(version), 'firms');
  const ids = new Set<string>();
  for (const name of await readdir(firms)) {
    if (!/^[a-z2-7]+\.json$/.test(name)) continue;
    const pack = FirmPack.parse(JSON.parse(await readFile(join(firms, name), 'utf8')));
    for (const d of pack.documents) ids.add(d.listing_id);
  }
  // The cell tree agrees with the firm documents: a search lists exactly the served ones near Chicago.
  const service = createService(createSiteSource(new FolderStore(site), { pointerTtlMs: 0 }));
  const found = await service.findAttorneys({ lat: '41.88', lng: '-87.63', radius_miles: '50', limit: '25' }, CTX);
  for (const r of found.results) expect(ids.has(r.listing_id), r.listing_id).toBe(true);
  return ids;
}

const line = (r: Record<string, unknown>): string =>
  `${JSON.stringify({ date: '2026-11-20', reason: 'the firm asked to be removed', ...r })}\n`;

afterAll(removeTempDirs);

describe('standing removals', () => {
  let data: string;
  beforeAll(async () => {
    data = await copyFixture();
    await addNextWeek(data);
  });

  it('a whole firm by domain stays out this week and next, including a new place id; lifting brings it back', async () => {
    const site = join(await tempDir('rm-domain'), 'site');
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'WWW.AlphaLaw.example' }));
    await generateLive({ dataDir: data, outDir: site, week: '2026-W47', ...quiet });
    let ids = await listed(site);
    for (const p of ALPHA) expect(ids.has(listingIdOf(p))).toBe(false);
    expect(ids.has(listingIdOf('p4'))).toBe(true);
    await generateLive({ dataDir: data, outDir: site, week: '2026-W48', ...quiet });
    ids = await listed(site);
    for (const p of [...ALPHA, 'p11']) expect(ids.has(listingIdOf(p))).toBe(false);
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example', lifted: '2026-11-27' }));
    await generateLive({ dataDir: data, outDir: site, week: '2026-W48', ...quiet });
    ids = await listed(site);
    for (const p of [...ALPHA, 'p11']) expect(ids.has(listingIdOf(p))).toBe(true);
    // Four generations of a whole site (3,358 objects each) and three reads of it: 4 s on a quiet 2-core machine,
    // 41 s and 47 s at load 12. The cost is the work's, not a wait.
  }, 180_000);

  it('by firm_id, by listing_id and by place_id', async () => {
    const site = join(await tempDir('rm-ids'), 'site');
    await writeFile(
      join(data, 'removals.jsonl'),
      line({ firm_id: firmIdOf('alphalaw.example') }) +
        line({ listing_id: listingIdOf('p6') }) +
        line({ place_id: 'p9' }),
    );
    await generateLive({ dataDir: data, outDir: site, week: '2026-W48', ...quiet });
    const ids = await listed(site);
    for (const p of [...ALPHA, 'p11', 'p6', 'p9']) expect(ids.has(listingIdOf(p)), p).toBe(false);
    for (const p of ['p4', 'p5', 'p7', 'p8', 'p10']) expect(ids.has(listingIdOf(p)), p).toBe(true);
  });

  it('a mistyped removal is a bad row, not a silent no-op', async () => {
    await writeFile(
      join(data, 'removals.jsonl'),
      line({ domain: 'alphalaw.example', firm_id: firmIdOf('alphalaw.example') }) + line({ listing_id: 'l_nothex' }),
    );
    const err = await generateLive({ dataDir: data, outDir: join(await tempDir('rm-bad'), 'site'), ...quiet }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).rows.map((r) => r.line)).toEqual([1, 2]);
    await expect(readRemovals(data)).rejects.toThrow(/line 1: .*exactly one/);
  });
});

describe('publish refuses a site holding a removed listing (a rollback cannot resurrect it)', () => {
  const s3 = useS3rver();

  it('releases the week without the firm, then refuses to publish the older folder', async () => {
    const data = await copyFixture();
    const bucket = { bucket: 'site', ...s3.clientOptions };
    const store = new S3Store({ ...bucket });
    // Last week's site, published before the removal: it lists Alpha.
    const old = join(await tempDir('rm-old'), 'site');
    await copyFixtureSite(old);
    await publishSite({ ...bucket, siteDir: old, quiet: true });
    // The firm writes in: removed, and this week's release leaves it out.
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example' }));
    const site = join(await tempDir('rm-new'), 'site');
    // A tenth of the offices go at once, so the drop gate asks for a reason.
    const r = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: await tempDir('rm-rec'),
      bucket,
      force: { 'counts-drop': 'Alpha Injury Law asked to be removed (removals.jsonl:1)' },
      log: () => {},
    });
    expect(r.outcome, r.error ?? '').toBe('released');
    const live = Buffer.from((await store.get(keys.pointer)) as Uint8Array);
    expect(JSON.parse(live.toString('utf8'))).toMatchObject({ version: r.version });
    // Rolling back to the old folder is refused before anything is written; the bucket keeps serving the new week.
    const err = await publishSite({ ...bucket, siteDir: old, quiet: true, removals: await readRemovals(data) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RemovedListingError);
    expect((err as Error).message).toContain(listingIdOf('p1'));
    expect(Buffer.from((await store.get(keys.pointer)) as Uint8Array).equals(live)).toBe(true);
    // Uploading the older site whole is most of this test: 3,358 objects to s3rver, which runs in this process, 6.6 s
    // of its 8 s on a quiet 2-core machine, 50 to 60 s at load 12 and 140 s at load 17. The cost is the upload's, as
    // in the other whole-site publish tests, not a wait.
  }, 240_000);
});

describe('a removal released from another checkout', () => {
  it('refuses a release from data that lacks it, and takes one whose line is there, lifted or not', async () => {
    // Operator A's checkout releases a removal; operator B's, copied before it, still lacks the line.
    const a = await copyFixture();
    const b = await copyFixture();
    const site = join(await tempDir('rm-two'), 'site');
    const records = await tempDir('rm-two-rec');
    const run = (dataDir: string) =>
      release({
        dataDir,
        siteDir: site,
        recordsDir: records,
        force: { 'counts-drop': 'Alpha Injury Law asked to be removed (removals.jsonl:1)' },
        log: () => {},
      });
    const removal = line({ domain: 'alphalaw.example' });
    await writeFile(join(a, 'removals.jsonl'), removal);
    const first = await run(a);
    expect(first.outcome, first.error ?? '').toBe('released');
    for (const p of ALPHA) expect((await listed(site)).has(listingIdOf(p))).toBe(false);

    const stale = await run(b);
    expect(stale.outcome).toBe('refused');
    expect(stale.failed_step).toBe('removals');
    expect(stale.error).toContain('was built with 1 standing removal(s) that');
    expect(stale.error).toContain('would bring their listings back');
    // Nothing moved: the removed firm is still out.
    expect((await readJson<{ version: string }>(site, keys.pointer)).version).toBe(first.version);
    for (const p of ALPHA) expect((await listed(site)).has(listingIdOf(p))).toBe(false);

    // With A's line (here lifted, as the docs say to lift one): B may release, and the lifted firm comes back.
    await writeFile(join(b, 'removals.jsonl'), line({ domain: 'alphalaw.example', lifted: '2026-11-22' }));
    const lifted = await run(b);
    expect(lifted.outcome, lifted.error ?? '').toBe('released');
    for (const p of ALPHA) expect((await listed(site)).has(listingIdOf(p))).toBe(true);
  });
});

/**
 * Alpha removed by domain; in the following week the map shows p1 without a website and p2 under a new domain. The
 * data folder, the weeks, the site folder and a release of a week with the drop gate forced.
 */
async function alphaMovesWebsite(tag: string) {
  const data = await copyFixture();
  const { from, to } = await addFollowingWeek(data);
  const moved = (await readFile(join(to, 'places.jsonl'), 'utf8')).split('\n').map((l) => {
    if (l === '') return l;
    const p = JSON.parse(l) as { place_id: string; website: string | null };
    if (p.place_id === 'p1') p.website = null;
    if (p.place_id === 'p2') p.website = 'https://alpha-injury.example/';
    return JSON.stringify(p);
  });
  await writeFile(join(to, 'places.jsonl'), moved.join('\n'));
  await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example' }));
  const { site, run } = await weeklyReleases(
    data,
    tag,
    'Alpha Injury Law asked to be removed (removals.jsonl:1)',
    () => {},
  );
  return { data, from, to, site, run };
}

/** Releases of weeks of `dataDir` into a new site folder (`tag`), each letting the drop gate through for `reason`. */
async function weeklyReleases(dataDir: string, tag: string, reason: string, log: (line: string) => void) {
  const site = join(await tempDir(tag), 'site');
  const records = await tempDir(`${tag}-rec`);
  const run = (week: string) =>
    release({ dataDir, siteDir: site, recordsDir: records, week, force: { 'counts-drop': reason }, log });
  return { site, run };
}

describe('a removed firm whose listings change website', () => {
  it('stays out the next week when its offices lose or change their website', async () => {
    // Alpha asks to be removed by domain; next week the map shows p1 without a website and p2 under a new domain.
    const { data, site, run } = await alphaMovesWebsite('rm-moved');
    const first = await run('2026-W47');
    expect(first.outcome, first.error ?? '').toBe('released');
    const next = await run('2026-W48');
    expect(next.outcome, next.error ?? '').toBe('released');
    const ids = await listed(site);
    for (const p of ALPHA) expect(ids.has(listingIdOf(p)), p).toBe(false);
    expect(ids.has(listingIdOf('p4'))).toBe(true);
    // The removal that keeps them out is the firm's, so the publish check names it for a folder that still holds them.
    const removals = await readRemovals(data);
    expect(
      removals.match({ listing_id: listingIdOf('p1'), firm_id: firmIdOf('place:p1'), domain: null }),
    ).toBeDefined();
  }, 180_000);

  it('stays out after the week that showed its old website is deleted from data/weeks/ (removals-held.json)', async () => {
    const { data, from, site, run } = await alphaMovesWebsite('rm-held');
    const first = await run('2026-W47');
    expect(first.outcome, first.error ?? '').toBe('released');
    // What the removal matched is recorded beside removals.jsonl (committed; data/weeks/ is not).
    const heldFile = JSON.parse(await readFile(join(data, 'removals-held.json'), 'utf8')) as {
      held: Record<string, string[]>;
    };
    expect(heldFile.held).toEqual({ 'domain:alphalaw.example': ['p1', 'p2', 'p3'] });
    // The operator deletes the old week's folder (gitignored, large); the removal must still hold p1 and p2.
    await rm(from, { recursive: true });
    const next = await run('2026-W48');
    expect(next.outcome, next.error ?? '').toBe('released');
    const ids = await listed(site);
    for (const p of ALPHA) expect(ids.has(listingIdOf(p)), p).toBe(false);
    expect(ids.has(listingIdOf('p4'))).toBe(true);
  }, 180_000);
});

describe('a removed office whose map listing is recreated under a new place id', () => {
  /** Rewrite a week's places.jsonl: `edit` returns the records to write for each one (none to drop it). */
  async function editPlaces(week: string, edit: (p: Record<string, unknown>) => Record<string, unknown>[]) {
    const path = join(week, 'places.jsonl');
    const rows = (await readFile(path, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .flatMap((l) => edit(JSON.parse(l) as Record<string, unknown>));
    await writeFile(path, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  it('stays out under its new place id; another firm at its address and the firm’s other office stay in', async () => {
    // Beta Legal's office is removed by listing_id and Alpha's Chicago office by place_id. Next week the map shows each
    // under a new place id: Beta's with its street written out, Alpha's with a suite added and its pin moved 30 m
    // (same name and phone). A firm that moved into Beta's building, and Alpha's Evanston office (same name and phone,
    // another address), are other offices.
    const data = await copyFixture();
    const { from, to } = await addFollowingWeek(data);
    await editPlaces(to, (p) => {
      if (p.place_id === 'p6') {
        const other = { ...p, place_id: 'p12', name: 'Delta Injury Lawyers', website: 'https://delta.example/' };
        return [{ ...p, place_id: 'p6new', street_address: 'P6 Main Street' }, other];
      }
      if (p.place_id === 'p1')
        return [{ ...p, place_id: 'p1new', street_address: 'P1 Main St Suite 200', lat: (p.lat as number) + 0.00027 }];
      return [p];
    });
    await writeFile(join(data, 'removals.jsonl'), line({ listing_id: listingIdOf('p6') }) + line({ place_id: 'p1' }));
    const lines: string[] = [];
    const { site, run } = await weeklyReleases(
      data,
      'rm-recreated',
      'two offices asked to be removed (removals.jsonl:1, 2)',
      (l) => lines.push(l),
    );
    const first = await run('2026-W47');
    expect(first.outcome, first.error ?? '').toBe('released');
    const next = await run('2026-W48');
    expect(next.outcome, next.error ?? '').toBe('released');
    let ids = await listed(site);
    for (const p of ['p6', 'p6new', 'p1', 'p1new']) expect(ids.has(listingIdOf(p)), p).toBe(false);
    for (const p of ['p12', 'p2', 'p3', 'p4']) expect(ids.has(listingIdOf(p)), p).toBe(true);
    // The operator sees each office held out this way, and which removed listing it is taken for.
    const out = lines.join('\n');
    expect(out).toContain(
      `held out as the same office as removed listing ${listingIdOf('p6')}: Beta Legal, P6 Main Street, Milwaukee, WI`,
    );
    expect(out).toContain(
      `held out as the same office as removed listing ${listingIdOf('p1')}: Alpha Injury Law, P1 Main St Suite 200, Chicago, IL`,
    );
    expect(out).not.toContain('Delta Injury Lawyers');
    // Recorded beside removals.jsonl, with the offices the removals matched, so deleting old weeks changes nothing.
    const heldFile = JSON.parse(await readFile(join(data, 'removals-held.json'), 'utf8')) as {
      held: Record<string, string[]>;
      offices: Record<string, { name: string; address: string }[]>;
    };
    expect(heldFile.held).toEqual({ [`listing:${listingIdOf('p6')}`]: ['p6new'], 'place:p1': ['p1new'] });
    expect(heldFile.offices[`listing:${listingIdOf('p6')}`]?.map((o) => [o.name, o.address])).toEqual([
      ['beta legal', 'p6 main st'],
    ]);
    // Next, the old week is deleted and Beta's listing is recreated once more: the recorded office still holds it.
    await rm(from, { recursive: true });
    await editPlaces(to, (p) => (p.place_id === 'p6new' ? [{ ...p, place_id: 'p6third' }] : [p]));
    const third = await run('2026-W48');
    expect(third.outcome, third.error ?? '').toBe('released');
    ids = await listed(site);
    for (const p of ['p6third', 'p1new']) expect(ids.has(listingIdOf(p)), p).toBe(false);
    expect(ids.has(listingIdOf('p12'))).toBe(true);
  }, 240_000);
});

describe('the scan of the weeks for the removals', () => {
  it('reads the weeks once per process for the same weeks and removals, again when a week changes', async () => {
    // A release reads the removals four times (gates, generate, the publish checks): four scans of a million-line week
    // each was the cost the cache removed. Counted by the files the scan opens, not by time.
    const data = await copyFixture();
    const { to } = await addFollowingWeek(data);
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example' }) + line({ place_id: 'p6' }));
    const before = { ...weekScans };
    for (let i = 0; i < 4; i++) await readRemovals(data);
    // One scan: a pass over both weeks for the matches, one more for offices the same as the removed one.
    expect(weekScans.scans - before.scans).toBe(1);
    expect(weekScans.files - before.files).toBe(4);
    // A week that changes is read again, once.
    await appendFile(join(to, 'places.jsonl'), '\n');
    for (let i = 0; i < 3; i++) await readRemovals(data);
    expect(weekScans.scans - before.scans).toBe(2);
    expect(weekScans.files - before.files).toBe(8);
    // So is a change of the standing removals.
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example' }));
    for (let i = 0; i < 2; i++) await readRemovals(data);
    expect(weekScans.scans - before.scans).toBe(3);
    expect(weekScans.files - before.files).toBe(10);
  });
});

describe('a data folder where removals-held.json cannot be written', () => {
  it('fails the release at step removals naming the file and why, and nothing goes live', async () => {
    const data = await copyFixture();
    await writeFile(join(data, 'removals.jsonl'), line({ domain: 'alphalaw.example' }));
    // Root writes through permissions, so the write is made to really fail: a folder where the file's temporary copy
    // (removals-held.json.tmp-<pid>) is written.
    await mkdir(join(data, `removals-held.json.tmp-${process.pid}`, 'x'), { recursive: true });
    const site = join(await tempDir('rm-ro'), 'site');
    const r = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: await tempDir('rm-ro-rec'),
      force: { 'counts-drop': 'Alpha Injury Law asked to be removed (removals.jsonl:1)' },
      log: () => {},
    });
    expect(r.outcome).toBe('failed');
    expect(r.failed_step).toBe('removals');
    expect(r.error).toContain(`cannot write ${join(data, 'removals-held.json')}`);
    expect(r.error).toContain('a held place not recorded there could come back');
    await expect(readdir(site)).rejects.toThrow();
    // generate fails the same way, and its CLI prints the message, not a stack trace.
    const err = await generateLive({ dataDir: data, outDir: join(await tempDir('rm-ro-gen'), 'site'), ...quiet }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toContain(`cannot write ${join(data, 'removals-held.json')}`);
    expect(describeFailure(err)).toBe((err as Error).message);
  });
});
