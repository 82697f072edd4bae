/**
 * The search side of the site (cell schema 9, and 8 read beside it): offices in a tree of H3 cells. A small top index
 * names the group cells (H3 res CELL_GROUP_RES); each group object holds its cell tree with per-cell counts, its shared
 * pages the shared lists of its larger cells; blocks hold compact columns (listing number, unit number, lat, lng) of
 * the offices under one tree cell (coordinates as steps from the previous office) and the shared lists of the cells
 * below it; record chunks hold the full records of consecutive block positions. Every object records the sha256 of the
 * objects below it. Counting is by *units*: a firm's offices split where they lie more than UNIT_MILES apart, so that
 * within any query circle a firm's offices all share one unit. Only the current cell schema (constants.ts
 * SCHEMA_VERSIONS.cells: blocks, group trees and shared pages in binary, block-, group- and shared-binary.ts) and the
 * one before it (PREVIOUS_CELL_SCHEMA: blocks without their record chunks' lengths, the chunks read as objects only, the
 * values the same) are read; see docs/SITE-FORMAT.md.
 */
import { cellToParent, getResolution } from 'h3-js';
import { z } from 'zod';
import { PREVIOUS_CELL_SCHEMA, RADIUS_MILES, SCHEMA_VERSIONS } from '../contract/constants.ts';
import { dict } from './dict.ts';
import { Sha256Hex, StoredOffice } from './site-format.ts';

/** The cell schemas read: the current one and the one before it, which differ only in how groups and shared pages are stored. */
const sv = z.union([z.literal(SCHEMA_VERSIONS.cells), z.literal(PREVIOUS_CELL_SCHEMA)], {
  error: (issue) =>
    `cells schema ${JSON.stringify(issue.input) ?? 'missing'}, but this release reads cells schema ${SCHEMA_VERSIONS.cells} or ${PREVIOUS_CELL_SCHEMA} only: ` +
    'generate the week again with this release and publish it (docs/SITE-FORMAT.md, "Schema versions")',
});
const int = z.number().int();
const nat = z.number().int().nonnegative();

/**
 * The element types of the numeric columns: each one's zod schema, and the check of one element that accepts exactly
 * what that schema accepts (test/cell-format.test.ts holds each pair to it). A column is checked with the fast check
 * in one loop: zod's per-element checks took ~60 ms on a dense group's 337,000 shared-unit entries at 1,000,000
 * offices, nine times this.
 */
