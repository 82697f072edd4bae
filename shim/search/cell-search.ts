/**
 * Radius search over the cell tree (cell-format.ts). Cells wholly inside the circle add their precomputed unit counts
 * and the units they share with other cells; cells crossing the edge are checked office by office; the `limit` nearest
 * firms are found visiting cells nearest first and stopping when no unseen cell can beat the last kept firm.
 * Exact: the count equals a brute-force count of distinct firms with an office within the radius, because a circle of
 * radius R with 2R < unit_miles holds offices of at most one unit per firm (units are found only by their numbers).
 *
 * cellSearch runs the phases of docs/SITE-FORMAT.md "Answering a query": openSearch (index, near groups and the blocks
 * planned from the index, block-plan.ts), classify (inside tops and edge leaves), insideReads and readBlock (the blocks
 * the walk may need, edge blocks), edgeWithin, nearestFirms, then the shared pages of the inside tops and the shown
 * firms' record chunks asked together (from cell schema 9 ranges of the same packs), read by readInsideLists (the count,
 * markInside and officesWithin) beside readShown (records). A cold search so waits for three round trips after the
 * index: trees and blocks, then records and shared lists together. Distances are in miles, positions in degrees.
 */
import FlatQueue from 'flatqueue';
import { cellToLatLng } from 'h3-js';
import {
  CellBlock,
  CellGroup,
  CellIndex,
  CellShared,
  sharedPage,
  type CellBlockT,
  type CellGroupT,
  type CellIndexT,
} from '../format/cell-format.ts';
import { checkStored, StoreError } from '../contract/errors.ts';
import { haversineMiles } from './geo.ts';
import { readRequired, type SiteReader } from './reader.ts';
import { keys, StoredOffice, type StoredOfficeT } from '../format/site-format.ts';
import { withSharedHours } from '../format/shared-hours.ts';
import { chordHav, chordMiles, UnitBits, havBounds, Nearest, unitVector, type Kept } from './search-scratch.ts';
import { sharedLists, type SharedLists } from './shared-lists.ts';
import { plannedBlocks } from './block-plan.ts';
import { packSpans, pageSpans, recordSpan, type PackSpan } from './block-packs.ts';
import { FIRST_RECORDS_IN_PACK_SCHEMA } from '../format/pack-layout.ts';
import { CellRecordChunk } from '../format/record-chunk.ts';
import { decodeCoords, decodeSteps } from '../format/block-coords.ts';

/** Most units a version may have (2^26, about 67 million): the search keeps a bitset of this many bits per query. */
export const MAX_UNITS = 2 ** 26;

/** One firm, by its nearest office within the radius. distanceMiles is exact (not rounded). */
export interface FirmHit {
  office: StoredOfficeT;
  distanceMiles: number;
  officesWithinRadius: number;
}

/** A group's tree as typed arrays (H3 centres, children, where each row's shared list is), built once per parsed group. */
interface Tree {
  group: CellGroupT;
  /** Unit vectors of the cells' H3 centres (x, y, z interleaved). */
  xyz: Float64Array;
  /** Reach of each row, miles. */
  reach: Float64Array;
  units: Int32Array;
  /** Children of row i: kids[first[i]] .. kids[first[i + 1] - 1]. */
  first: Int32Array;
  kids: Int32Array;
  block: Int32Array;
  /** For a row at or above block level, the number of its shared page in `pages` (-1 for the others). */
  page: Int32Array;
  /** For a row at or above block level, its position in its shared page (-1 for the others). */
  slot: Int32Array;
  /** The group's shared pages: each one's cell and rows, in row order (what its `row` column must say). */
  pages: { cell: string; rows: number[] }[];
  /** For a block row, how many rows lie below it (its block object's shared lists). */
  below: Int32Array;
}

/** A block's columns as typed arrays, with each office's unit vector for the distance test, built once per parsed block. */
export interface Columns {
  cell: string;
  listing: Int32Array;
  unit: Int32Array;
  /** Degrees. */
  lat: Float64Array;
  lng: Float64Array;
  /** Unit vectors on the sphere (x, y, z interleaved), for a chord-length test before any trigonometry. */
  xyz: Float64Array;
  maxUnit: number;
  /** The shared lists of the tree rows below the block's own, list j for row block + 1 + j. */
  below: SharedLists;
  /** The sha256 of record chunk k at position k. */
  records: readonly string[];
  /** The length of each record chunk as stored, bytes (schema 9; where they start in the pack is the group's). */
  recordBytes: readonly number[];
}

