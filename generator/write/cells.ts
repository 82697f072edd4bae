/**
 * Offices into the cell tree (shim/format/cell-format.ts, the current cell schema only): units, group cells, per-cell
 * summaries, office columns and record chunks. Pure and deterministic: the same offices in any order give the same
 * objects. The hash fields are left empty here and filled by cell-hashes.ts once the children are serialised.
 */
import { cellToLatLng, cellToParent, getResolution, latLngToCell } from 'h3-js';
import {
  CELL_BLOCK_MAX,
  CELL_GROUP_RES,
  CELL_LEAF_MAX,
  CELL_MAX_RES,
  CELL_RECORD_CHUNK,
  CELL_SHARED_RES,
  FINE_ORDER,
  sharedPage,
  UNIT_MILES,
} from '../../shim/format/cell-format.ts';
import type { CellBlockT, CellGroupT, CellIndexT, CellRecordsT, CellSharedT } from '../../shim/format/cell-format.ts';
import { encodeCoords, encodeSteps } from '../../shim/format/block-coords.ts';
import { reachCount } from '../../shim/format/group-binary.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import type { PREVIOUS_CELL_SCHEMA } from '../../shim/contract/constants.ts';
import { LIMIT, SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import { unitsOf } from '../model/units.ts';

/** Every object of the cell tree, in a deterministic order. */
export interface CellTree {
  index: CellIndexT;
  groups: CellGroupT[];
  /** The shared pages of each group's rows at or above block level, group by group. */
  shared: CellSharedT[];
  blocks: CellBlockT[];
  records: CellRecordsT[];
}

/** Tuning of the tree; the defaults are the published format's. */
export interface CellTreeOptions {
  leafMax?: number;
  blockMax?: number;
  recordChunk?: number;
  sharedRes?: number;
  /**
   * How the offices of one fine cell are ordered (default FINE_ORDER): by their H3 cell at resolution 15 first, or by
   * listing number alone, as indexes without `fine_order` were written (for audit's rebuild of such a version).
   */
  fineOrder?: FineOrder;
  /**
   * The cell schema the objects are marked with (default the current one): the previous one, whose objects hold the
   * same values, for audit's rebuild of a version of that schema and for tests of one.
   */
  schema?: CellSchema;
}

/** How offices of one fine cell are ordered: `h3-15` by their H3 cell at resolution 15, then listing number. */
export type FineOrder = typeof FINE_ORDER | 'listing';

/** A cell schema this release writes or reads. */
export type CellSchema = typeof SCHEMA_VERSIONS.cells | typeof PREVIOUS_CELL_SCHEMA;

interface Node {
  cell: string;
  parent: number;
  /** Position range [s, e) in the sorted office order. */
  s: number;
  e: number;
  reach: number;
  units: number;
  shared: Map<number, number>;
  block: number;
  children: number[];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A reach rounded up, so that rounding never puts an office outside its cell's stated reach. */
function roundUp(miles: number): number {
  return Math.ceil(miles * 1e4) / 1e4 + 1e-4;
}

/**
 * Each block's core (by node id): the least distance from the block cell's H3 centre, in miles rounded up like a reach,
 * within which lie offices of min(homed units, LIMIT.max) of the units homed in the block, one office each; 0 for a
 * block homing none. The cell index carries it so a cold search bounds where its nearest firms lie more tightly than
 * by whole blocks (shim/search/block-plan.ts).
 */
function blockCores(
  nodes: readonly Node[],
  homeOf: Int32Array,
  firstOf: Int32Array,
  positions: Int32Array,
  latAt: Float64Array,
  lngAt: Float64Array,
): Map<number, number> {
  const nearest = new Map<number, number[]>();
  const centres = new Map<number, [number, number]>();
  for (let f = 0; f < homeOf.length; f++) {
    const home = homeOf[f] as number;
    const block = home < 0 ? -1 : (nodes[home] as Node).block;
    if (block < 0) continue;
    let centre = centres.get(block);
    if (centre === undefined) centres.set(block, (centre = cellToLatLng((nodes[block] as Node).cell)));
    const [cLat, cLng] = centre;
    let d = Infinity;
    for (let k = firstOf[f] as number; k < (firstOf[f + 1] as number); k++) {
      const p = positions[k] as number;
      d = Math.min(d, haversineMiles(cLat, cLng, latAt[p] as number, lngAt[p] as number));
    }
    const list = nearest.get(block) ?? [];
    list.push(d);
    nearest.set(block, list);
  }
  const cores = new Map<number, number>();
  for (const [block, list] of nearest) {
    list.sort((a, b) => a - b);
    cores.set(block, roundUp(list[Math.min(list.length, LIMIT.max) - 1] ?? 0));
  }
  return cores;
}

/**
 * The base cell and digits 1..CELL_MAX_RES of a res-CELL_MAX_RES H3 id as one integer below 2^34 (exact in a double).
 * Its order is the id's order, and the key of the id's parent at res r is floor(key / 8^(CELL_MAX_RES - r)), so
 * sorting and grouping need no H3 call and no string compare. A res-9 id is 15 hex digits; base cell and digits are
 * its bits 18..51 (the lower 18 bits are the unused digits 10..15, all set).
 */
function cellKey(h3: string): number {
  const hi = parseInt(h3.slice(0, -8), 16);
  const lo = parseInt(h3.slice(-8), 16);
  return (hi & 0xfffff) * 2 ** 14 + (lo >>> 18);
}

/**
 * The base cell and digits 1..15 of a res-15 H3 id as one integer below 2^52 (exact in a double), in the id's order:
 * cellKey's 34 bits, then digits 10..15 (the id's lower 18 bits).
 */
function fineKey(h3: string): number {
  return cellKey(h3) * 2 ** 18 + (parseInt(h3.slice(-5), 16) & 0x3ffff);
}

/** A row's shared list: [unit - previous unit, offices, ...] by ascending unit, the first difference from 0. */
function sharedList(shared: Map<number, number>): number[] {
  const out: number[] = [];
  let prev = 0;
  for (const [unit, n] of [...shared.entries()].sort((a, b) => a[0] - b[0])) {
    out.push(unit - prev, n);
    prev = unit;
  }
  return out;
}

/** The cell tree of `offices`. */
export function buildCells(offices: readonly StoredOfficeT[], opts: CellTreeOptions = {}): CellTree {
  const leafMax = opts.leafMax ?? CELL_LEAF_MAX;
  const blockMax = opts.blockMax ?? CELL_BLOCK_MAX;
  const chunk = opts.recordChunk ?? CELL_RECORD_CHUNK;
  const sharedRes = opts.sharedRes ?? CELL_SHARED_RES;
  const sv: CellSchema = opts.schema ?? SCHEMA_VERSIONS.cells;
  const fineOrder = opts.fineOrder ?? FINE_ORDER;
  const count = offices.length;
  // Offices in listing-id order; then a stable sort by fine cell and finest cell leaves ties in that order. Numbers, not
  // map lookups.
  const byListing = Array.from({ length: count }, (_, i) => i).sort((a, b) =>
    cmp((offices[a] as StoredOfficeT).listing_id, (offices[b] as StoredOfficeT).listing_id),
  );
  const listingOf = new Int32Array(count);
  byListing.forEach((i, rank) => (listingOf[i] = rank));
  const key = new Float64Array(count);
  // Within a fine cell, offices near each other sit near each other in the order, so the few records a search shows
  // come from a few record chunks rather than one chunk each (listing ids are random over a cell).
  const sub = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const o = offices[i] as StoredOfficeT;
    key[i] = cellKey(latLngToCell(o.lat, o.lng, CELL_MAX_RES));
    if (fineOrder === FINE_ORDER) sub[i] = fineKey(latLngToCell(o.lat, o.lng, 15));
  }
  const order = Int32Array.from(
    byListing.sort((a, b) => (key[a] as number) - (key[b] as number) || (sub[a] as number) - (sub[b] as number)),
  );
  // Columns in sorted position order, read by the tree walk below.
  const keyAt = new Float64Array(count);
  const latAt = new Float64Array(count);
  const lngAt = new Float64Array(count);
  for (let p = 0; p < count; p++) {
    const o = offices[order[p] as number] as StoredOfficeT;
    keyAt[p] = key[order[p] as number] as number;
    latAt[p] = o.lat;
    lngAt[p] = o.lng;
  }
  const { unitAt, units } = unitsOf(
    Array.from(order, (i) => (offices[i] as StoredOfficeT).firm_id),
    latAt,
    lngAt,
    UNIT_MILES,
  );
  const at = (p: number): StoredOfficeT => offices[order[p] ?? 0] as StoredOfficeT;
  const parentKey = (p: number, res: number): number => Math.floor((keyAt[p] as number) / 8 ** (CELL_MAX_RES - res));
  const cellAt = (p: number, res: number): string =>
    cellToParent(latLngToCell(latAt[p] as number, lngAt[p] as number, CELL_MAX_RES), res);

  const nodes: Node[] = [];
  const leafOf = new Int32Array(count);
  const build = (cell: string, parent: number, s: number, e: number): number => {
    const id = nodes.length;
    const [cLat, cLng] = cellToLatLng(cell);
    let reach = 0;
    for (let p = s; p < e; p++)
      reach = Math.max(reach, haversineMiles(cLat, cLng, latAt[p] as number, lngAt[p] as number));
    const node: Node = {
      cell,
      parent,
      s,
      e,
      reach: roundUp(reach),
      units: 0,
      shared: new Map(),
      block: -1,
      children: [],
    };
    nodes.push(node);
    const res = getResolution(cell);
    if (e - s <= leafMax || res >= CELL_MAX_RES) {
      leafOf.fill(id, s, e);
      return id;
    }
    let start = s;
    while (start < e) {
      const child = parentKey(start, res + 1);
      let end = start + 1;
      while (end < e && parentKey(end, res + 1) === child) end++;
      node.children.push(build(cellAt(start, res + 1), id, start, end));
      start = end;
    }
    return id;
  };
  const roots: number[] = [];
  for (let start = 0; start < count;) {
    const group = parentKey(start, CELL_GROUP_RES);
    let end = start + 1;
    while (end < count && parentKey(end, CELL_GROUP_RES) === group) end++;
    roots.push(build(cellAt(start, CELL_GROUP_RES), -1, start, end));
    start = end;
  }

  // Each unit's positions, ascending, as one array sliced by unit (offsets), instead of a million small arrays.
  const unitOffices = new Int32Array(units);
  for (let p = 0; p < count; p++) (unitOffices[unitAt[p] as number] as number)++;
  const firstOf = new Int32Array(units + 1);
  for (let f = 0; f < units; f++) firstOf[f + 1] = (firstOf[f] as number) + (unitOffices[f] as number);
  const positions = new Int32Array(count);
  const fill = firstOf.slice(0, units);
  for (let p = 0; p < count; p++) {
    const f = unitAt[p] as number;
    positions[fill[f] as number] = p;
    fill[f] = (fill[f] as number) + 1;
  }
  // Each unit's home: the deepest node holding all its offices (-1 when they span groups). Summaries follow from it.
  const homeOf = new Int32Array(units);
  for (let f = 0; f < units; f++) {
    const from = firstOf[f] as number;
    const to = firstOf[f + 1] as number;
    const lo = positions[from] as number;
    const hi = positions[to - 1] as number;
    // The lowest common ancestor: up from the first office's leaf until the node also holds the last (ranges nest).
    let home = leafOf[lo] ?? -1;
    while (home >= 0 && hi >= (nodes[home] as Node).e) home = (nodes[home] as Node).parent;
    homeOf[f] = home;
    for (let x = home; x >= 0; x = (nodes[x] as Node).parent) (nodes[x] as Node).units++;
    for (let k = from; k < to; k++) {
      for (let x = leafOf[positions[k] as number] ?? -1; x >= 0 && x !== home; x = (nodes[x] as Node).parent) {
        const fo = (nodes[x] as Node).shared;
        fo.set(f, (fo.get(f) ?? 0) + 1);
      }
    }
  }

  const blocks: CellBlockT[] = [];
  const records: CellRecordsT[] = [];
  const assignBlock = (id: number, block: number): void => {
    const n = nodes[id] as Node;
    if (block < 0 && (n.e - n.s <= blockMax || n.children.length === 0)) {
      block = id;
      const cols = { cell: n.cell, listing: [] as number[], dunit: encodeSteps(unitAt.subarray(n.s, n.e)) };
      for (let p = n.s; p < n.e; p++) cols.listing.push(listingOf[order[p] as number] as number);
      const coords = encodeCoords(latAt.subarray(n.s, n.e), lngAt.subarray(n.s, n.e));
      // The lists of the rows below the block's own, in the group's row order (preorder, children by cell id).
      const below: number[][] = [];
      const walk = (x: number): void => {
        for (const c of (nodes[x] as Node).children) {
          below.push(sharedList((nodes[c] as Node).shared));
          walk(c);
        }
      };
      walk(id);
      blocks.push({
        schema_version: sv,
        ...cols,
        ...coords,
        shared: below,
        records_sha256: [],
        records_bytes: [],
      });
      for (let k = 0, s = n.s; s < n.e; k++, s += chunk) {
        const end = Math.min(n.e, s + chunk);
        const rec: CellRecordsT = {
          schema_version: sv,
          block: n.cell,
          chunk: k,
          offices: [],
          unit_offices: [],
        };
        for (let p = s; p < end; p++) {
          rec.offices.push(at(p));
          rec.unit_offices.push(unitOffices[unitAt[p] as number] as number);
        }
        records.push(rec);
      }
    }
    n.block = block;
    for (const c of n.children) assignBlock(c, block);
  };
  for (const r of roots) assignBlock(r, -1);
  const coreOf = blockCores(nodes, homeOf, firstOf, positions, latAt, lngAt);

  const groups: CellGroupT[] = [];
  const shared: CellSharedT[] = [];
  const groupEntries: Record<string, [number, number]> = {};
  const blockEntries: Record<string, [string, number, number][]> = {};
  const coreEntries: Record<string, number[]> = {};
  for (const r of roots) {
    const root = nodes[r] as Node;
    groupEntries[root.cell] = [root.e - root.s, root.reach];
    const groupBlocks: [string, number, number][] = (blockEntries[root.cell] = []);
    const groupCores: number[] = (coreEntries[root.cell] = []);
    const rows = {
      cell: [] as string[],
      parent: [] as number[],
      n: [] as number[],
      reach: [] as number[],
      units: [] as number[],
      block: [] as number[],
      at: [] as number[],
    };
    // The group's shared pages, by page cell in the order of their first row (the group's own page first).
    const pages = new Map<string, CellSharedT>();
    const rowOf = new Map<number, number>();
    const emit = (id: number): void => {
      const n = nodes[id] as Node;
      rowOf.set(id, rows.cell.length);
      rows.cell.push(n.cell);
      rows.parent.push(id === r ? -1 : (rowOf.get(n.parent) ?? -1));
      rows.n.push(n.e - n.s);
      rows.reach.push(n.reach);
      rows.units.push(n.units);
      if (n.block === id) {
        groupBlocks.push([n.cell, n.reach, n.units]);
        // As a count of 0.0001 mile (reachCount), shorter than the miles in JSON; 0 for a block homing no unit.
        groupCores.push(reachCount(coreOf.get(id) ?? roundUp(0)));
      }
      if (n.block < 0 || n.block === id) {
        const cell = sharedPage(n.cell, root.cell, sharedRes);
        let page = pages.get(cell);
        if (page === undefined) pages.set(cell, (page = { schema_version: sv, cell, row: [], shared: [] }));
        page.row.push(rows.cell.length - 1);
        page.shared.push(sharedList(n.shared));
      }
      rows.block.push(n.block < 0 ? -1 : (rowOf.get(n.block) ?? -1));
      rows.at.push(n.block < 0 ? -1 : n.s - (nodes[n.block] as Node).s);
      for (const c of n.children) emit(c);
    };
    emit(r);
    // Key order as the schemas have it (audit compares the objects byte for byte).
    const { cell, parent, n, reach, units: homed, block, at: first } = rows;
    groups.push({
      schema_version: sv,
      cell: root.cell,
      rows: { cell, parent, n, reach, units: homed, block, at: first },
      shared_sha256: {},
      block_sha256: {},
      // Filled by cell-hashes.ts groupObjects once the record chunks are serialised (from cell schema 9).
      block_records_bytes: [],
    });
    shared.push(...pages.values());
  }

  const head = {
    generated: 'by generator/; do not edit' as const,
    group_res: CELL_GROUP_RES,
    max_res: CELL_MAX_RES,
    leaf_max: leafMax,
    block_max: blockMax,
    record_chunk: chunk,
    shared_res: sharedRes,
    // Absent for listing order, as every index before it was written (audit rebuilds those byte for byte).
    ...(fineOrder === FINE_ORDER ? ({ fine_order: FINE_ORDER } as const) : {}),
    unit_miles: UNIT_MILES,
    offices: count,
    units,
    groups: groupEntries,
    blocks: blockEntries,
    block_core: coreEntries,
    // Filled by cell-hashes.ts packBlocks once the blocks and shared pages are serialised.
    block_bytes: {},
    shared_bytes: {},
  };
  const index: CellIndexT = { schema_version: sv, ...head, group_sha256: {} };
  return { index, groups, shared, blocks, records };
}
