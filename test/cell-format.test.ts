/**
 * The numeric columns of the cell objects (shim/core/cell-format.ts) are checked in one loop instead of zod's
 * per-element schemas; they must accept exactly what the plain zod arrays accept, on every kind of value JSON can hold.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CellBlock, CellGroup, column, isInt, isNat, isNonNeg, isNum, natLists } from '../shim/core/cell-format.ts';

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

  it('name the column that is wrong in a group or a block', () => {
    const group = { schema_version: 2, cell: 'x', rows: { cell: ['x'], parent: [-1], n: [1], reach: [0.5], firms: [1], foreign: [[3, -1]], block: [0], at: [0] } };
    const g = CellGroup.safeParse(group);
    expect(g.success).toBe(false);
    expect(g.error?.issues[0]?.path).toEqual(['rows', 'foreign']);
    const block = { schema_version: 2, cell: 'x', listing: [0], firm: [0], lat: [40.1], lng: ['-73.9'] };
    const b = CellBlock.safeParse(block);
    expect(b.success).toBe(false);
    expect(b.error?.issues[0]?.path).toEqual(['lng']);
    expect(CellBlock.safeParse({ ...block, lng: [-73.9] }).success).toBe(true);
  });
});