/** A tree row of one search: [position of its tree in Search.trees, row number]. */
type Row = [number, number];

/** What the phases of one search share: the version's index, the group trees near the circle, and the circle. */
interface Search {
  reader: SiteReader;
  index: CellIndexT;
  trees: Tree[];
  /** Rows are numbered tree position * stride + row where one number is needed (queues, maps). */
  stride: number;
  /** The query point, degrees. */
  lat: number;
  lng: number;
  /** Radius, miles. */
  R: number;
  /** Unit vector of the point. */
  p: Float64Array;
  /** Drops the planned block reads the search did not take (block-plan.ts). */
  release: () => void;
  /** Miles past which the nearest-firm walk visits no leaf, from the blocks wholly inside (block-plan.ts). */
  blockBound: number;
}

/** The shared list of an inside top: the lists holding it and its position there. */
type ListOf = (ti: number, i: number) => [SharedLists, number];

/** Edge offices within the radius, flat pairs [edge number, block position, ...]. */
type EdgeOffices = number[];

const trees = new WeakMap<CellGroupT, Tree>();
const columnsOf = new WeakMap<CellBlockT, Columns>();
const groupLists = new WeakMap<CellIndexT, ReturnType<typeof groupsOf>>();

/**
 * The typed-array form of a parsed group, its rows paged at `sharedRes` (cached by the parsed object). Exported for
 * test/helpers/cell-heap.ts, which measures what it holds.
 */
export function treeOf(group: CellGroupT, sharedRes: number): Tree {
  let t = trees.get(group);
  if (t !== undefined) return t;
  const rows = group.rows;
  const n = rows.cell.length;
  const xyz = new Float64Array(n * 3);
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const [a, b] = cellToLatLng(rows.cell[i] ?? '');
    unitVector(a, b, xyz, i * 3);
    const p = rows.parent[i] ?? -1;
    if (p >= 0) counts[p + 1] = (counts[p + 1] ?? 0) + 1;
  }
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) first[i + 1] = (first[i] ?? 0) + (counts[i + 1] ?? 0);
  const fill = first.slice(0, n);
  const kids = new Int32Array(Math.max(0, n - 1));
  for (let i = 0; i < n; i++) {
    const p = rows.parent[i] ?? -1;
    if (p >= 0) kids[(fill[p] = (fill[p] ?? 0) + 1) - 1] = i;
  }
  const block = Int32Array.from(rows.block);
  const page = new Int32Array(n).fill(-1);
  const slot = new Int32Array(n).fill(-1);
  const pages: Tree['pages'] = [];
  const pageAt = new Map<string, number>();
  const below = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const b = block[i] ?? -1;
    if (b < 0 || b === i) {
      const cell = sharedPage(rows.cell[i] ?? '', group.cell, sharedRes);
      let k = pageAt.get(cell);
      if (k === undefined) {
        pageAt.set(cell, (k = pages.length));
        pages.push({ cell, rows: [] });
      }
      const rowsOfPage = (pages[k] as Tree['pages'][number]).rows;
      page[i] = k;
      slot[i] = rowsOfPage.length;
      rowsOfPage.push(i);
    } else if (b < n) below[b] = (below[b] ?? 0) + 1;
  }
  t = {
    group,
    xyz,
    reach: Float64Array.from(rows.reach),
    units: Int32Array.from(rows.units),
    first,
    kids,
    block,
    page,
    slot,
    pages,
    below,
  };
  trees.set(group, t);
  return t;
}

/**
 * The typed-array form of a parsed block (cached by the parsed object); a store failure when its columns disagree.
 * Exported for test/helpers/cell-heap.ts, which measures what it holds.
 */
