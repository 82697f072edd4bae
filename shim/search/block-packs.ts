/**
 * Where a search's blocks, shared pages and (from cell schema 9) record chunks lie in their groups' packs
 * (format/pack-layout.ts), and how the objects of one round are read from the packs: ranges of one pack at most
 * PACK_GAP_BYTES apart are one request (the gap is read and dropped), then the runs left are joined across their
 * smallest gaps first while the round's joined gaps stay within PACK_JOIN_BUDGET_BYTES, so a cold search that needs
 * many objects of a group asks for a few ranges and reads a bounded amount it drops. Under a PackFit (a query-aware
 * join) a round that would take the request over QUERY_MAX_REQUESTS joins more of its gaps, within QUERY_MAX_BYTES.
 */
import type { CellGroupT, CellIndexT } from '../format/cell-format.ts';
import { blockRecordsAt, packEntries, recordEntries } from '../format/pack-layout.ts';
import { keys } from '../format/site-format.ts';

/** Bytes two blocks of one pack may lie apart and still be read with one range request (BENCHMARKS.md section 3). */
export const PACK_GAP_BYTES = 16 * 1024;

/**
 * Bytes of gaps wider than PACK_GAP_BYTES one round may read and drop to join its runs into fewer requests (BENCHMARKS.md
 * sections 3 and 15: at 1,000,000 offices, with a fine cell's offices in res-15 order, 96 KiB takes the cold queries
 * over 20 requests from 40 to 26 of 737 and the most from 26 to 25, every query within 1 MiB decoded (960.8 KiB at
 * most); 128 KiB took one query over 1 MiB).
 */
export const PACK_JOIN_BUDGET_BYTES = 96 * 1024;

/** Store requests a cold query may make after the pointer (current.json): the cold target. */
export const QUERY_MAX_REQUESTS = 20;

/** Bytes a cold query may read after the pointer: the cold target. */
export const QUERY_MAX_BYTES = 1024 * 1024;

/** Bytes a query-aware join leaves unread below QUERY_MAX_BYTES, for reads it cannot foresee (whole objects in flight). */
export const QUERY_MARGIN_BYTES = 16 * 1024;

/** What a round of a search keeps for the rounds after it: store requests and bytes. */
export interface RoundReserve {
  /** Store requests kept for the later rounds. */
  requests: number;
  /** Bytes kept for the later rounds. */
  bytes: number;
}

/** The largest limit (firms asked) whose search keeps NARROW_RESERVE; a search at a larger one keeps WIDE_RESERVE. */
export const NARROW_LIMIT = 10;

/**
 * The reserve of a search at limit NARROW_LIMIT or less: 3 requests and 128 KiB (BENCHMARKS.md section 15, measured
 * with `pack-sim --online`, which replays this rule).
 */
export const NARROW_RESERVE: Readonly<RoundReserve> = { requests: 3, bytes: 128 * 1024 };

/** The reserve of a search at a larger limit (up to 25): 6 requests and 192 KiB (section 15, as NARROW_RESERVE). */
export const WIDE_RESERVE: Readonly<RoundReserve> = { requests: 6, bytes: 192 * 1024 };

/**
 * One round of a search's reads: the last (no round of the search follows it), or one followed by others, of a search
 * asking for `limit` firms.
 */
export type SearchRound = { last: true } | { last: false; limit: number };

/** The reserve `round` keeps for the rounds after it: none for the last, else by the search's limit. */
export function roundReserve(round: SearchRound): RoundReserve {
  if (round.last) return { requests: 0, bytes: 0 };
  return { ...(round.limit <= NARROW_LIMIT ? NARROW_RESERVE : WIDE_RESERVE) };
}

/**
 * What a query-aware join knows of the request a round belongs to. With it, packRuns joins more of the round's gaps
 * when `requestsSoFar + looseRequests + runs + reserveRequests` exceeds QUERY_MAX_REQUESTS.
 */
export interface PackFit {
  /** Store requests the request made before this round (started, finished or not). */
  requestsSoFar: number;
  /** Bytes the request has read before this round (including ranges asked and not yet in). */
  bytesSoFar: number;
  /** Store requests of this round besides its pack ranges (objects read whole). */
  looseRequests: number;
  /** Store requests kept for the rounds after this one (0 for the last). */
  reserveRequests: number;
  /** Bytes kept for the rounds after this one (0 for the last). */
  reserveBytes: number;
}

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
  // A group whose lengths do not give every block has none read from its pack: they are read whole.
  for (const group of Object.keys(index.block_bytes ?? {}))
    for (const e of packEntries(index, group) ?? []) spans.set(e.cell, [group, e.start, e.end]);
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

/** The pack spans of the shared pages `cells` of group tree `tree` of version `v` that lie in its pack, by store key. */
export function pageSpans(
  index: CellIndexT,
  v: string,
  tree: CellGroupT,
  cells: readonly string[],
): Map<string, PackSpan> {
  const out = new Map<string, PackSpan>();
  const wanted = new Set(cells);
  const pack = keys.cellPack(v, tree.cell);
  for (const e of packEntries(index, tree.cell, Object.keys(tree.shared_sha256)) ?? [])
    if (e.kind === 'shared' && wanted.has(e.cell))
      out.set(keys.cellShared(v, e.cell, index.schema_version), { pack, start: e.start, end: e.end });
  return out;
}

