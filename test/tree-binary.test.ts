/**
 * The binary group trees and shared pages of cell schema 8 (shim/format/group-binary.ts, shared-binary.ts,
 * docs/SITE-FORMAT.md): every one of the sample site decodes to the values the library's own generic reader finds and
 * encodes back to its stored bytes; values at the edges of their fields round-trip; bytes that are not such a message
 * are a StoreError naming the object.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { cellToParent, getResolution } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { decodeGroup, encodeGroup, reachCount, reachOf } from '../shim/format/group-binary.ts';
import { decodeShared, encodeShared } from '../shim/format/shared-binary.ts';
import { childCell } from '../shim/format/pb-columns.ts';
import { CellGroup, CellShared, type CellGroupT, type CellSharedT } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { serialiseAt } from '../generator/write/json.ts';

const SITE = process.env.TEST_SITE_DIR as string;

/** Every field of a message read with the library's generic reader: numbers, fixed64 as hex, sub-messages' packed lists. */
function genericFields(bytes: Uint8Array): Map<number, unknown[]> {
  const r = new BinaryReader(bytes);
  const fields = new Map<number, unknown[]>();
  const add = (f: number, v: unknown): number => fields.set(f, [...(fields.get(f) ?? []), v]).size;
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (wire === WireType.Varint) add(field, r.uint32());
    else if (wire === WireType.Bit64) add(field, BigInt(r.fixed64()).toString(16));
    else add(field, r.bytes());
  }
  return fields;
}

/** A packed run of uint32 (or fixed64 as hex) read by the generic reader. */
function packedOf(bytes: Uint8Array | undefined, fixed64 = false): (number | string)[] {
  if (bytes === undefined) return [];
  const r = new BinaryReader(bytes);
  const out: (number | string)[] = [];
  while (r.pos < r.len) out.push(fixed64 ? BigInt(r.fixed64()).toString(16) : r.uint32());
  return out;
}

/** A group's values from the generic reader, each field by the rule cell-block.proto states for it. */
function genericGroup(bytes: Uint8Array): CellGroupT {
  const f = genericFields(bytes);
  const one = (n: number): Uint8Array | undefined => f.get(n)?.[0] as Uint8Array | undefined;
  const cell = String(f.get(2)?.[0] ?? '');
  const parent = packedOf(one(4)).map((d, i) => i - (d as number));
  const digits = packedOf(one(3)) as number[];
  const cells = [cell];
  for (let i = 1; i < parent.length; i++)
    cells.push(childCell(cells[parent[i] as number] as string, digits[i - 1] as number));
  const hex = (n: number): string[] => (f.get(n) ?? []).map((b) => Buffer.from(b as Uint8Array).toString('hex'));
  const dict = (cellsField: number, shaField: number): Record<string, string> => {
    const shas = hex(shaField);
    return Object.fromEntries((packedOf(one(cellsField), true) as string[]).map((c, j) => [c, shas[j] as string]));
  };
  return {
    schema_version: f.get(1)?.[0] as 8,
    cell,
    rows: {
      cell: cells,
      parent,
      n: packedOf(one(5)) as number[],
      reach: (packedOf(one(6)) as number[]).map((c) => c / 10000 + 0.0001),
      units: packedOf(one(7)) as number[],
      block: packedOf(one(8)).map((d, i) => (d === 0 ? -1 : i - (d as number) + 1)),
      at: packedOf(one(9)).map((a) => (a as number) - 1),
    },
    shared_sha256: dict(10, 11),
    block_sha256: dict(12, 13),
    block_records_bytes: packedOf(one(14)) as number[],
  };
}

/** A shared page's values from the generic reader. */
function genericShared(bytes: Uint8Array): CellSharedT {
  const f = genericFields(bytes);
  let row = 0;
  const rows = packedOf(f.get(3)?.[0] as Uint8Array | undefined).map((s) => (row += s as number));
  const shared = (f.get(4) ?? []).map((m) => {
    const units = packedOf(genericFields(m as Uint8Array).get(1)?.[0] as Uint8Array | undefined) as number[];
    const list: number[] = [];
    for (let k = 0; k < units.length; k++) {
      const v = units[k] as number;
      if (v % 2 === 0) list.push(v / 2, 1);
      else list.push((v - 1) / 2, units[++k] as number);
    }
    return list;
  });
  return { schema_version: f.get(1)?.[0] as 8, cell: String(f.get(2)?.[0] ?? ''), row: rows, shared };
}