export function columns(block: CellBlockT, key: string): Columns {
  let c = columnsOf.get(block);
  if (c === undefined) {
    const coords = decodeCoords(block, block.listing.length);
    if (typeof coords === 'string') throw new StoreError(`${key}: ${coords}`, key);
    const unit = decodeSteps(block.dunit);
    if (typeof unit === 'string') throw new StoreError(`${key}: unit ${unit}`, key);
    if (unit.length !== block.listing.length) throw new StoreError(`${key}: columns of unequal length`, key);
    const { lat, lng } = coords;
    const xyz = new Float64Array(lat.length * 3);
    for (let p = 0; p < lat.length; p++) unitVector(lat[p] ?? 0, lng[p] ?? 0, xyz, p * 3);
    let maxUnit = -1;
    for (const f of unit) if (f > maxUnit) maxUnit = f;
    c = {
      cell: block.cell,
      listing: Int32Array.from(block.listing),
      unit,
      lat,
      lng,
      xyz,
      maxUnit,
      below: sharedLists(block.shared),
      records: block.records_sha256,
      recordBytes: block.records_bytes,
    };
    columnsOf.set(block, c);
  }
  return c;
}

/** A store failure unless a group, block or shared page is of its index's cell schema (the hashes alone allow a mix). */
function checkSchema(object: { schema_version: number }, index: CellIndexT, key: string): void {
  if (object.schema_version !== index.schema_version)
    throw new StoreError(
      `${key} is cells schema ${object.schema_version} in a tree of schema ${index.schema_version}`,
      key,
    );
}

/** A store failure unless every unit of `lists` is below the index's count and none is listed twice in one list. */
function checkLists(lists: SharedLists, units: number, key: string): void {
  if (lists.maxUnit >= units) throw new StoreError(`${key} names unit ${lists.maxUnit} of ${units}`, key);
  if (lists.repeated) throw new StoreError(`${key} has a shared-unit list out of unit order`, key);
}

/** The index's groups in cell order with their H3 centres (degrees) and reach (miles), built once per parsed index. */
function groupsOf(index: CellIndexT): { cells: string[]; lat: Float64Array; lng: Float64Array; reach: Float64Array } {
  let g = groupLists.get(index);
  if (g === undefined) {
    const cells = Object.keys(index.groups).sort();
    const lat = new Float64Array(cells.length);
    const lng = new Float64Array(cells.length);
    const reach = new Float64Array(cells.length);
    cells.forEach((cell, j) => {
      [lat[j], lng[j]] = cellToLatLng(cell);
      reach[j] = index.groups[cell]?.[1] ?? 0;
    });
    groupLists.set(index, (g = { cells, lat, lng, reach }));
  }
  return g;
}

/**
 * Starts reading the cell index of `reader`'s version, which every search reads first, so it shares a round with the
 * location's reads. meta.json carries it (`cell_index`), so nothing is read; a version generated before that reads
 * cells/index.json here, once its meta.json is in, one round trip later: a rollback's cost, where reading it beside
 * every meta.json would cost each cold query an object.
 */
export function prepareCellSearch(reader: SiteReader): void {
  reader.json(keys.cellIndex(reader.version), CellIndex).catch(() => undefined);
}

/**
 * Phase 1: the index and the group trees within radiusMiles + reach of (lat, lng) degrees, with the blocks the search
 * may read (block-plan.ts) asked beside the trees.
 */
