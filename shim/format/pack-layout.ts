/**
 * The layout of a group's pack (cells/packs/<group>.bin, docs/SITE-FORMAT.md): its blocks as stored in the order of the
 * cell index's `blocks`, at its `block_bytes`, then its shared pages in the order of its tree's `shared_sha256`, at
 * `shared_bytes`. The one reading of that layout: a search plans its ranges from it (search/block-packs.ts), audit's
 * scan and the public route check a pack against it.
 */
import type { CellGroupT, CellIndexT } from './cell-format.ts';
import { sha256Hex } from './integrity.ts';

/** One object of a pack: a block or a shared page, its cell, and bytes `start` to `end - 1` of the pack. */
export interface PackEntry {
  kind: 'block' | 'shared';
  cell: string;
  start: number;
  end: number;
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
 * (packEntries) one after another, each slice of the sha256 the group records for it.
 */
export function packProblems(key: string, bytes: Uint8Array | null, index: CellIndexT, tree: CellGroupT): string[] {
  const entries = packEntries(index, tree.cell, Object.keys(tree.shared_sha256));
  if (entries === null) return [`${key}: the cell index's lengths do not give every object of its group`];
  if (bytes === null) return [`${key}: the cell index gives its objects' lengths but it is missing`];
  const total = entries.at(-1)?.end ?? 0;
  if (total !== bytes.byteLength)
    return [`${key}: ${bytes.byteLength} bytes, the cell index's lengths sum to ${total}`];
  return entries.flatMap(({ kind, cell, start, end }) => {
    const recorded = kind === 'block' ? tree.block_sha256[cell] : tree.shared_sha256[cell];
    return sha256Hex(bytes.subarray(start, end)) === recorded
      ? []
      : [
          `${key}: bytes ${start}-${end - 1} are not ${kind === 'block' ? 'block' : 'shared page'} ${cell} as its group records it`,
        ];
  });
}
