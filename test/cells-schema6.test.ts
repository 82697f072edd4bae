/**
 * A week of cell schema 6 (blocks as JSON), the one live when this release goes out, is still read everywhere
 * (docs/SITE-FORMAT.md, "Cell schema 6 beside 7"): the sample site rewritten as schema 6 answers every query of the
 * cold query sets exactly as the generated schema-7 site does, audit verify finds it clean, and the public object
 * route serves its blocks at their schema's key only. A binary block that is not a block message is a store failure.
 */
import { cp } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import type { Service } from '../shim/answer/service.ts';
import { ApiError, StoreError } from '../shim/contract/errors.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { readVersionObject } from '../shim/search/version-object.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';
import { keys } from '../shim/format/site-format.ts';
import { paths } from '../shim/format/paths.ts';
import { verify } from '../generator/audit/verify.ts';
import { COLD_CTX, coldQuerySets } from '../bench/cold/query-sets.ts';
import { metroZips } from '../bench/cold/metro-zips.ts';
import { downgradeToCells6 } from './helpers/legacy-site.ts';
import { sha256Hex } from '../generator/write/json.ts';
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
  twin = join(await tempDir('cells6'), 'site');
  await cp(SITE, twin, { recursive: true });
  version = await readPointerVersion(SITE);
  await downgradeToCells6(twin, version);
}, 120_000);
afterAll(removeTempDirs);

async function readPointerVersion(dir: string): Promise<string> {
  const bytes = await new FolderStore(dir).get(keys.pointer);
  return (JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')) as { version: string }).version;
}

describe('a site of cell schema 6 beside its schema-7 twin', () => {
  it('holds JSON blocks of schema 6, where the generated site holds binary ones', () => {
    const files = (dir: string): string[] => readdirSync(join(dir, keys.root(version), 'cells', 'blocks')).sort();
    const binary = files(SITE);
    expect(binary.every((f) => f.endsWith('.pb'))).toBe(true);
    expect(files(twin)).toEqual(binary.map((f) => f.replace(/\.pb$/, '.json')));
  });

  it('answers every query of the cold query sets exactly as the schema-7 site', async () => {
    const seven = createService(createSiteSource(new FolderStore(SITE)));
    const six = createService(createSiteSource(new FolderStore(twin)));
    const queries = coldQuerySets([1, 15, 50], undefined, metroZips(SITE)).flatMap((s) => s.queries);
    expect(queries.length).toBeGreaterThan(500);
    let answered = 0;
    for (const q of queries) {
      const want = await answer(seven, q.args);
      expect(await answer(six, q.args), q.name).toBe(want);
      if (want.startsWith('{')) answered++;
    }
    expect(answered).toBeGreaterThan(400);
  }, 120_000);

  it('is found clean by audit verify: manifest, scan, and the tree rebuilt by schema 6 and compared byte for byte', async () => {
    const report = await verify({ site: { kind: 'folder', dir: twin } });
    expect(report.errors).toEqual([]);
    // Rewritten in place, the twin keeps the id of the content it was generated with; a week the previous release
    // generated has the id of its own content.
    expect(report.manifest?.problems).toEqual([expect.stringMatching(/^version id .* does not match its content/)]);
    expect(report.scan?.problems).toEqual([]);
    expect(report.scan?.objects).toBeGreaterThan(200);
  }, 120_000);

  it('serves each block publicly at its own schema key only', async () => {
    const cell = readdirSync(join(twin, keys.root(version), 'cells', 'blocks'))[0]?.replace(/\.json$/, '') ?? '';
    for (const [dir, own, other] of [
      [twin, paths.cellBlock(cell, 6), paths.cellBlock(cell, 7)],
      [SITE, paths.cellBlock(cell, 7), paths.cellBlock(cell, 6)],
    ] as const) {
      const store = new FolderStore(dir);
      const reader = await createSiteSource(store).current();
      const src = { reader, metaSha256: reader.metaSha256, get: (k: string) => store.get(k) };
      const bytes = await readVersionObject(src, own);
      expect(bytes, `${dir} ${own}`).not.toBeNull();
      expect(Buffer.from(bytes as Uint8Array).equals((await store.get(keys.root(version) + own)) as Uint8Array)).toBe(
        true,
      );
      expect(await readVersionObject(src, other)).toBeNull();
    }
  });
});

describe('a binary block that is not a block message', () => {
  it('is a store failure (503) even where its recorded hash matches it', async () => {
    // Each block cut short, and the hashes above it recorded anew (groups, index; meta.json and the pointer without
    // hashes, as a version before them), so the cut bytes pass their hash check and reach the decoder.
    const inner = new FolderStore(SITE);
    const json = (bytes: Uint8Array): Record<string, Record<string, string>> =>
      JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, Record<string, string>>;
    const text = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value)}\n`);
    const get = async (key: string): Promise<Uint8Array> => (await inner.get(key)) as Uint8Array;
    const rehashed = async (key: string, field: string, child: (cell: string) => string): Promise<Uint8Array> => {
      const value = json(await get(key));
      for (const cell of Object.keys(value[field] ?? {}))
        (value[field] as Record<string, string>)[cell] = sha256Hex(await cut(child(cell)));
      return text(value);
    };
    const cut = async (key: string): Promise<Uint8Array> => {
      if (key.endsWith('.pb')) return (await get(key)).subarray(0, -3);
      if (key.includes('/cells/groups/')) return rehashed(key, 'block_sha256', (c) => keys.cellBlock(version, c, 7));
      if (key === keys.cellIndex(version)) return rehashed(key, 'group_sha256', (c) => keys.cellGroup(version, c));
      if (key === keys.pointer || key === keys.meta(version)) {
        const { meta_sha256: _p, sha256: _m, ...rest } = json(await get(key));
        return text(rest);
      }
      return get(key);
    };
    const store: Store = {
      kind: 'cut-blocks',
      get: async (key) => ((await inner.get(key)) === null ? null : cut(key)),
    };
    const service = createService(createSiteSource(store));
    const err = await service
      .findAttorneys({ lat: '41.8781', lng: '-87.6298', radius_miles: '15' }, COLD_CTX)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toMatch(/cells\/blocks\/[0-9a-f]{15}\.pb is not a cell block message/);
  });
});