async function openSearch(
  reader: SiteReader,
  lat: number,
  lng: number,
  radiusMiles: number,
  limit: number,
): Promise<Search> {
  const v = reader.version;
  const R = radiusMiles;
  const index = await readRequired(reader, keys.cellIndex(v), CellIndex);
  // The per-query bitset is sized by the unit count: a corrupt count must be a store failure, not an allocation error.
  if (index.units > MAX_UNITS)
    throw new StoreError(`${keys.cellIndex(v)} counts ${index.units} units, more than ${MAX_UNITS}`, keys.cellIndex(v));
  // Units count firms only while a circle cannot reach two units of one firm (the query bounds guarantee it for a
  // version written by this generator; anything else is a version this shim cannot answer from).
  if (2 * R >= index.unit_miles)
    throw new StoreError(
      `${keys.cellIndex(v)} splits firms into units ${index.unit_miles} miles apart, too close for a ${R}-mile radius`,
      keys.cellIndex(v),
    );
  const groups = groupsOf(index);
  const near = groups.cells.filter(
    (_, j) => haversineMiles(lat, lng, groups.lat[j] ?? 0, groups.lng[j] ?? 0) - (groups.reach[j] ?? 0) <= R,
  );
  const p = new Float64Array(3);
  unitVector(lat, lng, p, 0);
  const plan = plannedBlocks(index, near, p, R, limit);
  const release =
    reader.prefetch?.(
      plan.cells.map((cell) => keys.cellBlock(v, cell)),
      near.map((cell) => keys.cellGroup(v, cell, index.schema_version)),
      packSpans(index, v, plan.cells),
      { limit, last: false },
    ) ?? ((): void => undefined);
  const nearTrees = await Promise.all(
    near.map(async (cell) => {
      const key = keys.cellGroup(v, cell, index.schema_version);
      const group = await readRequired(
        reader,
        key,
        CellGroup,
        'is listed in the cell index but missing',
        index.group_sha256[cell],
      );
      if (group.cell !== cell) throw new StoreError(`${key} holds group ${group.cell}`, key);
      checkSchema(group, index, key);
      return treeOf(group, index.shared_res);
    }),
  ).catch((err: unknown) => {
    release();
    throw err;
  });
  return {
    reader,
    index,
    trees: nearTrees,
    stride: Math.max(1, ...nearTrees.map((t) => t.reach.length)),
    lat,
    lng,
    R,
    p,
    release,
    blockBound: plan.bound,
  };
}

/**
 * Phase 2: each tree walked from its group cell. Rows wholly inside the circle are inside tops (their subtrees not
 * walked, their units summed into `units`), leaves crossing its edge are edge rows, rows wholly outside are dropped.
 */
function classify(s: Search): { units: number; inside: Row[]; edges: Row[] } {
  let units = 0;
  const inside: Row[] = [];
  const edges: Row[] = [];
  const stack: number[] = [];
  for (const [ti, t] of s.trees.entries()) {
    stack.push(0);
    while (stack.length > 0) {
      const i = stack.pop() ?? 0;
      const d = chordMiles(chordHav(s.p, t.xyz, i));
      const reach = t.reach[i] ?? 0;
      if (d - reach > s.R) continue;
      if (d + reach <= s.R) {
        units += t.units[i] ?? 0;
        inside.push([ti, i]);
        continue;
      }
      const a = t.first[i] ?? 0;
      const b = t.first[i + 1] ?? 0;
      if (a === b) edges.push([ti, i]);
      for (let k = b - 1; k >= a; k--) stack.push(t.kids[k] ?? 0);
    }
  }
  return { units, inside, edges };
}

/** The block holding row i of tree t, checked against the group and the index (the reader caches it for later calls). */
async function readBlock(s: Search, t: Tree, i: number): Promise<Columns> {
  const v = s.reader.version;
  const b = t.block[i] ?? -1;
  const cell = t.group.rows.cell[b] ?? '';
  const key = keys.cellBlock(v, cell);
  if (b < 0)
    throw new StoreError(
      `${keys.cellGroup(v, t.group.cell, s.index.schema_version)} gives row ${t.group.rows.cell[i] ?? ''} no block`,
      key,
    );
  const block = await readRequired(
    s.reader,
    key,
    CellBlock,
    'is listed in its group but missing',
    t.group.block_sha256[cell],
  );
  checkSchema(block, s.index, key);
  const cols = columns(block, key);
  if (cols.cell !== cell) throw new StoreError(`${key} holds block ${cols.cell}`, key);
  if (cols.maxUnit >= s.index.units) throw new StoreError(`${key} names unit ${cols.maxUnit} of ${s.index.units}`, key);
  if (cols.below.at.length !== (t.below[b] ?? 0) + 1)
    throw new StoreError(`${key} does not hold one shared list per row below block ${cell}`, key);
  checkLists(cols.below, s.index.units, key);
  const lengths = s.index.schema_version >= FIRST_RECORDS_IN_PACK_SCHEMA ? cols.records.length : 0;
  if (cols.recordBytes.length !== lengths)
    throw new StoreError(`${key} gives ${cols.recordBytes.length} record chunk lengths for ${lengths} chunks`, key);
  return cols;
}

