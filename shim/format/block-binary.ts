/**
 * The binary coding of a cell block (cell schema 7, `cells/blocks/<cell>.pb`): the values of the schema-6 JSON block,
 * as the Protocol Buffers message CellBlock of cell-block.proto, so `protoc --decode=CellBlock cell-block.proto`
 * reads one. Written as a proto3 encoder writes it (fields in number order, repeated scalars packed, zero and empty
 * fields left out), so the bytes of a block follow from its values alone. Integer columns are zigzag varints: a step of
 * a few digits takes one to three bytes where its JSON took four to eight.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
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
} as const;
/** The one field of message SharedList. */
const STEPS = 1;

type Scalar = 'uint32' | 'sint32' | 'sint64' | 'double';

function packed(w: BinaryWriter, field: number, kind: Scalar, values: readonly number[]): void {
  if (values.length === 0) return;
  w.tag(field, WireType.LengthDelimited).fork();
  for (const v of values) w[kind](v);
  w.join();
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
  for (const list of block.shared) {
    w.tag(F.shared, WireType.LengthDelimited).fork();
    packed(w, STEPS, 'uint32', list);
    w.join();
  }
  for (const sha of block.records_sha256)
    w.tag(F.records_sha256, WireType.LengthDelimited).bytes(Buffer.from(sha, 'hex'));
  return w.finish();
}

/**
 * The packed varints of `bytes` from the reader's position to `end`, zigzag-decoded when `signed`, into `into`; each
 * must be a safe integer (an unsigned one below 2^32). Read here rather than by BinaryReader.sint64, whose bigints
 * made a block's decoding three times slower than its JSON's.
 */
function varints(bytes: Uint8Array, r: BinaryReader, end: number, signed: boolean, into: number[]): void {
  let p = r.pos;
  while (p < end) {
    let v = 0;
    let scale = 1;
    let b: number;
    do {
      if (p >= end || scale > 2 ** 49) throw new Error(`a varint at byte ${p} runs past its field or 2^56`);
      b = bytes[p++] as number;
      v += (b & 0x7f) * scale;
      scale *= 128;
    } while (b & 0x80);
    if (signed) {
      if (v > Number.MAX_SAFE_INTEGER) throw new Error(`a zigzag varint at byte ${p} is not a safe integer`);
      into.push(v % 2 === 0 ? v / 2 : -(v + 1) / 2);
    } else {
      if (v >= 2 ** 32) throw new Error(`a uint32 at byte ${p} is 2^32 or more`);
      into.push(v);
    }
  }
  r.pos = p;
}

/** A packed run at the reader (its length, then `one` element after another, or the varints of it), until its end. */
function readPacked(
  bytes: Uint8Array,
  r: BinaryReader,
  field: number,
  kind: 'uint32' | 'sint' | 'double',
  into: number[],
): void {
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new Error(`field ${field} runs past the end`);
  if (kind === 'double') {
    if ((end - r.pos) % 8 !== 0) throw new Error(`field ${field} is not whole doubles`);
    while (r.pos < end) into.push(r.double());
  } else varints(bytes, r, end, kind === 'sint', into);
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
  };
  const seen = new Set<number>();
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field !== F.shared && field !== F.records_sha256) {
      if (seen.has(field)) throw new Error(`field ${field} appears twice`);
      seen.add(field);
    }
    const want = field === F.schema_version || field === F.coord_digits ? WireType.Varint : WireType.LengthDelimited;
    if (wire !== want) throw new Error(`field ${field} has wire type ${wire}`);
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
      case F.shared: {
        const list: number[] = [];
        const inner = r.bytes();
        const sub = new BinaryReader(inner);
        while (sub.pos < sub.len) {
          const [f, w] = sub.tag();
          if (f !== STEPS || w !== WireType.LengthDelimited || list.length > 0)
            throw new Error(`a shared list has field ${f} of wire type ${w}`);
          readPacked(inner, sub, f, 'uint32', list);
        }
        out.shared.push(list);
        break;
      }
      case F.records_sha256: {
        const sha = r.bytes();
        if (sha.length !== 32) throw new Error(`a records_sha256 of ${sha.length} bytes`);
        out.records_sha256.push(Buffer.from(sha.buffer, sha.byteOffset, sha.byteLength).toString('hex'));
        break;
      }
      default:
        throw new Error(`unknown field ${field}`);
    }
  }
  return out;
}