/** Where each block's record chunks start in its group's pack (pack-layout.ts blockRecordsAt), once per parsed tree. */
const recordsAtOf = new WeakMap<CellGroupT, Map<string, number> | null>();

/**
 * The pack span of record chunk `chunk` of `block` (its cell and its chunks' lengths, as the block gives them) of group
 * tree `tree` in version `v`, or null when the chunk lies in no pack (a schema before 9, or lengths missing).
 */
export function recordSpan(
  index: CellIndexT,
  v: string,
  tree: CellGroupT,
  block: { cell: string; recordBytes: readonly number[] },
  chunk: number,
): PackSpan | null {
  let starts = recordsAtOf.get(tree);
  if (starts === undefined) recordsAtOf.set(tree, (starts = blockRecordsAt(index, tree)));
  const at = starts?.get(block.cell);
  const entry = at === undefined ? undefined : recordEntries(block.cell, at, block.recordBytes)[chunk];
  return entry === undefined ? null : { pack: keys.cellPack(v, tree.cell), start: entry.start, end: entry.end };
}

/**
 * `spans` (object key -> span) as range requests: per pack in offset order, those at most `gap` bytes apart merged;
 * then runs of one pack joined across the smallest gaps between them first, as long as the gaps joined sum to at most
 * `budget` bytes; then, given `fit`, fitRuns. Pure: the runs depend on the arguments alone.
 */
export function packRuns(
  spans: Iterable<[string, PackSpan]>,
  gap = PACK_GAP_BYTES,
  budget = PACK_JOIN_BUDGET_BYTES,
  fit?: PackFit,
): PackRun[] {
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
  const joined = joinRuns(runs, budget);
  return fit === undefined ? joined : fitRuns(joined, fit);
}

/**
 * `runs` (non-overlapping, in pack and offset order, as packRuns makes them) with more of their gaps joined, the query-
 * aware join: while the request's requests (`fit.requestsSoFar`, `fit.looseRequests`, the runs left and
 * `fit.reserveRequests`) exceed QUERY_MAX_REQUESTS, the smallest gap left between two runs of one pack (ties to the
 * earlier) is joined, as long as the request's bytes (`fit.bytesSoFar` and the runs' bytes, gaps joined included) stay
 * within QUERY_MAX_BYTES less QUERY_MARGIN_BYTES and `fit.reserveBytes`. The runs as they are when the requests fit
 * already. Pure; returns new runs where it joins (the runs given are not changed).
 */
export function fitRuns(runs: readonly PackRun[], fit: PackFit): PackRun[] {
  const cap = QUERY_MAX_BYTES - QUERY_MARGIN_BYTES - fit.reserveBytes;
  let requests = fit.requestsSoFar + fit.looseRequests + runs.length + fit.reserveRequests;
  if (requests <= QUERY_MAX_REQUESTS) return [...runs];
  let bytes = fit.bytesSoFar + runs.reduce((n, r) => n + r.end - r.start, 0);
  const join = new Set<number>();
  // Joining two runs leaves the other gaps as they were, so the smallest gap left is the next of them in size order.
  for (const [gap, i] of sameGaps(runs)) {
    if (requests <= QUERY_MAX_REQUESTS || bytes + gap > cap) break;
    bytes += gap;
    requests--;
    join.add(i);
  }
  return joined(runs, join);
}

/** The gaps between neighbouring runs of one pack as [bytes, i] (between runs i - 1 and i), smallest first, ties by i. */
function sameGaps(runs: readonly PackRun[]): [number, number][] {
  // Ties go to the earlier gap, so the choice depends on the spans alone.
  const gaps: [number, number][] = [];
  for (let i = 1; i < runs.length; i++) {
    const a = runs[i - 1] as PackRun;
    const b = runs[i] as PackRun;
    if (a.pack === b.pack) gaps.push([b.start - a.end, i]);
  }
  return gaps.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
}

/** `runs` (in pack and offset order) with the smallest gaps between runs of one pack joined first, within `budget` bytes. */
function joinRuns(runs: PackRun[], budget: number): PackRun[] {
  const join = new Set<number>();
  let spent = 0;
  for (const [bytes, i] of sameGaps(runs)) {
    if (spent + bytes > budget) break;
    spent += bytes;
    join.add(i);
  }
  return joined(runs, join);
}

/** `runs` with each run i of `join` joined to the one before it (new runs where joined; the others as they are). */
function joined(runs: readonly PackRun[], join: ReadonlySet<number>): PackRun[] {
  if (join.size === 0) return [...runs];
  const out: PackRun[] = [];
  runs.forEach((run, i) => {
    const last = out.at(-1);
    if (last !== undefined && join.has(i))
      out[out.length - 1] = { ...last, end: Math.max(last.end, run.end), spans: [...last.spans, ...run.spans] };
    else out.push(run);
  });
  return out;
}
