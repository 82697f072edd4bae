/**
 * A what-if for the cold path: the cell objects a query read (blocks, shared pages, record chunks) counted as byte
 * ranges of one packed object per group (blocks in the index's order, then the group's shared pages, then each block's
 * record chunks), the ranges of one pack asked in one round merged into one GET when at most `gap` bytes apart (S3
 * answers one range per GET; a merged gap is read and thrown away). Measured on a real site and its real reads, so a
 * layout can be chosen before it is built (bench/cold/pack-sim.ts, section 11 of BENCHMARKS.md). Optionally with the
 * cell tree's objects (index, groups, shared pages, blocks) at the size a binary coding of the same values would give
 * (codedSize), record chunks and everything else as stored.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CellGroup, CellIndex } from '../../shim/format/cell-format.ts';
import { keys } from '../../shim/format/site-format.ts';
import { binaryCellKind, paths } from '../../shim/format/paths.ts';
import { decodeStored } from '../../shim/format/site-json.ts';
import {
  NARROW_RESERVE,
  packRuns,
  PACK_GAP_BYTES,
  QUERY_MARGIN_BYTES,
  QUERY_MAX_REQUESTS,
  WIDE_RESERVE,
  type PackSpan,
} from '../../shim/search/block-packs.ts';
import { kindOf, type ColdQueryReads } from './cold.ts';
import { fmtBytes, median } from '../lib/stats.ts';

/** The gaps measured unless told: ranges merged only when adjacent, then across 16 and 64 KiB. */
export const PACK_GAPS: readonly number[] = [0, 16_384, 65_536];

/** The GETs a query's plan may take when it merges the smallest gaps first (fittedReads): the cold target's 20. */
export const FIT_GETS = QUERY_MAX_REQUESTS;

/** Bytes per block the index would carry to plan a block's range (offset and length as JSON numbers), estimated. */
export const INDEX_BYTES_PER_BLOCK = 12;

/** Bytes of `n` (at least 0) as an unsigned LEB128 varint. */
export function uvarint(n: number): number {
  let bytes = 1;
  for (let z = n; z >= 128; z = Math.floor(z / 128)) bytes++;
  return bytes;
}

