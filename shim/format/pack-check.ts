/**
 * The check of a group's pack (cells/packs/<group>.bin) against the hashes its group tree records, made by audit's
 * scan and by the public route that serves it.
 */
import { createHash } from 'node:crypto';
import type { CellGroupT, CellIndexT } from './cell-format.ts';

/** One object a pack holds: what it is (for a message), its length and the sha256 its group records for it. */
export interface PackPart {
  what: string;
  length: number;
  sha256: string | undefined;
}

/**
 * What group `group` of `index` packs, in order: its blocks at the index's `block_bytes`, then its shared pages (in its
 * tree's `shared_sha256` order) at `shared_bytes`; null when the index gives the group no pack, or lengths that do not
 * give every object.
 */
export function packParts(index: CellIndexT, tree: CellGroupT): PackPart[] | null {
  const blocks = (index.blocks[tree.cell] ?? []).map(([cell]) => cell);
  const blockBytes = index.block_bytes?.[tree.cell];
  if (blockBytes === undefined || blockBytes.length !== blocks.length) return null;
  const parts = blocks.map((cell, k) => ({
    what: `block ${cell}`,
    length: blockBytes[k] ?? 0,
    sha256: tree.block_sha256[cell],
  }));
  const sharedBytes = index.shared_bytes?.[tree.cell];
  const pages = Object.keys(tree.shared_sha256);
  if (sharedBytes === undefined) return parts;
  if (sharedBytes.length !== pages.length) return null;
  return [
    ...parts,
    ...pages.map((cell, k) => ({
      what: `shared page ${cell}`,
      length: sharedBytes[k] ?? 0,
      sha256: tree.shared_sha256[cell],
    })),
  ];
}

/**
 * Problems of the pack at `key` (its bytes, null when missing): it must be exactly `parts` one after another, each
 * slice of the sha256 its group records for it.
 */
export function packProblems(key: string, bytes: Uint8Array | null, parts: readonly PackPart[] | null): string[] {
  if (parts === null) return [`${key}: the cell index's lengths do not give every object of its group`];
  if (bytes === null) return [`${key}: the cell index gives its objects' lengths but it is missing`];
  const total = parts.reduce((n, p) => n + p.length, 0);
  if (total !== bytes.byteLength)
    return [`${key}: ${bytes.byteLength} bytes, the cell index's lengths sum to ${total}`];
  const problems: string[] = [];
  let at = 0;
  for (const part of parts) {
    const end = at + part.length;
    const got = createHash('sha256').update(bytes.subarray(at, end)).digest('hex');
    if (got !== part.sha256)
      problems.push(`${key}: bytes ${at}-${end - 1} are not ${part.what} as its group records it`);
    at = end;
  }
  return problems;
}
