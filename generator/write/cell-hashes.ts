/**
 * The hashes of a cell tree: each block records its record chunks' sha256, each group its shared pages' and
 * its blocks', the index its groups'. Children are hashed before their parents are serialised, so a writer fills the
 * levels in order (records, then blocks and shared objects, then groups, then the index). See docs/SITE-FORMAT.md.
 */
import { serialiseAt, sha256Hex } from './json.ts';
import { paths } from '../../shim/format/paths.ts';
import type { CellTree } from './cells.ts';
import { sharedGroup, type CellBlockT, type CellSharedT } from '../../shim/format/cell-format.ts';

/** The sha256 (hex) of the object at `rel` (relative to the version root) as written; `value` is the object itself. */
export type HashOf = (rel: string, value: unknown) => string;

/** sha256 of an object as the generator writes it at `rel` (serialiseAt): for a tree that is not written. */
export const hashSerialised: HashOf = (rel, value) => sha256Hex(serialiseAt(rel, value));

/** Fill each block's `records_sha256` from its record chunks, chunk k at position k. */
export function sealBlocks(tree: CellTree, hashOf: HashOf): void {
  const chunks = new Map<string, string[]>();
  for (const r of tree.records) {
    let list = chunks.get(r.block);
    if (list === undefined) chunks.set(r.block, (list = []));
    list[r.chunk] = hashOf(paths.cellRecords(r.block, r.chunk), r);
  }
  for (const b of tree.blocks) b.records_sha256 = Array.from(chunks.get(b.cell) ?? [], (h) => h);
}

/** Each group's shared pages, in the order its tree's `shared_sha256` lists them (sealGroups). */
function pagesByGroup(tree: CellTree): Map<string, CellSharedT[]> {
  const shared = new Map<string, CellSharedT[]>();
  for (const a of tree.shared) {
    const g = sharedGroup(a.cell, tree.index.group_res);
    shared.set(g, [...(shared.get(g) ?? []), a]);
  }
  return shared;
}

/** How a pack's objects are stored: a block or a shared page as its file holds it. */
export interface StoredOf {
  block: (rel: string, block: CellBlockT) => Uint8Array;
  shared: (rel: string, page: CellSharedT) => Uint8Array;
}

/**
 * Each group's pack: its blocks as stored one after another in the order of the index's `blocks`, then its shared
 * pages in the order of its tree's `shared_sha256`; and the index's `block_bytes` and `shared_bytes` filled with their
 * lengths (blocks sealed first).
 */
export function packBlocks(tree: CellTree, stored: StoredOf): Map<string, Buffer> {
  const blocks = new Map(tree.blocks.map((b) => [b.cell, b]));
  const pages = pagesByGroup(tree);
  const packs = new Map<string, Buffer>();
  const blockBytes: Record<string, number[]> = {};
  const sharedBytes: Record<string, number[]> = {};
  for (const [group, list] of Object.entries(tree.index.blocks)) {
    const parts = list.map(([cell]) => {
      const block = blocks.get(cell);
      if (block === undefined) throw new Error(`block ${cell} of group ${group} was not built`);
      return stored.block(paths.cellBlock(cell), block);
    });
    const shared = (pages.get(group) ?? []).map((a) => stored.shared(paths.cellShared(a.cell, a.schema_version), a));
    blockBytes[group] = parts.map((p) => p.byteLength);
    sharedBytes[group] = shared.map((p) => p.byteLength);
    packs.set(group, Buffer.concat([...parts, ...shared]));
  }
  tree.index.block_bytes = blockBytes;
  tree.index.shared_bytes = sharedBytes;
  return packs;
}

/** Fill each group's `shared_sha256` and `block_sha256` from its shared object and blocks (blocks sealed first). */
export function sealGroups(tree: CellTree, hashOf: HashOf): void {
  const shared = pagesByGroup(tree);
  const blocks = new Map(tree.blocks.map((b) => [b.cell, b]));
  for (const g of tree.groups) {
    const pages = shared.get(g.cell);
    if (pages === undefined) throw new Error(`group ${g.cell} has no shared page`);
    g.shared_sha256 = Object.fromEntries(
      pages.map((a) => [a.cell, hashOf(paths.cellShared(a.cell, a.schema_version), a)]),
    );
    const byCell: Record<string, string> = {};
    g.rows.block.forEach((b, i) => {
      if (b !== i) return;
      const cell = g.rows.cell[i] as string;
      byCell[cell] = hashOf(paths.cellBlock(cell), blocks.get(cell));
    });
    g.block_sha256 = byCell;
  }
}

/** Fill the index's `group_sha256` from its groups (groups sealed first), in the order of its `groups`. */
export function sealIndex(tree: CellTree, hashOf: HashOf): void {
  const groups = new Map(tree.groups.map((g) => [g.cell, g]));
  const byCell: Record<string, string> = {};
  for (const cell of Object.keys(tree.index.groups))
    byCell[cell] = hashOf(paths.cellGroup(cell, tree.index.schema_version), groups.get(cell));
  tree.index.group_sha256 = byCell;
}

/** Every level of a tree that is not written, hashed by serialising it (audit's rebuild); returns each group's pack. */
export function sealCellTree(tree: CellTree): Map<string, Buffer> {
  sealBlocks(tree, hashSerialised);
  const packs = packBlocks(tree, { block: serialiseAt, shared: serialiseAt });
  sealGroups(tree, hashSerialised);
  sealIndex(tree, hashSerialised);
  return packs;
}
