/**
 * The binary cell block of cell schemas 7 and 8 (shim/format/block-binary.ts, docs/SITE-FORMAT.md): every block of the sample
 * site decodes to the values the library's own generic reader finds and encodes back to its stored bytes; values at
 * the edges of their fields round-trip; bytes that are not such a message are a StoreError naming the block.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from '../shim/format/block-binary.ts';
import { CellBlock, type CellBlockT } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { serialiseAt } from '../generator/write/json.ts';

const SITE = process.env.TEST_SITE_DIR as string;

/** The block's values read field by field with the library's generic reader (sint64 as bigints): an independent decoding. */
function genericDecode(bytes: Uint8Array): Record<string, unknown> {
  const r = new BinaryReader(bytes);
  const out: Record<string, unknown> = { listing: [], dunit: [], coord_digits: 0, dlat: [], dlng: [], exact: [] };
  const shared: number[][] = [];
  const records: string[] = [];
  const packed = (read: () => number | bigint): number[] => {
    const end = r.uint32() + r.pos;
    const a: number[] = [];
    while (r.pos < end) a.push(Number(read()));
    return a;
  };
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1) out.schema_version = r.uint32();
    else if (field === 2) out.cell = r.string();
    else if (field === 3) out.listing = packed(() => r.uint32());
    else if (field === 4) out.dunit = packed(() => r.sint32());
    else if (field === 5) out.coord_digits = r.uint32();
    else if (field === 6) out.dlat = packed(() => BigInt(r.sint64()));
    else if (field === 7) out.dlng = packed(() => BigInt(r.sint64()));
    else if (field === 8) out.exact = packed(() => r.double());
    else if (field === 9) {
      const sub = new BinaryReader(r.bytes());
      let list: number[] = [];
      while (sub.pos < sub.len) {
        sub.tag();
        const end = sub.uint32() + sub.pos;
        list = [];
        while (sub.pos < end) list.push(sub.uint32());
      }
      shared.push(list);
    } else if (field === 10) records.push(Buffer.from(r.bytes()).toString('hex'));
    else if (field === 11) out.records_bytes = packed(() => r.uint32());
    else r.skip(wire);
  }
  const { schema_version, cell, listing, dunit, coord_digits, dlat, dlng, exact, records_bytes } = out;
  return {
    schema_version,
    cell,
    listing,
    dunit,
    coord_digits,
    dlat,
    dlng,
    exact,
    shared,
    records_sha256: records,
    records_bytes: records_bytes ?? [],
  };
}

const sha = (c: string): string => c.repeat(64);
const EDGES: CellBlockT = {
  schema_version: 9,
  cell: '8928308280fffff',
  listing: [0, 1, 2 ** 32 - 1],
  dunit: [2 ** 31 - 1, -(2 ** 31 - 1), 0],
  // 9 decimals: counts past 2^31 (89.123456789 degrees) and steps of both signs.
  coord_digits: 9,
  dlat: [89_123_456_789, -178_246_913_578, 1],
  dlng: [-179_999_999_999, 359_999_999_998, -1],
  exact: [1, -0.1, 1e-300],
  shared: [[], [4, 1, 5, 2], []],
  records_sha256: [sha('a'), sha('0')],
  records_bytes: [2 ** 32 - 1, 26_000],
};

describe('binary cell blocks', () => {
  it('every block of the sample site: the stored bytes again when re-encoded, the values of a generic reader', () => {
    const v = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
    const dir = join(SITE, keys.root(v), 'cells', 'blocks');
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      expect(f).toMatch(/^[0-9a-f]{15}\.pb$/);
      const bytes = readFileSync(join(dir, f));
      const block = CellBlock.parse(decodeStored(bytes, `cells/blocks/${f}`));
      expect(block.schema_version).toBe(9);
      expect(genericDecode(bytes), f).toEqual(block);
      expect(Buffer.from(encodeBlock(block)).equals(bytes), f).toBe(true);
      expect(serialiseAt(`cells/blocks/${f}`, block).equals(bytes)).toBe(true);
    }
  });

  it('round-trips values at the edges of their fields, and leaves zero and empty fields out as proto3 does', () => {
    const bytes = encodeBlock(EDGES);
    expect(CellBlock.parse(decodeBlock(bytes))).toEqual(EDGES);
    expect(genericDecode(bytes)).toEqual(EDGES);
    const bare: CellBlockT = { ...EDGES, listing: [], dunit: [], coord_digits: 0, dlat: [], dlng: [], exact: [] };
    const small = encodeBlock({ ...bare, shared: [], records_sha256: [], records_bytes: [] });
    // schema_version (2 bytes) and cell (2 + 15): nothing else is written.
    expect(small.length).toBe(19);
    expect(decodeBlock(encodeBlock(bare))).toEqual(bare);
  });

  it('refuses bytes that are not a block message, naming the key', () => {
    const good = encodeBlock(EDGES);
    const key = 'v/x/cells/blocks/8928308280fffff.pb';
    const tag = (field: number, wire: WireType): number[] => [(field << 3) | wire];
    const damaged: [string, Uint8Array][] = [
      ['truncated', good.subarray(0, good.length - 5)],
      ['an unknown field', Uint8Array.from([...good, ...tag(12, WireType.Varint), 1])],
      ['a field twice', Uint8Array.from([...good, ...tag(5, WireType.Varint), 3])],
      ['a wrong wire type', Uint8Array.from([...tag(1, WireType.LengthDelimited), 1, 7])],
      ['a short sha256', Uint8Array.from([...good, ...tag(10, WireType.LengthDelimited), 2, 1, 2])],
      ['a varint past its field', Uint8Array.from([...tag(3, WireType.LengthDelimited), 1, 0x80])],
      ['JSON', new TextEncoder().encode('{"schema_version":7}\n')],
    ];
    for (const [what, bytes] of damaged) {
      let err: unknown;
      try {
        CellBlock.parse(decodeStored(bytes, key));
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(StoreError);
      expect((err as Error).message, what).toContain(key);
    }
  });
});
