/**
 * The binary coding of a cell block (cell schemas 8 and 9, `cells/blocks/<cell>.pb`): the values of the JSON block of
 * cell schema 6, as the Protocol Buffers message CellBlock of cell-block.proto, so `protoc --decode=CellBlock
 * cell-block.proto` reads one. Written as a proto3 encoder writes it (fields in number order, repeated scalars packed, zero and empty
 * fields left out), so the bytes of a block follow from its values alone. Integer columns are zigzag varints: a step of
 * a few digits takes one to three bytes where its JSON took four to eight.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { fieldChecker, packed, readPacked, readSha, readSharedList, writeSha, writeSharedList } from './pb-columns.ts';
import type { CellBlockT } from './cell-format.ts';

/** The field numbers of cell-block.proto message CellBlock. */
const F = {
  schema_version: 1,
  cell: 2,
  listing: 3,
  dunit: 4,
  coord_digits: 5,
  dlat: 6,
  dlng: 7,
  exact: 8,
  shared: 9,
  records_sha256: 10,
  records_bytes: 11,
} as const;
const FIELDS = new Set<number>(Object.values(F));

/** The wire type of each CellBlock field (undefined: not a field of it). */
function wireOf(field: number): WireType | undefined {
  if (!FIELDS.has(field)) return undefined;
  return field === F.schema_version || field === F.coord_digits ? WireType.Varint : WireType.LengthDelimited;
}

/** The stored bytes of `block` (its schema_version is written as it is: 7 as generated). */
export function encodeBlock(block: CellBlockT): Uint8Array {
  const w = new BinaryWriter();
  w.tag(F.schema_version, WireType.Varint).uint32(block.schema_version);
  if (block.cell !== '') w.tag(F.cell, WireType.LengthDelimited).string(block.cell);
  packed(w, F.listing, 'uint32', block.listing);
  packed(w, F.dunit, 'sint32', block.dunit);
  if (block.coord_digits !== 0) w.tag(F.coord_digits, WireType.Varint).uint32(block.coord_digits);
  packed(w, F.dlat, 'sint64', block.dlat);
  packed(w, F.dlng, 'sint64', block.dlng);
  packed(w, F.exact, 'double', block.exact);
  for (const list of block.shared) writeSharedList(w, F.shared, list);
  for (const sha of block.records_sha256) writeSha(w, F.records_sha256, sha);
  packed(w, F.records_bytes, 'uint32', block.records_bytes);
  return w.finish();
}

/**
 * The values of a block from its stored bytes, shaped as the JSON block (the caller checks them with CellBlock); throws
 * on bytes that are not a CellBlock message as encodeBlock writes it (a field repeated, unknown or of another wire type).
 */
export function decodeBlock(bytes: Uint8Array): unknown {
  const r = new BinaryReader(bytes);
  const out = {
    schema_version: 0,
    cell: '',
    listing: [] as number[],
    dunit: [] as number[],
    coord_digits: 0,
    dlat: [] as number[],
    dlng: [] as number[],
    exact: [] as number[],
    shared: [] as number[][],
    records_sha256: [] as string[],
    records_bytes: [] as number[],
  };
  const check = fieldChecker(wireOf, [F.shared, F.records_sha256]);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    check(field, wire);
    switch (field) {
      case F.schema_version:
        out.schema_version = r.uint32();
        break;
      case F.cell:
        out.cell = r.string();
        break;
      case F.listing:
        readPacked(bytes, r, field, 'uint32', out.listing);
        break;
      case F.dunit:
        readPacked(bytes, r, field, 'sint', out.dunit);
        break;
      case F.coord_digits:
        out.coord_digits = r.uint32();
        break;
      case F.dlat:
        readPacked(bytes, r, field, 'sint', out.dlat);
        break;
      case F.dlng:
        readPacked(bytes, r, field, 'sint', out.dlng);
        break;
      case F.exact:
        readPacked(bytes, r, field, 'double', out.exact);
        break;
      case F.shared:
        out.shared.push(readSharedList(r));
        break;
      case F.records_sha256:
        out.records_sha256.push(readSha(r));
        break;
      case F.records_bytes:
        readPacked(bytes, r, field, 'uint32', out.records_bytes);
        break;
      default:
        throw new Error(`unknown field ${field}`);
    }
  }
  return out;
}
