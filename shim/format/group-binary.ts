/**
 * The binary coding of a group tree (cell schemas 8 and 9, `cells/groups/<cell>.pb`): the values of the schema-7 JSON group,
 * as the Protocol Buffers message CellGroup of cell-block.proto. Written as a proto3 encoder writes it (fields in
 * number order, repeated scalars packed, zero and empty fields left out), so the bytes follow from the values alone.
 * A row's cell is its digit among its parent's children (the group cell is a fixed64); `parent`, `block` and `at` are
 * varints of small steps; a reach is its count of 0.0001 mile.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { CellGroupT } from './cell-format.ts';
import {
  childCell,
  fieldChecker,
  ownDigit,
  packed,
  readCell,
  readCells,
  readPacked,
  readSha,
  writeCell,
  writeCells,
  writeSha,
} from './pb-columns.ts';

/** The field numbers of cell-block.proto message CellGroup. */
const F = {
  schema_version: 1,
  cell: 2,
  row_digit: 3,
  row_parent: 4,
  row_n: 5,
  row_reach: 6,
  row_units: 7,
  row_block: 8,
  row_at: 9,
  shared_cell: 10,
  shared_sha256: 11,
  block_cell: 12,
  block_sha256: 13,
  block_records_bytes: 14,
} as const;

/** The wire type of each CellGroup field (undefined: not a field of it). */
function wireOf(field: number): WireType | undefined {
  if (field === F.schema_version) return WireType.Varint;
  if (field === F.cell) return WireType.Bit64;
  return field > F.cell && field <= F.block_records_bytes ? WireType.LengthDelimited : undefined;
}

/**
 * The count c of 0.0001 mile of a reach, which is c / 10000 + 0.0001 in double precision exactly as the generator
 * computes it (rounded up to 0.0001, plus 0.0001); a reach not of that form is refused rather than changed.
 */
export function reachCount(reach: number): number {
  const c = Math.round(reach * 1e4) - 1;
  if (!(c >= 0 && c < 2 ** 32 && reachOf(c) === reach))
    throw new Error(`reach ${reach} is not a count of 0.0001 mile plus 0.0001`);
  return c;
}

/** The reach of count c (reachCount). */
export function reachOf(c: number): number {
  return c / 1e4 + 1e-4;
}

/** Each value of `column` as `code` of it and its row, checked to be a uint32. */
function coded(column: readonly number[], code: (v: number, i: number) => number, what: string): number[] {
  return column.map((v, i) => {
    const c = code(v, i);
    if (!(Number.isInteger(c) && c >= 0 && c < 2 ** 32)) throw new Error(`row ${i}: ${what} ${v} cannot be coded`);
    return c;
  });
}

/**
 * The digit of each row's cell after row 0 (the group cell), checked to give the cell back as the child of its
 * parent row's cell (childCell).
 */
function rowDigits(group: CellGroupT): number[] {
  const { cell, parent } = group.rows;
  if (cell.length > 0 && cell[0] !== group.cell)
    throw new Error(`row 0 is ${cell[0]}, not the group cell ${group.cell}`);
  return cell.slice(1).map((c, j) => {
    const up = cell[parent[j + 1] ?? -1];
    const digit = ownDigit(c);
    if (up === undefined || childCell(up, digit) !== c)
      throw new Error(`row ${j + 1}: ${c} is not a child of its parent row`);
    return digit;
  });
}

/** The stored bytes of `group` (its schema_version is written as it is: 8 as generated). */
export function encodeGroup(group: CellGroupT): Uint8Array {
  const { rows } = group;
  const w = new BinaryWriter();
  w.tag(F.schema_version, WireType.Varint).uint32(group.schema_version);
  writeCell(w, F.cell, group.cell);
  // A row's cell is a child of its parent's at the next resolution: its digit there (a byte) gives it back.
  packed(w, F.row_digit, 'uint32', rowDigits(group));
  // In preorder a parent, and a block row, lie a few rows back: their distance takes a byte where the row took three.
  packed(
    w,
    F.row_parent,
    'uint32',
    coded(rows.parent, (p, i) => i - p, 'parent'),
  );
  packed(w, F.row_n, 'uint32', rows.n);
  packed(w, F.row_reach, 'uint32', rows.reach.map(reachCount));
  packed(w, F.row_units, 'uint32', rows.units);
  packed(
    w,
    F.row_block,
    'uint32',
    coded(rows.block, (b, i) => (b === -1 ? 0 : i - b + 1), 'block'),
  );
  packed(
    w,
    F.row_at,
    'uint32',
    coded(rows.at, (a) => a + 1, 'at'),
  );
  writeCells(w, F.shared_cell, Object.keys(group.shared_sha256));
  for (const sha of Object.values(group.shared_sha256)) writeSha(w, F.shared_sha256, sha);
  writeCells(w, F.block_cell, Object.keys(group.block_sha256));
  for (const sha of Object.values(group.block_sha256)) writeSha(w, F.block_sha256, sha);
  packed(w, F.block_records_bytes, 'uint32', group.block_records_bytes);
  return w.finish();
}

