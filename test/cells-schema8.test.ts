/**
 * A week of cell schema 8 (record chunks only as objects of their own, blocks without their lengths), the one live when
 * this release goes out, is still read everywhere (docs/SITE-FORMAT.md, "Cell schema 8 beside 9"): the sample site
 * rewritten as schema 8 answers every query of the cold query sets exactly as the generated schema-9 site does, reading
 * its record chunks as objects, audit verify finds it clean, and the public object route serves its cell objects. A
 * week of schema 7, retired with this release, is a store failure naming its schema.
 */
import { cp } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import type { Service } from '../shim/answer/service.ts';
import { ApiError, StoreError } from '../shim/contract/errors.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { readVersionObject } from '../shim/search/version-object.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { keys } from '../shim/format/site-format.ts';
import { paths } from '../shim/format/paths.ts';
import { CellBlock, type CellBlockT } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { verify } from '../generator/audit/verify.ts';
import { COLD_CTX, coldQuerySets } from '../bench/cold/query-sets.ts';
import { metroZips } from '../bench/cold/metro-zips.ts';
import { downgradeToCells7, downgradeToCells8 } from './helpers/legacy-site.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

const SITE = process.env.TEST_SITE_DIR as string;
let twin: string;
let version: string;

/** An answer, or the refusal or failure in its place, as comparable text. */
async function answer(service: Service, args: Record<string, string>): Promise<string> {
  try {
    return JSON.stringify(await service.findAttorneys(args, COLD_CTX));
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.code} ${err.message}`;
    throw err;
  }
}

beforeAll(async () => {
  twin = join(await tempDir('cells8'), 'site');
  await cp(SITE, twin, { recursive: true });
  version = await readPointerVersion(SITE);
  await downgradeToCells8(twin, version);
}, 120_000);
afterAll(removeTempDirs);

async function readPointerVersion(dir: string): Promise<string> {
  const bytes = await new FolderStore(dir).get(keys.pointer);
  return (JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')) as { version: string }).version;
}

describe('a site of cell schema 8 beside its schema-9 twin', () => {
  it('holds blocks of schema 8 without record chunk lengths, and no packs, where the generated site has both', async () => {
    const blocks = (dir: string): string[] => readdirSync(join(dir, keys.root(version), 'cells', 'blocks')).sort();
    expect(blocks(twin)).toEqual(blocks(SITE));
    const [file = ''] = blocks(SITE);
    const key = `${keys.root(version)}cells/blocks/${file}`;
    const read = async (dir: string): Promise<CellBlockT> =>
      CellBlock.parse(decodeStored((await new FolderStore(dir).get(key)) as Uint8Array, key));
    const [nine, eight] = [await read(SITE), await read(twin)];
    expect([nine.schema_version, eight.schema_version]).toEqual([9, 8]);
    expect(nine.records_bytes.length).toBe(nine.records_sha256.length);
    expect(eight.records_bytes).toEqual([]);
    expect(readdirSync(join(SITE, keys.root(version), 'cells', 'packs')).length).toBeGreaterThan(0);
    expect(existsSync(join(twin, keys.root(version), 'cells', 'packs'))).toBe(false);
  });

  it('answers every query of the cold query sets exactly as the schema-9 site', async () => {
    const nine = createService(createSiteSource(new FolderStore(SITE)));
    const eight = createService(createSiteSource(new FolderStore(twin)));
    const queries = coldQuerySets([1, 15, 50], undefined, metroZips(SITE)).flatMap((s) => s.queries);
    expect(queries.length).toBeGreaterThan(500);
    let answered = 0;
    for (const q of queries) {
      const want = await answer(nine, q.args);
      expect(await answer(eight, q.args), q.name).toBe(want);
      if (want.startsWith('{')) answered++;
    }
    expect(answered).toBeGreaterThan(400);
  }, 120_000);

  it('is found clean by audit verify: manifest, scan, and the tree rebuilt by schema 8 and compared byte for byte', async () => {
    const report = await verify({ site: { kind: 'folder', dir: twin } });
    expect(report.errors).toEqual([]);
    // Rewritten in place, the twin keeps the id of the content it was generated with; a week the previous release
    // generated has the id of its own content.
    expect(report.manifest?.problems).toEqual([expect.stringMatching(/^version id .* does not match its content/)]);
    expect(report.scan?.problems).toEqual([]);
    expect(report.scan?.objects).toBeGreaterThan(200);
  }, 120_000);

  it('serves its blocks and record chunks publicly, each as stored', async () => {
    const store = new FolderStore(twin);
    const reader = await createSiteSource(store).current();
    const src = { reader, metaSha256: reader.metaSha256, get: (k: string) => store.get(k) };
    const [file = ''] = readdirSync(join(twin, keys.root(version), 'cells', 'blocks'));
    const cell = file.replace(/\.pb$/, '');
    for (const at of [paths.cellBlock(cell), paths.cellRecords(cell, 0)]) {
      const bytes = await readVersionObject(src, at);
      const stored = (await store.get(keys.root(version) + at)) as Uint8Array;
      expect(Buffer.from(bytes as Uint8Array).equals(stored), at).toBe(true);
    }
  });

  it('of schema 7, retired with this release, is a store failure naming its schema and what to do', async () => {
    const old = join(await tempDir('cells7'), 'site');
    await cp(SITE, old, { recursive: true });
    await downgradeToCells7(old, version);
    // A store failure (the edges answer it 503 with Retry-After), never an answer.
    const service = createService(createSiteSource(new FolderStore(old)));
    const err = await service
      .findAttorneys({ location: '40.7128,-74.006', radius_miles: '15' }, COLD_CTX)
      .catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(StoreError);
    expect(String(err)).toContain('cells schema 7, but this release reads cells schema 9 or 8 only');
  });
});
