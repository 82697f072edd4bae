/**
 * Where each block and shared page lies in its group's pack (cells/packs/<group>.bin, docs/SITE-FORMAT.md), from the
 * cell index's `block_bytes` and `shared_bytes`, and how a round's objects are read from the packs: ranges of one pack at most PACK_GAP_BYTES apart are
 * one request (the gap is read and dropped), so a cold search that needs many blocks of a group asks for a few ranges.
 */
import type { CellGroupT, CellIndexT } from '../format/cell-format.ts';
import { keys } from '../format/site-format.ts';

/** Bytes two blocks of one pack may lie apart and still be read with one range request (BENCHMARKS.md section 3). */
export const PACK_GAP_BYTES = 16 * 1024;

/** Where one object lies inside a pack: the pack's store key and bytes `start` to `end - 1`. */
export interface PackSpan {
  pack: string;
  start: number;
  end: number;
}

/** One range request: bytes `start` to `end - 1` of `pack`, holding each of `spans` (object key and its span). */
export interface PackRun {
  pack: string;
  start: number;
  end: number;
  spans: [string, PackSpan][];
}

/** Each block cell's [group, start, end] in its group's pack, built once per parsed index. */
const spansOfIndex = new WeakMap<CellIndexT, Map<string, [string, number, number]>>();

function blockSpans(index: CellIndexT): Map<string, [string, number, number]> {
  let spans = spansOfIndex.get(index);
  if (spans !== undefined) return spans;
  spans = new Map();
  for (const [group, lengths] of Object.entries(index.block_bytes ?? {})) {
    const blocks = index.blocks[group] ?? [];
    // Lengths that do not give every block of the group say nothing about any of them: read those blocks whole.
    if (lengths.length !== blocks.length) continue;
    let at = 0;
    blocks.forEach(([cell], k) => {
      const end = at + (lengths[k] ?? 0);
      spans.set(cell, [group, at, end]);
      at = end;
    });
  }
  spansOfIndex.set(index, spans);
  return spans;
}

/** The pack spans of the blocks `cells` of version `v` that lie in a pack, by block store key. */
export function packSpans(index: CellIndexT, v: string, cells: readonly string[]): Map<string, PackSpan> {
  const spans = blockSpans(index);
  const out = new Map<string, PackSpan>();
  for (const cell of cells) {
    const at = spans.get(cell);
    if (at !== undefined) out.set(keys.cellBlock(v, cell), { pack: keys.cellPack(v, at[0]), start: at[1], end: at[2] });
  }
  return out;
}

/**
 * The pack spans of the shared pages `cells` of group tree `tree` of version `v`, where the index gives the group's
 * `shared_bytes`: after the group's blocks, in the order of the tree's `shared_sha256`.
 */
export function pageSpans(
  index: CellIndexT,
  v: string,
  tree: CellGroupT,
  cells: readonly string[],
): Map<string, PackSpan> {
  const out = new Map<string, PackSpan>();
  const blockBytes = index.block_bytes?.[tree.cell];
  const sharedBytes = index.shared_bytes?.[tree.cell];
  const pages = Object.keys(tree.shared_sha256);
  if (blockBytes === undefined || sharedBytes === undefined || sharedBytes.length !== pages.length) return out;
  const wanted = new Set(cells);
  const pack = keys.cellPack(v, tree.cell);
  let at = blockBytes.reduce((n, l) => n + l, 0);
  pages.forEach((cell, k) => {
    const end = at + (sharedBytes[k] ?? 0);
    if (wanted.has(cell)) out.set(keys.cellShared(v, cell, index.schema_version), { pack, start: at, end });
    at = end;
  });
  return out;
}

/** `spans` (object key -> span) as range requests: per pack in offset order, those at most `gap` bytes apart merged. */
export function packRuns(spans: Iterable<[string, PackSpan]>, gap = PACK_GAP_BYTES): PackRun[] {
  const sorted = [...spans].sort(([, a], [, b]) =>
    a.pack < b.pack ? -1 : a.pack > b.pack ? 1 : a.start - b.start || a.end - b.end,
  );
  const runs: PackRun[] = [];
  for (const entry of sorted) {
    const [, span] = entry;
    const last = runs.at(-1);
    if (last !== undefined && last.pack === span.pack && span.start - last.end <= gap) {
      last.end = Math.max(last.end, span.end);
      last.spans.push(entry);
    } else runs.push({ pack: span.pack, start: span.start, end: span.end, spans: [entry] });
  }
  return runs;
}
