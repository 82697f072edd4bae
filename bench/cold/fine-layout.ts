/**
 * The fine packed layout of a site, a what-if beside packed-ranges.ts (not a format): each group's pack holds, for each
 * block in the index's order, one independently decodable segment per leaf row (the leaf's offices as a CellBlock
 * message of their own, steps restarting at the segment, block-binary.ts `encodeBlock`) and a segment of the block's
 * shared lists of rows below block level; then the group's shared pages as stored; then each block's records in
 * chunks of `c` (32 as stored, 8, 4 or 1, a record its own range), each chunk at its exact size in the stored chunk's
 * format (generator/write/json.ts `serialise`). Where the lengths go, so a reader can locate a range: each segment's
 * and shared page's length in the group tree (prefix sums of the lengths in the pack's order give the offsets, as
 * varints), each record chunk's length in every leaf segment covering its positions, with the pack offset of the
 * leaf's first chunk. Where the hashes go: `Hashes` below.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cellToLatLng } from 'h3-js';
import { encodeBlock } from '../../shim/format/block-binary.ts';
import { decodeCoords, decodeSteps, encodeCoords, encodeSteps } from '../../shim/format/block-coords.ts';
import {
  CellBlock,
  CellGroup,
  CellIndex,
  type CellBlockT,
  type CellGroupT,
  type CellIndexT,
} from '../../shim/format/cell-format.ts';
import { paths } from '../../shim/format/paths.ts';
import { keys } from '../../shim/format/site-format.ts';
import { decodeStored } from '../../shim/format/site-json.ts';
import { serialise } from '../../generator/write/json.ts';
import { uvarint, type Placed } from './packed-ranges.ts';

/** Bytes of a sha256 as one entry of a repeated bytes field: its tag, its length and its 32 bytes. */
export const HASH_FIELD = 34;

/** Bytes charged for the pack offset of a leaf's first record chunk in its segment: a tag and a varint up to 2^35. */
export const BASE_FIELD = 6;

/** Bytes of `values` as one packed varint field (tag, length, varints); 0 when empty, as proto3 leaves it out. */
export function packedBytes(values: readonly number[]): number {
  const body = values.reduce((n, v) => n + uvarint(v), 0);
  return values.length === 0 ? 0 : 1 + uvarint(body) + body;
}

/** A group's tree: its rows, each row's children and H3 centre (degrees). */
export interface Tree {
  cell: string;
  group: CellGroupT;
  kids: number[][];
  lat: Float64Array;
  lng: Float64Array;
}

/** A block's offices decoded (units, degrees by position) beside its stored values. */
export interface Offices {
  block: CellBlockT;
  unit: Int32Array;
  lat: Float64Array;
  lng: Float64Array;
}

/** A block's records: each record's JSON text length and its unit's offices, its listing ids, its stored chunks' sizes. */
export interface Records {
  text: number[];
  unitOffices: number[];
  listingIds: string[];
  stored: number[];
}

/** A site read lazily for the what-if: its index, group trees, blocks and records, each decoded once. */
export interface FineSite {
  dir: string;
  v: string;
  index: CellIndexT;
  tree: (group: string) => Tree;
  offices: (block: string) => Offices;
  records: (block: string) => Records;
}

/** The value of the object at `rel` under version root `root`, decoded as stored (binary or JSON). */
function load(root: string, rel: string): unknown {
  return decodeStored(readFileSync(join(root, rel)), rel);
}

/** The tree of a parsed group with each row's children and centre. */
function treeOf(cell: string, group: CellGroupT): Tree {
  const rows = group.rows.cell.length;
  const kids: number[][] = Array.from({ length: rows }, () => []);
  group.rows.parent.forEach((p, i) => p >= 0 && kids[p]?.push(i));
  const lat = new Float64Array(rows);
  const lng = new Float64Array(rows);
  group.rows.cell.forEach((c, i) => ([lat[i], lng[i]] = cellToLatLng(c)));
  return { cell, group, kids, lat, lng };
}

/** The decoded offices of a parsed block (its columns must decode: the site passed its audit). */
function officesOf(block: CellBlockT): Offices {
  const coords = decodeCoords(block, block.listing.length);
  const unit = decodeSteps(block.dunit);
  if (typeof coords === 'string' || typeof unit === 'string') throw new Error(`block ${block.cell} does not decode`);
  return { block, unit, lat: coords.lat, lng: coords.lng };
}

