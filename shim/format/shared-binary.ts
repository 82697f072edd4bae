/**
 * The binary coding of a shared page (cell schema 8, `cells/shared/<page cell>.pb`): the values of the schema-7 JSON
 * page, as the Protocol Buffers message CellShared of cell-block.proto, written as a proto3 encoder writes it. The
 * rows are steps (the first row, then each less the one before); each shared list is a SharedUnits message, in which a
 * unit with one office under the row (four in five) takes one varint where a block's SharedList pair takes two.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { CellSharedT } from './cell-format.ts';
import {
  fieldChecker,
  packed,
  readCell,
  readPacked,
  readSharedList,
  writeCell,
  writeSharedList,
} from './pb-columns.ts';

/** The field numbers of cell-block.proto message CellShared. */
const F = { schema_version: 1, cell: 2, row: 3, shared: 4 } as const;

/** The wire type of each CellShared field (undefined: not a field of it). */
function wireOf(field: number): WireType | undefined {
  if (field === F.schema_version) return WireType.Varint;
  if (field === F.cell) return WireType.Bit64;
  return field === F.row || field === F.shared ? WireType.LengthDelimited : undefined;
}

/**
 * A shared list [unit step, offices, ...] as SharedUnits values: each step doubled, plus 1 and followed by the office
 * count when that count is not 1.
 */
function unitsOf(list: readonly number[]): number[] {
  if (list.length % 2 !== 0) throw new Error('a shared list of an odd length');
  const out: number[] = [];
  for (let k = 0; k < list.length; k += 2) {
    const [step, offices] = [list[k] as number, list[k + 1] as number];
    if (!(Number.isInteger(step) && step >= 0 && step < 2 ** 31)) throw new Error(`a unit step ${step}`);
    if (offices === 1) out.push(2 * step);
    else out.push(2 * step + 1, offices);
  }
  return out;
}

/** The shared list of SharedUnits values (unitsOf); a count of 1 written out, or missing, is refused. */
function listOf(units: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < units.length; k++) {
    const v = units[k] as number;
    if (v % 2 === 0) out.push(v / 2, 1);
    else {
      const offices = units[++k];
      if (offices === undefined || offices === 1) throw new Error(`a shared unit of count ${offices ?? 'missing'}`);
      out.push((v - 1) / 2, offices);
    }
  }
  return out;
}

/** The stored bytes of `page` (its schema_version is written as it is: 8 as generated); its rows must ascend. */
export function encodeShared(page: CellSharedT): Uint8Array {
  const w = new BinaryWriter();
  w.tag(F.schema_version, WireType.Varint).uint32(page.schema_version);
  writeCell(w, F.cell, page.cell);
  const steps = page.row.map((row, j) => {
    const step = row - (j === 0 ? 0 : (page.row[j - 1] as number));
    if (!(Number.isInteger(step) && step >= 0 && step < 2 ** 32))
      throw new Error(`row ${row} does not follow its previous`);
    return step;
  });
  packed(w, F.row, 'uint32', steps);
  for (const list of page.shared) {
    writeSharedList(w, F.shared, unitsOf(list));
  }
  return w.finish();
}

/**
 * The SharedUnits message at the reader as its shared list: on the wire it is shaped as a block's SharedList (one packed
 * uint32 field 1), so the same reader takes it in.
 */
function readUnits(r: BinaryReader): number[] {
  return listOf(readSharedList(r));
}

/**
 * The values of a shared page from its stored bytes, shaped as the JSON page (the caller checks them with CellShared);
 * throws on bytes that are not a CellShared message as encodeShared writes it.
 */
export function decodeShared(bytes: Uint8Array): unknown {
  const r = new BinaryReader(bytes);
  const out = { schema_version: 0, cell: '', row: [] as number[], shared: [] as number[][] };
  const check = fieldChecker(wireOf, [F.shared]);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    check(field, wire);
    if (field === F.schema_version) out.schema_version = r.uint32();
    else if (field === F.cell) out.cell = readCell(r);
    else if (field === F.row) readPacked(bytes, r, field, 'uint32', out.row);
    else out.shared.push(readUnits(r));
  }
  let row = 0;
  for (let j = 0; j < out.row.length; j++) {
    row += out.row[j] as number;
    if (row >= 2 ** 32) throw new Error(`row ${row} is 2^32 or more`);
    out.row[j] = row;
  }
  return out;
}
