/**
 * The numeric columns of the cell objects (shim/core/cell-format.ts) are checked in one loop instead of zod's
 * per-element schemas; they must accept exactly what the plain zod arrays accept, on every kind of value JSON can hold.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CellBlock, CellGroup, CellShared, column, deltaPairs, isInt, isNat, isNonNeg, isNum, natLists } from '../shim/core/cell-format.ts';

const elements: unknown[] = [0, 1, 7, -1, -0, 0.5, -2.5, 1e-9, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e300, -1e300, Number.MAX_VALUE, NaN, Infinity, -Infinity, '1', '', null, true, false, [], [1], {}, undefined];
const arrays: unknown[] = [[], ...elements.map((e) => [e]), ...elements.map((e) => [1, e, 2]), [1, 2, 3], null, undefined, 5, '[]', {}, { length: 1, 0: 1 }];

describe('numeric columns', () => {
  for (const [name, fast, reference] of [
    ['integers', column(isInt, 'integers'), z.array(z.number().int())],
    ['non-negative integers', column(isNat, 'non-negative integers'), z.array(z.number().int().nonnegative())],
    ['numbers', column(isNum, 'numbers'), z.array(z.number())],
    ['non-negative numbers', column(isNonNeg, 'non-negative numbers'), z.array(z.number().nonnegative())],
  ] as const) {
    it(`of ${name} accept exactly what zod's array does`, () => {
      for (const v of arrays) expect(fast.safeParse(v).success, JSON.stringify(v) ?? String(v)).toBe(reference.safeParse(v).success);
    });
  }

  it("of shared-firm lists accept exactly what zod's array of arrays does", () => {
    const reference = z.array(z.array(z.number().int().nonnegative()));
    const nested = [[], [[]], ...arrays.map((a) => [a]), ...arrays.map((a) => [[1, 2], a]), [[1, 2], [3, 4]], ...elements];
    for (const v of nested) expect(natLists.safeParse(v).success, JSON.stringify(v) ?? String(v)).toBe(reference.safeParse(v).success);
  });

  it('name the column that is wrong in a group or a block, of schema 3 and of schema 2', () => {
    const group = { schema_version: 3, cell: 'x', rows: { cell: ['x'], parent: [-1], n: [1], reach: [-0.5], units: [1], block: [0], at: [0] } };
    expect(CellGroup.safeParse(group).error?.issues[0]?.path).toEqual(['rows', 'reach']);
    expect(CellShared.safeParse({ schema_version: 3, cell: 'x', row: [0], shared: [[3, -1]] }).error?.issues[0]?.path).toEqual(['shared']);
    const group2 = { schema_version: 2, cell: 'x', rows: { cell: ['x'], parent: [-1], n: [1], reach: [0.5], firms: [1], foreign: [[3, -1]], block: [0], at: [0] } };
    expect(CellGroup.safeParse(group2).error?.issues[0]?.path).toEqual(['rows', 'foreign']);
    const block = { schema_version: 3, cell: 'x', listing: [0], unit: [0], lat: [40.1], lng: ['-73.9'], shared: [] };
    expect(CellBlock.safeParse(block).error?.issues[0]?.path).toEqual(['lng']);
    expect(CellBlock.safeParse({ ...block, lng: [-73.9], shared: [[1.5, 1]] }).error?.issues[0]?.path).toEqual(['shared']);
    expect(CellBlock.safeParse({ ...block, lng: [-73.9] }).success).toBe(true);
    const block2 = { schema_version: 2, cell: 'x', listing: [0], firm: [0], lat: [40.1], lng: ['-73.9'] };
    expect(CellBlock.safeParse(block2).error?.issues[0]?.path).toEqual(['lng']);
    expect(CellBlock.safeParse({ ...block2, schema_version: 5 }).error?.issues[0]?.path).toEqual(['schema_version']);
  });

  it('upgrade a schema-2 group, block and record chunk to the schema-3 shape on parse (firms as units, shared lists as differences)', () => {
    const group2 = { schema_version: 2, cell: 'x', rows: { cell: ['x', 'y'], parent: [-1, 0], n: [3, 2], reach: [0.5, 0.2], firms: [1, 0], foreign: [[4, 1, 9, 2, 10, 1], []], block: [0, 0], at: [0, 1] } };
    expect(CellGroup.parse(group2)).toEqual({ schema_version: 2, cell: 'x', rows: { cell: ['x', 'y'], parent: [-1, 0], n: [3, 2], reach: [0.5, 0.2], units: [1, 0], shared: [[4, 1, 5, 2, 1, 1], []], block: [0, 0], at: [0, 1] } });
    expect(deltaPairs([4, 1, 9, 2, 10, 1])).toEqual([4, 1, 5, 2, 1, 1]);
    expect(CellBlock.parse({ schema_version: 2, cell: 'x', listing: [0, 1], firm: [7, 8], lat: [1, 2], lng: [3, 4] })).toEqual({ schema_version: 2, cell: 'x', listing: [0, 1], unit: [7, 8], lat: [1, 2], lng: [3, 4] });
  });
});
