/** The first cell schema whose group trees and shared pages are coded in binary (blocks are from schema 7). */
export const FIRST_BINARY_TREE_SCHEMA = 8;

/** The kinds of binary cell object, each decoded by its own module (block-, group-, shared-binary.ts). */
export type BinaryCellKind = 'block' | 'group' | 'shared';

/** The kind of binary cell object a key (or path) names, or null for a JSON object. */
export function binaryCellKind(key: string): BinaryCellKind | null {
  if (!key.endsWith('.pb')) return null;
  if (key.includes('cells/blocks/')) return 'block';
  if (key.includes('cells/groups/')) return 'group';
  if (key.includes('cells/shared/')) return 'shared';
  return null;
}

/** The extension of a group tree or shared page of cell schema `cellSchema`: Protocol Buffers from schema 8 on. */
const treeExt = (cellSchema: number): string => (cellSchema >= FIRST_BINARY_TREE_SCHEMA ? 'pb' : 'json');

/**
 * Where each stored document lives inside a version (relative to `v/<version>/`): the one list of paths. Store keys
 * (site-format.ts `keys`), the generator's writes and the document catalogue (catalogue.ts) are all built from it.
 */
export const paths = {
  meta: () => 'meta.json',
  manifest: () => 'manifest.json',
  openapi: () => 'openapi.json',
  coverage: () => 'coverage.json',
  coverageCells: () => 'coverage-cells.json',
  /** The coverage cells under one coarse H3 cell (COVERAGE_PIECE_RES), so a point reads a few KiB, not every cell. */
  coveragePiece: (cell: string) => `coverage-cells/${cell}.json`,
  cellIndex: () => 'cells/index.json',
  /** A group tree of cell schema `cellSchema`: Protocol Buffers from schema 8 on (group-binary.ts), JSON in 7. */
  cellGroup: (cell: string, cellSchema: number) => `cells/groups/${cell}.${treeExt(cellSchema)}`,
  /** A shared page of cell schema `cellSchema`: Protocol Buffers from schema 8 on (shared-binary.ts), JSON in 7. */
  cellShared: (page: string, cellSchema: number) => `cells/shared/${page}.${treeExt(cellSchema)}`,
  /** A block, Protocol Buffers in every cell schema read (block-binary.ts). */
  cellBlock: (cell: string) => `cells/blocks/${cell}.pb`,
  /**
   * A group's blocks as stored, one after another in the order of the cell index's `blocks` (their lengths are its
   * `block_bytes`), stored uncompressed so that a cold search reads several blocks with one byte-range request.
   */
  cellPack: (group: string) => `cells/packs/${group}.bin`,
  cellRecords: (block: string, chunk: number) => `cells/records/${block}/${chunk}.json`,
  /** The firm documents of every listing whose id starts `l_<prefix>` (firmPackPrefix in site-format.ts). */
  firmPack: (prefix: string) => `firms/${prefix}.json`,
  listings: (prefix: string) => `listings/${prefix}.json`,
  zip: (zip3: string) => `gazetteer/zip/${zip3}.json`,
  city: (state: string, bucket: string) => `gazetteer/city/${state}/${bucket}.json`,
  /** One state's whole city gazetteer: versions generated before the split by first letter (read, never written). */
  cityState: (state: string) => `gazetteer/city/${state}.json`,
  /** Place names of every state by the first two characters of the normalised name, for a name sent without a state. */
  names: (prefix: string) => `gazetteer/names/${prefix}.json`,
  /** ZIP points of one 4-degree tile, for whether a point is in the US and in which state. */
  points: (tile: string) => `gazetteer/points/${tile}.json`,
  /** The boundary regions (US states and territories, countries) with their boxes, for where a point is. */
  boundaryIndex: () => 'gazetteer/boundary/index.json',
  /** One boundary region's polygons. */
  boundary: (key: string) => `gazetteer/boundary/${key}.json`,
  /** Every boundary region cut for one tile of the grid (boundaryTile), for where a point is from one document. */
  boundaryTile: (tile: string) => `gazetteer/tiles/${tile}.json`,
  measurement: (metro: string) => `measurement/${metro}.json`,
  changes: () => 'changes.json',
  /** The standing removals the version was built with, for a release from another checkout to check it has them all. */
  removals: () => 'removals.json',
  /** The sha256 of one group of documents meta.json does not record itself (hash-docs.ts hashDocOf). */
  hashes: (name: string) => `hashes/${name}.json`,
  problem: (code: string) => `problems/${code}.html`,
  page: (name: string) => `pages/${name}.json`,
} as const;

/** The name of a kind of stored document. */
export type DocName = keyof typeof paths;

/** A path function made into a store-key function of a version: `v/<version>/<path>`. */
export function inVersion<A extends unknown[]>(path: (...args: A) => string): (version: string, ...args: A) => string {
  return (version, ...args) => `v/${version}/${path(...args)}`;
}

/** True for a key (or path) of a group's pack of blocks: read by byte ranges, so stored uncompressed. */
export function isCellPack(key: string): boolean {
  return key.endsWith('.bin') && key.includes('cells/packs/');
}

/** Exactly the relative paths of coverage pieces (paths.coveragePiece of an H3 cell id). */
export const COVERAGE_PIECE_RE = /^coverage-cells\/[0-9a-f]{15}\.json$/;
