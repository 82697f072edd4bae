/**
 * The cold query sets' reads in the fine packed layout (fine-layout.ts): which leaf segments, block shared segments and
 * record chunks each query needs, recomputed from the published data rather than taken from the search, then merged as
 * packed-ranges.ts `fittedReads` merges (smallest gaps first, per round as the real reads were made, until at most 20
 * GETs). The rule, the search's (docs/SITE-FORMAT.md "Answering a query"), from the group trees the query read, the
 * circle and the answer: a leaf whose circle test is undecided (d - reach <= R < d + reach, d from the point to the
 * cell's H3 centre) is read; a row with d + reach <= R is an inside top, whose block's shared segment is read when it
 * lies below block level; an inside leaf is read when it and every row above it up to its inside top have least
 * distance max(0, d - reach) <= B. B is what a reader knows from the trees alone, before any office (plannedBound): the
 * distance within which the inside leaves taken by least distance hold `limit` homed units. It is never less than D,
 * the distance of the `limit`-th nearest firm among the offices of the inside leaves (insideBound, by brute force),
 * which is at least the last firm shown's and is where the search's nearest-first walk stops: so the leaves read are
 * those the walk visits and those a one-round plan cannot rule out. The records of the firms shown are read. Where
 * the real reads and this
 * disagree, the estimate never flatters: a block the search read and the rule does not touch is read whole (all its
 * segments), a record chunk read with no firm shown from it is read whole (all its records), and a segment the rule
 * needs from a block the search did not read is read in the round of the group trees.
 */
import { haversineMiles } from '../../shim/search/geo.ts';
import { LIMIT } from '../../shim/contract/constants.ts';
import { kindOf, type ColdAnswer, type ColdQueryReads } from './cold.ts';
import { fineKey, type FineLayout, type FineSite, type Tree } from './fine-layout.ts';
import { FIT_GETS, figures, fittedReads, packedReads, sizer, type PackedFigures } from './packed-ranges.ts';

/** A row of a group tree: [group cell, row]. */
export type Row = [string, number];

/** Miles from the point to row i's cell centre. */
function centreMiles(t: Tree, i: number, lat: number, lng: number): number {
  return haversineMiles(lat, lng, t.lat[i] ?? 0, t.lng[i] ?? 0);
}

/** Least possible distance (miles) from the point to an office of row i. */
export function leastMiles(t: Tree, i: number, lat: number, lng: number): number {
  return Math.max(0, centreMiles(t, i, lat, lng) - (t.group.rows.reach[i] ?? 0));
}

/** A tree walked from its group cell: the rows wholly inside the circle (inside tops) and the leaves crossing its edge. */
export function classify(t: Tree, lat: number, lng: number, R: number): { inside: number[]; edge: number[] } {
  const inside: number[] = [];
  const edge: number[] = [];
  const stack = [0];
  while (stack.length > 0) {
    const i = stack.pop() ?? 0;
    const d = centreMiles(t, i, lat, lng);
    const reach = t.group.rows.reach[i] ?? 0;
    if (d - reach > R) continue;
    if (d + reach <= R) inside.push(i);
    else if ((t.kids[i] ?? []).length === 0) edge.push(i);
    else stack.push(...(t.kids[i] ?? []));
  }
  return { inside, edge };
}

/** The leaves below `tops` reached through rows whose least distance is at most `bound` miles. */
export function leavesWithin(t: Tree, tops: readonly number[], lat: number, lng: number, bound: number): number[] {
  const out: number[] = [];
  const stack = [...tops];
  while (stack.length > 0) {
    const i = stack.pop() ?? 0;
    if (leastMiles(t, i, lat, lng) > bound) continue;
    const kids = t.kids[i] ?? [];
    if (kids.length === 0) out.push(i);
    else stack.push(...kids);
  }
  return out;
}

/** The offices of leaf row i: its block's cell and positions [start, end). */
function officesOf(t: Tree, i: number): { block: string; start: number; end: number } {
  const rows = t.group.rows;
  const start = rows.at[i] ?? 0;
  return { block: rows.cell[rows.block[i] ?? -1] ?? '', start, end: start + (rows.n[i] ?? 0) };
}

