/**
 * The search side of the site (cell schema 3): offices in a tree of H3 cells. A small top index names the group cells
 * (H3 res CELL_GROUP_RES); each group object holds its cell tree with per-cell counts, its shared object the shared
 * lists of its larger cells; blocks hold compact columns (listing number, unit number, lat, lng) of the offices under
 * one tree cell and the shared lists of the cells below it; record chunks hold the full records of consecutive block
 * positions. Counting is by *units*: a firm's offices split where they lie more than UNIT_MILES
 * apart, so that within any query circle a firm's offices all share one unit. See docs/SITE-FORMAT.md.
 *
 * Schema 2 (firm numbers, absolute shared lists) is still read: each schema-2 object is upgraded on parse to the
 * schema-3 shape (keeping schema_version 2), so a shim deployed before the next generate answers from the live week.
 */
import { z } from 'zod';
import { RADIUS_MILES } from './constants.ts';
import { dict } from './dict.ts';
import { Sha256Hex, StoredOffice } from './site-format.ts';

const sv = z.literal(3);
const sv4 = z.literal(4);
const int = z.number().int();
const nat = z.number().int().nonnegative();

/** Element checks of the numeric columns, the same values zod's int(), nonnegative() and number() accept. */
export const isInt = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x);
export const isNat = (x: unknown): boolean => isInt(x) && (x as number) >= 0;
export const isNum = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
export const isNonNeg = (x: unknown): boolean => isNum(x) && (x as number) >= 0;

/**
 * A column of numbers checked in one loop: zod's per-element checks took ~60 ms on a dense group's 337,000 shared-firm
 * entries at 1,000,000 offices, nine times this. Accepts exactly what z.array(<the element schema>) accepts
 * (test/cell-format.test.ts).
 */
export function column(check: (x: unknown) => boolean, what: string) {
  return z.custom<number[]>((v) => Array.isArray(v) && v.every(check), { message: `expected an array of ${what}` });
}

/** A column of lists of non-negative integers (the shared-firm pairs), checked the same way. */
export const natLists = z.custom<number[][]>((v) => Array.isArray(v) && v.every((a) => Array.isArray(a) && a.every(isNat)), {
  message: 'expected an array of arrays of non-negative integers',
});

/**
 * Offices of one firm closer than this (miles, through a chain of its offices) share a unit. Any two offices within R
 * of one point are at most 2R apart, so for 2R < UNIT_MILES a circle never holds two units of one firm.
 */
export const UNIT_MILES = 2 * RADIUS_MILES.max + 1;
/** unit_miles of a schema-2 version, whose units are whole firms: more than any distance on Earth. */
export const WHOLE_FIRMS = 25_000;

/** Resolution of the group cells that split the index; 2 keeps a 50-mile circle within a few groups. */
export const CELL_GROUP_RES = 2;
/** Offices are placed in the tree by their cell at this resolution; a tree cell at it is never split. */
export const CELL_MAX_RES = 9;
/** A tree cell with more offices than this is split into its children (unless at CELL_MAX_RES). */
export const CELL_LEAF_MAX = 256;
/** A block is the coarsest tree cell with at most this many offices (or a leaf above it). */
export const CELL_BLOCK_MAX = 4096;
/** Record chunks hold this many consecutive block positions. */
export const CELL_RECORD_CHUNK = 64;

/** `cells/index.json`: every group cell with its office count and reach (miles from the cell's H3 centre to its farthest office). */
const CellIndex3 = z.object({
  schema_version: sv,
  generated: z.literal('by generator/; do not edit'),
  group_res: int,
  max_res: int,
  leaf_max: nat,
  block_max: nat,
  record_chunk: nat,
  unit_miles: z.number().positive().describe("a firm's offices within this many miles of each other (through a chain of them) share a unit"),
  offices: nat,
  units: nat,
  groups: dict(z.tuple([nat, z.number().nonnegative()])).describe('group cell -> [offices, reach miles]'),
});
const CellIndex2 = CellIndex3.omit({ schema_version: true, unit_miles: true, units: true }).extend({ schema_version: z.literal(2), firms: nat });
/** Schema 4: schema 3 plus the sha256 of each group object, so a group read is checked against the index that names it. */
const CellIndex4 = CellIndex3.extend({ schema_version: sv4, group_sha256: dict(Sha256Hex).describe('group cell -> sha256 of cells/groups/<cell>.json') });
export const CellIndex = z.discriminatedUnion('schema_version', [
  CellIndex4,
  CellIndex3,
  CellIndex2.transform(({ schema_version, generated, group_res, max_res, leaf_max, block_max, record_chunk, offices, firms, groups }) => ({
    schema_version, generated, group_res, max_res, leaf_max, block_max, record_chunk, unit_miles: WHOLE_FIRMS, offices, units: firms, groups,
  })),
]);

const tree = {
  cell: z.array(z.string()),
  parent: column(isInt, 'integers'),
  n: column(isNat, 'non-negative integers'),
  reach: column(isNonNeg, 'non-negative numbers'),
};
const placement = { block: column(isInt, 'integers'), at: column(isInt, 'integers') };

