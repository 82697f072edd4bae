/**
 * The document catalogue (shim/format/catalogue.ts) against a generated site: every object the generator wrote belongs
 * to exactly one entry and matches that entry's schema, every entry has objects, and each entry's path function gives
 * back the object's own path, so the generator's writes and the shim's reads cannot drift apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue, catalogueEntryOf } from '../shim/format/catalogue.ts';
import { CellBlock, CellGroup, CellIndex } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { paths, type DocName } from '../shim/format/paths.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';

const SITE = process.env.TEST_SITE_DIR as string;

describe('document catalogue', () => {
  it('holds every object of a generated version, each matching its schema', () => {
    const { version } = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8')));
    const root = join(SITE, keys.root(version));
    const rels = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(root.length).split('\\').join('/'))
      .sort();
    expect(rels.length).toBeGreaterThan(1000);
    const index = CellIndex.parse(JSON.parse(readFileSync(join(root, paths.cellIndex()), 'utf8')));
    const seen = new Map<DocName, number>();
    for (const rel of rels) {
      const matching = (Object.keys(catalogue) as DocName[]).filter((name) => catalogue[name].match.test(rel));
      expect(matching, rel).toHaveLength(1);
      const found = catalogueEntryOf(rel);
      expect(found?.name, rel).toBe(matching[0]);
      const { name, entry } = found!;
      seen.set(name, (seen.get(name) ?? 0) + 1);
      const bytes = readFileSync(join(root, rel));
      if (entry.format === 'html') expect(bytes.toString('utf8'), rel).toMatch(/^<!doctype html>/i);
      else if (entry.format === 'pack') {
        // The group's block files in the index's order, then its shared page files in its tree's order, then its
        // blocks' record chunk files, block by block, one after another, at the lengths the index and blocks give.
        const group = rel.slice('cells/packs/'.length, -'.bin'.length);
        const blocks = (index.blocks[group] ?? []).map(([cell]) => readFileSync(join(root, paths.cellBlock(cell))));
        const treeRel = paths.cellGroup(group, index.schema_version);
        const tree = CellGroup.parse(decodeStored(readFileSync(join(root, treeRel)), treeRel));
        const pages = Object.keys(tree.shared_sha256).map((cell) =>
          readFileSync(join(root, paths.cellShared(cell, index.schema_version))),
        );
        const chunks = (index.blocks[group] ?? []).flatMap(([cell]) => {
          const block = CellBlock.parse(
            decodeStored(readFileSync(join(root, paths.cellBlock(cell))), paths.cellBlock(cell)),
          );
          expect(block.records_bytes.length, cell).toBe(block.records_sha256.length);
          return block.records_bytes.map((n, k) => {
            const chunk = readFileSync(join(root, paths.cellRecords(cell, k)));
            expect(chunk.length, `${cell} ${k}`).toBe(n);
            return chunk;
          });
        });
        expect(chunks.length, rel).toBeGreaterThan(0);
        expect(Buffer.compare(bytes, Buffer.concat([...blocks, ...pages, ...chunks])), rel).toBe(0);
        expect(index.block_bytes?.[group], rel).toEqual(blocks.map((b) => b.length));
        expect(index.shared_bytes?.[group], rel).toEqual(pages.map((b) => b.length));
      } else {
        const json = decodeStored(bytes, rel);
        if (entry.schema !== null) expect(entry.schema.safeParse(json).success, rel).toBe(true);
        else expect((json as { openapi?: string }).openapi, rel).toMatch(/^3\.1/);
      }
    }
    // cityState is only read (weeks generated before the city gazetteer split) and problem pages were only written by
    // older releases (the shim renders them); every other kind is written.
    const onlyOlder = new Set<DocName>(['cityState', 'problem']);
    expect([...seen.keys()].sort()).toEqual((Object.keys(paths) as DocName[]).filter((n) => !onlyOlder.has(n)).sort());
  });

  it('builds store keys from the same paths', () => {
    expect(keys.cellRecords('2026-W47-abc', '82754ffffffffff', 3)).toBe(
      `v/2026-W47-abc/${paths.cellRecords('82754ffffffffff', 3)}`,
    );
    expect(catalogueEntryOf(paths.cellRecords('82754ffffffffff', 3))?.name).toBe('cellRecords');
    expect(catalogueEntryOf(paths.firmPack('ab'))?.name).toBe('firmPack');
    expect(catalogueEntryOf('firms/l_aaaaaaaaaaaaaaaa.json')).toBeNull();
    expect(catalogueEntryOf('shards/5/85283473fffffff.json')).toBeNull();
  });
});