/** The limit-th smallest of the values, Infinity when there are fewer. */
function kth(values: Iterable<number>, limit: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[limit - 1] ?? Infinity;
}

/** Every leaf below the inside tops, with its tree and least distance, nearest first. */
function insideLeaves(site: FineSite, inside: readonly Row[], lat: number, lng: number) {
  const leaves = inside.flatMap(([g, i]) => {
    const t = site.tree(g);
    return leavesWithin(t, [i], lat, lng, Infinity).map((l) => ({ t, l, least: leastMiles(t, l, lat, lng) }));
  });
  return leaves.sort((a, b) => a.least - b.least);
}

/**
 * Miles to the `limit`-th nearest firm (unit) among the offices of the inside leaves, by brute force over those leaves
 * by least distance, stopping once the next leaf's least distance exceeds it.
 */
export function insideBound(site: FineSite, inside: readonly Row[], lat: number, lng: number, limit: number): number {
  const leaves = insideLeaves(site, inside, lat, lng);
  const best = new Map<number, number>();
  let bound = Infinity;
  for (const { t, l, least } of leaves) {
    if (least > bound) break;
    const { block, start, end } = officesOf(t, l);
    const o = site.offices(block);
    for (let p = start; p < end; p++) {
      const d = haversineMiles(lat, lng, o.lat[p] ?? 0, o.lng[p] ?? 0);
      const u = o.unit[p] ?? 0;
      if (d < (best.get(u) ?? Infinity)) best.set(u, d);
    }
    if (best.size >= limit) bound = kth(best.values(), limit);
  }
  return bound;
}

/**
 * Miles within which the inside leaves hold `limit` homed units, taking leaves by least distance until one lies past
 * it (Infinity when they hold fewer): units homed in a leaf are distinct firms with every office within d + reach.
 */
export function plannedBound(site: FineSite, inside: readonly Row[], lat: number, lng: number, limit: number): number {
  const leaves = insideLeaves(site, inside, lat, lng);
  const far: [number, number][] = [];
  let bound = Infinity;
  for (const { t, l, least } of leaves) {
    if (least > bound) break;
    const units = t.group.rows.units[l] ?? 0;
    if (units === 0) continue;
    far.push([centreMiles(t, l, lat, lng) + (t.group.rows.reach[l] ?? 0), units]);
    far.sort((a, b) => a[0] - b[0]);
    let held = 0;
    for (const [d, n] of far)
      if ((held += n) >= limit) {
        bound = Math.min(bound, d);
        break;
      }
  }
  return bound;
}

/** The segments one answer needs from the trees of `groups` (the rule of the module comment), by block key. */
export function neededSegments(
  site: FineSite,
  groups: readonly string[],
  a: ColdAnswer,
  limit: number,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const need = (t: Tree, b: number, key: (blockKey: string) => string): void => {
    const bkey = `v/${site.v}/cells/blocks/${t.group.rows.cell[b] ?? ''}.pb`;
    out.set(bkey, (out.get(bkey) ?? new Set()).add(key(bkey)));
  };
  const inside: Row[] = [];
  for (const g of groups) {
    const t = site.tree(g);
    const c = classify(t, a.lat, a.lng, a.radius);
    for (const i of c.edge) need(t, t.group.rows.block[i] ?? -1, (k) => fineKey.leaf(k, i));
    for (const i of c.inside) {
      const b = t.group.rows.block[i] ?? -1;
      if (b >= 0 && b !== i) need(t, b, fineKey.shared);
      inside.push([g, i]);
    }
  }
  const walk = insideBound(site, inside, a.lat, a.lng, limit);
  const bound = Math.max(walk, plannedBound(site, inside, a.lat, a.lng, limit)) + 1e-9;
  for (const [g, top] of inside) {
    const t = site.tree(g);
    for (const l of leavesWithin(t, [top], a.lat, a.lng, bound))
      need(t, t.group.rows.block[l] ?? -1, (k) => fineKey.leaf(k, l));
  }
  return out;
}

