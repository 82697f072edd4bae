/**
 * A binary cell object (a block, a group tree, a shared page) whose bytes are not its message is a store failure (a
 * 503) even where the hash its parent records matches those bytes: the damage reaches the decoder, which refuses it.
 */
import { describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { paths } from '../shim/format/paths.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { serialiseAt, sha256Hex } from '../generator/write/json.ts';
import { COLD_CTX } from '../bench/cold/query-sets.ts';
import { CellGroup, CellIndex, CellShared, type CellGroupT, type CellIndexT } from '../shim/format/cell-format.ts';

const SITE = process.env.TEST_SITE_DIR as string;

/** What becomes of each object under `cells/<sub>/`: cut short, or written as cell schema 8 (a tree of 9 otherwise). */
type Change = 'cut' | 'schema 8';

/**
 * The sample site with every object under `cells/<sub>/` changed, and the hashes above it recorded anew (groups,
 * index; meta.json and the pointer without hashes or a carried index, as a version before them), so the changed bytes pass their hash check.
 */
async function cutStore(sub: 'blocks' | 'groups' | 'shared', change: Change = 'cut'): Promise<Store> {
  const inner = new FolderStore(SITE);
  const get = async (key: string): Promise<Uint8Array> => (await inner.get(key)) as Uint8Array;
  const version = Pointer.parse(JSON.parse(Buffer.from(await get(keys.pointer)).toString('utf8'))).version;
  const root = keys.root(version);
  const text = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value)}\n`);
  const memo = new Map<string, Promise<Uint8Array>>();
  const rehash = async (hashes: Record<string, string>, key: (cell: string) => string): Promise<void> => {
    for (const cell of Object.keys(hashes)) hashes[cell] = sha256Hex(await cut(key(cell)));
  };
  const cutNow = async (key: string): Promise<Uint8Array> => {
    const rel = key.slice(root.length);
    if (rel.startsWith(`cells/${sub}/`)) {
      if (change === 'cut') return (await get(key)).subarray(0, -3);
      if (sub !== 'groups')
        return serialiseAt(rel, { ...(decodeStored(await get(key), rel) as object), schema_version: 8 });
    }
    if (rel.startsWith('cells/groups/')) {
      const group = decodeStored(await get(key), rel) as Record<string, Record<string, string>>;
      if (sub === 'groups') (group as unknown as { schema_version: number }).schema_version = 8;
      if (sub === 'blocks') await rehash(group.block_sha256 ?? {}, (c) => root + paths.cellBlock(c));
      else await rehash(group.shared_sha256 ?? {}, (c) => root + paths.cellShared(c, 8));
      return serialiseAt(rel, group);
    }
    if (rel === paths.cellIndex()) {
      const index = JSON.parse(Buffer.from(await get(key)).toString('utf8')) as Record<string, Record<string, string>>;
      await rehash(index.group_sha256 ?? {}, (c) => root + paths.cellGroup(c, 8));
      return text(index);
    }
    if (key === keys.pointer || key === keys.meta(version)) {
      const {
        meta_sha256: _p,
        sha256: _m,
        cell_index: _c,
        ...rest
      } = JSON.parse(Buffer.from(await get(key)).toString('utf8')) as Record<string, unknown>;
      return text(rest);
    }
    return get(key);
  };
  const cut = (key: string): Promise<Uint8Array> => {
    let got = memo.get(key);
    if (got === undefined) memo.set(key, (got = cutNow(key)));
    return got;
  };
  return { kind: `${change}-${sub}`, get: async (key) => ((await inner.get(key)) === null ? null : cut(key)) };
}

describe('a binary cell object that is not its message', () => {
  for (const [sub, what] of [
    ['blocks', 'a cell block message'],
    ['groups', 'a cell group message'],
  ] as const) {
    it(`is a store failure (503) for cells/${sub}/, even where its recorded hash matches it`, async () => {
      const service = createService(createSiteSource(await cutStore(sub)));
      const err = await service
        .findAttorneys({ lat: '41.8781', lng: '-87.6298', radius_miles: '50' }, COLD_CTX)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toMatch(new RegExp(`cells/${sub}/[0-9a-f]{15}\\.pb is not ${what}`));
    });
  }

  it('is a store failure for cells/shared/, read as the search reads a page, checked against its group', async () => {
    // The sample site's queries read no shared page (its groups are hardly larger than a block), so each page is read
    // through the reader the search uses, with the hash its (rewritten) group records.
    const reader = await createSiteSource(await cutStore('shared')).current();
    const v = reader.version;
    const index = (await reader.json(keys.cellIndex(v), CellIndex)) as CellIndexT;
    let refused = 0;
    for (const cell of Object.keys(index.groups)) {
      const group = (await reader.json(keys.cellGroup(v, cell, 8), CellGroup, index.group_sha256[cell])) as CellGroupT;
      for (const [page, sha] of Object.entries(group.shared_sha256)) {
        const key = keys.cellShared(v, page, 8);
        const err = await reader.json(key, CellShared, sha).catch((e: unknown) => e);
        expect(err, key).toBeInstanceOf(StoreError);
        expect((err as Error).message).toContain(`${key} is not a cell shared page message`);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(3);
  });
});

describe('a cell object of another cell schema than its index', () => {
  for (const sub of ['blocks', 'groups'] as const) {
    it(`is a store failure (503) for cells/${sub}/ of schema 8 in a tree of 9, even where its recorded hash matches it`, async () => {
      const service = createService(createSiteSource(await cutStore(sub, 'schema 8')));
      const err = await service
        .findAttorneys({ lat: '41.8781', lng: '-87.6298', radius_miles: '50' }, COLD_CTX)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toMatch(
        new RegExp(`cells/${sub}/[0-9a-f]{15}\\.pb is cells schema 8 in a tree of schema 9`),
      );
    });
  }
});
