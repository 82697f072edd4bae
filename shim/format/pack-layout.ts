/**
 * The layout of a group's pack (cells/packs/<group>.bin, docs/SITE-FORMAT.md): its blocks as stored in the order of the
 * cell index's `blocks`, at its `block_bytes`, then its shared pages in the order of its tree's `shared_sha256`, at
 * `shared_bytes`, then (from cell schema 9) each block's record chunks in the same block order, at the block's
 * `records_bytes`, each block's chunks at the length its group tree's `block_records_bytes` gives. The one reading of that layout: a search plans its ranges from it
 * (search/block-packs.ts), audit's scan and the public route check a pack against it.
 */
import type { CellBlockT, CellGroupT, CellIndexT } from './cell-format.ts';
import { sha256Hex } from './integrity.ts';

/** The first cell schema whose packs end with their group's record chunks. */
export const FIRST_RECORDS_IN_PACK_SCHEMA = 9;

/** One object of a pack: a block, a shared page or record chunk `chunk` of block `cell`, and bytes `start` to `end - 1`. */
export interface PackEntry {
  kind: 'block' | 'shared' | 'records';
  cell: string;
  chunk?: number;
  start: number;
  end: number;
}

/** Bytes of group `group`'s pack before its record chunks (its blocks and shared pages), or null when the index lacks their lengths. */
export function packRecordsStart(index: CellIndexT, group: string): number | null {
  const blocks = index.block_bytes?.[group];
  const shared = index.shared_bytes?.[group];
  if (blocks === undefined || shared === undefined) return null;
  let at = 0;
  for (const n of blocks) at += n;
  for (const n of shared) at += n;
  return at;
}

/**
 * Where each block's record chunks start in the pack of group tree `tree` (bytes, by block cell): after the pack's
 * shared pages, block after block in the order of the tree's `block_sha256`, at its `block_records_bytes`. Null for a
 * schema before 9, an index without the pack's lengths, or a tree without one length per block.
 */
export function blockRecordsAt(index: CellIndexT, tree: CellGroupT): Map<string, number> | null {
  const start = packRecordsStart(index, tree.cell);
  const cells = Object.keys(tree.block_sha256);
  if (index.schema_version < FIRST_RECORDS_IN_PACK_SCHEMA || start === null) return null;
  if (tree.block_records_bytes.length !== cells.length) return null;
  let at = start;
  return new Map(
    cells.map((cell, k) => {
      const entry: [string, number] = [cell, at];
      at += tree.block_records_bytes[k] ?? 0;
      return entry;
    }),
  );
}

/**
 * The record chunks of block `cell` in its pack, chunk k at position k: they start at byte `at` (blockRecordsAt), chunk
 * k `lengths[k]` bytes long (the block's `records_bytes`). The one reading of a block's chunk lengths: the search plans
 * a chunk's range from it (search/block-packs.ts recordSpan), packProblems checks a pack with it.
 */
export function recordEntries(cell: string, at: number, lengths: readonly number[]): PackEntry[] {
  return lengths.map((n, chunk) => {
    const entry: PackEntry = { kind: 'records', cell, chunk, start: at, end: at + n };
    at += n;
    return entry;
  });
}

/**
 * The objects of group `group`'s pack in order: its blocks, then, when `pages` (its tree's `shared_sha256` cells, in
 * order) is given and the index has `shared_bytes`, its shared pages. Null when the index gives the group no pack, or
 * lengths that do not give every object.
 */
export function packEntries(index: CellIndexT, group: string, pages?: readonly string[]): PackEntry[] | null {
  const blocks = (index.blocks[group] ?? []).map(([cell]) => cell);
  const blockBytes = index.block_bytes?.[group];
  const sharedBytes = pages === undefined ? undefined : index.shared_bytes?.[group];
  if (blockBytes === undefined || blockBytes.length !== blocks.length) return null;
  if (sharedBytes !== undefined && sharedBytes.length !== pages?.length) return null;
  const entries: PackEntry[] = [];
  let at = 0;
  const add = (kind: PackEntry['kind'], cells: readonly string[], lengths: readonly number[]): void =>
    cells.forEach((cell, k) => {
      const end = at + (lengths[k] ?? 0);
      entries.push({ kind, cell, start: at, end });
      at = end;
    });
  add('block', blocks, blockBytes);
  if (sharedBytes !== undefined) add('shared', pages ?? [], sharedBytes);
  return entries;
}

/**
 * Problems of the pack at `key` (its bytes, null when missing) of group tree `tree`: it must be exactly its objects
 * (packEntries, then from cell schema 9 each block's record chunks, `blocks` giving the group's blocks in the index's
 * order) one after another, each slice of the sha256 its parent records for it.
 */
export function packProblems(
  key: string,
  bytes: Uint8Array | null,
  index: CellIndexT,
  tree: CellGroupT,
  blocks: readonly CellBlockT[] = [],
): string[] {
  const entries = packEntries(index, tree.cell, Object.keys(tree.shared_sha256));
  if (entries === null) return [`${key}: the cell index's lengths do not give every object of its group`];
  if (bytes === null) return [`${key}: the cell index gives its objects' lengths but it is missing`];
  const problems: string[] = [];
  const blockOf = new Map(blocks.map((b) => [b.cell, b]));
  if (index.schema_version >= FIRST_RECORDS_IN_PACK_SCHEMA) {
    const cells = Object.keys(tree.block_sha256);
    if (tree.block_records_bytes.length !== cells.length)
      problems.push(
        `${key}: its group gives ${tree.block_records_bytes.length} record lengths for ${cells.length} blocks`,
      );
    const starts = blockRecordsAt(index, tree);
    for (const block of blocks) {
      const total = block.records_bytes.reduce((n, b) => n + b, 0);
      const recorded = tree.block_records_bytes[cells.indexOf(block.cell)];
      if (total !== recorded)
        problems.push(
          `${key}: block ${block.cell} gives ${total} bytes of record chunks, its group ${recorded ?? 'none'}`,
        );
      const at = starts?.get(block.cell);
      if (at !== undefined && block.records_bytes.length === block.records_sha256.length)
        entries.push(...recordEntries(block.cell, at, block.records_bytes));
      else if (block.records_sha256.length > 0)
        problems.push(
          `${key}: block ${block.cell} gives ${block.records_bytes.length} record chunk lengths for ${block.records_sha256.length} chunks`,
        );
    }
  }
  const total = Math.max(0, ...entries.map((e) => e.end));
  if (total !== bytes.byteLength)
    return [...problems, `${key}: ${bytes.byteLength} bytes, the lengths its index and blocks give sum to ${total}`];
  const recordedOf = (e: PackEntry): string | undefined => {
    if (e.kind === 'block') return tree.block_sha256[e.cell];
    if (e.kind === 'shared') return tree.shared_sha256[e.cell];
    return blockOf.get(e.cell)?.records_sha256[e.chunk ?? -1];
  };
  const what = (e: PackEntry): string =>
    e.kind === 'block'
      ? `block ${e.cell}`
      : e.kind === 'shared'
        ? `shared page ${e.cell}`
        : `record chunk ${e.chunk ?? ''} of block ${e.cell}`;
  for (const e of entries)
    if (sha256Hex(bytes.subarray(e.start, e.end)) !== recordedOf(e))
      problems.push(
        `${key}: bytes ${e.start}-${e.end - 1} are not ${what(e)} as its ${e.kind === 'records' ? 'block' : 'group'} records it`,
      );
  return problems;
}