/** Block cell and chunk of a stored record chunk's key. */
function chunkOf(key: string): [string, number] {
  const m = /cells\/records\/([0-9a-f]+)\/(\d+)\.json$/.exec(key);
  return [m?.[1] ?? '', Number(m?.[2])];
}

/** What a query reads in the fine layout, and where the rule and the real reads disagreed. */
export interface FineQuery {
  reads: ColdQueryReads;
  /** Blocks read whole (the search read them, the rule needs none of their segments). */
  wholeBlocks: number;
  /** Record chunks read whole (no firm shown from them). */
  wholeChunks: number;
  /** Segments the rule needs from blocks the search did not read. */
  unread: number;
  /** Firms shown whose office lies in no leaf segment the rule reads (a check of the rule: 0 expected). */
  missed: number;
}

/** What to do with a block the search read and the rule needs nothing of: read it whole, or leave it out. */
export type Untouched = 'whole' | 'skip';

/**
 * The fine layout's keys for a stored record chunk read: the chunks of `c` holding the firms shown from it, else (none
 * shown: a search whose answer was not kept) every chunk of `c` of its positions; and whether it held a firm shown.
 */
function recordKeys(site: FineSite, layout: FineLayout, key: string, shown: ReadonlySet<string>): [string[], number[]] {
  const [block, k] = chunkOf(key);
  const stored = site.index.record_chunk;
  const ids = site.records(block).listingIds;
  const all: number[] = [];
  for (let p = k * stored; p < Math.min(ids.length, (k + 1) * stored); p++) all.push(p);
  const at = all.filter((p) => shown.has(ids[p] ?? ''));
  const js = new Set((at.length > 0 ? at : all).map((p) => Math.floor(p / layout.c)));
  return [[...js].map((j) => fineKey.records(site.v, block, layout.c, j)), at];
}

/** Whether the segments `segs` of block `bkey` hold block position `pos` in one of their leaves. */
function holds(layout: FineLayout, bkey: string, segs: ReadonlySet<string> | undefined, pos: number): boolean {
  const leaves = layout.leaves.get(bkey) ?? [];
  return leaves.some(([row, s, e]) => s <= pos && pos < e && segs?.has(fineKey.leaf(bkey, row)) === true);
}

/** One query's reads in the fine layout: its block and record reads replaced by the ranges the rule needs. */
export function fineQuery(
  site: FineSite,
  layout: FineLayout,
  q: ColdQueryReads,
  untouched: Untouched = 'whole',
  limit = LIMIT.default,
): FineQuery {
  const rounds = q.allRounds ?? q.rounds;
  const groupKeys = q.reads.filter((r) => kindOf(r.key) === 'cell group').map((r) => r.key);
  const groups = groupKeys.map((k) => /groups\/([0-9a-f]+)\./.exec(k)?.[1] ?? '');
  const needed =
    q.answer !== undefined
      ? neededSegments(site, groups, q.answer, q.answer.limit ?? limit)
      : new Map<string, Set<string>>();
  const shown = new Set(q.answer?.shown ?? []);
  const out: FineQuery = { reads: q, wholeBlocks: 0, wholeChunks: 0, unread: 0, missed: 0 };
  const readBlocks = new Set(q.reads.filter((r) => kindOf(r.key) === 'cell block').map((r) => r.key));
  const newRounds = rounds.map((round) =>
    round.flatMap((key) => {
      if (kindOf(key) === 'cell block') {
        const segs = needed.get(key);
        if (segs !== undefined) return [...segs];
        out.wholeBlocks++;
        return untouched === 'whole' ? (layout.segments.get(key) ?? []) : [];
      }
      if (kindOf(key) !== 'cell records') return [key];
      const [keys, at] = recordKeys(site, layout, key, shown);
      if (at.length === 0) out.wholeChunks++;
      const bkey = `v/${site.v}/cells/blocks/${chunkOf(key)[0]}.pb`;
      out.missed += at.filter((p) => !holds(layout, bkey, needed.get(bkey), p)).length;
      return keys;
    }),
  );
  const unread = [...needed].filter(([b]) => !readBlocks.has(b)).flatMap(([, segs]) => [...segs]);
  out.unread = unread.length;
  const treeRound = newRounds.find((r) => r.some((k) => kindOf(k) === 'cell group'));
  treeRound?.push(...unread);
  const reads = q.reads
    .filter((r) => !['cell block', 'cell records'].includes(kindOf(r.key)))
    .map((r) => ({ ...r, bytes: r.bytes + (layout.treeGrowth.get(r.key) ?? 0) }));
  out.reads = { query: q.query, reads, rounds: newRounds, allRounds: newRounds };
  return out;
}

