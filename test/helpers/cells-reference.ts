/**
 * The cell tree built the plain way (H3 calls and string compares in the sort comparator, a map lookup per office),
 * with whole firms in place of units: kept as the independent answer for the tree's structure (cells, rows, reach,
 * blocks, office order, record chunks), which generator/write/cells.ts, precomputing numeric cell keys, must equal.
 */
import { cellToLatLng, cellToParent, getResolution, latLngToCell } from 'h3-js';
import {
  CELL_BLOCK_MAX,
  CELL_GROUP_RES,
  CELL_LEAF_MAX,
  CELL_MAX_RES,
  CELL_RECORD_CHUNK,
} from '../../shim/format/cell-format.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import type { CellTreeOptions } from '../../generator/write/cells.ts';

/** The plain build's objects: the published tree's structure, with whole firms (firm numbers by firm_id rank). */
export interface CellTreeReference {
  index: {
    group_res: number;
    max_res: number;
    leaf_max: number;
    block_max: number;
    record_chunk: number;
    fine_order?: 'h3-15';
    offices: number;
    firms: number;
    groups: Record<string, [number, number]>;
  };
  groups: {
    cell: string;
    rows: {
      cell: string[];
      parent: number[];
      n: number[];
      reach: number[];
      firms: number[];
      foreign: number[][];
      block: number[];
      at: number[];
    };
  }[];
  blocks: { cell: string; listing: number[]; firm: number[]; lat: number[]; lng: number[] }[];
  records: { block: string; chunk: number; offices: StoredOfficeT[]; firm_offices: number[] }[];
}