/** The shared lists of page k of tree t's rows at or above block level, read when one of its rows is wholly inside. */
async function readApart(s: Search, t: Tree, k: number): Promise<SharedLists> {
  const { cell, rows } = t.pages[k] as Tree['pages'][number];
  const key = keys.cellShared(s.reader.version, cell, s.index.schema_version);
  const sha256 = t.group.shared_sha256[cell];
  if (sha256 === undefined)
    throw new StoreError(`group ${t.group.cell} records no hash of its shared page ${cell}`, key);
  const apart = await readRequired(s.reader, key, CellShared, `is missing for a page of group ${t.group.cell}`, sha256);
  checkSchema(apart, s.index, key);
  if (apart.cell !== cell || apart.row.length !== rows.length || apart.row.some((r, j) => r !== rows[j])) {
    throw new StoreError(`${key} does not list the rows of its page of group ${t.group.cell}`, key);
  }
  const lists = sharedLists(apart.shared);
  if (lists.at.length !== rows.length + 1) throw new StoreError(`${key} does not hold one shared list per row`, key);
  checkLists(lists, s.index.units, key);
  return lists;
}

/** The reads of phase 3 a search starts once it has classified the rows: see insideReads. */
interface InsideReads {
  /** The shared pages of the inside tops at or above block level, by tree position * stride + page number. */
  pages: Map<number, [Tree, number]>;
  /** The blocks holding the shared lists of the inside tops below block level, by tree position * stride + block row. */
  blocks: Map<number, Promise<Columns>>;
}

/**
 * Phase 3, started: the blocks the nearest-firm walk may read (plannedLeaves) and the blocks holding the shared lists of
 * inside tops below block level, asked now (a cold search finds them read with the edge blocks); and which shared
 * pages hold the lists of the inside tops at or above block level, read with the record chunks (cellSearch).
 */
function insideReads(s: Search, inside: readonly Row[], nearest: readonly Row[]): InsideReads {
  const planned = new Set<number>();
  for (const [ti, i] of nearest) {
    const t = s.trees[ti] as Tree;
    const id = ti * s.stride + (t.block[i] ?? -1);
    if (planned.has(id)) continue;
    planned.add(id);
    readBlock(s, t, i).catch(() => undefined);
  }
  const pages = new Map<number, [Tree, number]>();
  const blocks = new Map<number, Promise<Columns>>();
  for (const [ti, i] of inside) {
    const t = s.trees[ti] as Tree;
    const b = t.block[i] ?? -1;
    if (b < 0 || b === i) pages.set(ti * s.stride + (t.page[i] ?? 0), [t, t.page[i] ?? 0]);
    else if (!blocks.has(ti * s.stride + b)) {
      const read = readBlock(s, t, i);
      // Awaited by readInsideLists; handled here so a failure elsewhere first leaves no unhandled rejection.
      read.catch(() => undefined);
      blocks.set(ti * s.stride + b, read);
    }
  }
  return { pages, blocks };
}

/** The store keys and pack spans of the shared pages `reads` names, to be asked with the record chunks. */
function pageReads(s: Search, reads: InsideReads): { keys: string[]; spans: Map<string, PackSpan> } {
  const v = s.reader.version;
  const byTree = new Map<Tree, string[]>();
  for (const [t, k] of reads.pages.values()) {
    const cell = t.pages[k]?.cell;
    if (cell !== undefined) byTree.set(t, [...(byTree.get(t) ?? []), cell]);
  }
  return {
    keys: [...byTree.values()].flat().map((cell) => keys.cellShared(v, cell, s.index.schema_version)),
    spans: new Map([...byTree].flatMap(([t, cells]) => [...pageSpans(s.index, v, t.group, cells)])),
  };
}

/** Phase 3: the shared lists of the inside tops (insideReads); resolves to where each top's list is. */
async function readInsideLists(s: Search, reads: InsideReads): Promise<ListOf> {
  const apart = new Map<number, Promise<SharedLists>>();
  for (const [id, [t, k]] of reads.pages) apart.set(id, readApart(s, t, k));
  const [apartLists, belowLists] = await Promise.all([
    Promise.all([...apart].map(async ([ti, lists]) => [ti, await lists] as const)).then((a) => new Map(a)),
    Promise.all([...reads.blocks].map(async ([id, cols]) => [id, await cols] as const)).then((a) => new Map(a)),
  ]);
  return (ti, i) => {
    const t = s.trees[ti] as Tree;
    const b = t.block[i] ?? -1;
    if (b < 0 || b === i) return [apartLists.get(ti * s.stride + (t.page[i] ?? 0)) as SharedLists, t.slot[i] ?? 0];
    return [(belowLists.get(ti * s.stride + b) as Columns).below, i - b - 1];
  };
}

