/**
 * A week of cell schema 7 (group trees and shared pages as JSON), the one live when this release goes out, is still
 * read everywhere (docs/SITE-FORMAT.md, "Cell schema 7 beside 8"): the sample site rewritten as schema 7 answers every
 * query of the cold query sets exactly as the generated schema-8 site does, audit verify finds it clean, and the public
 * object route serves its groups and shared pages at their schema's key only. A binary group or shared page that is
 * not such a message is a store failure.
 */
import { cp } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import type { Service } from '../shim/answer/service.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { readVersionObject } from '../shim/search/version-object.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { keys } from '../shim/format/site-format.ts';
import { paths } from '../shim/format/paths.ts';
import { verify } from '../generator/audit/verify.ts';
import { COLD_CTX, coldQuerySets } from '../bench/cold/query-sets.ts';
import { metroZips } from '../bench/cold/metro-zips.ts';
import { downgradeToCells7 } from './helpers/legacy-site.ts';
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
  twin = join(await tempDir('cells7'), 'site');
  await cp(SITE, twin, { recursive: true });
  version = await readPointerVersion(SITE);
  await downgradeToCells7(twin, version);
}, 120_000);
afterAll(removeTempDirs);

async function readPointerVersion(dir: string): Promise<string> {
  const bytes = await new FolderStore(dir).get(keys.pointer);
  return (JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')) as { version: string }).version;
}

describe('a site of cell schema 7 beside its schema-8 twin', () => {
  it('holds JSON group trees and shared pages of schema 7, where the generated site holds binary ones', () => {
    const files = (dir: string, sub: string): string[] =>
      readdirSync(join(dir, keys.root(version), 'cells', sub)).sort();
    for (const sub of ['groups', 'shared']) {
      const binary = files(SITE, sub);
      expect(binary.length).toBeGreaterThan(0);
      expect(binary.every((f) => f.endsWith('.pb'))).toBe(true);
      expect(files(twin, sub)).toEqual(binary.map((f) => f.replace(/\.pb$/, '.json')));
    }
    expect(files(twin, 'blocks')).toEqual(files(SITE, 'blocks'));
  });

  it('answers every query of the cold query sets exactly as the schema-8 site', async () => {
    const eight = createService(createSiteSource(new FolderStore(SITE)));
    const seven = createService(createSiteSource(new FolderStore(twin)));
    const queries = coldQuerySets([1, 15, 50], undefined, metroZips(SITE)).flatMap((s) => s.queries);
    expect(queries.length).toBeGreaterThan(500);
    let answered = 0;
    for (const q of queries) {
      const want = await answer(eight, q.args);
      expect(await answer(seven, q.args), q.name).toBe(want);
      if (want.startsWith('{')) answered++;
    }
    expect(answered).toBeGreaterThan(400);
  }, 120_000);

  it('is found clean by audit verify: manifest, scan, and the tree rebuilt by schema 7 and compared byte for byte', async () => {
    const report = await verify({ site: { kind: 'folder', dir: twin } });
    expect(report.errors).toEqual([]);
    // Rewritten in place, the twin keeps the id of the content it was generated with; a week the previous release
    // generated has the id of its own content.
    expect(report.manifest?.problems).toEqual([expect.stringMatching(/^version id .* does not match its content/)]);
    expect(report.scan?.problems).toEqual([]);
    expect(report.scan?.objects).toBeGreaterThan(200);
  }, 120_000);

  it('serves each group tree and shared page publicly at its own schema key only', async () => {
    const cellOf = (sub: string): string =>
      readdirSync(join(twin, keys.root(version), 'cells', sub))[0]?.replace(/\.json$/, '') ?? '';
    const [group, page] = [cellOf('groups'), cellOf('shared')];
    for (const [dir, own, other] of [
      [twin, 7, 8],
      [SITE, 8, 7],
    ] as const) {
      const store = new FolderStore(dir);
      const reader = await createSiteSource(store).current();
      const src = { reader, metaSha256: reader.metaSha256, get: (k: string) => store.get(k) };
      for (const [at, not] of [
        [paths.cellGroup(group, own), paths.cellGroup(group, other)],
        [paths.cellShared(page, own), paths.cellShared(page, other)],
      ] as const) {
        const bytes = await readVersionObject(src, at);
        expect(bytes, `${dir} ${at}`).not.toBeNull();
        const stored = (await store.get(keys.root(version) + at)) as Uint8Array;
        expect(Buffer.from(bytes as Uint8Array).equals(stored)).toBe(true);
        expect(await readVersionObject(src, not)).toBeNull();
      }
    }
  });
});