const sha = (c: string): string => c.repeat(64);
const GROUP_CELL = '822a17fffffffff';
const CHILD = childCell(GROUP_CELL, 0);
const EDGES: CellGroupT = {
  schema_version: 8,
  cell: GROUP_CELL,
  rows: {
    cell: [GROUP_CELL, CHILD, childCell(CHILD, 6), childCell(GROUP_CELL, 6)],
    parent: [-1, 0, 1, 0],
    n: [2 ** 32 - 1, 5, 5, 0],
    reach: [reachOf(2 ** 32 - 1), 0.0001, reachOf(123456), reachOf(1)],
    units: [0, 2 ** 32 - 1, 3, 0],
    block: [-1, 1, 1, 3],
    at: [-1, 0, 2 ** 32 - 2, 0],
  },
  shared_sha256: { [GROUP_CELL]: sha('a') },
  block_sha256: { [CHILD]: sha('0'), [childCell(GROUP_CELL, 6)]: sha('f') },
  block_records_bytes: [2 ** 32 - 1, 0],
};
const PAGE: CellSharedT = {
  schema_version: 8,
  cell: GROUP_CELL,
  row: [0, 3, 4, 2 ** 32 - 1],
  shared: [[], [4, 1, 5, 2], [2 ** 31 - 1, 2 ** 32 - 1], [0, 1, 0, 7]],
};

function siteFiles(sub: string): { key: string; bytes: Buffer }[] {
  const v = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
  const dir = join(SITE, keys.root(v), 'cells', sub);
  return readdirSync(dir).map((f) => ({ key: `cells/${sub}/${f}`, bytes: readFileSync(join(dir, f)) }));
}