/** Bytes of a non-negative or negative integer as a zigzag LEB128 varint. */
function varintBytes(n: number): number {
  return uvarint(n < 0 ? -2 * n - 1 : 2 * n);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const H3_HEX = /^[0-9a-f]{15}$/;

/**
 * Estimated bytes of a parsed JSON value in a schema-driven binary coding of the same values: integers as zigzag
 * varints, other numbers (reach, in miles to 0.0001) as varints of 0.0001 units, sha256 hex as 32 bytes, H3 ids as 8,
 * other strings as UTF-8 plus a length byte, arrays with a varint length, object keys free (fixed by the schema) but for
 * the keys of maps (H3 ids, paths: 8 bytes each). An estimate to choose by, not a format.
 */
export function codedSize(value: unknown): number {
  if (typeof value === 'number')
    return Number.isInteger(value) ? varintBytes(value) : varintBytes(Math.round(value * 1e4));
  if (typeof value === 'string')
    return SHA256_HEX.test(value) ? 32 : H3_HEX.test(value) ? 8 : Buffer.byteLength(value) + 1;
  if (value === null || typeof value === 'boolean') return 1;
  if (Array.isArray(value)) return value.reduce((n: number, x) => n + codedSize(x), varintBytes(value.length));
  return Object.entries(value as Record<string, unknown>).reduce(
    (n, [k, x]) => n + codedSize(x) + (H3_HEX.test(k) || k.includes('/') ? 8 : 0),
    1,
  );
}

/** The size a what-if gives the object at `key`, stored as `bytes` bytes. */
export type SizeOf = (key: string, bytes: number) => number;

/** Every object at its stored size. */
const AS_STORED: SizeOf = (_, bytes) => bytes;

/** Whether a key is one of the cell tree's objects a binary coding would cover (records stay as stored). */
const CODED_KINDS = new Set(['cell index', 'cell group', 'cell shared', 'cell block']);

/**
 * Size of the object at `key` of the site folder `site` as stored (`bytes`), or coded when `coded`; meta.json then
 * with the cell index it carries (`cell_index`) coded and the rest as stored.
 */
export function sizer(site: string, coded: boolean): SizeOf {
  const sizes = new Map<string, number>();
  return (key, bytes) => {
    const meta = kindOf(key) === 'meta.json';
    // A binary cell object (a block; from cell schema 8 a group or shared page) is coded already: its stored size.
    if (!coded || (!meta && (!CODED_KINDS.has(kindOf(key)) || binaryCellKind(key) !== null))) return bytes;
    let n = sizes.get(key);
    if (n === undefined) {
      const value = JSON.parse(readFileSync(join(site, key), 'utf8')) as { cell_index?: unknown };
      n = !meta
        ? codedSize(value)
        : value.cell_index === undefined
          ? bytes
          : bytes - Buffer.byteLength(JSON.stringify(value.cell_index)) + codedSize(value.cell_index);
      sizes.set(key, n);
    }
    return n;
  };
}

/** Where a cell object would lie: its group's pack, its offset there and its size, in bytes. */
export interface Placed {
  pack: string;
  at: number;
  size: number;
}

/**
 * Every block, shared page and record chunk of version `v` of the site folder `site`, placed in its group's pack; with
 * `records` false, the record chunks left out (read as objects of their own, as the packs the generator writes have it).
 */
export function packLayout(
  site: string,
  v: string,
  sizeOf: SizeOf = AS_STORED,
  records = true,
): { placed: Map<string, Placed>; blocks: number } {
  const root = join(site, keys.root(v));
  const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
  const placed = new Map<string, Placed>();
  let blocks = 0;
  for (const group of Object.keys(index.groups)) {
    let at = 0;
    const put = (rel: string): void => {
      const key = keys.root(v) + rel;
      const size = sizeOf(key, statSync(join(root, rel)).size);
      placed.set(key, { pack: group, at, size });
      at += size;
    };
    const blockCells = (index.blocks[group] ?? []).map(([cell]) => cell);
    blocks += blockCells.length;
    for (const cell of blockCells) put(paths.cellBlock(cell));
    const rel = paths.cellGroup(group, index.schema_version);
    const tree = CellGroup.parse(decodeStored(readFileSync(join(root, rel)), rel));
    for (const page of Object.keys(tree.shared_sha256)) put(paths.cellShared(page, index.schema_version));
    if (!records) continue;
    for (const cell of blockCells) {
      const chunks = readdirSync(join(root, 'cells/records', cell)).map((f) => Number(f.replace(/\.json$/, '')));
      for (const k of chunks.sort((a, b) => a - b)) put(`cells/records/${cell}/${k}.json`);
    }
  }
  return { placed, blocks };
}

/**
 * One query's reads as ranges: the GETs and bytes of the objects in no pack, and for each round and pack its ranges in
 * offset order, those overlapping or adjacent already one.
 */
function queryRanges(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  indexExtraBytes: number,
  sizeOf: SizeOf,
): { loose: { gets: number; bytes: number }; runs: [number, number][][] } {
  const size = new Map(q.reads.map((r) => [r.key, sizeOf(r.key, r.bytes)]));
  const loose = { gets: 0, bytes: 0 };
  const runs: [number, number][][] = [];
  for (const round of q.allRounds ?? q.rounds) {
    const ranges = new Map<string, [number, number][]>();
    for (const key of round) {
      const p = placed.get(key);
      if (p === undefined) {
        loose.gets++;
        loose.bytes += (size.get(key) ?? 0) + (kindOf(key) === 'cell index' ? indexExtraBytes : 0);
        continue;
      }
      const list = ranges.get(p.pack) ?? [];
      list.push([p.at, p.at + p.size]);
      ranges.set(p.pack, list);
    }
    for (const list of ranges.values()) {
      list.sort((a, b) => a[0] - b[0]);
      const run: [number, number][] = [];
      for (const [s, e] of list) {
        const last = run.at(-1);
        if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
        else run.push([s, e]);
      }
      runs.push(run);
    }
  }
  return { loose, runs };
}

/** One query's GETs and bytes with its cell reads as ranges of packs, merged across `gap` bytes within a round. */
export function packedReads(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  gap: number,
  indexExtraBytes: number,
  sizeOf: SizeOf = AS_STORED,
): { gets: number; bytes: number } {
  const { loose, runs } = queryRanges(q, placed, indexExtraBytes, sizeOf);
  let { gets, bytes } = loose;
  for (const run of runs) {
    let [start, end] = run[0] as [number, number];
    for (const [s, e] of run.slice(1)) {
      if (s - end > gap) {
        gets++;
        bytes += end - start;
        start = s;
      }
      end = e;
    }
    gets++;
    bytes += end - start;
  }
  return { gets, bytes };
}

/** One query's GETs and bytes with its ranges unjoined, and the gaps between ranges of one round and pack, smallest first. */
function unjoined(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  indexExtraBytes: number,
  sizeOf: SizeOf,
): { gets: number; bytes: number; gaps: number[] } {
  const { loose, runs } = queryRanges(q, placed, indexExtraBytes, sizeOf);
  const gaps = runs.flatMap((run) => run.slice(1).map(([s], i) => s - (run[i] as [number, number])[1]));
  return {
    gets: loose.gets + runs.reduce((n, run) => n + run.length, 0),
    bytes: loose.bytes + runs.flat().reduce((n, [s, e]) => n + e - s, 0),
    gaps: gaps.sort((a, b) => a - b),
  };
}

/**
 * One query's GETs and bytes with its cell reads as ranges of packs, merging the smallest gaps first (of any round and
 * pack) until it takes at most `maxGets` GETs or no gap is left: the plan a reader holding every range's offset would
 * make to stay within a number of requests at the least cost in bytes.
 */
export function fittedReads(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  maxGets: number,
  indexExtraBytes: number,
  sizeOf: SizeOf = AS_STORED,
): { gets: number; bytes: number } {
  const start = unjoined(q, placed, indexExtraBytes, sizeOf);
  let { gets, bytes } = start;
  for (const g of start.gaps) {
    if (gets <= maxGets) break;
    gets--;
    bytes += g;
  }
  return { gets, bytes };
}

/**
 * The fewest GETs one query's reads can take within `maxBytes` when any two ranges of one round and pack may be joined
 * (the gap read and dropped), and its bytes then: its gaps joined smallest first while they fit. Joining a gap saves
 * one GET whichever gap it is, so no plan over the same objects does better (a lower bound for every join rule of
 * block-packs.ts; the objects in no pack are one GET each). Bytes over `maxBytes` before any join leave every gap open.
 */
export function leastGetsWithin(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  maxBytes: number,
): { gets: number; bytes: number } {
  const start = unjoined(q, placed, 0, AS_STORED);
  let { gets, bytes } = start;
  for (const g of start.gaps) {
    if (bytes + g > maxBytes) break;
    gets--;
    bytes += g;
  }
  return { gets, bytes };
}

/**
 * The queries' figures at the fewest GETs within `maxBytes` each (leastGetsWithin), the record chunks as objects (the
 * packs as written) and, with `records`, placed in the packs too.
 */
export function leastFigures(
  site: string,
  v: string,
  perQuery: readonly ColdQueryReads[],
  maxBytes: number,
  records: boolean,
): PackedFigures {
  const { placed } = packLayout(site, v, AS_STORED, records);
  const names = perQuery.map((q) => q.query);
  return {
    ...figures(
      0,
      undefined,
      false,
      names,
      perQuery.map((q) => leastGetsWithin(q, placed, maxBytes)),
    ),
    within: { maxBytes, records },
  };
}

/**
 * One query's GETs and bytes with its cell reads asked as the shim asks a round's pack ranges (block-packs.ts packRuns):
 * ranges at most PACK_GAP_BYTES apart one GET, the GETs left joined across their smallest gaps within `budget` bytes a
 * round. The objects in no pack are one GET each, at their stored size.
 */
export function joinedReads(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  budget: number,
): { gets: number; bytes: number } {
  const size = new Map(q.reads.map((r) => [r.key, r.bytes]));
  let gets = 0;
  let bytes = 0;
  for (const round of q.allRounds ?? q.rounds) {
    const { loose, spans } = roundReads(round, placed, size);
    gets += loose.gets;
    bytes += loose.bytes;
    for (const run of packRuns(spans, PACK_GAP_BYTES, budget)) {
      gets++;
      bytes += run.end - run.start;
    }
  }
  return { gets, bytes };
}

/** One round's objects in no pack (one GET each, at their stored size) and the pack spans of the others. */
function roundReads(
  round: readonly string[],
  placed: ReadonlyMap<string, Placed>,
  size: ReadonlyMap<string, number>,
): { loose: { gets: number; bytes: number }; spans: [string, PackSpan][] } {
  const loose = { gets: 0, bytes: 0 };
  const spans: [string, PackSpan][] = [];
  for (const key of new Set(round)) {
    const p = placed.get(key);
    if (p === undefined) {
      loose.gets++;
      loose.bytes += size.get(key) ?? 0;
    } else spans.push([key, { pack: p.pack, start: p.at, end: p.at + p.size }]);
  }
  return { loose, spans };
}

/**
 * The queries' figures with their blocks and shared pages read as the shim reads them, for each join budget of
 * `budgets`: the record chunks as objects (the packs as written), and, with `records`, placed in the packs too; with
 * `online`, under the query-aware join (onlineReads) on top of each budget.
 */
export function joinedFigures(
  site: string,
  v: string,
  perQuery: readonly ColdQueryReads[],
  budgets: readonly number[],
  records: boolean,
  online = false,
): PackedFigures[] {
  const { placed } = packLayout(site, v, AS_STORED, records);
  const names = perQuery.map((q) => q.query);
  return budgets.map((budget) => ({
    ...figures(
      PACK_GAP_BYTES,
      undefined,
      false,
      names,
      perQuery.map((q) => (online ? onlineReads(q, placed, budget) : joinedReads(q, placed, budget))),
    ),
    ...(online ? { online: { budget, records } } : { join: { budget, records } }),
  }));
}

/** What a query-aware join keeps for the rounds after the one it plans: GETs and bytes, at limit 10 and at limit 25. */
export interface JoinReserve {
  gets: { limit10: number; limit25: number };
  bytes: { limit10: number; limit25: number };
}

/**
 * The reserve the section 15 rows use, the shim's (block-packs.ts NARROW_RESERVE and WIDE_RESERVE): 3 GETs and 128 KiB
 * at limit 10, 6 and 192 KiB at limit 25.
 */
export const ONLINE_RESERVE: JoinReserve = {
  gets: { limit10: NARROW_RESERVE.requests, limit25: WIDE_RESERVE.requests },
  bytes: { limit10: NARROW_RESERVE.bytes, limit25: WIDE_RESERVE.bytes },
};

/** Bytes a query-aware join leaves unread below 1 MiB, for what a reader cannot foresee (the shim's). */
export const ONLINE_MARGIN_BYTES = QUERY_MARGIN_BYTES;

/**
 * One query's GETs and bytes under the query-aware join the shim makes (block-packs.ts packRuns with a PackFit): each
 * round's pack ranges are asked as packRuns asks them within `budget`, then, while the query's GETs so far, the round's
 * own and the `reserve` kept for the rounds after it exceed FIT_GETS, the round's smallest gaps left are joined, as
 * long as the query's bytes so far and the round's stay within 1 MiB less ONLINE_MARGIN_BYTES and the reserve's bytes.
 * It knows what it has read and what this round asks, never a later round's ranges; the last round keeps no reserve.
 * A query at limit 25 (its name says so) keeps the larger reserve. Unlike the shim, it knows the bytes of the round's
 * objects read whole before their reads end.
 */
export function onlineReads(
  q: ColdQueryReads,
  placed: ReadonlyMap<string, Placed>,
  budget: number,
  reserve: JoinReserve = ONLINE_RESERVE,
): { gets: number; bytes: number } {
  const size = new Map(q.reads.map((r) => [r.key, r.bytes]));
  const wide = q.query.includes('limit 25');
  const rounds = q.allRounds ?? q.rounds;
  let gets = 0;
  let bytes = 0;
  rounds.forEach((round, k) => {
    const { loose, spans } = roundReads(round, placed, size);
    gets += loose.gets;
    bytes += loose.bytes;
    const last = k === rounds.length - 1;
    const fit = {
      requestsSoFar: gets - loose.gets,
      bytesSoFar: bytes,
      looseRequests: loose.gets,
      reserveRequests: last ? 0 : wide ? reserve.gets.limit25 : reserve.gets.limit10,
      reserveBytes: last ? 0 : wide ? reserve.bytes.limit25 : reserve.bytes.limit10,
    };
    const runs = packRuns(spans, PACK_GAP_BYTES, budget, fit);
    const read = runs.reduce((n, r) => n + r.end - r.start, 0);
    gets += runs.length;
    bytes += read;
  });
  return { gets, bytes };
}

/** GETs and bytes (median, max) over a set of queries, how many exceed 20 GETs and 1 MiB, and the worst by each. */
export interface PackedFigures {
  /** Bytes two ranges may lie apart and be one GET; null for the objects as published (one GET each) or a fitted plan. */
  gap: number | null;
  /** The GETs a fitted plan (fittedReads) was allowed; absent for the other rows. */
  fitGets?: number;
  /** The cell tree's objects at their estimated binary size (codedSize) rather than as stored. */
  coded: boolean;
  /** For a row of joinedFigures: the join budget a round (bytes), and whether the record chunks were in the packs. */
  join?: { budget: number; records: boolean };
  /** For a row of leastFigures: the bytes each query may read, and whether the record chunks were in the packs. */
  within?: { maxBytes: number; records: boolean };
  /** For a row of joinedFigures with `online`: the shim's join budget under it, and whether the record chunks were in the packs. */
  online?: { budget: number; records: boolean };
  gets: { median: number; max: number; query: string };
  bytes: { median: number; max: number; query: string };
  overGets: number;
  overBytes: number;
  queries: number;
}

/** The figures of one row: GETs and bytes per query (`per`, in the order of `queries`). */
export function figures(
  gap: number | null,
  fitGets: number | undefined,
  coded: boolean,
  queries: readonly string[],
  per: readonly { gets: number; bytes: number }[],
): PackedFigures {
  const gets = per.map((p) => p.gets);
  const bytes = per.map((p) => p.bytes);
  const at = (xs: number[]): number => xs.indexOf(Math.max(...xs));
  return {
    gap,
    ...(fitGets !== undefined ? { fitGets } : {}),
    coded,
    gets: { median: median(gets), max: Math.max(...gets), query: queries[at(gets)] ?? '' },
    bytes: { median: median(bytes), max: Math.max(...bytes), query: queries[at(bytes)] ?? '' },
    overGets: gets.filter((n) => n > 20).length,
    overBytes: bytes.filter((n) => n > 1024 * 1024).length,
    queries: per.length,
  };
}

/**
 * The queries' figures as published, packed with each of `gaps`, then packed with a plan fitted to FIT_GETS; with
 * `coded`, the cell tree's objects coded.
 */
export function packedFigures(
  site: string,
  v: string,
  perQuery: readonly ColdQueryReads[],
  gaps: readonly number[] = PACK_GAPS,
  coded = false,
): PackedFigures[] {
  const sizeOf = sizer(site, coded);
  const { placed, blocks } = packLayout(site, v, sizeOf);
  const names = perQuery.map((q) => q.query);
  const asIs = perQuery.map((q) => ({
    gets: q.reads.length,
    bytes: q.reads.reduce((n, r) => n + sizeOf(r.key, r.bytes), 0),
  }));
  return [
    figures(null, undefined, coded, names, asIs),
    ...gaps.map((gap) =>
      figures(
        gap,
        undefined,
        coded,
        names,
        perQuery.map((q) => packedReads(q, placed, gap, blocks * INDEX_BYTES_PER_BLOCK, sizeOf)),
      ),
    ),
    figures(
      null,
      FIT_GETS,
      coded,
      names,
      perQuery.map((q) => fittedReads(q, placed, FIT_GETS, blocks * INDEX_BYTES_PER_BLOCK, sizeOf)),
    ),
  ];
}

/** How a row of figures read the cell objects: "objects", "packs, gap 16.0 KiB", "packs, smallest gaps merged to 20 GETs". */
export function readAs(f: PackedFigures): string {
  if (f.online !== undefined)
    return `packs${f.online.records ? ' with the record chunks' : ''}, joined within ${fmtBytes(f.online.budget)} a round, then query-aware to ${FIT_GETS} GETs (reserve ${ONLINE_RESERVE.gets.limit10} / ${ONLINE_RESERVE.gets.limit25} GETs, ${fmtBytes(ONLINE_RESERVE.bytes.limit10)} / ${fmtBytes(ONLINE_RESERVE.bytes.limit25)} at limit 10 / 25)`;
  if (f.within !== undefined)
    return `packs${f.within.records ? ' with the record chunks' : ''}, the fewest GETs within ${fmtBytes(f.within.maxBytes)} a query`;
  if (f.join !== undefined)
    return `packs${f.join.records ? ' with the record chunks' : ''}, gap ${fmtBytes(f.gap ?? 0)}, joined within ${fmtBytes(f.join.budget)} a round`;
  if (f.fitGets !== undefined) return `packs, smallest gaps merged to ${f.fitGets} GETs`;
  return f.gap === null ? 'objects' : `packs, gap ${fmtBytes(f.gap)}`;
}