/**
 * `cells/groups/<cell>.json`: the group's cell tree in preorder (children after their parent, by cell id), columnar.
 * Row i: cell[i] at res of the cell id, parent[i] (row, -1 for the group cell), n[i] offices, reach[i] miles from the
 * cell's H3 centre to its farthest office (rounded up), units[i] units with every office under the cell, block[i] the
 * row of the block holding the cell's offices (-1 above blocks) and at[i] the first position of its offices in that
 * block. A row's shared list (the units with offices under the cell and elsewhere) is kept apart, read only when the
 * cell lies wholly inside a query circle: in the group's CellShared object for rows at or above block level, in the
 * block object for rows below it. (Schema 2 kept every list in the group; upgraded groups carry `shared` here.)
 */
const CellGroup3 = z.object({ schema_version: sv, cell: z.string(), rows: z.object({ ...tree, units: column(isNat, 'non-negative integers'), ...placement }) });
const CellGroup2 = z.object({ schema_version: z.literal(2), cell: z.string(), rows: z.object({ ...tree, firms: column(isNat, 'non-negative integers'), foreign: natLists, ...placement }) });
/** Schema 4: schema 3 plus the sha256 of the group's shared object and of each of its blocks (block cell -> sha256). */
const CellGroup4 = CellGroup3.extend({ schema_version: sv4, shared_sha256: Sha256Hex, block_sha256: dict(Sha256Hex) });
export const CellGroup = z.discriminatedUnion('schema_version', [
  CellGroup4,
  CellGroup3,
  CellGroup2.transform(({ schema_version, cell, rows: r }) => ({
    schema_version,
    cell,
    rows: { cell: r.cell, parent: r.parent, n: r.n, reach: r.reach, units: r.firms, shared: r.foreign.map(deltaPairs), block: r.block, at: r.at },
  })),
]);

/**
 * A shared list: [unit - previous unit of the list, offices under the cell, ...] by ascending unit (the first step is
 * the unit itself), for the units with offices under the cell whose home is above it.
 */
const sharedLists = natLists;

/**
 * `cells/shared/<group cell>.json`: the shared lists of the group's rows at or above block level (block[i] is -1 or
 * i), in row order; row[j] names the row of shared[j].
 */
export const CellShared = z.object({ schema_version: z.union([sv, sv4]), cell: z.string(), row: column(isNat, 'non-negative integers'), shared: sharedLists });

/** [unit, offices, ...] with absolute units as the schema-3 difference form (a schema-2 list upgraded on parse). */
export function deltaPairs(pairs: readonly number[]): number[] {
  const out = pairs.slice();
  for (let j = out.length - 2; j >= 2; j -= 2) out[j] = (pairs[j] ?? 0) - (pairs[j - 2] ?? 0);
  return out;
}

/**
 * `cells/blocks/<cell>.json`: the offices under one tree cell as columns, ordered by (res-9 cell id, listing number).
 * listing: rank of the listing_id among all listing ids of the version (so order by it = order by listing_id);
 * unit: the office's unit number; shared: the shared lists of the tree rows below the block's own row, in row order
 * (shared[j] belongs to the group row block + 1 + j).
 */
const CellBlock3 = z.object({
  schema_version: sv,
  cell: z.string(),
  listing: column(isNat, 'non-negative integers'),
  unit: column(isNat, 'non-negative integers'),
  lat: column(isNum, 'numbers'),
  lng: column(isNum, 'numbers'),
  shared: sharedLists,
});
const CellBlock2 = CellBlock3.omit({ schema_version: true, unit: true, shared: true }).extend({ schema_version: z.literal(2), firm: column(isNat, 'non-negative integers') });
/** Schema 4: schema 3 plus the sha256 of each of the block's record chunks, chunk k at position k. */
const CellBlock4 = CellBlock3.extend({ schema_version: sv4, records_sha256: z.array(Sha256Hex) });
export const CellBlock = z.discriminatedUnion('schema_version', [
  CellBlock4,
  CellBlock3,
  CellBlock2.transform(({ schema_version, cell, listing, firm, lat, lng }) => ({ schema_version, cell, listing, unit: firm, lat, lng })),
]);

const records3 = {
  block: z.string(),
  chunk: nat,
  offices: z.array(StoredOffice),
  unit_offices: z.array(nat).describe("How many offices the record's unit has in the version"),
};
/** `cells/records/<block cell>/<chunk>.json`: full records of block positions chunk*record_chunk onwards, with each one's unit office count. */
const recordsOf = <O extends z.ZodType>(offices: O) => {
  const v3 = z.object({ schema_version: sv, ...records3, offices: z.array(offices) });
  const v4 = v3.extend({ schema_version: sv4 });
  const v2 = z.object({ schema_version: z.literal(2), block: records3.block, chunk: records3.chunk, offices: z.array(offices), firm_offices: records3.unit_offices });
  return z.discriminatedUnion('schema_version', [v4, v3, v2.transform(({ schema_version, block, chunk, offices: o, firm_offices }) => ({ schema_version, block, chunk, offices: o, unit_offices: firm_offices }))]);
};
export const CellRecords = recordsOf(StoredOffice);

/**
 * How the search reads a record chunk: the chunk checked whole except its records, each of which is checked with
 * StoredOffice when it is shown (a query shows at most 25 of a chunk's 64). Only the search reads record chunks in the
 * shim; the catalogue, the generator and audit check chunks whole with CellRecords.
 */
export const CellRecordsShown = recordsOf(z.looseObject({}));

export type CellIndexT = z.output<typeof CellIndex>;
export type CellGroupT = z.output<typeof CellGroup>;
export type CellBlockT = z.output<typeof CellBlock>;
export type CellSharedT = z.output<typeof CellShared>;
export type CellRecordsT = z.output<typeof CellRecords>;