/**
 * `q` as a reader would make it if the documents behind the hashes/ documents carried their own proofs (a Merkle path
 * to a root per family in meta.json): no GET for a hashes/ document, its bytes charged to meta.json (more than a proof
 * of a few hundred bytes costs, so the estimate never flatters); and the cell index `indexGrowth` bytes larger (the
 * leaf segments' lengths and roots a reader would need there to plan them without a fourth round), charged to
 * meta.json where it carries the index (no cells/index.json read).
 */
export function withProofs(q: ColdQueryReads, indexGrowth = 0): ColdQueryReads {
  const hashDoc = (key: string): boolean => kindOf(key).startsWith('hash document');
  const moved = q.reads.filter((r) => hashDoc(r.key)).reduce((n, r) => n + r.bytes, 0);
  const carried = !q.reads.some((r) => kindOf(r.key) === 'cell index');
  const reads = q.reads
    .filter((r) => !hashDoc(r.key))
    .map((r) => {
      if (kindOf(r.key) === 'meta.json') return { ...r, bytes: r.bytes + moved + (carried ? indexGrowth : 0) };
      if (kindOf(r.key) === 'cell index') return { ...r, bytes: r.bytes + indexGrowth };
      return r;
    });
  const rounds = (q.allRounds ?? q.rounds).map((round) => round.filter((k) => !hashDoc(k)));
  return { ...q, reads, rounds, allRounds: rounds };
}

/** The `n` queries reading the most bytes, heaviest first. */
function heaviest(names: readonly string[], per: readonly { gets: number; bytes: number }[], n = 5): Heavy[] {
  return per
    .map((p, i) => ({ query: names[i] ?? '', ...p }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, n);
}

/** One query's GETs and bytes. */
export interface Heavy {
  query: string;
  gets: number;
  bytes: number;
}

/**
 * Figures of the fine layout over the queries, packed with gap 0 and fitted to FIT_GETS, each with its heaviest
 * queries; and the disagreements between the rule and the real reads.
 */
export function fineFigures(
  site: FineSite,
  layout: FineLayout,
  perQuery: readonly ColdQueryReads[],
  untouched: Untouched = 'whole',
  coded = false,
  adjust: (q: ColdQueryReads) => ColdQueryReads = (q) => q,
): {
  rows: { figures: PackedFigures; heaviest: Heavy[] }[];
  wholeBlocks: number;
  wholeChunks: number;
  unread: number;
  missed: number;
} {
  const sizeOf = sizer(site.dir, coded);
  const fine = perQuery.map((q) => fineQuery(site, layout, q, untouched));
  // The cell index coded as packed-ranges.ts `codedSize` estimates (the binary cell objects are coded already).
  for (const f of fine) {
    f.reads = adjust({ ...f.reads, reads: f.reads.reads.map((r) => ({ ...r, bytes: sizeOf(r.key, r.bytes) })) });
  }
  const names = perQuery.map((q) => q.query);
  const sum = (f: (x: FineQuery) => number): number => fine.reduce((n, x) => n + f(x), 0);
  const gap0 = fine.map((f) => packedReads(f.reads, layout.placed, 0, 0));
  const fitted = fine.map((f) => fittedReads(f.reads, layout.placed, FIT_GETS, 0));
  return {
    rows: [
      { figures: figures(0, undefined, coded, names, gap0), heaviest: heaviest(names, gap0) },
      { figures: figures(null, FIT_GETS, coded, names, fitted), heaviest: heaviest(names, fitted) },
    ],
    wholeBlocks: sum((f) => f.wholeBlocks),
    wholeChunks: sum((f) => f.wholeChunks),
    unread: sum((f) => f.unread),
    missed: sum((f) => f.missed),
  };
}
