/**
 * The search side of the site (schema 2): offices in a tree of H3 cells. A small top index names the group cells
 * (H3 res CELL_GROUP_RES); each group object holds its cell tree with per-cell summaries; blocks hold compact columns
 * (listing number, firm number, lat, lng) of the offices under one tree cell; record chunks hold the full records of
 * consecutive block positions. See docs/SITE-FORMAT.md for the format in words.
 */
import { z } from 'zod';
import { dict } from './dict.ts';
import { StoredOffice } from './site-format.ts';

const sv = z.literal(2);
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
export const CellIndex = z.object({
  schema_version: sv,
  generated: z.literal('by generator/; do not edit'),
  group_res: int,
  max_res: int,
  leaf_max: nat,
  block_max: nat,
  record_chunk: nat,
  offices: nat,
  firms: nat,
  groups: dict(z.tuple([nat, z.number().nonnegative()])).describe('group cell -> [offices, reach miles]'),
});

/**
 * `cells/groups/<cell>.json`: the group's cell tree in preorder (children after their parent, by cell id), columnar.
 * Row i: cell[i] at res of the cell id, parent[i] (row, -1 for the group cell), n[i] offices, reach[i] miles from the
 * cell's H3 centre to its farthest office (rounded up), firms[i] firms with every office under the cell, foreign[i]
 * [firm, offices under the cell, ...] for firms with offices under the cell and elsewhere, block[i] the row of the block
 * holding the cell's offices (-1 above blocks) and at[i] the first position of its offices in that block.
 */
export const CellGroup = z.object({
  schema_version: sv,
  cell: z.string(),
  rows: z.object({
    cell: z.array(z.string()),
    parent: column(isInt, 'integers'),
    n: column(isNat, 'non-negative integers'),
    reach: column(isNonNeg, 'non-negative numbers'),
    firms: column(isNat, 'non-negative integers'),
    foreign: natLists,
    block: column(isInt, 'integers'),
    at: column(isInt, 'integers'),
  }),
});

/**
 * `cells/blocks/<cell>.json`: the offices under one tree cell as columns, ordered by (res-9 cell id, listing number).
 * listing: rank of the listing_id among all listing ids of the version (so order by it = order by listing_id);
 * firm: rank of the firm_id among all firm ids.
 */
export const CellBlock = z.object({
  schema_version: sv,
  cell: z.string(),
  listing: column(isNat, 'non-negative integers'),
  firm: column(isNat, 'non-negative integers'),
  lat: column(isNum, 'numbers'),
  lng: column(isNum, 'numbers'),
});

/** `cells/records/<block cell>/<chunk>.json`: full records of block positions chunk*record_chunk onwards, with each one's firm office count. */
export const CellRecords = z.object({
  schema_version: sv,
  block: z.string(),
  chunk: nat,
  offices: z.array(StoredOffice),
  firm_offices: z.array(nat).describe("How many offices the record's firm has in the version"),
});

/**
 * How the search reads a record chunk: the chunk checked whole except its records, each of which is checked with
 * StoredOffice when it is shown (a query shows at most 25 of a chunk's 64). Only the search reads record chunks in the
 * shim; the catalogue, the generator and audit check chunks whole with CellRecords.
 */
export const CellRecordsShown = CellRecords.extend({ offices: z.array(z.looseObject({})) });

export type CellIndexT = z.infer<typeof CellIndex>;
export type CellGroupT = z.infer<typeof CellGroup>;
export type CellBlockT = z.infer<typeof CellBlock>;
export type CellRecordsT = z.infer<typeof CellRecords>;
