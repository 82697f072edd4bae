/**
 * A what-if for the cold path: the cell objects a query read (blocks, shared pages, record chunks) counted as byte
 * ranges of one packed object per group (blocks in the index's order, then the group's shared pages, then each block's
 * record chunks), the ranges of one pack asked in one round merged into one GET when at most `gap` bytes apart (S3
 * answers one range per GET; a merged gap is read and thrown away). Measured on a real site and its real reads, so a
 * layout can be chosen before it is built (bench/cold/pack-sim.ts, section 11 of BENCHMARKS.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CellGroup, CellIndex } from '../../shim/format/cell-format.ts';
import { keys } from '../../shim/format/site-format.ts';
import { kindOf, type ColdQueryReads } from './cold.ts';
import { median } from '../lib/stats.ts';

/** The gaps measured unless told: ranges merged only when adjacent, then across 16, 64 and 256 KiB. */
export const PACK_GAPS: readonly number[] = [0, 16_384, 65_536, 262_144];

/** Bytes per block the index would carry to plan a block's range (offset and length as JSON numbers), estimated. */
export const INDEX_BYTES_PER_BLOCK = 12;

/** Where a cell object would lie: its group's pack, its offset there and its size, in bytes. */
export interface Placed {
  pack: string;
  at: number;
  size: number;
}

/** Every block, shared page and record chunk of version `v` of the site folder `site`, placed in its group's pack. */
export function packLayout(site: string, v: string): { placed: Map<string, Placed>; blocks: number } {
  const root = join(site, keys.root(v));
  const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
  const placed = new Map<string, Placed>();
  let blocks = 0;
  for (const group of Object.keys(index.groups)) {
    let at = 0;
    const put = (rel: string): void => {
      const size = statSync(join(root, rel)).size;
      placed.set(keys.root(v) + rel, { pack: group, at, size });
      at += size;
    };
    const blockCells = (index.blocks[group] ?? []).map(([cell]) => cell);
    blocks += blockCells.length;
    for (const cell of blockCells) put(`cells/blocks/${cell}.json`);
    const tree = CellGroup.parse(JSON.parse(readFileSync(join(root, `cells/groups/${group}.json`), 'utf8')));
    for (const page of Object.keys(tree.shared_sha256)) put(`cells/shared/${page}.json`);
    for (const cell of blockCells) {
      const chunks = readdirSync(join(root, 'cells/records', cell)).map((f) => Number(f.replace(/\.json$/, '')));
      for (const k of chunks.sort((a, b) => a - b)) put(`cells/records/${cell}/${k}.json`);
    }
  }
  return { placed, blocks };
}

/** One query's GETs and bytes with its cell reads as ranges of packs, merged across `gap` bytes within a round. */
export function packedReads(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  gap: number,
  indexExtraBytes: number,
): { gets: number; bytes: number } {
  const size = new Map(q.reads.map((r) => [r.key, r.bytes]));
  let gets = 0;
  let bytes = 0;
  for (const round of q.allRounds ?? q.rounds) {
    const ranges = new Map<string, [number, number][]>();
    for (const key of round) {
      const p = placed.get(key);
      if (p === undefined) {
        gets++;
        bytes += (size.get(key) ?? 0) + (kindOf(key) === 'cell index' ? indexExtraBytes : 0);
        continue;
      }
      const list = ranges.get(p.pack) ?? [];
      list.push([p.at, p.at + p.size]);
      ranges.set(p.pack, list);
    }
    for (const list of ranges.values()) {
      list.sort((a, b) => a[0] - b[0]);
      let [start, end] = list[0] as [number, number];
      for (const [s, e] of list.slice(1)) {
        if (s - end > gap) {
          gets++;
          bytes += end - start;
          start = s;
        }
        end = Math.max(end, e);
      }
      gets++;
      bytes += end - start;
    }
  }
  return { gets, bytes };
}

/** GETs and bytes (median, max) over a set of queries, how many exceed 20 GETs and 1 MiB, and the worst by each. */
export interface PackedFigures {
  /** Bytes two ranges may lie apart and be one GET; null for the objects as published (one GET each). */
  gap: number | null;
  gets: { median: number; max: number; query: string };
  bytes: { median: number; max: number; query: string };
  overGets: number;
  overBytes: number;
  queries: number;
}

function figures(gap: number | null, queries: readonly string[], per: readonly { gets: number; bytes: number }[]) {
  const gets = per.map((p) => p.gets);
  const bytes = per.map((p) => p.bytes);
  const at = (xs: number[]): number => xs.indexOf(Math.max(...xs));
  return {
    gap,
    gets: { median: median(gets), max: Math.max(...gets), query: queries[at(gets)] ?? '' },
    bytes: { median: median(bytes), max: Math.max(...bytes), query: queries[at(bytes)] ?? '' },
    overGets: gets.filter((n) => n > 20).length,
    overBytes: bytes.filter((n) => n > 1024 * 1024).length,
    queries: per.length,
  };
}

/** The queries' figures as published, then packed with each of `gaps`. */
export function packedFigures(
  site: string,
  v: string,
  perQuery: readonly ColdQueryReads[],
  gaps: readonly number[] = PACK_GAPS,
): PackedFigures[] {
  const { placed, blocks } = packLayout(site, v);
  const names = perQuery.map((q) => q.query);
  const asIs = perQuery.map((q) => ({ gets: q.reads.length, bytes: q.reads.reduce((n, r) => n + r.bytes, 0) }));
  return [
    figures(null, names, asIs),
    ...gaps.map((gap) =>
      figures(
        gap,
        names,
        perQuery.map((q) => packedReads(q, placed, gap, blocks * INDEX_BYTES_PER_BLOCK)),
      ),
    ),
  ];
}