interface Node {
  cell: string;
  parent: number;
  /** Position range [s, e) in the sorted office order. */
  s: number;
  e: number;
  reach: number;
  firms: number;
  foreign: Map<number, number>;
  block: number;
  children: number[];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A reach rounded up, so that rounding never puts an office outside its cell's stated reach. */
function roundUp(miles: number): number {
  return Math.ceil(miles * 1e4) / 1e4 + 1e-4;
}

/** The cell tree of `offices`, the plain way. */
export function buildCellsReference(offices: readonly StoredOfficeT[], opts: CellTreeOptions = {}): CellTreeReference {
  const leafMax = opts.leafMax ?? CELL_LEAF_MAX;
  const blockMax = opts.blockMax ?? CELL_BLOCK_MAX;
  const chunk = opts.recordChunk ?? CELL_RECORD_CHUNK;
  const listingNo = new Map([...offices.map((o) => o.listing_id)].sort(cmp).map((id, i) => [id, i]));
  const firmIds = [...new Set(offices.map((o) => o.firm_id))].sort(cmp);
  const firmNo = new Map(firmIds.map((id, i) => [id, i]));
  const fine = offices.map((o) => latLngToCell(o.lat, o.lng, CELL_MAX_RES));
  // Within a fine cell, by the office's res-15 cell (the published order), or by listing number alone (`fineOrder`).
  const finest = offices.map((o) => (opts.fineOrder === 'listing' ? '' : latLngToCell(o.lat, o.lng, 15)));
  const order = offices.map((_, i) => i);
  const lno = (i: number): number => listingNo.get((offices[i] as StoredOfficeT).listing_id) ?? 0;
  // Same-resolution H3 ids compare as numbers when compared as strings; descendants of a cell are then contiguous.
  order.sort((a, b) => cmp(fine[a] ?? '', fine[b] ?? '') || cmp(finest[a] ?? '', finest[b] ?? '') || lno(a) - lno(b));
  const at = (p: number): StoredOfficeT => offices[order[p] ?? 0] as StoredOfficeT;
  const fineAt = (p: number): string => fine[order[p] ?? 0] ?? '';
  const firmAt = (p: number): number => firmNo.get(at(p).firm_id) ?? 0;

  const nodes: Node[] = [];
  const leafOf = new Int32Array(offices.length);
  const build = (cell: string, parent: number, s: number, e: number): number => {
    const id = nodes.length;
    const [cLat, cLng] = cellToLatLng(cell);
    let reach = 0;
    for (let p = s; p < e; p++) reach = Math.max(reach, haversineMiles(cLat, cLng, at(p).lat, at(p).lng));
    const node: Node = {
      cell,
      parent,
      s,
      e,
      reach: roundUp(reach),
      firms: 0,
      foreign: new Map(),
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
      const child = cellToParent(fineAt(start), res + 1);
      let end = start + 1;
      while (end < e && cellToParent(fineAt(end), res + 1) === child) end++;
      node.children.push(build(child, id, start, end));
      start = end;
    }
    return id;
  };
  const roots: number[] = [];
  for (let start = 0; start < offices.length;) {
    const group = cellToParent(fineAt(start), CELL_GROUP_RES);
    let end = start + 1;
    while (end < offices.length && cellToParent(fineAt(end), CELL_GROUP_RES) === group) end++;
    roots.push(build(group, -1, start, end));
    start = end;
  }

  // Each firm's home: the deepest node holding all its offices (-1 when they span groups). Summaries follow from it.
  const positions = new Map<number, number[]>();
  for (let p = 0; p < offices.length; p++) {
    const f = firmAt(p);
    const list = positions.get(f);
    if (list === undefined) positions.set(f, [p]);
    else list.push(p);
  }
  const firmOffices = new Map<number, number>();
  for (const [f, ps] of positions) {
    firmOffices.set(f, ps.length);
    const lo = ps[0] ?? 0;
    const hi = ps[ps.length - 1] ?? 0;
    // The lowest common ancestor: up from the first office's leaf until the node also holds the last (ranges nest).
    let home = leafOf[lo] ?? -1;
    while (home >= 0 && hi >= (nodes[home] as Node).e) home = (nodes[home] as Node).parent;
    for (let x = home; x >= 0; x = (nodes[x] as Node).parent) (nodes[x] as Node).firms++;
    for (const p of ps) {
      for (let x = leafOf[p] ?? -1; x >= 0 && x !== home; x = (nodes[x] as Node).parent) {
        const fo = (nodes[x] as Node).foreign;
        fo.set(f, (fo.get(f) ?? 0) + 1);
      }
    }
  }

  const blocks: CellTreeReference['blocks'] = [];
  const records: CellTreeReference['records'] = [];
  const assignBlock = (id: number, block: number): void => {
    const n = nodes[id] as Node;
    if (block < 0 && (n.e - n.s <= blockMax || n.children.length === 0)) {
      block = id;
      const cols: CellTreeReference['blocks'][number] = { cell: n.cell, listing: [], firm: [], lat: [], lng: [] };
      for (let p = n.s; p < n.e; p++) {
        const o = at(p);
        cols.listing.push(listingNo.get(o.listing_id) ?? 0);
        cols.firm.push(firmAt(p));
        cols.lat.push(o.lat);
        cols.lng.push(o.lng);
      }
      blocks.push(cols);
      for (let k = 0, s = n.s; s < n.e; k++, s += chunk) {
        const end = Math.min(n.e, s + chunk);
        const rec: CellTreeReference['records'][number] = { block: n.cell, chunk: k, offices: [], firm_offices: [] };
        for (let p = s; p < end; p++) {
          rec.offices.push(at(p));
          rec.firm_offices.push(firmOffices.get(firmAt(p)) ?? 0);
        }
        records.push(rec);
      }
    }
    n.block = block;
    for (const c of n.children) assignBlock(c, block);
  };
  for (const r of roots) assignBlock(r, -1);

  const groups: CellTreeReference['groups'] = [];
  const groupEntries: Record<string, [number, number]> = {};
  for (const r of roots) {
    const root = nodes[r] as Node;
    groupEntries[root.cell] = [root.e - root.s, root.reach];
    const rows: CellTreeReference['groups'][number]['rows'] = {
      cell: [],
      parent: [],
      n: [],
      reach: [],
      firms: [],
      foreign: [],
      block: [],
      at: [],
    };
    const rowOf = new Map<number, number>();
    const emit = (id: number): void => {
      const n = nodes[id] as Node;
      rowOf.set(id, rows.cell.length);
      rows.cell.push(n.cell);
      rows.parent.push(id === r ? -1 : (rowOf.get(n.parent) ?? -1));
      rows.n.push(n.e - n.s);
      rows.reach.push(n.reach);
      rows.firms.push(n.firms);
      rows.foreign.push([...n.foreign.entries()].sort((a, b) => a[0] - b[0]).flat());
      rows.block.push(n.block < 0 ? -1 : (rowOf.get(n.block) ?? -1));
      rows.at.push(n.block < 0 ? -1 : n.s - (nodes[n.block] as Node).s);
      for (const c of n.children) emit(c);
    };
    emit(r);
    groups.push({ cell: root.cell, rows });
  }

  const index: CellTreeReference['index'] = {
    group_res: CELL_GROUP_RES,
    max_res: CELL_MAX_RES,
    leaf_max: leafMax,
    block_max: blockMax,
    record_chunk: chunk,
    ...(opts.fineOrder === 'listing' ? {} : { fine_order: 'h3-15' as const }),
    offices: offices.length,
    firms: firmIds.length,
    groups: groupEntries,
  };
  return { index, groups, blocks, records };
}
