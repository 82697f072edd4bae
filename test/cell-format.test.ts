/**
 * The numeric columns of the cell objects (shim/format/cell-format.ts) are checked in one loop instead of zod's
 * per-element schemas; they must accept exactly what the plain zod arrays accept, on every kind of value JSON can hold.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CellBlock,
  CellGroup,
  CellIndex,
  CellShared,
  column,
  ELEMENTS,
  natLists,
  type ElementKind,
} from '../shim/format/cell-format.ts';

const elements: unknown[] = [
  0,
  1,
  7,
  -1,
  -0,
  0.5,
  -2.5,
  1e-9,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1e300,
  -1e300,
  Number.MAX_VALUE,
  NaN,
  Infinity,
  -Infinity,
  '1',
  '',
  null,
  true,
  false,
  [],
  [1],
  {},
  undefined,
];
const arrays: unknown[] = [
  [],
  ...elements.map((e) => [e]),
  ...elements.map((e) => [1, e, 2]),
  [1, 2, 3],
  null,
  undefined,
  5,
  '[]',
  {},
  { length: 1, 0: 1 },
];

describe('numeric columns', () => {
  for (const [name, reference] of [
    ['integers', z.array(z.number().int())],
    ['non-negative integers', z.array(z.number().int().nonnegative())],
    ['numbers', z.array(z.number())],
    ['non-negative numbers', z.array(z.number().nonnegative())],
  ] as [ElementKind, z.ZodType][]) {
    it(`of ${name} accept exactly what zod's array does`, () => {
      const fast = column(name);
      for (const v of arrays) {
        const what = JSON.stringify(v) ?? String(v);
        expect(fast.safeParse(v).success, what).toBe(reference.safeParse(v).success);
        // The element schema the column stands for is that same zod check.
        expect(z.array(ELEMENTS[name].zod).safeParse(v).success, what).toBe(reference.safeParse(v).success);
      }
    });
  }

  it("of shared-firm lists accept exactly what zod's array of arrays does", () => {
    const reference = z.array(z.array(z.number().int().nonnegative()));
    const nested = [
      [],
      [[]],
      ...arrays.map((a) => [a]),
      ...arrays.map((a) => [[1, 2], a]),
      [
        [1, 2],
        [3, 4],
      ],
      ...elements,
    ];
    for (const v of nested)
      expect(natLists.safeParse(v).success, JSON.stringify(v) ?? String(v)).toBe(reference.safeParse(v).success);
  });

  it('name the column that is wrong in a group or a block', () => {
    const h = 'a'.repeat(64);
    const group = {
      schema_version: 8,
      cell: 'x',
      rows: { cell: ['x'], parent: [-1], n: [1], reach: [-0.5], units: [1], block: [0], at: [0] },
      shared_sha256: { x: h },
      block_sha256: { x: h },
    };
    expect(CellGroup.safeParse(group).error?.issues[0]?.path).toEqual(['rows', 'reach']);
    expect(
      CellShared.safeParse({ schema_version: 8, cell: 'x', row: [0], shared: [[3, -1]] }).error?.issues[0]?.path,
    ).toEqual(['shared']);
    const block = {
      schema_version: 8,
      cell: 'x',
      listing: [0],
      dunit: [0],
      coord_digits: 1,
      dlat: [401],
      dlng: [-739.5],
      exact: [],
      shared: [],
      records_sha256: [h],
      records_bytes: [100],
    };
    expect(CellBlock.safeParse(block).error?.issues[0]?.path).toEqual(['dlng']);
    expect(CellBlock.safeParse({ ...block, dlng: [-739], shared: [[1.5, 1]] }).error?.issues[0]?.path).toEqual([
      'shared',
    ]);
    expect(CellBlock.safeParse({ ...block, dlng: [-739] }).success).toBe(true);
  });

  it('refuse every cell schema but the current one and the one before it, naming it and what to do', () => {
    const h = 'a'.repeat(64);
    const block = {
      schema_version: 8,
      cell: 'x',
      listing: [0],
      dunit: [0],
      coord_digits: 1,
      dlat: [401],
      dlng: [-739],
      exact: [],
      shared: [],
      records_sha256: [h],
      records_bytes: [100],
    };
    for (const read of [8, 9]) expect(CellBlock.safeParse({ ...block, schema_version: read }).success).toBe(true);
    for (const old of [2, 3, 4, 5, 6, 7, 10]) {
      const issue = CellBlock.safeParse({ ...block, schema_version: old }).error?.issues[0];
      expect(issue?.path).toEqual(['schema_version']);
      expect(issue?.message).toBe(
        `cells schema ${old}, but this release reads cells schema 9 or 8 only: generate the week again with this release and publish it (docs/SITE-FORMAT.md, "Schema versions")`,
      );
    }
    // A schema-3 group (no hashes) and a schema-2 index (whole firms) are refused by their version, not read.
    const group3 = {
      schema_version: 3,
      cell: 'x',
      rows: { cell: ['x'], parent: [-1], n: [1], reach: [0.5], units: [1], block: [0], at: [0] },
    };
    expect(CellGroup.safeParse(group3).error?.issues[0]?.path).toEqual(['schema_version']);
    const index2 = {
      schema_version: 2,
      generated: 'by generator/; do not edit',
      group_res: 2,
      max_res: 9,
      leaf_max: 256,
      block_max: 4096,
      record_chunk: 64,
      offices: 1,
      firms: 1,
      groups: { x: [1, 0] },
    };
    expect(CellIndex.safeParse(index2).error?.issues[0]?.message).toContain(
      'cells schema 2, but this release reads cells schema 9 or 8 only',
    );
  });
});
