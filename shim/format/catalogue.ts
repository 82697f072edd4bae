/**
 * The catalogue of stored documents: for every kind of document a version holds, its path (paths.ts) and the zod
 * schema it must match. The generator writes through these paths, the shim reads with these keys and schemas, and the
 * tests check every published object against the entry its key belongs to, so the two sides cannot drift.
 */
import type { ZodType } from 'zod';
import { CellBlock, CellGroup, CellIndex, CellRecords, CellShared } from './cell-format.ts';
import { PageDoc } from './page-format.ts';
import { COVERAGE_PIECE_RE, paths, type DocName } from './paths.ts';
import {
  BoundaryIndex,
  BoundaryRegion,
  BoundaryTile,
  ChangesDoc,
  CityGazetteer,
  CityGazetteerState,
  CoverageCells,
  CoverageDoc,
  FirmPack,
  HashDoc,
  ListingBucket,
  Manifest,
  MeasurementDoc,
  Meta,
  NameGazetteer,
  PointGazetteer,
  RemovalsDoc,
  ZipGazetteer,
} from './site-format.ts';

/** One kind of document: its path inside a version, the schema of its JSON (null: not zod-checked JSON, see `format`), and how to recognise its paths. */
export interface CatalogueEntry {
  path: (...args: never[]) => string;
  schema: ZodType | null;
  /**
   * What the object is when it has no zod schema ('json' also for a binary cell object, which decodes to a zod-checked
   * object; 'pack' for a group's blocks one after another, each checked as a block).
   */
  format: 'json' | 'openapi' | 'html' | 'pack';
  /** Matches exactly the version-relative paths of this kind. */
  match: RegExp;
}

const id = '[A-Za-z0-9._-]+';
const entry = (
  path: CatalogueEntry['path'],
  schema: ZodType | null,
  match: RegExp,
  format: CatalogueEntry['format'] = 'json',
): CatalogueEntry => ({ path, schema, format, match });

/** Every kind of document of a version, by name; `satisfies` makes a path without an entry a type error. */
export const catalogue = {
  meta: entry(paths.meta, Meta, /^meta\.json$/),
  manifest: entry(paths.manifest, Manifest, /^manifest\.json$/),
  openapi: entry(paths.openapi, null, /^openapi\.json$/, 'openapi'),
  coverage: entry(paths.coverage, CoverageDoc, /^coverage\.json$/),
  coverageCells: entry(paths.coverageCells, CoverageCells, /^coverage-cells\.json$/),
  coveragePiece: entry(paths.coveragePiece, CoverageCells, COVERAGE_PIECE_RE),
  cellIndex: entry(paths.cellIndex, CellIndex, /^cells\/index\.json$/),
  // .pb from cell schema 8 (decoded by site-json.ts decodeStored), .json in schema 7.
  cellGroup: entry(paths.cellGroup, CellGroup, new RegExp(`^cells/groups/${id}\\.(?:pb|json)$`)),
  cellShared: entry(paths.cellShared, CellShared, new RegExp(`^cells/shared/${id}\\.(?:pb|json)$`)),
  // .pb in every cell schema read (decoded by site-json.ts decodeStored).
  cellBlock: entry(paths.cellBlock, CellBlock, new RegExp(`^cells/blocks/${id}\\.pb$`)),
  // A group's blocks as stored, one after another (from the generator of cell schema 8 with `block_bytes`).
  cellPack: entry(paths.cellPack, null, new RegExp(`^cells/packs/${id}\\.bin$`), 'pack'),
  cellRecords: entry(paths.cellRecords, CellRecords, new RegExp(`^cells/records/${id}/\\d+\\.json$`)),
  firmPack: entry(paths.firmPack, FirmPack, /^firms\/[a-z2-7]{1,5}\.json$/),
  listings: entry(paths.listings, ListingBucket, new RegExp(`^listings/${id}\\.json$`)),
  zip: entry(paths.zip, ZipGazetteer, /^gazetteer\/zip\/\d{3}\.json$/),
  city: entry(paths.city, CityGazetteer, /^gazetteer\/city\/[A-Z]{2}\/[a-z0-9_]\.json$/),
  cityState: entry(paths.cityState, CityGazetteerState, /^gazetteer\/city\/[A-Z]{2}\.json$/),
  names: entry(paths.names, NameGazetteer, /^gazetteer\/names\/[0-9_a-z]{1,2}\.json$/),
  points: entry(paths.points, PointGazetteer, /^gazetteer\/points\/-?\d+_-?\d+\.json$/),
  boundaryIndex: entry(paths.boundaryIndex, BoundaryIndex, /^gazetteer\/boundary\/index\.json$/),
  boundary: entry(paths.boundary, BoundaryRegion, /^gazetteer\/boundary\/(?:us-[A-Z]{2}|c-[0-9a-z]+)\.json$/),
  boundaryTile: entry(paths.boundaryTile, BoundaryTile, /^gazetteer\/tiles\/-?\d+_-?\d+\.json$/),
  measurement: entry(paths.measurement, MeasurementDoc, new RegExp(`^measurement/${id}\\.json$`)),
  changes: entry(paths.changes, ChangesDoc, /^changes\.json$/),
  removals: entry(paths.removals, RemovalsDoc, /^removals\.json$/),
  hashes: entry(paths.hashes, HashDoc, /^hashes\/[a-z0-9_-]+\.json$/),
  // Versions published before the shim rendered problem pages alone held a copy (nothing reads it).
  problem: entry(paths.problem, null, new RegExp(`^problems/${id}\\.html$`), 'html'),
  page: entry(paths.page, PageDoc, /^pages\/[a-z0-9][a-z0-9./-]*\.json$/),
} satisfies Record<DocName, CatalogueEntry>;

/** The catalogue entry (and its name) a version-relative path belongs to, or null for a path no document kind has. */
export function catalogueEntryOf(rel: string): { name: DocName; entry: CatalogueEntry } | null {
  for (const [name, e] of Object.entries(catalogue) as [DocName, CatalogueEntry][])
    if (e.match.test(rel)) return { name, entry: e };
  return null;
}
