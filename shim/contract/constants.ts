/** Public contract constants shared by the generator and the shim. */

/** Version of the public API (OpenAPI `info.version`). */
export const API_VERSION = '1.0.1';
/**
 * The one schema version of each published artifact, as the generator writes it and the shim reads it (the only one
 * it reads, but for the cell tree's PREVIOUS_CELL_SCHEMA: docs/SITE-FORMAT.md, "Schema versions"). Bump an
 * artifact's number on any incompatible change to it.
 */
export const SCHEMA_VERSIONS = {
  /** `current.json`. */
  pointer: 1,
  /** `meta.json` (3: the root a search reads; most hashes are in `hashes/` documents). */
  meta: 3,
  /** `hashes/<name>.json`: the sha256 of the documents meta.json does not record itself. */
  hashes: 1,
  /**
   * Everything under `cells/`: index, groups, shared lists, blocks, record chunks (9: each group's pack holds its record
   * chunks too, each block their lengths and offset; 8: groups and shared pages in binary).
   */
  cells: 9,
  /** `firms/<prefix>.json` (2: the firm documents of every listing id starting `l_<prefix>`, one object). */
  firm: 2,
  /** `listings/<prefix>.json` (2: with the sha256 of each firm pack below the bucket). */
  listings: 2,
  /** `coverage.json` and `coverage-cells.json`. */
  coverage: 1,
  /** Every `gazetteer/` document (zip, city, names, points). */
  gazetteer: 1,
  /** `measurement/<metro>.json`. */
  measurement: 1,
  /** `changes.json`. */
  changes: 1,
  /** `manifest.json`. */
  manifest: 1,
  /** `pages/` documents. */
  pages: 1,
  /** `removals.json`: the standing removals a version was built with, each as a hash of what it removes. */
  removals: 1,
} as const;
/** A published artifact, by its entry in SCHEMA_VERSIONS. */
export type Artifact = keyof typeof SCHEMA_VERSIONS;
/**
 * The cell schema before the current one (8: record chunks as objects only, blocks without their lengths), read beside
 * it by every reader of the cell tree, so a version of either schema serves during a rollout or a rollback
 * (docs/SITE-FORMAT.md, "Schema versions").
 */
export const PREVIOUS_CELL_SCHEMA = 8;
/**
 * The meta.json schema before the current one (2: every hash in meta.json itself): the generator still reads such a
 * live version's cell tree to diff a new week against it; nothing else reads it.
 */
export const PREVIOUS_META_SCHEMA = 2;
/** Name used for `utm_source` on redirects and in the OpenAPI title. */
export const SERVICE_NAME = 'injury-attorney-directory';
/** Mean Earth radius used for every distance, in miles. */
export const EARTH_RADIUS_MILES = 3958.8;

/** The one version of the RateLimit header fields draft followed everywhere (shim, WAF answers, OpenAPI, docs). */
/** Requests per network address and hour the contract promises, REST and MCP together (the default of RATE_LIMIT_PER_HOUR). */
export const REQUESTS_PER_HOUR = 600;
/**
 * The ceiling on every request of an address (pages, assets, documents and MCP protocol messages included), as a
 * multiple of the answer quota: what spends no answer still cannot flood.
 */
export const ALL_REQUESTS_FACTOR = 10;
/** The RateLimit header draft every answer follows. */
export const RATELIMIT_DRAFT = 'draft-ietf-httpapi-ratelimit-headers-10';

/** Query bounds (REST and MCP share these). */
export const RADIUS_MILES = { min: 1, max: 50, default: 15 } as const;
export const LIMIT = { min: 1, max: 25, default: 10 } as const;
export const SRC_MAX_LENGTH = 100;
export const PRACTICE_AREAS = ['personal_injury'] as const;

/**
 * A place named inside a city ("Buckhead, Atlanta, GA") is read as that place when it is this close to the city's
 * centre, in miles; else distances are measured from the city's centre (resolve-inside.ts).
 */
export const AREA_MILES = 15;

/** H3 resolution of the coverage cells, and the ring added around ZIP-centroid cells. */
export const COVERAGE_RESOLUTION = 5;
export const COVERAGE_RING = 1;
/**
 * H3 resolution of the pieces coverage-cells.json is also written in (coverage-cells/<cell>.json): 18 on the sample
 * site, 5.8 KB at most, against 52 KB for the whole document, and 1.8 KB of hashes in meta.json.
 */
export const COVERAGE_PIECE_RES = 1;

/** The five injury searches sampled on the web map each week. */
export const MEASURED_QUERIES = [
  'personal injury lawyer',
  'car accident lawyer',
  'truck accident lawyer',
  'slip and fall lawyer',
  'motorcycle accident lawyer',
] as const;

/** How results are ordered; returned with every answer. */
export const ORDER_TEXT =
  'Ascending straight-line (great-circle) distance from the location to the nearest office of each firm, ties broken by listing_id. ' +
  'Nothing else affects the order: sponsored status, profile_type and map_visibility never change it, and no firm can pay for a position.';

/** Disclosure that must travel with results (shim/answer/disclosure.ts adds the synthetic and uncovered notes); names no API field. */
export const DISCLOSURE =
  'This is a directory, not a recommendation or a referral: listings are ordered by distance only. ' +
  "The map visibility figures are this service's own weekly measurement of how often an office appeared in the top three of five injury searches on a web map; " +
  'they measure visibility on a map, not the quality of a lawyer or case results. No ratings or reviews are shown. ' +
  "Check a lawyer's licence with the state bar before hiring. Profile type and sponsorship are shown for transparency and never affect order.";

/** `what_this_is` of an office's map_visibility. */
export const MAP_VISIBILITY_WHAT =
  "Share of this week's grid samples (grid points x five injury searches on a web map) in the metro in which this office ranked in the top three, and in which it appeared at all. " +
  'It measures visibility on a web map, not lawyer quality or case results.';

/** `what_this_is` of a firm's brand_index. */
export const BRAND_INDEX_WHAT =
  "Share of this week's grid samples in the metro in which any office of this firm ranked in the top three, and in which any appeared at all. " +
  'It measures visibility on a web map, not lawyer quality or case results.';