/**
 * The inside leaves below `inside` by least possible distance from the point (miles: a row's centre distance less its
 * reach), descending into each row's children, until the next one's least distance exceeds `bound()` (read before
 * each step, so the caller may tighten it). The one walk both the planned reads and the nearest-firm search take, so
 * the plan holds every leaf the search can visit.
 */
function* leavesNearestFirst(s: Search, inside: readonly Row[], bound: () => number): Generator<Row> {
  const queue = new FlatQueue<number>();
  const push = (ti: number, i: number): void => {
    const t = s.trees[ti] as Tree;
    queue.push(ti * s.stride + i, Math.max(0, chordMiles(chordHav(s.p, t.xyz, i)) - (t.reach[i] ?? 0)));
  };
  for (const [ti, i] of inside) push(ti, i);
  while (queue.length > 0 && (queue.peekValue() ?? 0) <= bound()) {
    const id = queue.pop() ?? 0;
    const ti = Math.floor(id / s.stride);
    const i = id - ti * s.stride;
    const t = s.trees[ti] as Tree;
    const a = t.first[i] ?? 0;
    const b = t.first[i + 1] ?? 0;
    if (a < b) for (let k = a; k < b; k++) push(ti, t.kids[k] ?? 0);
    else yield [ti, i];
  }
}

/**
 * Phase 3, planned: the inside leaves the nearest-firm walk (nearestFirms) can visit, found from the trees alone. The
 * walk visits rows by least possible distance and stops past the distance of the `limit`-th firm kept; every unit homed
 * in a leaf has all its offices within the leaf's greatest possible distance (d + reach), and units homed in different
 * leaves are different firms, so once leaves visited in the same order hold `limit` homed units, no leaf whose least
 * distance exceeds the greatest distance among them is visited. A bound, not a guess: the walk reads no other leaf.
 */
function plannedLeaves(s: Search, inside: readonly Row[], limit: number): Row[] {
  const leaves: Row[] = [];
  // Greatest distances of the leaves taken, each with its homed units, kept in ascending order of distance.
  const far: [number, number][] = [];
  // The blocks' bound holds too (the same argument over blocks wholly inside): whichever is nearer stops the plan.
  let bound = s.blockBound;
  // The margin covers rounding between this sum and the walk's kept distances: a leaf too many is read, never one too few.
  for (const [ti, i] of leavesNearestFirst(s, inside, () => bound + 1e-9)) {
    const t = s.trees[ti] as Tree;
    leaves.push([ti, i]);
    const units = t.units[i] ?? 0;
    if (units === 0) continue;
    const d = chordMiles(chordHav(s.p, t.xyz, i)) + (t.reach[i] ?? 0);
    let at = far.length;
    while (at > 0 && (far[at - 1]?.[0] ?? 0) > d) at--;
    far.splice(at, 0, [d, units]);
    let held = 0;
    for (const [dist, n] of far) {
      held += n;
      if (held >= limit) {
        bound = Math.min(bound, dist);
        break;
      }
    }
  }
  return leaves;
}

/**
 * Phase 4: the edge offices within the radius, their units marked (counted office by office). Needs the edge blocks
 * only, so the nearest firms and their records are found before the shared lists arrive.
 */
function edgeWithin(s: Search, edges: readonly Row[], edgeBlocks: readonly Columns[], marked: UnitBits): EdgeOffices {
  const [lo, hi] = havBounds(s.R);
  const edgeAt: EdgeOffices = [];
  for (let e = 0; e < edges.length; e++) {
    const [ti, i] = edges[e] as Row;
    const rows = (s.trees[ti] as Tree).group.rows;
    const cols = edgeBlocks[e] as Columns;
    const start = rows.at[i] ?? 0;
    const end = start + (rows.n[i] ?? 0);
    for (let q = start; q < end; q++) {
      const h = chordHav(s.p, cols.xyz, q);
      // Clearly outside, or near the radius and outside by the exact haversine.
      if (h > hi || (h >= lo && haversineMiles(s.lat, s.lng, cols.lat[q] ?? 0, cols.lng[q] ?? 0) > s.R)) continue;
      marked.add(cols.unit[q] ?? 0);
      edgeAt.push(e, q);
    }
  }
  return edgeAt;
}

