/**
 * Cell schema 9 keeps record chunks in their group's pack, each block giving its chunks' lengths and the group tree each
 * block's total (docs/SITE-FORMAT.md, `cells/packs/<group cell>.bin`). A correction that makes one record longer must
 * rewrite that record's chunk, block, group and pack only: were a block's place in the pack written in the block, every
 * later block of a dense group would change too, and a one-listing correction could pass 100 objects.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCells } from '../generator/write/cells.ts';
import { sealCellTree } from '../generator/write/cell-hashes.ts';
import { serialiseAt } from '../generator/write/json.ts';
import { paths } from '../shim/format/paths.ts';
import { blockRecordsAt, packProblems, recordEntries } from '../shim/format/pack-layout.ts';
import { FirmPack, keys, Pointer, type StoredOfficeT } from '../shim/format/site-format.ts';

const SITE = process.env.TEST_SITE_DIR as string;
/** Small blocks, so the sample's groups hold many of them. */
const OPTS = { blockMax: 64, leafMax: 32 };

let offices: StoredOfficeT[];
beforeAll(async () => {
  const version = Pointer.parse(JSON.parse(await readFile(join(SITE, keys.pointer), 'utf8'))).version;
  const dir = join(SITE, keys.root(version), 'firms');
  offices = (
    await Promise.all(
      (await readdir(dir)).map(async (f) => FirmPack.parse(JSON.parse(await readFile(join(dir, f), 'utf8'))).documents),
    )
  ).flatMap((docs) => docs.map((d) => d.office));
});

/** Every object of the tree as stored, packs included, by path. */
function storedTree(list: readonly StoredOfficeT[]): {
  tree: ReturnType<typeof buildCells>;
  bytes: Map<string, Buffer>;
} {
  const tree = buildCells(list, OPTS);
  const packs = sealCellTree(tree);
  const bytes = new Map<string, Buffer>();
  for (const b of tree.blocks) bytes.set(paths.cellBlock(b.cell), serialiseAt(paths.cellBlock(b.cell), b));
  for (const g of tree.groups)
    bytes.set(paths.cellGroup(g.cell, g.schema_version), serialiseAt(paths.cellGroup(g.cell, g.schema_version), g));
  for (const r of tree.records)
    bytes.set(paths.cellRecords(r.block, r.chunk), serialiseAt(paths.cellRecords(r.block, r.chunk), r));
  for (const [group, pack] of packs) bytes.set(paths.cellPack(group), pack);
  return { tree, bytes };
}

describe('record chunks in the packs', () => {
  it('a longer record in a group first block rewrites its chunk, block, group and pack, and no later block', () => {
    const before = storedTree(offices);
    const [group, blocks] = Object.entries(before.tree.index.blocks).sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(blocks.length).toBeGreaterThan(3);
    const first = blocks[0]![0];
    const listing = before.tree.records.find((r) => r.block === first && r.chunk === 0)!.offices[0]!.listing_id;
    const after = storedTree(
      offices.map((o) => (o.listing_id === listing ? { ...o, name: `${o.name} and Partners, Injury Lawyers` } : o)),
    );
    const changed = [...after.bytes].filter(([rel, b]) => !before.bytes.get(rel)?.equals(b)).map(([rel]) => rel);
    expect(changed.sort()).toEqual(
      [paths.cellRecords(first, 0), paths.cellBlock(first), paths.cellGroup(group, 9), paths.cellPack(group)].sort(),
    );
    // The index changes only in the pack's length, not in any block's.
    expect(after.tree.index.block_bytes).toEqual(before.tree.index.block_bytes);
  });

  it('puts each chunk where its block and group say, and audit finds every pack whole', () => {
    const { tree, bytes } = storedTree(offices);
    const blockOf = new Map(tree.blocks.map((b) => [b.cell, b]));
    let chunks = 0;
    for (const g of tree.groups) {
      const pack = bytes.get(paths.cellPack(g.cell)) as Buffer;
      const own = (tree.index.blocks[g.cell] ?? []).map(([cell]) => blockOf.get(cell)!);
      expect(packProblems(paths.cellPack(g.cell), pack, tree.index, g, own)).toEqual([]);
      const starts = blockRecordsAt(tree.index, g);
      expect(starts?.size).toBe(own.length);
      for (const b of own)
        for (const e of recordEntries(b.cell, starts?.get(b.cell) ?? -1, b.records_bytes)) {
          // Independent of the layout code: the chunk object's own bytes, found at the span it gives.
          expect(pack.subarray(e.start, e.end).equals(bytes.get(paths.cellRecords(b.cell, e.chunk!))!)).toBe(true);
          chunks++;
        }
    }
    expect(chunks).toBe(tree.records.length);
  });
});
