/**
 * Radius search over the cell tree (cell-format.ts). Cells wholly inside the circle add their precomputed firm counts
 * and the firms they share with other cells; cells crossing the edge are checked office by office; the `limit` nearest
 * firms are found visiting cells nearest first and stopping when no unseen cell can beat the last kept firm.
 * Exact: the count equals a brute-force count of distinct firms with an office within the radius.
 */
import FlatQueue from 'flatqueue';
import { cellToLatLng } from 'h3-js';
import { CellBlock, CellGroup, CellIndex, CellRecords, type CellBlockT, type CellGroupT, type CellIndexT } from './cell-format.ts';
import { StoreError } from './errors.ts';
import { haversineMiles } from './geo.ts';
import { readRequired, type SiteReader } from './reader.ts';
import { keys, type StoredOfficeT } from './site-format.ts';

/** One firm, by its nearest office within the radius. distanceMiles is exact (not rounded). */
export interface FirmHit {
  office: StoredOfficeT;
  distanceMiles: number;
  officesWithinRadius: number;
}

/** A group's tree with H3 centres and children, built once per parsed group. */
interface Tree {
  group: CellGroupT;
  lat: Float64Array;
  lng: Float64Array;
  /** Children of row i: kids[first[i]] .. kids[first[i + 1] - 1]. */
  first: Int32Array;
  kids: Int32Array;
}

/** A block's columns as typed arrays, built once per parsed block. */
interface Columns {
  cell: string;
  listing: Int32Array;
  firm: Int32Array;
  lat: Float64Array;
  lng: Float64Array;
}

const trees = new WeakMap<CellGroupT, Tree>();
const columnsOf = new WeakMap<CellBlockT, Columns>();
const centres = new WeakMap<CellIndexT, Map<string, [number, number]>>();

function treeOf(group: CellGroupT): Tree {
  let t = trees.get(group);
  if (t !== undefined) return t;
  const rows = group.rows;
  const n = rows.cell.length;
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const [a, b] = cellToLatLng(rows.cell[i] ?? '');
    lat[i] = a;
    lng[i] = b;
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
  t = { group, lat, lng, first, kids };
  trees.set(group, t);
  return t;
}

function columns(block: CellBlockT): Columns {
  let c = columnsOf.get(block);
  if (c === undefined) {
    c = { cell: block.cell, listing: Int32Array.from(block.listing), firm: Int32Array.from(block.firm), lat: Float64Array.from(block.lat), lng: Float64Array.from(block.lng) };
    columnsOf.set(block, c);
  }
  return c;
}

function groupCentre(index: CellIndexT, cell: string): [number, number] {
  let m = centres.get(index);
  if (m === undefined) centres.set(index, (m = new Map()));
  let c = m.get(cell);
  if (c === undefined) m.set(cell, (c = cellToLatLng(cell)));
  return c;
}

/** A firm's nearest office so far: distance, listing number, and where its columns are. */
interface Best {
  d: number;
  listing: number;
  cols: Columns;
  pos: number;
}

const before = (a: Best, b: Best): boolean => a.d < b.d || (a.d === b.d && a.listing < b.listing);

/**
 * Firms with an office within `radiusMiles` of (lat, lng), each by its nearest office (ties by listing_id), nearest
 * first, at most `limit`; with the exact number of such firms. Reads the index, the groups near the circle, the blocks
 * of cells crossing its edge and of the nearest cells, and the record chunks of the firms returned.
 */