/** `keys` paired with `values` as a record in their order, or a thrown error when the counts differ. */
function paired(keys: readonly string[], values: readonly string[], what: string): Record<string, string> {
  if (keys.length !== values.length) throw new Error(`${keys.length} ${what} cells but ${values.length} hashes`);
  const out: Record<string, string> = {};
  keys.forEach((k, j) => (out[k] = values[j] as string));
  if (Object.keys(out).length !== keys.length) throw new Error(`a ${what} cell is listed twice`);
  return out;
}

/**
 * The values of a group from its stored bytes, shaped as the JSON group (the caller checks them with CellGroup); throws
 * on bytes that are not a CellGroup message as encodeGroup writes it (a field repeated, unknown or of another wire
 * type, a value out of its range, row columns of different lengths).
 */
export function decodeGroup(bytes: Uint8Array): unknown {
  const r = new BinaryReader(bytes);
  let schemaVersion = 0;
  let cell = '';
  const digit: number[] = [];
  const parent: number[] = [];
  const n: number[] = [];
  const reach: number[] = [];
  const units: number[] = [];
  const block: number[] = [];
  const at: number[] = [];
  const sharedCell: string[] = [];
  const sharedSha: string[] = [];
  const blockCell: string[] = [];
  const blockSha: string[] = [];
  const blockRecordsBytes: number[] = [];
  // The row columns, each a packed uint32 field read the same way.
  const columns: Partial<Record<number, number[]>> = {
    [F.row_digit]: digit,
    [F.row_parent]: parent,
    [F.row_n]: n,
    [F.row_reach]: reach,
    [F.row_units]: units,
    [F.row_block]: block,
    [F.row_at]: at,
    [F.block_records_bytes]: blockRecordsBytes,
  };
  const check = fieldChecker(wireOf, [F.shared_sha256, F.block_sha256]);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    check(field, wire);
    const column = columns[field];
    if (column !== undefined) readPacked(bytes, r, field, 'uint32', column);
    else if (field === F.schema_version) schemaVersion = r.uint32();
    else if (field === F.cell) cell = readCell(r);
    else if (field === F.shared_cell) readCells(r, field, sharedCell);
    else if (field === F.shared_sha256) sharedSha.push(readSha(r));
    else if (field === F.block_cell) readCells(r, field, blockCell);
    else blockSha.push(readSha(r));
  }
  const count = parent.length;
  for (const col of [n, reach, units, block, at])
    if (col.length !== count) throw new Error(`row columns of ${count} and ${col.length} values`);
  if (digit.length !== Math.max(0, count - 1)) throw new Error(`${digit.length} digits for ${count} rows`);
  const parents = parent.map((d, i) => {
    if (d < 1 || d > (i === 0 ? 1 : i)) throw new Error(`row ${i}: a parent ${d} rows back`);
    return i - d;
  });
  const cells: string[] = count === 0 ? [] : [cell];
  for (let i = 1; i < count; i++) cells.push(childCell(cells[parents[i] as number] as string, digit[i - 1] as number));
  const rows = {
    cell: cells,
    parent: parents,
    n,
    reach: reach.map(reachOf),
    units,
    block: block.map((d, i) => {
      if (d > i + 1) throw new Error(`row ${i}: a block ${d - 1} rows back`);
      return d === 0 ? -1 : i - d + 1;
    }),
    at: at.map((a) => a - 1),
  };
  return {
    schema_version: schemaVersion,
    cell,
    rows,
    shared_sha256: paired(sharedCell, sharedSha, 'shared page'),
    block_sha256: paired(blockCell, blockSha, 'block'),
    block_records_bytes: blockRecordsBytes,
  };
}
