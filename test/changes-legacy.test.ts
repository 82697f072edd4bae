/**
 * A site whose live version is older than this release takes a new week (docs/SITE-FORMAT.md, "Schema versions"). Live
 * in the previous cell schema (8), generate into the folder and release to a bucket both compare with it, and the
 * changes document equals the one the same offices give when live in the current schema. Live in an older schema (cell
 * schema 7, retired with this release, and meta schema 1), generate refuses, naming the version and what to do; so do the steps that read only the
 * current schema. Real S3-protocol server (s3rver) on loopback.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSites } from '../generator/audit/diff.ts';
import { measure } from '../generator/audit/measure.ts';
import { openStoredVersion } from '../generator/site/site.ts';
import { generateLive } from './helpers/generate-live.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { release } from '../generator/release/release.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { ChangesDoc, keys } from '../shim/format/site-format.ts';
import { CellBlock, CellIndex } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { S3Store } from '../shim/store/s3.ts';
import { addFollowingWeek, copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import {
  downgradeToCells7,
  downgradeToCells8,
  downgradeToMeta1,
  downgradeToMeta2,
  siteFiles,
} from './helpers/legacy-site.ts';
import { useS3rver } from './helpers/s3rver.ts';

const quiet = { quiet: true, log: (): void => {} };

/** Week 2026-W48 from W47: Gamma Injury renamed, Far Away Law (p8) gone. */
async function nextWeek(data: string): Promise<void> {
  const { from, to } = await addFollowingWeek(data);
  const rows = (await readFile(join(from, 'places.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .filter((l) => !l.includes('"p8"'));
  await writeFile(join(to, 'places.jsonl'), `${rows.join('\n').replace(/"Gamma Injury"/g, '"Gamma Injury Law"')}\n`);
}

const s3 = useS3rver();
let data: string;
let first: string;
/** The first week live in the previous cell schema. */
let previousSite: string;
/** The first week live in cell schema 7, and in meta schema 1. */
let cells7Site: string;
let meta1Site: string;
/** The first week live in the previous meta schema (every hash in meta.json). */
let meta2Site: string;
/** The changes document of W48 over W47 live in the current schema: the answer the previous schema must give. */
let reference: Buffer;
let second: string;

beforeAll(async () => {
  data = await copyFixture();
  const modern = join(await tempDir('legacy-modern'), 'site');
  first = await copyFixtureSite(modern);
  previousSite = join(await tempDir('legacy-previous'), 'site');
  cells7Site = join(await tempDir('legacy-cells7'), 'site');
  meta1Site = join(await tempDir('legacy-meta1'), 'site');
  meta2Site = join(await tempDir('legacy-meta2'), 'site');
  for (const dir of [previousSite, cells7Site, meta1Site, meta2Site]) await cp(modern, dir, { recursive: true });
  await downgradeToCells8(previousSite, first);
  // A live week of the previous meta schema: meta schema 2 over cells schema 8.
  await downgradeToCells8(meta2Site, first);
  await downgradeToMeta2(meta2Site, first);
  await downgradeToCells7(cells7Site, first);
  await downgradeToMeta1(meta1Site, first);
  await nextWeek(data);
  second = (await generateLive({ dataDir: data, outDir: modern, ...quiet })).version;
  reference = await readFile(join(modern, keys.changes(second)));
}, 120_000);
afterAll(removeTempDirs);

describe('a live version of the previous cell schema', () => {
  it("is really cell schema 8: blocks without their record chunks' lengths, and no packs", async () => {
    const live = await openStoredVersion({ kind: 'folder', dir: previousSite });
    expect(live.version).toBe(first);
    const index = CellIndex.parse(
      JSON.parse(Buffer.from((await live.store.get(keys.cellIndex(first))) as Uint8Array).toString('utf8')),
    );
    expect(index.schema_version).toBe(8);
    const [[cell] = ['']] = index.blocks[Object.keys(index.groups)[0] ?? ''] ?? [];
    const key = keys.cellBlock(first, cell);
    const block = CellBlock.parse(decodeStored((await live.store.get(key)) as Uint8Array, key));
    expect(block.schema_version).toBe(8);
    expect(block.records_sha256.length).toBeGreaterThan(0);
    expect(block.records_bytes).toEqual([]);
    expect(await live.store.get(keys.cellPack(first, Object.keys(index.groups)[0] ?? ''))).toBeNull();
  });

  it('is compared with when generating into the folder: the same changes as against the current schema', async () => {
    const site = join(await tempDir('legacy-folder'), 'site');
    await cp(previousSite, site, { recursive: true });
    expect((await generateLive({ dataDir: data, outDir: site, ...quiet })).version).toBe(second);
    const written = await readFile(join(site, keys.changes(second)));
    expect(written.equals(reference)).toBe(true);
    const doc = ChangesDoc.parse(JSON.parse(written.toString('utf8')));
    expect(doc.previous).toEqual({ version: first, week: '2026-W47' });
    expect(doc.removed.map((r) => r.listing_id)).toEqual([listingIdOf('p8')]);
    expect(doc.changed.map((c) => [c.listing_id, c.fields.map((f) => [f.field, f.old, f.new])])).toEqual([
      [listingIdOf('p7'), [['name', 'Gamma Injury', 'Gamma Injury Law']]],
    ]);
  });

  it('is compared with on a release to a bucket, which then serves the new version and measures clean', async () => {
    const bucket = { bucket: 'site', ...s3.clientOptions };
    const client = s3Client(s3.clientOptions);
    for (const key of await siteFiles(previousSite)) {
      if (key !== keys.pointer && !key.startsWith(keys.root(first))) continue;
      await client.send(
        new PutObjectCommand({ Bucket: 'site', Key: key, Body: await readFile(join(previousSite, key)) }),
      );
    }
    const records = await tempDir('legacy-records');
    const rec = await release({
      dataDir: data,
      siteDir: join(await tempDir('legacy-release'), 'site'),
      recordsDir: records,
      bucket,
      force: { 'counts-drop': 'Far Away Law closed' },
      log: () => {},
    });
    expect(rec.outcome, rec.error ?? '').toBe('released');
    expect(rec.previous_version).toBe(first);
    // The drop gate read the live meta: one firm of seven gone is more than 10%, hence the --force.
    expect(rec.gates.find((g) => g.gate === 'counts-drop')).toMatchObject({ passed: false, forced: true });
    expect(rec.live_before).toMatchObject({ version: first, firms: 7 });
    const store = new S3Store({ ...bucket });
    const served = await openStoredVersion({ kind: 's3', ...bucket });
    expect(served.version).toBe(second);
    const bytes = await served.store.get(keys.changes(second));
    expect(Buffer.from(bytes as Uint8Array).equals(reference)).toBe(true);
    expect(await store.get(keys.pointer)).not.toBeNull();
    const report = await measure({ site: { kind: 's3', ...bucket } });
    expect(report.mismatches).toEqual([]);
    expect(report.problems).toEqual([]);
  }, 120_000);
});

describe('a live version of the previous meta schema over the previous cell schema', () => {
  it('is compared with when generating into the folder: the same changes as against the current schema', async () => {
    const meta = JSON.parse(await readFile(join(meta2Site, keys.meta(first)), 'utf8')) as { schema_version: number };
    expect(meta.schema_version).toBe(2);
    const index = JSON.parse(await readFile(join(meta2Site, keys.root(first), 'cells', 'index.json'), 'utf8')) as {
      schema_version: number;
    };
    expect(index.schema_version).toBe(8);
    const site = join(await tempDir('legacy-meta2-gen'), 'site');
    await cp(meta2Site, site, { recursive: true });
    expect((await generateLive({ dataDir: data, outDir: site, ...quiet })).version).toBe(second);
    expect((await readFile(join(site, keys.changes(second)))).equals(reference)).toBe(true);
  });
});

describe('a live version of an older schema', () => {
  const what = (schema: string): string =>
    `is ${schema}, older than this release can compare a new week with (meta schema 3 or 2 with cells schema 9 or 8): ` +
    'generate and publish the live week (2026-W47) again with this release, then generate this week';

  it('of cell schema 7 is refused by generate, naming the version and what to do, and nothing is published', async () => {
    const site = join(await tempDir('legacy-cells7-gen'), 'site');
    await cp(cells7Site, site, { recursive: true });
    const err = await generateLive({ dataDir: data, outDir: site, ...quiet }).catch((e: unknown) => e as Error);
    expect(String(err)).toContain(`the live version ${first} of folder ${site}`);
    expect(String(err)).toContain(what('cells schema 7'));
    expect(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).toMatchObject({ version: first });
  });

  it('of meta schema 1 is refused by generate the same way', async () => {
    const site = join(await tempDir('legacy-meta1-gen'), 'site');
    await cp(meta1Site, site, { recursive: true });
    const err = await generateLive({ dataDir: data, outDir: site, ...quiet }).catch((e: unknown) => e as Error);
    expect(String(err)).toContain(what('meta schema 1'));
    expect(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).toMatchObject({ version: first });
  });

  it('is named plainly by the steps that read only the current schema', async () => {
    const loc = { kind: 'folder' as const, dir: meta1Site };
    const plain = `version ${first} is meta schema 1, but this release reads meta schema 3 only: generate the week again with this release and publish it`;
    await expect(diffSites(loc, loc, { oldVersion: first, newVersion: first })).rejects.toThrow(plain);
    const err = await publishSite({ siteDir: meta1Site, bucket: 'site', ...s3.clientOptions, ...quiet }).catch(
      (e: unknown) => e as Error,
    );
    expect(String(err)).toContain(plain);
  });
});