export const ELEMENTS = {
  integers: { zod: z.number().int(), check: (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) },
  'non-negative integers': {
    zod: z.number().int().nonnegative(),
    check: (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0,
  },
  numbers: { zod: z.number(), check: (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) },
  'non-negative numbers': {
    zod: z.number().nonnegative(),
    check: (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x >= 0,
  },
} as const;
export type ElementKind = keyof typeof ELEMENTS;

/** A column of `kind` (accepts exactly what z.array(ELEMENTS[kind].zod) accepts), checked in one loop. */
export function column(kind: ElementKind) {
  const { check } = ELEMENTS[kind];
  return z.custom<number[]>((v) => Array.isArray(v) && v.every(check), { message: `expected an array of ${kind}` });
}

/** A column of lists of non-negative integers (the shared-unit lists), checked the same way. */
export const natLists = z.custom<number[][]>(
  (v) => Array.isArray(v) && v.every((a) => Array.isArray(a) && a.every(ELEMENTS['non-negative integers'].check)),
  {
    message: 'expected an array of arrays of non-negative integers',
  },
);

/**
 * Offices of one firm closer than this (miles, through a chain of its offices) share a unit. Any two offices within R
 * of one point are at most 2R apart, so for 2R < UNIT_MILES a circle never holds two units of one firm.
 */
export const UNIT_MILES = 2 * RADIUS_MILES.max + 1;

/** Resolution of the group cells that split the index; 2 keeps a 50-mile circle within a few groups. */
export const CELL_GROUP_RES = 2;
/** Offices are placed in the tree by their cell at this resolution; a tree cell at it is never split. */
export const CELL_MAX_RES = 9;
/** A tree cell with more offices than this is split into its children (unless at CELL_MAX_RES). */
export const CELL_LEAF_MAX = 256;
/** A block is the coarsest tree cell with at most this many offices (or a leaf above it). */
export const CELL_BLOCK_MAX = 4096;
/**
 * Offices of one fine cell are ordered by their H3 cell at resolution 15, then by listing number: near offices get near
 * positions, so the records a search shows share record chunks.
 */
export const FINE_ORDER = 'h3-15';
/** Record chunks hold this many consecutive block positions. */
export const CELL_RECORD_CHUNK = 32;
/**
 * The shared lists of a group's rows at or above block level are paged by their cell at this resolution (rows coarser
 * than it in the group's own page), so a query reads the pages of its inside cells only.
 */
export const CELL_SHARED_RES = 5;

/** The group of a shared page: the page cell's parent at the group resolution. */
export function sharedGroup(page: string, groupRes: number): string {
  return getResolution(page) === groupRes ? page : cellToParent(page, groupRes);
}

/**
 * The page of a row at or above block level: its cell's parent at `sharedRes`, or the group cell for a row coarser
 * than that.
 */
export function sharedPage(cell: string, group: string, sharedRes: number): string {
  return getResolution(cell) < sharedRes ? group : cellToParent(cell, sharedRes);
}

/**
 * `cells/index.json`: every group cell with its office count and reach (miles from the cell's H3 centre to its farthest
 * office), and the sha256 of each group object, so a group read is checked against the index that names it.
 */
export const CellIndex = z.object({
  schema_version: sv,
  generated: z.literal('by generator/; do not edit'),
  group_res: int,
  max_res: int,
  leaf_max: nat,
  block_max: nat,
  record_chunk: nat,
  shared_res: int.describe(
    "the shared lists of a group's rows at or above block level are paged by their cell at this resolution",
  ),
  // A string, not the one value written: a search does not depend on the order, so a week of another never fails it.
  fine_order: z
    .string()
    .optional()
    .describe(
      "how the offices of one fine cell are ordered: 'h3-15' by their H3 cell at resolution 15, then by listing number; absent in indexes written before it (by listing number alone)",
    ),
  unit_miles: z
    .number()
    .positive()
    .describe("a firm's offices within this many miles of each other (through a chain of them) share a unit"),
  offices: nat,
  units: nat,
  groups: dict(z.tuple([nat, z.number().nonnegative()])).describe('group cell -> [offices, reach miles]'),
  blocks: dict(z.array(z.tuple([z.string(), z.number().nonnegative(), nat]))).describe(
    "group cell -> its blocks in row order, each [block cell, reach miles, units]: the block rows of the group's tree, so a cold search reads a group's tree and the blocks it will need in one round",
  ),
  block_core: dict(z.array(nat))
    .optional()
    .describe(
      "group cell -> for each of its blocks (in the order of `blocks`), its core as a count c of 0.0001 mile (the core is c / 10000 + 0.0001 miles): the least distance from the block cell's H3 centre within which lie offices of min(units, 25) of its homed units; absent in indexes written before it",
    ),
  block_bytes: dict(z.array(nat))
    .optional()
    .describe(
      'group cell -> the stored length in bytes of each of its blocks (in the order of `blocks`): its pack cells/packs/<cell>.bin holds them one after another, so block k is bytes sum(lengths before k) up to that plus its length; absent in indexes written before packs (blocks are then read one object each)',
    ),
  shared_bytes: dict(z.array(nat))
    .optional()
    .describe(
      "group cell -> the stored length in bytes of each of its shared pages, in the order of its tree's `shared_sha256`: its pack holds them after its blocks; absent in indexes written before (pages are then read one object each)",
    ),
  group_sha256: dict(Sha256Hex).describe('group cell -> sha256 of cells/groups/<cell>.pb'),
});

/**
 * `cells/groups/<cell>.pb` (coded by group-binary.ts): the group's cell tree in
 * preorder (children after their parent, by cell id), columnar.
 * Row i: cell[i] at res of the cell id, parent[i] (row, -1 for the group cell), n[i] offices, reach[i] miles from the
 * cell's H3 centre to its farthest office (rounded up), units[i] units with every office under the cell, block[i] the
 * row of the block holding the cell's offices (-1 above blocks) and at[i] the first position of its offices in that
 * block. A row's shared list (the units with offices under the cell and elsewhere) is kept apart, read only when the
 * cell lies wholly inside a query circle: in the group's CellShared object for rows at or above block level, in the
 * block object for rows below it. Then the hash of each of the group's shared pages and of each of its blocks, and
 * from schema 9 the length of each block's record chunks together in the group's pack.
 */
export const CellGroup = z.object({
  schema_version: sv,
  cell: z.string(),
  rows: z.object({
    cell: z.array(z.string()),
    parent: column('integers'),
    n: column('non-negative integers'),
    reach: column('non-negative numbers'),
    units: column('non-negative integers'),
    block: column('integers'),
    at: column('integers'),
  }),
  shared_sha256: dict(Sha256Hex).describe(
    'page cell -> sha256 of cells/shared/<page cell>.pb, for each page of the group (sharedPage), in row order',
  ),
  block_sha256: dict(Sha256Hex).describe('block cell -> sha256 of cells/blocks/<cell>.pb, for each block of the group'),
  block_records_bytes: column('non-negative integers').describe(
    "the bytes of each block's record chunks together in the group's pack, in the order of block_sha256 (empty in schema 8)",
  ),
});

/**
 * A shared list: [unit - previous unit of the list, offices under the cell, ...] by ascending unit (the first step is
 * the unit itself), for the units with offices under the cell whose home is above it.
 */
const sharedLists = natLists;

/**
 * `cells/shared/<page cell>.pb` (coded by shared-binary.ts): the shared lists of one
 * page of a group's rows at or above block level (block[i] is -1 or i, and sharedPage of the row's cell is the page),
 * in row order; row[j] names the group row of shared[j].
 */
export const CellShared = z.object({
  schema_version: sv,
  cell: z.string(),
  row: column('non-negative integers'),
  shared: sharedLists,
});

/**
 * `cells/blocks/<cell>.pb` (coded by block-binary.ts): the offices
 * under one tree cell as columns, ordered by (res-9 cell id, listing number).
 * listing: rank of the listing_id among all listing ids of the version (so order by it = order by listing_id);
 * dunit: the unit numbers as steps; coord_digits, dlat, dlng, exact: the coordinates as steps (block-coords.ts);
 * shared: the shared lists of the tree rows below the block's own row, in row order (shared[j] belongs to the group
 * row block + 1 + j); records_sha256[k] the hash of its record chunk k; from schema 9, records_bytes[k] its length (the
 * group gives where the block's chunks start in its pack).
 */
export const CellBlock = z.object({
  schema_version: sv,
  cell: z.string(),
  listing: column('non-negative integers'),
  dunit: column('integers').describe("each office's unit number less the previous office's (the first's from 0)"),
  coord_digits: nat.describe('the coordinate steps count 10^-coord_digits degrees'),
  dlat: column('integers').describe("each office's latitude count less the previous office's (the first's from 0)"),
  dlng: column('integers').describe("each office's longitude count less the previous office's (the first's from 0)"),
  exact: column('numbers').describe(
    'flat [position, lat, lng, ...]: the offices whose degrees are not a count of 10^-coord_digits, as stored',
  ),
  shared: sharedLists,
  records_sha256: z.array(Sha256Hex).describe('sha256 of record chunk k at position k'),
  records_bytes: column('non-negative integers').describe(
    'the length in bytes of record chunk k as stored, at position k (empty in schema 8)',
  ),
});

/**
 * A record of a chunk checked only to be an object, passed on as it is: z.looseObject({}) copies every record (64 per
 * chunk read by a search, a million in a national changes diff); whoever uses a record checks it with StoredOffice.
 */
export const LooseRecord = z.custom<object>(
  (o) => typeof o === 'object' && o !== null && !Array.isArray(o),
  'expected an object (a record)',
);

/** `cells/records/<block cell>/<chunk>.json`: full records of block positions chunk*record_chunk onwards, with each one's unit office count. */
const recordsOf = <O extends z.ZodType>(offices: O) =>
  z.object({
    schema_version: sv,
    block: z.string(),
    chunk: nat,
    offices: z.array(offices),
    unit_offices: z.array(nat).describe("How many offices the record's unit has in the version"),
  });
export const CellRecords = recordsOf(StoredOffice);

/**
 * How the search checks a record chunk: whole except its records, each of which is checked with StoredOffice when it
 * is shown (a query shows at most 25 of a chunk's 32); record-chunk.ts holds the chunk so (CellRecordChunk). Only the
 * search reads record chunks in the shim; the catalogue, the generator and audit check chunks whole with CellRecords.
 */
export const CellRecordsShown = recordsOf(LooseRecord);

export type CellIndexT = z.output<typeof CellIndex>;
export type CellGroupT = z.output<typeof CellGroup>;
export type CellBlockT = z.output<typeof CellBlock>;
export type CellSharedT = z.output<typeof CellShared>;
export type CellRecordsT = z.output<typeof CellRecords>;