/** The records of block `cell` from its stored chunks under version root `root`. */
function recordsOf(root: string, cell: string): Records {
  const out: Records = { text: [], unitOffices: [], listingIds: [], stored: [] };
  const chunks = readdirSync(join(root, 'cells/records', cell)).length;
  for (let k = 0; k < chunks; k++) {
    const bytes = readFileSync(join(root, paths.cellRecords(cell, k)));
    const chunk = JSON.parse(bytes.toString('utf8')) as { offices: { listing_id: string }[]; unit_offices: number[] };
    out.stored.push(bytes.length);
    for (const r of chunk.offices) {
      out.text.push(Buffer.byteLength(JSON.stringify(r)));
      out.listingIds.push(r.listing_id);
    }
    out.unitOffices.push(...chunk.unit_offices);
  }
  return out;
}

/** Memoises `f` by its string argument. */
function cached<T>(f: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    let x = seen.get(key);
    if (x === undefined) seen.set(key, (x = f(key)));
    return x;
  };
}

/** Version `v` of the site folder `dir`, its objects read when first asked. */
export function fineSite(dir: string, v: string): FineSite {
  const root = join(dir, keys.root(v));
  const index = CellIndex.parse(JSON.parse(readFileSync(join(root, paths.cellIndex()), 'utf8')));
  return {
    dir,
    v,
    index,
    tree: cached((g) => treeOf(g, CellGroup.parse(load(root, paths.cellGroup(g, index.schema_version))))),
    offices: cached((b) => officesOf(CellBlock.parse(load(root, paths.cellBlock(b))))),
    records: cached((b) => recordsOf(root, b)),
  };
}

/** The leaf rows of a tree (rows without children), by the row of their block. */
export function leavesByBlock(t: Tree): Map<number, number[]> {
  const out = new Map<number, number[]>();
  t.kids.forEach((k, i) => {
    const b = t.group.rows.block[i] ?? -1;
    if (k.length === 0 && b >= 0) out.set(b, [...(out.get(b) ?? []), i]);
  });
  return out;
}

/** Block positions s to e - 1 as a block message of their own: columns re-encoded from s, no shared lists or hashes. */
export function leafSegment(o: Offices, s: number, e: number): CellBlockT {
  return {
    schema_version: o.block.schema_version,
    cell: '',
    listing: o.block.listing.slice(s, e),
    dunit: encodeSteps(o.unit.subarray(s, e)),
    ...encodeCoords(o.lat.subarray(s, e), o.lng.subarray(s, e)),
    shared: [],
    records_sha256: [],
    records_bytes: [],
  };
}

/** A block's shared lists of rows below block level as a block message of their own (null when it has none). */
export function sharedSegment(o: Offices): CellBlockT | null {
  if (o.block.shared.length === 0) return null;
  const empty = {
    dunit: [],
    coord_digits: 0,
    dlat: [],
    dlng: [],
    exact: [],
    records_sha256: [],
    records_bytes: [],
  };
  return { ...empty, schema_version: o.block.schema_version, cell: '', listing: [], shared: o.block.shared };
}

/** Bytes of record chunks of `c` records of a block (chunk j holds positions j*c to j*c+c-1) in the stored format. */
export function chunkSizes(block: string, rec: Records, c: number, schema: number): number[] {
  const out: number[] = [];
  for (let s = 0, j = 0; s < rec.text.length; s += c, j++) {
    const e = Math.min(rec.text.length, s + c);
    const envelope = {
      schema_version: schema,
      block,
      chunk: j,
      offices: [],
      unit_offices: rec.unitOffices.slice(s, e),
    };
    // JSON.stringify joins the records' texts with commas inside the (here empty) offices array.
    const texts = rec.text.slice(s, e).reduce((n, t) => n + t, 0) + (e - s - 1);
    out.push(serialise(envelope).length + texts);
  }
  return out;
}

/** Pseudo keys of the fine layout's ranges (keys of a block's segments and of a block's records in chunks of c). */
export const fineKey = {
  leaf: (blockKey: string, row: number) => `${blockKey}#${row}`,
  shared: (blockKey: string) => `${blockKey}#shared`,
  records: (v: string, block: string, c: number, j: number) => `${keys.root(v)}cells/records/${block}/c${c}/${j}`,
};

/**
 * Where the fine layout keeps the hashes. `listed`: each segment's sha256 in the group tree, each record chunk's in
 * every leaf segment covering it. `merkle`: the group tree keeps one root per block (where it kept the block's sha256)
 * over the block's segments, and each leaf segment one root over its record chunks; each range starts with its Merkle
 * proof (ceil(log2 m) hashes of 32 bytes for m leaves of the tree, once per leaf segment covering a chunk).
 */
export type Hashes = 'listed' | 'merkle';

/** Bytes of the Merkle proof of one of `m` leaves. */
export function proofBytes(m: number): number {
  return m <= 1 ? 0 : 32 * Math.ceil(Math.log2(m));
}

