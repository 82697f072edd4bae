/**
 * The Protocol Buffers pieces the binary cell objects share (block-binary.ts, group-binary.ts, shared-binary.ts):
 * packed columns written with @bufbuild/protobuf's writer and read by our own loop, H3 ids as fixed64, sha256 hashes as
 * their 32 bytes, and the strict field check every decoder applies (a field repeated or of another wire type refused).
 */
import { BinaryReader, WireType, type BinaryWriter } from '@bufbuild/protobuf/wire';

/** A packed scalar column's element type. */
export type Scalar = 'uint32' | 'sint32' | 'sint64' | 'double';

/** Write `values` as a packed field (nothing when empty, as proto3 leaves an empty repeated field out). */
export function packed(w: BinaryWriter, field: number, kind: Scalar, values: readonly number[]): void {
  if (values.length === 0) return;
  w.tag(field, WireType.LengthDelimited).fork();
  for (const v of values) w[kind](v);
  w.join();
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

/** The length of the packed run at the reader and the position it ends at, checked to lie within the message. */
function runEnd(r: BinaryReader, field: number): number {
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new Error(`field ${field} runs past the end`);
  return end;
}

/** A packed run at the reader (its length, then its elements), until its end, into `into`. */
export function readPacked(
  bytes: Uint8Array,
  r: BinaryReader,
  field: number,
  kind: 'uint32' | 'sint' | 'double',
  into: number[],
): void {
  const end = runEnd(r, field);
  if (kind === 'double') {
    if ((end - r.pos) % 8 !== 0) throw new Error(`field ${field} is not whole doubles`);
    while (r.pos < end) into.push(r.double());
  } else varints(bytes, r, end, kind === 'sint', into);
}

/** The halves of a 15-digit H3 id (high 28 bits, low 32), or a thrown error for anything else. */
function h3Halves(cell: string): [number, number] {
  if (!/^[0-9a-f]{15}$/.test(cell)) throw new Error(`${JSON.stringify(cell)} is not a 15-digit H3 id`);
  return [parseInt(cell.slice(0, 7), 16), parseInt(cell.slice(7), 16)];
}

/** The 15-digit H3 id of a fixed64's halves; a value of another length is refused. */
function h3Of(hi: number, lo: number): string {
  if (hi < 0x1000000 || hi >= 0x10000000) throw new Error(`a cell id ${hi.toString(16)}… is not 15 hexadecimal digits`);
  return hi.toString(16) + lo.toString(16).padStart(8, '0');
}

/**
 * The H3 id of the child at the next resolution of `parent` whose digit at that resolution is `digit` (0 to 6), or a
 * thrown error when there is none (a parent at resolution 15, a digit past 6).
 */
export function childCell(parent: string, digit: number): string {
  const h = BigInt(`0x${parent}`);
  const res = Number((h >> 52n) & 0xfn) + 1;
  if (res > 15 || !(Number.isInteger(digit) && digit >= 0 && digit <= 6))
    throw new Error(`${parent} has no child of digit ${digit}`);
  const shift = BigInt(3 * (15 - res));
  const child = (h & ~(0xfn << 52n) & ~(7n << shift)) | (BigInt(res) << 52n) | (BigInt(digit) << shift);
  return child.toString(16).padStart(15, '0');
}

/** The digit at its own resolution of an H3 id (its place among its parent's children). */
export function ownDigit(cell: string): number {
  const h = BigInt(`0x${cell}`);
  const res = Number((h >> 52n) & 0xfn);
  return Number((h >> BigInt(3 * (15 - res))) & 7n);
}

/** Write an H3 id as a fixed64 field (left out when empty, a proto3 zero). */
export function writeCell(w: BinaryWriter, field: number, cell: string): void {
  if (cell === '') return;
  const [hi, lo] = h3Halves(cell);
  w.tag(field, WireType.Bit64).fixed32(lo).fixed32(hi);
}

/** Read the fixed64 at the reader as an H3 id. */
export function readCell(r: BinaryReader): string {
  const lo = r.fixed32();
  return h3Of(r.fixed32(), lo);
}

/** Write H3 ids as a packed fixed64 column: 8 bytes each where the JSON string took 17 or 18. */
export function writeCells(w: BinaryWriter, field: number, cells: readonly string[]): void {
  if (cells.length === 0) return;
  w.tag(field, WireType.LengthDelimited).fork();
  for (const cell of cells) {
    const [hi, lo] = h3Halves(cell);
    w.fixed32(lo).fixed32(hi);
  }
  w.join();
}

/** A packed fixed64 column at the reader as H3 ids, into `into`. */
export function readCells(r: BinaryReader, field: number, into: string[]): void {
  const end = runEnd(r, field);
  if ((end - r.pos) % 8 !== 0) throw new Error(`field ${field} is not whole fixed64s`);
  while (r.pos < end) into.push(readCell(r));
}

/** Write a sha256 (hex) as its 32 bytes. */
export function writeSha(w: BinaryWriter, field: number, sha: string): void {
  if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`${JSON.stringify(sha)} is not a sha256`);
  w.tag(field, WireType.LengthDelimited).bytes(Buffer.from(sha, 'hex'));
}

/** The 32 bytes at the reader as a sha256 in hex; another length is refused. */
export function readSha(r: BinaryReader): string {
  const sha = r.bytes();
  if (sha.length !== 32) throw new Error(`a sha256 of ${sha.length} bytes`);
  return Buffer.from(sha.buffer, sha.byteOffset, sha.byteLength).toString('hex');
}

/**
 * The strict check of each tag a decoder reads: a field may appear once (but those in `repeats`, repeated messages
 * or bytes), with the wire type `wireOf` gives it (undefined: an unknown field).
 */
export function fieldChecker(
  wireOf: (field: number) => WireType | undefined,
  repeats: readonly number[],
): (field: number, wire: WireType) => void {
  const seen = new Set<number>();
  return (field, wire) => {
    const want = wireOf(field);
    if (want === undefined) throw new Error(`unknown field ${field}`);
    if (!repeats.includes(field)) {
      if (seen.has(field)) throw new Error(`field ${field} appears twice`);
      seen.add(field);
    }
    if (wire !== want) throw new Error(`field ${field} has wire type ${wire}`);
  };
}

/** The one field of message SharedList. */
const STEPS = 1;

/** Write a shared list as a SharedList message (an empty list an empty message). */
export function writeSharedList(w: BinaryWriter, field: number, list: readonly number[]): void {
  w.tag(field, WireType.LengthDelimited).fork();
  packed(w, STEPS, 'uint32', list);
  w.join();
}

/** The SharedList message at the reader as its list. */
export function readSharedList(r: BinaryReader): number[] {
  const list: number[] = [];
  const inner = r.bytes();
  const sub = new BinaryReader(inner);
  while (sub.pos < sub.len) {
    const [f, w] = sub.tag();
    if (f !== STEPS || w !== WireType.LengthDelimited || list.length > 0)
      throw new Error(`a shared list has field ${f} of wire type ${w}`);
    readPacked(inner, sub, f, 'uint32', list);
  }
  return list;
}