export async function cellSearch(reader: SiteReader, lat: number, lng: number, radiusMiles: number, limit: number): Promise<{ firms: number; hits: FirmHit[] }> {
  const v = reader.version;
  const R = radiusMiles;
  const index = await readRequired(reader, keys.cellIndex(v), CellIndex);
  const near = Object.keys(index.groups)
    .filter((cell) => {
      const [cLat, cLng] = groupCentre(index, cell);
      return haversineMiles(lat, lng, cLat, cLng) - (index.groups[cell]?.[1] ?? 0) <= R;
    })
    .sort();
  const groupTrees = await Promise.all(
    near.map(async (cell) => {
      const key = keys.cellGroup(v, cell);
      const group = await readRequired(reader, key, CellGroup, 'is listed in the cell index but missing');
      if (group.cell !== cell) throw new StoreError(`${key} holds group ${group.cell}`, key);
      return treeOf(group);
    }),
  );

  // Classify: wholly inside (a "top" inside cell), crossing the edge (down to leaves), or outside.
  let count = 0;
  const shared = new Map<number, number>();
  const inside: [Tree, number][] = [];
  const edges: [Tree, number][] = [];
  for (const t of groupTrees) {
    const rows = t.group.rows;
    const stack = [0];
    while (stack.length > 0) {
      const i = stack.pop() ?? 0;
      const d = haversineMiles(lat, lng, t.lat[i] ?? 0, t.lng[i] ?? 0);
      const reach = rows.reach[i] ?? 0;
      if (d - reach > R) continue;
      if (d + reach <= R) {
        count += rows.firms[i] ?? 0;
        const f = rows.foreign[i] ?? [];
        for (let k = 0; k + 1 < f.length; k += 2) shared.set(f[k] ?? 0, (shared.get(f[k] ?? 0) ?? 0) + (f[k + 1] ?? 0));
        inside.push([t, i]);
        continue;
      }
      const a = t.first[i] ?? 0;
      const b = t.first[i + 1] ?? 0;
      if (a === b) edges.push([t, i]);
      for (let k = b - 1; k >= a; k--) stack.push(t.kids[k] ?? 0);
    }
  }

  const blockOf = async (t: Tree, i: number): Promise<Columns> => {
    const b = t.group.rows.block[i] ?? -1;
    const cell = t.group.rows.cell[b] ?? '';
    const key = keys.cellBlock(v, cell);
    if (b < 0) throw new StoreError(`${keys.cellGroup(v, t.group.cell)} gives leaf ${t.group.rows.cell[i] ?? ''} no block`, key);
    const block = await readRequired(reader, key, CellBlock, 'is listed in its group but missing');
    const cols = columns(block);
    if (cols.cell !== cell) throw new StoreError(`${key} holds block ${cols.cell}`, key);
    return cols;
  };

  const best = new Map<number, Best>();
  const consider = (cols: Columns, pos: number, d: number): void => {
    const f = cols.firm[pos] ?? 0;
    const cand: Best = { d, listing: cols.listing[pos] ?? 0, cols, pos };
    const b = best.get(f);
    if (b === undefined || before(cand, b)) best.set(f, cand);
  };
  const edgeCount = new Map<number, number>();
  const edgeBlocks = await Promise.all(edges.map(([t, i]) => blockOf(t, i)));
  for (const [e, [t, i]] of edges.entries()) {
    const cols = edgeBlocks[e] as Columns;
    const start = t.group.rows.at[i] ?? 0;
    const end = start + (t.group.rows.n[i] ?? 0);
    for (let p = start; p < end; p++) {
      const d = haversineMiles(lat, lng, cols.lat[p] ?? 0, cols.lng[p] ?? 0);
      if (d > R) continue;
      const f = cols.firm[p] ?? 0;
      edgeCount.set(f, (edgeCount.get(f) ?? 0) + 1);
      consider(cols, p, d);
    }
  }
  for (const f of shared.keys()) if (!edgeCount.has(f)) count++;
  count += edgeCount.size;

  // The `limit` nearest so far (limit is at most 25, so an insertion list).
  const top = (): Best[] => {
    const list: Best[] = [];
    for (const b of best.values()) {
      if (list.length === limit && !before(b, list[list.length - 1] as Best)) continue;
      let at = list.length;
      while (at > 0 && before(b, list[at - 1] as Best)) at--;
      list.splice(at, 0, b);
      if (list.length > limit) list.pop();
    }
    return list;
  };
  const queue = new FlatQueue<[Tree, number]>();
  const push = (t: Tree, i: number): void => {
    const d = haversineMiles(lat, lng, t.lat[i] ?? 0, t.lng[i] ?? 0);
    queue.push([t, i], Math.max(0, d - (t.group.rows.reach[i] ?? 0)));
  };
  for (const [t, i] of inside) push(t, i);
  let kept = top();
  while (queue.length > 0) {
    const kth = kept.length === limit ? (kept[kept.length - 1] as Best).d : Number.POSITIVE_INFINITY;
    if ((queue.peekValue() ?? 0) > kth) break;
    const [t, i] = queue.pop() as [Tree, number];
    const a = t.first[i] ?? 0;
    const b = t.first[i + 1] ?? 0;
    if (a < b) {
      for (let k = a; k < b; k++) push(t, t.kids[k] ?? 0);
      continue;
    }
    const cols = await blockOf(t, i);
    const start = t.group.rows.at[i] ?? 0;
    const end = start + (t.group.rows.n[i] ?? 0);
    for (let p = start; p < end; p++) consider(cols, p, haversineMiles(lat, lng, cols.lat[p] ?? 0, cols.lng[p] ?? 0));
    kept = top();
  }

  const chunk = index.record_chunk;
  const hits = await Promise.all(
    kept.map(async (k): Promise<FirmHit> => {
      const n = Math.floor(k.pos / chunk);
      const key = keys.cellRecords(v, k.cols.cell, n);
      const rec = await readRequired(reader, key, CellRecords, 'is missing for a block position');
      const office = rec.offices[k.pos - n * chunk];
      if (office === undefined || office.lat !== k.cols.lat[k.pos] || office.lng !== k.cols.lng[k.pos]) {
        throw new StoreError(`${key} does not hold the office at position ${k.pos} of block ${k.cols.cell}`, key);
      }
      const f = k.cols.firm[k.pos] ?? 0;
      const within = shared.has(f) || edgeCount.has(f) ? (shared.get(f) ?? 0) + (edgeCount.get(f) ?? 0) : (rec.firm_offices[k.pos - n * chunk] ?? 0);
      return { office, distanceMiles: k.d, officesWithinRadius: within };
    }),
  );
  return { firms: count, hits };
}