/** The fine layout of a site for records in chunks of `c`: every range placed, each group tree's growth in bytes. */
export interface FineLayout {
  c: number;
  hashes: Hashes;
  placed: Map<string, Placed>;
  /** Bytes each group tree gains (segment and record locators) less the block hashes it drops, by group key. */
  treeGrowth: Map<string, number>;
  /** Each block's segment keys in pack order (a block read whole reads them all), by block key. */
  segments: Map<string, string[]>;
  /** Each block's leaf rows with their positions [row, start, end), by block key. */
  leaves: Map<string, [number, number, number][]>;
}

/** The leaf segments of block `b` of tree `t`: [row, start, end) of each, in row order. */
function blockLeaves(t: Tree, leafRows: readonly number[]): [number, number, number][] {
  return leafRows.map((row) => {
    const s = t.group.rows.at[row] ?? 0;
    return [row, s, s + (t.group.rows.n[row] ?? 0)];
  });
}

/** The chunks of `c` a leaf's positions [s, e) cover: first and count. */
function chunksOf(s: number, e: number, c: number): [number, number] {
  return [Math.floor(s / c), e > s ? Math.floor((e - 1) / c) - Math.floor(s / c) + 1 : 0];
}

/** Bytes of each record chunk range of a block: the chunk, plus under `merkle` its proof in each leaf covering it. */
function chunkRanges(sizes: readonly number[], leaves: readonly [number, number, number][], c: number, h: Hashes) {
  const out = sizes.slice();
  if (h === 'merkle')
    for (const [, s, e] of leaves) {
      const [first, m] = chunksOf(s, e, c);
      for (let j = first; j < first + m; j++) out[j] = (out[j] ?? 0) + proofBytes(m);
    }
  return out;
}

/** Places one group's ranges in its pack and returns the bytes its tree gains. */
function placeGroup(site: FineSite, g: string, layout: FineLayout): number {
  const { v, index } = site;
  const { c, hashes } = layout;
  const t = site.tree(g);
  const blocks = (index.blocks[g] ?? []).map(([cell]) => cell);
  const byBlock = leavesByBlock(t);
  const rowOf = new Map(t.group.rows.cell.map((cell, i) => [cell, i]));
  const ranges = cached((b) => {
    const leaves = blockLeaves(t, byBlock.get(rowOf.get(b) ?? -1) ?? []);
    return chunkRanges(chunkSizes(b, site.records(b), c, index.schema_version), leaves, c, hashes);
  });
  // Under `listed` a segment's hash joins the tree and the block's goes; under `merkle` the block's root replaces it.
  const perSegment = hashes === 'listed' ? HASH_FIELD : 0;
  let growth = hashes === 'listed' ? -HASH_FIELD * blocks.length : 0;
  let at = 0;
  const put = (key: string, size: number): void => {
    layout.placed.set(key, { pack: g, at, size });
    at += size;
  };
  for (const b of blocks) {
    const o = site.offices(b);
    const bkey = keys.cellBlock(v, b);
    const leaves = blockLeaves(t, byBlock.get(rowOf.get(b) ?? -1) ?? []);
    const shared = sharedSegment(o);
    const proof = hashes === 'merkle' ? proofBytes(leaves.length + (shared === null ? 0 : 1)) : 0;
    const segs: [string, number][] = leaves.map(([row, s, e]) => {
      const [first, m] = chunksOf(s, e, c);
      const locators = packedBytes(ranges(b).slice(first, first + m)) + BASE_FIELD;
      const hashed = hashes === 'listed' ? m * HASH_FIELD : HASH_FIELD;
      return [fineKey.leaf(bkey, row), encodeBlock(leafSegment(o, s, e)).length + locators + hashed + proof];
    });
    if (shared !== null) segs.push([fineKey.shared(bkey), encodeBlock(shared).length + proof]);
    for (const [key, size] of segs) {
      put(key, size);
      growth += perSegment + uvarint(size);
    }
    layout.segments.set(
      bkey,
      segs.map(([key]) => key),
    );
    layout.leaves.set(bkey, leaves);
  }
  const root = join(site.dir, keys.root(v));
  for (const page of Object.keys(t.group.shared_sha256)) {
    const rel = paths.cellShared(page, index.schema_version);
    const size = statSync(join(root, rel)).size;
    put(keys.root(v) + rel, size);
    growth += uvarint(size);
  }
  for (const b of blocks) ranges(b).forEach((size, j) => put(fineKey.records(v, b, c, j), size));
  return growth;
}

/** The fine layout of `site` with records in chunks of `c` and hashes kept as `hashes` says. */
export function fineLayout(site: FineSite, c: number, hashes: Hashes = 'merkle'): FineLayout {
  const out: FineLayout = {
    c,
    hashes,
    placed: new Map(),
    treeGrowth: new Map(),
    segments: new Map(),
    leaves: new Map(),
  };
  for (const g of Object.keys(site.index.groups))
    out.treeGrowth.set(keys.cellGroup(site.v, g, site.index.schema_version), placeGroup(site, g, out));
  return out;
}