describe('binary group trees and shared pages', () => {
  it('every group of the sample site: the stored bytes again when re-encoded, the values of a generic reader', () => {
    const files = siteFiles('groups');
    expect(files.length).toBeGreaterThan(3);
    for (const { key, bytes } of files) {
      expect(key).toMatch(/^cells\/groups\/[0-9a-f]{15}\.pb$/);
      const group = CellGroup.parse(decodeStored(bytes, key));
      expect(group.schema_version).toBe(9);
      expect(genericGroup(bytes), key).toEqual(group);
      expect(Buffer.from(encodeGroup(group)).equals(bytes), key).toBe(true);
      expect(serialiseAt(key, group).equals(bytes)).toBe(true);
      // Every reach is its count of 0.0001 mile plus 0.0001, exactly; every row's cell a child of its parent's.
      for (const r of group.rows.reach) expect(reachOf(reachCount(r))).toBe(r);
      group.rows.cell.forEach((c, i) => {
        const up = group.rows.cell[group.rows.parent[i] as number] ?? '';
        if (i > 0) expect(cellToParent(c, getResolution(c) - 1)).toBe(up);
      });
    }
  });

  it('every shared page of the sample site: the stored bytes again when re-encoded, the values of a generic reader', () => {
    const files = siteFiles('shared');
    expect(files.length).toBeGreaterThan(3);
    for (const { key, bytes } of files) {
      expect(key).toMatch(/^cells\/shared\/[0-9a-f]{15}\.pb$/);
      const page = CellShared.parse(decodeStored(bytes, key));
      expect(page.schema_version).toBe(9);
      expect(genericShared(bytes), key).toEqual(page);
      expect(Buffer.from(encodeShared(page)).equals(bytes), key).toBe(true);
      expect(serialiseAt(key, page).equals(bytes)).toBe(true);
    }
  });

  it('round-trips values at the edges of their fields, and leaves zero and empty fields out as proto3 does', () => {
    const group = encodeGroup(EDGES);
    expect(CellGroup.parse(decodeGroup(group))).toEqual(EDGES);
    expect(genericGroup(group)).toEqual(EDGES);
    const page = encodeShared(PAGE);
    expect(CellShared.parse(decodeShared(page))).toEqual(PAGE);
    expect(genericShared(page)).toEqual(PAGE);
    const bare: CellSharedT = { schema_version: 8, cell: '', row: [], shared: [] };
    // schema_version alone (2 bytes): nothing else is written.
    expect(encodeShared(bare).length).toBe(2);
    expect(decodeShared(encodeShared(bare))).toEqual(bare);
  });

  it('refuses values the coding cannot give back rather than change them', () => {
    const rows = EDGES.rows;
    for (const bad of [
      { ...EDGES, rows: { ...rows, reach: [0.00015, ...rows.reach.slice(1)] } },
      { ...EDGES, rows: { ...rows, cell: [GROUP_CELL, childCell(GROUP_CELL, 3), ...rows.cell.slice(2)] } },
      { ...EDGES, rows: { ...rows, cell: ['822a1ffffffffff', ...rows.cell.slice(1)] } },
      { ...EDGES, rows: { ...rows, at: [-2, ...rows.at.slice(1)] } },
    ])
      expect(() => encodeGroup(bad)).toThrow();
    expect(() => encodeShared({ ...PAGE, row: [3, 2] })).toThrow();
    expect(() => encodeShared({ ...PAGE, shared: [[1]] })).toThrow();
  });

  it('refuses bytes that are not a group or shared page message, naming the key', () => {
    const tag = (field: number, wire: WireType): number[] => [(field << 3) | wire];
    const group = encodeGroup(EDGES);
    const page = encodeShared(PAGE);
    const damaged: [string, string, Uint8Array][] = [
      ['group truncated', 'groups', group.subarray(0, group.length - 5)],
      ['group unknown field', 'groups', Uint8Array.from([...group, ...tag(14, WireType.Varint), 1])],
      ['group field twice', 'groups', Uint8Array.from([...group, ...tag(1, WireType.Varint), 8])],
      ['group wrong wire type', 'groups', Uint8Array.from([...tag(2, WireType.Varint), 1])],
      ['group short sha256', 'groups', Uint8Array.from([...group, ...tag(13, WireType.LengthDelimited), 2, 1, 2])],
      [
        'group digit past 6',
        'groups',
        Uint8Array.from([
          ...tag(2, WireType.Bit64),
          0xff,
          0xff,
          0xff,
          0xff,
          0xff,
          0x17,
          0xa2,
          0x08,
          ...tag(3, WireType.LengthDelimited),
          1,
          7,
          ...tag(4, WireType.LengthDelimited),
          2,
          1,
          1,
          ...tag(5, WireType.LengthDelimited),
          2,
          1,
          1,
          ...tag(6, WireType.LengthDelimited),
          2,
          1,
          1,
          ...tag(7, WireType.LengthDelimited),
          2,
          1,
          1,
          ...tag(8, WireType.LengthDelimited),
          2,
          0,
          0,
          ...tag(9, WireType.LengthDelimited),
          2,
          0,
          0,
        ]),
      ],
      ['group columns of two lengths', 'groups', Uint8Array.from([...tag(4, WireType.LengthDelimited), 1, 1])],
      ['page truncated', 'shared', page.subarray(0, page.length - 2)],
      ['page unknown field', 'shared', Uint8Array.from([...page, ...tag(5, WireType.Varint), 1])],
      [
        'page a count of 1 written out',
        'shared',
        Uint8Array.from([...tag(4, WireType.LengthDelimited), 4, ...tag(1, WireType.LengthDelimited), 2, 9, 1]),
      ],
      [
        'page a count missing',
        'shared',
        Uint8Array.from([...tag(4, WireType.LengthDelimited), 3, ...tag(1, WireType.LengthDelimited), 1, 9]),
      ],
      ['JSON', 'shared', new TextEncoder().encode('{"schema_version":8}\n')],
    ];
    for (const [what, sub, bytes] of damaged) {
      const key = `v/x/cells/${sub}/${GROUP_CELL}.pb`;
      let err: unknown;
      try {
        decodeStored(bytes, key);
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(StoreError);
      expect((err as Error).message, what).toContain(key);
    }
  });

  it('is chosen by the key: a .json group or shared page of cell schema 7 is parsed as JSON', () => {
    for (const [key, value] of [
      ['cells/groups/x.json', { ...EDGES, schema_version: 7 }],
      ['cells/shared/x.json', { ...PAGE, schema_version: 7 }],
    ] as const)
      expect(decodeStored(serialiseAt(key, value), key)).toEqual(value);
  });
});
