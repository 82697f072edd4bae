/**
 * A site whose live version is of schema 1 (shards, before the cell tree) takes a new week: generate into the folder and
 * release to a bucket both compare with it, and the changes document equals the one the same offices give when live as
 * schema 2. Steps that read only the current schema say so plainly. Real S3-protocol server (s3rver) on loopback.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffSites } from '../generator/audit/diff.ts';
import { measure } from '../generator/audit/measure.ts';
import { openStoredVersion } from '../generator/site/site.ts';
import { generate } from '../generator/generate.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { release } from '../generator/release/release.ts';
import { s3Client } from '../shim/aws/s3-client.ts';
import { ChangesDoc, keys } from '../shim/core/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { downgradeToSchema1, siteFiles } from './helpers/legacy-site.ts';
import { startS3rver, type RunningS3rver } from './helpers/s3rver.ts';

const quiet = { quiet: true, log: (): void => {} };

/** Week 2026-W48 from W47: Gamma Injury renamed, Far Away Law (p8) gone. */
async function nextWeek(data: string): Promise<void> {
  const from = join(data, 'weeks', '2026-W47');
  const to = join(data, 'weeks', '2026-W48');
  await cp(from, to, { recursive: true });
  await writeFile(join(to, 'dataset.json'), (await readFile(join(from, 'dataset.json'), 'utf8')).replace('2026-W47', '2026-W48').replace('2026-11-18', '2026-11-25'));
  const rows = (await readFile(join(from, 'places.jsonl'), 'utf8')).trim().split('\n').filter((l) => !l.includes('"p8"'));
  await writeFile(join(to, 'places.jsonl'), `${rows.join('\n').replace(/"Gamma Injury"/g, '"Gamma Injury Law"')}\n`);
}

let s3: RunningS3rver;
let data: string;
let first: string;
let legacySite: string;
/** The changes document of W48 over W47 live as schema 2: the answer the schema-1 paths must give. */
let reference: Buffer;
let second: string;

beforeAll(async () => {
  s3 = await startS3rver();
  data = await copyFixture();
  const modern = join(await tempDir('legacy-modern'), 'site');
  legacySite = join(await tempDir('legacy-old'), 'site');
  first = (await generate({ dataDir: data, outDir: modern, ...quiet })).version;
  await cp(modern, legacySite, { recursive: true });
  await downgradeToSchema1(legacySite, first);
  await nextWeek(data);
  second = (await generate({ dataDir: data, outDir: modern, ...quiet })).version;
  reference = await readFile(join(modern, keys.changes(second)));
}, 120_000);
afterAll(async () => {
  await s3?.stop();
  await removeTempDirs();
});

describe('a live version of schema 1', () => {
  it('is really schema 1: shards, no cell tree', async () => {
    const live = await openStoredVersion({ kind: 'folder', dir: legacySite });
    expect(live.version).toBe(first);
    expect(live.meta.schema_version).toBe(1);
    expect(await live.store.get(`${keys.root(first)}shards/index.json`)).not.toBeNull();
    expect(await live.store.get(keys.cellIndex(first))).toBeNull();
  });

  it('is compared with when generating into the folder: the same changes as against schema 2', async () => {
    const site = join(await tempDir('legacy-folder'), 'site');
    await cp(legacySite, site, { recursive: true });
    expect((await generate({ dataDir: data, outDir: site, ...quiet })).version).toBe(second);
    const written = await readFile(join(site, keys.changes(second)));
    expect(written.equals(reference)).toBe(true);
    const doc = ChangesDoc.parse(JSON.parse(written.toString('utf8')));
    expect(doc.previous).toEqual({ version: first, week: '2026-W47' });
    expect(doc.removed.map((r) => r.listing_id)).toEqual([listingIdOf('p8')]);
    expect(doc.changed.map((c) => [c.listing_id, c.fields.map((f) => [f.field, f.old, f.new])])).toEqual([[listingIdOf('p7'), [['name', 'Gamma Injury', 'Gamma Injury Law']]]]);
  });

  it('is compared with on a release to a bucket, which then serves the new version and measures clean', async () => {
    const bucket = { bucket: 'site', ...s3.clientOptions };
    const client = s3Client(s3.clientOptions);
    for (const key of await siteFiles(legacySite)) {
      if (key !== keys.pointer && !key.startsWith(keys.root(first))) continue;
      await client.send(new PutObjectCommand({ Bucket: 'site', Key: key, Body: await readFile(join(legacySite, key)) }));
    }
    const records = await tempDir('legacy-records');
    const rec = await release({ dataDir: data, siteDir: join(await tempDir('legacy-release'), 'site'), recordsDir: records, bucket, force: { 'counts-drop': 'Far Away Law closed' }, log: () => {} });
    expect(rec.outcome, rec.error ?? '').toBe('released');
    expect(rec.previous_version).toBe(first);
    // The drop gate read the schema-1 live meta: one firm of seven gone is more than 10%, hence the --force.
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

  it('is named plainly by the steps that read only schema 2', async () => {
    const loc = { kind: 'folder' as const, dir: legacySite };
    await expect(diffSites(loc, loc, { oldVersion: first, newVersion: first })).rejects.toThrow(`version ${first} is schema 1 (offices in shards/); this step reads only schema 2`);
    const err = await publishSite({ siteDir: legacySite, bucket: 'site', ...s3.clientOptions, ...quiet }).catch((e: unknown) => e as Error);
    expect(String(err)).toContain(`version ${first} is schema 1 (offices in shards/)`);
  });
});