/** Phase 4, with the shared lists: marks the units the inside tops share with other cells. The firm count is the inside tops' units plus the marked ones. */
function markInside(inside: readonly Row[], listOf: ListOf, marked: UnitBits): void {
  for (const [ti, i] of inside) {
    const [lists, j] = listOf(ti, i);
    marked.addAll(lists.unit, lists.at[j] ?? 0, lists.at[j + 1] ?? 0);
  }
}

/**
 * Phase 5: the `limit` nearest firms, visiting inside rows by least possible distance (miles) until none can beat the
 * last kept firm, then offering the edge offices within the radius: by then the kept firms are near the point and the
 * chord test drops almost all of these, which lie near the circle's edge.
 */
async function nearestFirms(
  s: Search,
  inside: readonly Row[],
  edgeBlocks: readonly Columns[],
  edgeAt: EdgeOffices,
  limit: number,
): Promise<readonly Kept<Columns>[]> {
  const nearest = new Nearest<Columns>(limit, s.lat, s.lng);
  const consider = (cols: Columns, q: number): void =>
    nearest.consider(
      chordHav(s.p, cols.xyz, q),
      cols,
      q,
      cols.unit[q] ?? 0,
      cols.listing[q] ?? 0,
      cols.lat[q] ?? 0,
      cols.lng[q] ?? 0,
    );
  for (const [ti, i] of leavesNearestFirst(s, inside, () => nearest.kth())) {
    const t = s.trees[ti] as Tree;
    const cols = await readBlock(s, t, i);
    const start = t.group.rows.at[i] ?? 0;
    const end = start + (t.group.rows.n[i] ?? 0);
    for (let q = start; q < end; q++) consider(cols, q);
  }
  for (let k = 0; k + 1 < edgeAt.length; k += 2) consider(edgeBlocks[edgeAt[k] ?? 0] as Columns, edgeAt[k + 1] ?? 0);
  return nearest.list();
}

/**
 * Phase 6: offices within the radius of each shown firm that was counted office by office (unit -> offices); the
 * others are homed under an inside top, so every office of theirs is within it. Empties `marked` (the count is taken).
 */
function officesWithin(
  shown: readonly Kept<Columns>[],
  marked: UnitBits,
  inside: readonly Row[],
  listOf: ListOf,
  edgeBlocks: readonly Columns[],
  edgeAt: EdgeOffices,
): Map<number, number> {
  const within = new Map<number, number>();
  for (const k of shown) if (marked.has(k.unit)) within.set(k.unit, 0);
  if (within.size === 0) return within;
  // From here the set holds only those shown firms, so the loops below ask a bit, not the map, about each of the
  // thousands of shared-list entries and edge offices.
  marked.reset(within.keys());
  for (const [ti, i] of inside) {
    const [lists, j] = listOf(ti, i);
    const end = lists.at[j + 1] ?? 0;
    for (let k = lists.at[j] ?? 0; k < end; k++) {
      const f = lists.unit[k] ?? 0;
      if (marked.has(f)) within.set(f, (within.get(f) ?? 0) + (lists.offices[k] ?? 0));
    }
  }
  for (let k = 0; k + 1 < edgeAt.length; k += 2) {
    const f = (edgeBlocks[edgeAt[k] ?? 0] as Columns).unit[edgeAt[k + 1] ?? 0] ?? 0;
    if (!marked.has(f)) continue;
    const n = within.get(f);
    if (n !== undefined) within.set(f, n + 1);
  }
  return within;
}

