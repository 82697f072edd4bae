/**
 * The hashes of a cell tree: each block records its record chunks' sha256, each group its shared pages' and
 * its blocks', the index its groups'. Children are hashed before their parents are serialised, so a writer fills the
 * levels in order (records, blocks, shared pages and packs group by group, then groups, then the index). See
 * docs/SITE-FORMAT.md.
 */
import { serialiseAt, sha256Hex } from './json.ts';
import { isCellPack, paths } from '../../shim/format/paths.ts';
import { FIRST_RECORDS_IN_PACK_SCHEMA } from '../../shim/format/pack-layout.ts';
import type { CellTree } from './cells.ts';
import { sharedGroup, type CellBlockT, type CellRecordsT, type CellSharedT } from '../../shim/format/cell-format.ts';

/** The sha256 (hex) of the object at `rel` (relative to the version root) as written; `value` is the object itself. */
export type HashOf = (rel: string, value: unknown) => string;

/** sha256 of an object as the generator writes it at `rel` (serialiseAt): for a tree that is not written. */
export const hashSerialised: HashOf = (rel, value) => sha256Hex(serialiseAt(rel, value));

/** Each group's shared pages, in the order its tree's `shared_sha256` lists them (sealGroups). */
function pagesByGroup(tree: CellTree): Map<string, CellSharedT[]> {
  const shared = new Map<string, CellSharedT[]>();
  for (const a of tree.shared) {
    const g = sharedGroup(a.cell, tree.index.group_res);
    shared.set(g, [...(shared.get(g) ?? []), a]);
  }
  return shared;
}

/** How the objects of a pack are stored: a block, a shared page or a record chunk as its file holds it. */
export interface StoredOf {
  block: (rel: string, block: CellBlockT) => Uint8Array;
  shared: (rel: string, page: CellSharedT) => Uint8Array;
  records: (rel: string, chunk: CellRecordsT) => Uint8Array;
}

/**
 * Each group in turn, its objects as stored: its record chunks (hashed into each block's `records_sha256`, and from
 * cell schema 9 their lengths into the block's `records_bytes` and each block's total into its group tree's
 * `block_records_bytes`, so a correction that changes one chunk's length changes no other block), its blocks and shared
 * pages, then its pack: the blocks one after another in the order of the index's `blocks`, the
 * shared pages in the order the group's tree lists them, and from schema 9 every block's record chunks in that order.
 * Fills the index's `block_bytes` and `shared_bytes`. One group's bytes at a time, so a writer holds no more than the
 * largest group's (at a million offices a pack of a dense group is tens of megabytes).
 */
export function* groupObjects(
  tree: CellTree,
  stored: StoredOf,
): Generator<{ group: string; objects: [string, Uint8Array][] }> {
  const blocks = new Map(tree.blocks.map((b) => [b.cell, b]));
  const chunks = new Map<string, CellRecordsT[]>();
  for (const r of tree.records) {
    let list = chunks.get(r.block);
    if (list === undefined) chunks.set(r.block, (list = []));
    list[r.chunk] = r;
  }
  const pages = pagesByGroup(tree);
  const blockBytes: Record<string, number[]> = {};
  const sharedBytes: Record<string, number[]> = {};
  const inPack = tree.index.schema_version >= FIRST_RECORDS_IN_PACK_SCHEMA;
  const groupOf = new Map(tree.groups.map((g) => [g.cell, g]));
  for (const [group, list] of Object.entries(tree.index.blocks)) {
    const objects: [string, Uint8Array][] = [];
    const records: Uint8Array[] = [];
    const recordsBytes: number[] = [];
    const parts = list.map(([cell]) => {
      const block = blocks.get(cell);
      if (block === undefined) throw new Error(`block ${cell} of group ${group} was not built`);
      const own = Array.from(chunks.get(cell) ?? [], (r, k) => {
        if (r === undefined) throw new Error(`record chunk ${k} of block ${cell} was not built`);
        const rel = paths.cellRecords(cell, k);
        const bytes = stored.records(rel, r);
        objects.push([rel, bytes]);
        return bytes;
      });
      block.records_sha256 = own.map((bytes) => sha256Hex(bytes));
      if (inPack) {
        block.records_bytes = own.map((bytes) => bytes.byteLength);
        recordsBytes.push(own.reduce((n, bytes) => n + bytes.byteLength, 0));
        records.push(...own);
      }
      const rel = paths.cellBlock(cell);
      const bytes = stored.block(rel, block);
      objects.push([rel, bytes]);
      return bytes;
    });
    const shared = (pages.get(group) ?? []).map((a) => {
      const rel = paths.cellShared(a.cell, a.schema_version);
      const bytes = stored.shared(rel, a);
      objects.push([rel, bytes]);
      return bytes;
    });
    const groupTree = groupOf.get(group);
    if (groupTree === undefined) throw new Error(`group ${group} was not built`);
    groupTree.block_records_bytes = recordsBytes;
    blockBytes[group] = parts.map((p) => p.byteLength);
    sharedBytes[group] = shared.map((p) => p.byteLength);
    objects.push([paths.cellPack(group), Buffer.concat([...parts, ...shared, ...records])]);
    yield { group, objects };
  }
  tree.index.block_bytes = blockBytes;
  tree.index.shared_bytes = sharedBytes;
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

/**
 * Every level of a tree that is not written, hashed by serialising it (audit's rebuild); returns each group's pack, or
 * hands each to `onPack` as it is made and keeps none (a million offices' packs hold every record chunk once more).
 */
export function sealCellTree(tree: CellTree, onPack?: (group: string, pack: Buffer) => void): Map<string, Buffer> {
  const packs = new Map<string, Buffer>();
  const as = { block: serialiseAt, shared: serialiseAt, records: serialiseAt };
  for (const { group, objects } of groupObjects(tree, as))
    for (const [rel, bytes] of objects) {
      if (!isCellPack(rel)) continue;
      const pack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (onPack === undefined) packs.set(group, pack);
      else onPack(group, pack);
    }
  sealGroups(tree, hashSerialised);
  sealIndex(tree, hashSerialised);
  return packs;
}