/** The store keys and pack spans (schema 9) of the record chunks of the shown firms. */
function chunkReads(s: Search, shown: readonly Kept<Columns>[]): { keys: string[]; spans: Map<string, PackSpan> } {
  const v = s.reader.version;
  const chunk = s.index.record_chunk;
  const spans = new Map<string, PackSpan>();
  const wanted = new Set<string>();
  for (const k of shown) {
    const n = Math.floor(k.pos / chunk);
    const key = keys.cellRecords(v, k.ref.cell, n);
    if (wanted.has(key)) continue;
    wanted.add(key);
    const tree = s.trees.find((t) => t.group.block_sha256[k.ref.cell] !== undefined);
    const span = tree === undefined ? null : recordSpan(s.index, v, tree.group, k.ref, n);
    if (span !== null) spans.set(key, span);
  }
  return { keys: [...wanted], spans };
}

/** Phase 7: the shown firms' full records, from their record chunks (asked at once), each with its unit's offices in the version. */
function readShown(s: Search, shown: readonly Kept<Columns>[]): Promise<[StoredOfficeT, number][]> {
  const chunk = s.index.record_chunk;
  return Promise.all(
    shown.map(async (k): Promise<[StoredOfficeT, number]> => {
      const n = Math.floor(k.pos / chunk);
      const key = keys.cellRecords(s.reader.version, k.ref.cell, n);
      const rec = await readRequired(
        s.reader,
        key,
        CellRecordChunk,
        'is missing for a block position',
        k.ref.records[n],
      );
      const office = rec.record(k.pos - n * chunk, key, (raw) =>
        withSharedHours(checkStored(StoredOffice, raw, key, `${key} holds a record that`)),
      );
      if (office === undefined || office.lat !== k.ref.lat[k.pos] || office.lng !== k.ref.lng[k.pos]) {
        throw new StoreError(`${key} does not hold the office at position ${k.pos} of block ${k.ref.cell}`, key);
      }
      return [office, rec.unitOffices[k.pos - n * chunk] ?? 0];
    }),
  );
}

/** The value of a settled promise, or its reason thrown. */
function settled<T>(r: PromiseSettledResult<T>): T {
  if (r.status === 'rejected') throw r.reason;
  return r.value;
}

/**
 * Firms with an office within `radiusMiles` of (lat, lng) degrees, each by its nearest office (ties by listing_id),
 * nearest first, at most `limit`; with the exact number of such firms. Reads the index, the groups near the circle, the
 * shared lists of the cells wholly inside it, the blocks of cells crossing its edge and of the nearest cells, and the
 * record chunks of the firms returned.
 */
export async function cellSearch(
  reader: SiteReader,
  lat: number,
  lng: number,
  radiusMiles: number,
  limit: number,
): Promise<{ firms: number; hits: FirmHit[] }> {
  const s = await openSearch(reader, lat, lng, radiusMiles, limit);
  const marked = UnitBits.acquire(s.index.units);
  try {
    const { units, inside, edges } = classify(s);
    const reads = insideReads(s, inside, plannedLeaves(s, inside, limit));
    const edgeBlocks = await Promise.all(edges.map(([ti, i]) => readBlock(s, s.trees[ti] as Tree, i)));
    const edgeAt = edgeWithin(s, edges, edgeBlocks, marked);
    const shown = await nearestFirms(s, inside, edgeBlocks, edgeAt, limit);
    // The shared pages and the shown firms' record chunks are asked together (one round trip, and from cell schema 9
    // ranges of the same packs, so a few requests); both settle before the scratch bitset goes back to its pool.
    const pages = pageReads(s, reads);
    const chunks = chunkReads(s, shown);
    const release =
      s.reader.preread?.([...pages.keys, ...chunks.keys], new Map([...pages.spans, ...chunks.spans]), { last: true }) ??
      ((): void => undefined);
    const [counted, records] = await Promise.allSettled([
      readInsideLists(s, reads).then((listOf) => {
        markInside(inside, listOf, marked);
        const firms = units + marked.size;
        return { firms, within: officesWithin(shown, marked, inside, listOf, edgeBlocks, edgeAt) };
      }),
      readShown(s, shown),
    ]).finally(release);
    const { firms, within } = settled(counted);
    const hits = settled(records).map(([office, unitOffices], j): FirmHit => {
      const k = shown[j] as Kept<Columns>;
      return { office, distanceMiles: k.d, officesWithinRadius: within.get(k.unit) ?? unitOffices };
    });
    return { firms, hits };
  } finally {
    marked.release();
    s.release();
  }
}
