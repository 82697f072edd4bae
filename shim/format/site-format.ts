/**
 * Formats and keys of the objects the generator publishes and the shim reads (the "site").
 * Every object carries `schema_version`. Keys are relative to the store root; a version's objects
 * live under `v/<version>/`, and `current.json` (written last) names the version being served.
 */
import { z } from 'zod';
import { SCHEMA_VERSIONS, type Artifact } from '../contract/constants.ts';
import { dict } from './dict.ts';
import { inVersion, paths } from './paths.ts';
import { Attribution, BrandIndex, CoverageResponse, Hours, MapVisibility, ProfileType } from '../contract/schemas.ts';

/**
 * The `schema_version` field of `artifact`: the one version constants.ts gives it. Any other is refused with a message
 * naming both and what to do, which a server answers as a store failure (503) naming it.
 */
export function schemaVersion<A extends Artifact>(artifact: A): z.ZodLiteral<(typeof SCHEMA_VERSIONS)[A]> {
  const want = SCHEMA_VERSIONS[artifact];
  return z.literal(want, {
    error: (issue) =>
      `${artifact} schema ${JSON.stringify(issue.input) ?? 'missing'}, but this release reads ${artifact} schema ${want} only: ` +
      'generate the week again with this release and publish it (docs/SITE-FORMAT.md, "Schema versions")',
  });
}

/** A sha256 as lowercase hex, as manifest.json and the parents of stored objects record it. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** The alphabet of listing ids after `l_`, in bucket order. */
export const LISTING_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** `current.json`: the pointer to the version being served. Written last on publish. */
export const Pointer = z.object({
  schema_version: schemaVersion('pointer'),
  version: z.string().regex(/^[A-Za-z0-9._-]+$/),
  week: z.string(),
  /**
   * sha256 (hex) of the version's meta.json as stored where this pointer is (a layer's meta.json in a bucket): the root
   * of every other hash. Pointers written before it existed have none, and their meta.json is read unchecked.
   */
  meta_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

/** How long a reader may keep the pointer it read (ms): a publish is seen by every reader within this. */
export const POINTER_TTL_MS = 5000;

/** One metro's sampling this week: the denominators of every share measured in it. */
export const MetroSampling = z.object({
  grid_points: z.number().int().nonnegative(),
  queries: z.number().int().nonnegative().describe('Injury searches per grid point'),
  grid_samples: z.number().int().nonnegative().describe('grid_points x queries: the denominator of every share'),
});

/** One object of a layered version: the version prefix that holds it (with its hash and size), or null when the version lacks it. */
export const LayerEntry = z
  .object({
    in: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .describe('The version whose prefix v/<in>/ holds this object'),
    sha256: z.string(),
    bytes: z.number().int().nonnegative(),
  })
  .nullable();

/**
 * The `layers` of a layered version's meta.json in a bucket (written by publish, never by generate): the version's own
 * prefix holds only what differs from `base`, a complete version; `objects` lists every object not read from `base`,
 * flattened so each resolves in one hop.
 */
export const Layers = z.object({
  base: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/)
    .describe('A complete version (its own manifest.json): every object not in `objects` is read from v/<base>/'),
  generated_meta: z
    .object({ sha256: z.string(), bytes: z.number().int().nonnegative() })
    .describe('sha256 and size of this meta.json as the generator wrote it, i.e. without `layers`'),
  objects: dict(LayerEntry).describe(
    'Key relative to the version root -> where it is (own objects name this version), or null when absent',
  ),
});

/** A boundary region's key: `us-<USPS code>` for a state, DC, Puerto Rico or a territory, `c-<ISO 3166 numeric or name>` for a country. */
export const BOUNDARY_KEY_RE = /^(?:us-[A-Z]{2}|c-[0-9a-z]+)$/;

/** meta.json gazetteer.boundary_tiles: the size of the boundary tiles and the box (whole multiples of it) they cover. */
export const BoundaryTiles = z.object({
  degrees: z.number().int().positive().describe('Degrees of latitude and longitude of a tile, dividing 180'),
  bbox: z
    .tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int()])
    .describe('West, south, east, north of the box the tiles cover (south and west edges in, north and east out)'),
});

/** `v/<version>/meta.json`: facts about the build that the shim needs. */
export const Meta = z.object({
  schema_version: schemaVersion('meta').describe(
    '3: the root a search reads; the hashes of most documents are in hashes/ documents it names (hash-docs.ts)',
  ),
  generated: z.literal('by generator/; do not edit'),
  version: z.string(),
  week: z.string().describe('ISO week, e.g. 2026-W47'),
  week_of: z.string().describe('Monday of the ISO week, YYYY-MM-DD'),
  generated_at: z.string().describe('Taken from the inputs (dataset.json collected_at), so output is deterministic'),
  dataset: z.object({ name: z.string(), synthetic: z.boolean() }),
  coverage_resolution: z.number().int(),
  totals: z.object({ firms: z.number().int(), offices: z.number().int(), metros: z.number().int() }),
  metros: dict(MetroSampling).describe(
    'Every metro by slug (sorted), with the sampling the shim puts into map_visibility',
  ),
  gazetteer: z
    .object({
      zip3: z.array(z.string()).describe('Every ZIP3 with a gazetteer/zip document, sorted'),
      cities: dict(z.string().regex(/^[0-9_a-z]+$/))
        .optional()
        .describe(
          'State code -> the first character of each of its city documents, sorted (see cityDocument): gazetteer/city/<ST>/<c>.json exists for each',
        ),
      states: z
        .array(z.string())
        .optional()
        .describe(
          'Versions generated before the split: every state code with one gazetteer/city/<ST>.json (read, never written)',
        ),
      names: z
        .array(z.string().regex(/^[0-9_a-z]{1,2}$/))
        .optional()
        .describe(
          'Every prefix (see namePrefix) with a gazetteer/names/<prefix>.json, sorted; absent in versions written before names without a state were accepted',
        ),
      points: z
        .array(z.string().regex(/^-?\d+_-?\d+$/))
        .optional()
        .describe(
          'Every tile (see pointTile) with a gazetteer/points/<tile>.json, sorted; absent in versions written before points were checked to be in the US',
        ),
      boundary_tiles: BoundaryTiles.optional().describe(
        'The boundary tiles (see BoundaryTile): gazetteer/tiles/<tile>.json exists for every tile of the box some region meets (from the proofs on, for every tile of the box, with no regions where none meets it), its sha256 in hashes/ (see hashDocOf); a point outside the box, and every point of a version without them, is placed by the boundary index and region documents',
      ),
      boundary: z
        .array(z.string().regex(BOUNDARY_KEY_RE))
        .optional()
        .describe(
          'Every region (see BoundaryIndex) with a gazetteer/boundary/<key>.json, sorted; gazetteer/boundary/index.json exists too. Absent in versions written before points were checked against boundaries (the ZIP points decide there)',
        ),
    })
    .describe(
      'Which gazetteer documents the version holds: a missing one of these is a store failure, not an unknown place',
    ),
  listing_prefix_length: z
    .number()
    .int()
    .min(1)
    .max(4)
    .describe('Characters after "l_" that name a listings/<prefix>.json bucket; every bucket of that length exists'),
  layers: Layers.optional().describe('Present only in a bucket, on a version published as a layer over a complete one'),
  sha256: dict(Sha256Hex)
    .optional()
    .describe(
      'Key relative to the version root -> sha256 of the objects a search may read first (cell index, coverage, coverage cells, openapi, changes, the boundary index and the US regions) and of the hashes/ documents, which record the sha256 of the other documents read by name (listing buckets, gazetteer documents, pages, measurement; see hashDocOf); the objects below them are checked against their parents',
    ),
  gazetteer_root: Sha256Hex.optional().describe(
    'The Merkle root of the gazetteer documents hashed in hashes/ (shim/format/proofs.ts): each is stored with its proof to this root, so a search checks it without reading its hashes/ document. Absent in versions generated before the proofs',
  ),
  cell_index: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'The cell index as cells/index.json holds it (CellIndex), so a cold search reads it with meta.json in one object; cells/index.json is still written, for older readers and audits. Absent in versions generated before it was carried here',
    ),
});

/** `v/<version>/hashes/<name>.json`: key relative to the version root -> sha256, for the documents hashDocOf assigns to it. */
export const HashDoc = z.object({
  schema_version: schemaVersion('hashes'),
  sha256: dict(Sha256Hex),
});

/** Stored opening hours: the public Hours without `text`, which the shim renders from `weekly` (shim/answer/hours.ts). */
export const StoredHours = Hours.omit({ text: true });

/** An office's own shares in its measured metro; metro, week and denominators come from the office and meta. */
export const StoredVisibility = MapVisibility.pick({ top3_share_pct: true, appears_share_pct: true });

/** The firm's brand index in the office's measured metro, without what the metro and meta already say. */
export const StoredBrand = BrandIndex.pick({ top3_share_pct: true, appears_share_pct: true, offices_measured: true });

/** The firm-level brand index of a firm document, with its own metro (it can differ from the office's). */
export const StoredFirmBrand = BrandIndex.pick({
  metro: true,
  top3_share_pct: true,
  appears_share_pct: true,
  offices_measured: true,
});

/**
 * One office as stored in record chunks and firm documents: the public Office plus firm-level fields the shim shapes from,
 * compact. The shim rebuilds map_visibility and brand_index from `metro`, `visibility`, `brand` and meta.json
 * (week_of, metros[metro]) and the `what_this_is` constants, and hours.text from hours.weekly.
 */
export const StoredOffice = z
  .object({
    listing_id: z.string(),
    firm_id: z.string(),
    name: z.string(),
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip: z.string().nullable(),
    lat: z.number(),
    lng: z.number(),
    phone: z.string().nullable(),
    website_url: z
      .string()
      .nullable()
      .describe("The firm's own site; the public `website` is {public_base_url}/r/{listing_id}"),
    website_domain: z.string().nullable(),
    primary_category: z.string().nullable(),
    google_listing_claimed: z.boolean(),
    hours: StoredHours.nullable(),
    metro: z.string().nullable().describe('Slug of the metro that measures this office; null when unmeasured'),
    visibility: StoredVisibility.nullable().describe('Null exactly when the public map_visibility is null'),
    brand: StoredBrand.nullable().describe("The firm's brand index in `metro`"),
    profile_type: ProfileType,
    sponsored: z.boolean(),
  })
  .refine((o) => (o.metro === null) === (o.visibility === null) && (o.brand === null || o.metro !== null), {
    message: 'metro and visibility are null together, and brand needs a metro',
  });

/** One listing's firm document, in its firm pack: everything GET /v1/firms/{listing_id} and GET /r/{listing_id} need. */
export const FirmDoc = z.object({
  schema_version: schemaVersion('firm'),
  listing_id: z.string(),
  firm: z.object({
    firm_id: z.string(),
    name: z.string(),
    website_url: z.string().nullable(),
    website_domain: z.string().nullable(),
    profile_type: ProfileType,
    sponsored: z.boolean(),
    brand: StoredFirmBrand.nullable().describe(
      "The office's brand; when null, the firm's in the metro measuring most of its offices",
    ),
  }),
  office: StoredOffice,
  other_offices: z.array(StoredOffice).describe('Same firm, ordered by listing_id'),
});

/**
 * `v/<version>/firms/<prefix>.json`: the firm documents of every listing id of the version starting `l_<prefix>`
 * (firmPackPrefix), ordered by listing_id; a pack with no listing is written too, with no documents.
 */
export const FirmPack = z.object({
  schema_version: schemaVersion('firm'),
  prefix: z.string(),
  documents: z.array(FirmDoc),
});

/** `v/<version>/coverage.json`: the public coverage body plus schema_version; the shim adds `version` from the pointer. */
// `attribution` is optional in the stored document: versions published before it existed lack it, and the shim then
// serves the current attribution (the place data and its licence were the same).
export const CoverageDoc = CoverageResponse.omit({ version: true }).extend({
  schema_version: schemaVersion('coverage'),
  attribution: Attribution.optional(),
});

/** `v/<version>/coverage-cells.json`: measured cells (H3, coverage_resolution) and the metros measuring each, nearest centre first. */
export const CoverageCells = z.object({
  schema_version: schemaVersion('coverage'),
  res: z.number().int(),
  cells: dict(z.array(z.string())),
});

/** One ZIP: [lat, lng, city, state, source] where source is census_zcta or geonames_postal. */
export const ZipEntry = z.tuple([
  z.number(),
  z.number(),
  z.string(),
  z.string(),
  z.enum(['census_zcta', 'geonames_postal']),
]);
/** `v/<version>/gazetteer/zip/<first 3 digits>.json`. */
export const ZipGazetteer = z.object({ schema_version: schemaVersion('gazetteer'), zips: dict(ZipEntry) });

/** One place name in a state, already resolved to the most populous candidate. */
export const CityEntry = z.object({
  name: z.string().describe('Display name, e.g. "New York"'),
  lat: z.number(),
  lng: z.number(),
  zip: z.string().nullable().describe('A representative ZIP when known'),
  population: z.number().int().nullable(),
  source: z.enum(['geonames_place', 'geonames_postal']),
  candidates: z
    .number()
    .int()
    .positive()
    .describe('How many same-named places the state has; >1 means the most populous was chosen'),
});
/** `v/<version>/gazetteer/city/<ST>/<bucket>.json`: the state's normalised names (see normaliseCityName) of one bucket (see cityBucket) -> entry. */
export const CityGazetteer = z.object({
  schema_version: schemaVersion('gazetteer'),
  state: z.string(),
  bucket: z
    .string()
    .regex(/^[0-9_a-z]$/)
    .describe(
      'The first of the name characters (see cityBucket) this document covers, up to the next one meta.json lists for the state',
    ),
  cities: dict(CityEntry),
});

/** `v/<version>/gazetteer/city/<ST>.json`: one state's whole city gazetteer, in versions generated before the split. */
export const CityGazetteerState = CityGazetteer.omit({ bucket: true });

/** One state's place of a name: [state, display name, lat, lng, population or null], the state's entry for the name. */
export const NameEntry = z.tuple([z.string(), z.string(), z.number(), z.number(), z.number().int().nullable()]);
/** The most populous place abroad of a name: [display name, ISO 3166-1 alpha-2 country, population]. */
export const AbroadEntry = z.tuple([z.string(), z.string().regex(/^[A-Z]{2}$/), z.number().int()]);
/** `v/<version>/gazetteer/names/<prefix>.json`: normalised names of one prefix -> the states having it, most populous first. */
export const NameGazetteer = z.object({
  schema_version: schemaVersion('gazetteer'),
  prefix: z.string().regex(/^[0-9_a-z]{1,2}$/),
  names: dict(z.array(NameEntry)),
  abroad: dict(AbroadEntry)
    .optional()
    .describe(
      'Names whose best-known holder is abroad (see ABROAD_MIN_POPULATION): that place, for a refusal that names it first. Absent in versions before it',
    ),
  rivals: dict(NameEntry)
    .optional()
    .describe(
      "Names of five characters or more -> the most populous place of a name one edit away (in any names document), with 50,000 people or more and more than every place of the name ('huston' -> Houston, TX): the resolver asks about it. Absent in versions before it",
    ),
  parts: dict(z.array(NameEntry))
    .optional()
    .describe(
      "Names of well-known parts of large cities that the places under `names` do not answer for ('pilsen', 'bel air') -> the entries of the cities they are part of, most populous first: the resolver asks which place is meant rather than answering from a namesake or refusing the name as abroad. Absent in versions before it",
    ),
});

/** One ZIP point: [lat, lng, state]. */
export const PointEntry = z.tuple([z.number(), z.number(), z.string()]);
/** `v/<version>/gazetteer/points/<tile>.json`: every ZIP point of one 4-degree tile (see pointTile), sorted. */
export const PointGazetteer = z.object({
  schema_version: schemaVersion('gazetteer'),
  tile: z.string(),
  points: z.array(PointEntry),
});

/** One region of the boundary index: what it is, and the box (west, south, east, north; west > east across 180°) holding it. */
export const BoundaryRegionInfo = z.object({
  key: z.string().regex(BOUNDARY_KEY_RE),
  name: z.string().describe('"Texas", "Guam", "Canada"'),
  kind: z
    .enum(['state', 'territory', 'country', 'us_waters'])
    .describe(
      'state: the 50 states, DC and PR (covered); territory: other US areas (not covered); country: the rest; us_waters: the US at 1:50m with its lakes and rivers, read last',
    ),
  code: z.string().describe('USPS code of a state or territory; ISO 3166-1 numeric code of a country, or "" when none'),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});
/** `v/<version>/gazetteer/boundary/index.json`: every region with a boundary document: states, territories, countries, US waters, each kind by key. */
export const BoundaryIndex = z.object({
  schema_version: schemaVersion('gazetteer'),
  sources: z.array(z.string()).describe('Where the boundaries come from, with their licences'),
  regions: z.array(BoundaryRegionInfo),
});
/**
 * `v/<version>/gazetteer/boundary/<key>.json`: one region's polygons, each a list of rings (the first the outer one),
 * each ring flat `[lng, lat, lng, lat, ...]` in the winding d3-geo reads (spherical, outer ring clockwise).
 */
export const BoundaryRegion = z.object({
  schema_version: schemaVersion('gazetteer'),
  key: z.string().regex(BOUNDARY_KEY_RE),
  polygons: z.array(z.array(z.array(z.number()))),
});

/**
 * One polygon of a region cut for one boundary tile (shim/places/boundary-tile.ts): the runs of its edges that meet the
 * tile, as in the region document, and the parity of the crossings west of the tile.
 */
export const BoundaryTilePolygon = z.object({
  w: z.union([z.literal(0), z.literal(1)]).describe('1: the polygon crosses 180° and is read in 0-360° longitudes'),
  p: z
    .union([z.literal(0), z.literal(1)])
    .describe("Parity of the polygon's crossings west of the tile at its south edge"),
  b: z.array(z.number()).describe('Latitudes in the tile, ascending, at and above which that parity flips'),
  c: z.array(z.array(z.number())).describe('Runs of consecutive edges meeting the tile, flat [lng, lat, ...]'),
});
/**
 * `v/<version>/gazetteer/tiles/<lat>_<lng>.json`: every boundary region whose box meets the tile (`degrees` square, south-west
 * corner lat, lng), in the index's order, each with its polygons cut for the tile: where a point is, from one document.
 */
export const BoundaryTile = z.object({
  schema_version: schemaVersion('gazetteer'),
  tile: z.string().regex(/^-?\d+_-?\d+$/),
  lat: z.number().int(),
  lng: z.number().int(),
  degrees: z.number().int().positive(),
  regions: z.array(BoundaryRegionInfo.extend({ polygons: z.array(BoundaryTilePolygon) })),
});

/**
 * `v/<version>/listings/<prefix>.json`: every listing id of the version starting `l_<prefix>`, sorted (empty buckets
 * too), and the sha256 of each firm pack below it (`firms/<prefix><c>.json` for each character c of LISTING_ALPHABET,
 * in its order).
 */
export const ListingBucket = z.object({
  schema_version: schemaVersion('listings'),
  prefix: z.string(),
  listing_ids: z.array(z.string()),
  firms_sha256: z
    .array(Sha256Hex)
    .length(LISTING_ALPHABET.length)
    .describe('sha256 of firms/<prefix><LISTING_ALPHABET[i]>.json'),
});

/** `v/<version>/manifest.json`: every object of the version (except itself) with sha256 and size. */
export const Manifest = z.object({
  schema_version: schemaVersion('manifest'),
  version: z.string(),
  objects: z.record(z.string(), z.object({ sha256: z.string(), bytes: z.number().int() })),
});

/**
 * `v/<version>/measurement/<metro>.json`: the week's web-map samples of one metro as the sampler saw them, reduced to
 * what anyone needs to recompute map_visibility and brand_index: per grid point and query, the ranked listing ids
 * (null where the map ranked a place that is not a listing of this version). Nothing else of the map service.
 */
export const MeasurementDoc = z.object({
  schema_version: schemaVersion('measurement'),
  generated: z.literal('by generator/; do not edit'),
  metro: z.string(),
  week: z.string(),
  queries: z.array(z.string()).describe('The distinct queries sampled in the metro, sorted'),
  points: z
    .array(
      z.object({
        point_id: z.string(),
        lat: z.number(),
        lng: z.number(),
        ranked: dict(z.array(z.string().nullable())).describe(
          'Query -> listing ids in rank order (rank 1 first); null: a place that is not a listing',
        ),
      }),
    )
    .describe('Grid points sorted by point_id; grid_samples = points x queries'),
});

/** Why a listing changed between two versions: the weekly data, a correction, a standing removal (or its lifting). */
const reasonDate = z.string().describe('Day the request was recorded (YYYY-MM-DD).');
const reasonNote = z.string().nullable().describe('Public note on the request, or null.');
export const ChangeReason = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('weekly_data').describe("The week's new input data.") }),
    z.object({
      kind: z.literal('correction').describe("A firm's correction of its record."),
      date: reasonDate,
      note: reasonNote,
    }),
    z.object({
      kind: z.literal('removal').describe('A standing removal on request.'),
      scope: z.enum(['listing', 'firm']).describe('Whether one listing or the whole firm was removed.'),
      date: reasonDate,
      note: reasonNote,
    }),
    z.object({
      kind: z.literal('removal_lifted').describe('A standing removal was lifted.'),
      date: reasonDate,
      lifted: z.string().describe('Day the removal was lifted (YYYY-MM-DD).'),
      note: reasonNote,
    }),
  ])
  .describe('Why the listing changed.');

/** A listing as the changes document names it. */
export const ChangeListing = z.object({
  listing_id: z.string().describe('The listing id.'),
  firm_id: z.string().describe('The firm id.'),
  name: z.string().describe("The firm's name."),
  city: z.string().describe('City of the office.'),
  state: z.string().describe('Two-letter USPS state code.'),
});
const reasons = z.array(ChangeReason).describe('Why, one or more reasons.');

/**
 * `v/<version>/removals.json`: every standing removal the version was built with (data/removals.jsonl, lifted ones
 * included), each as the sha256 of what it removes (`listing:<id>`, `place:<place id>`, `firm:<id>` or
 * `domain:<domain>`), sorted. A release refuses to go live from data that lacks one of the live version's removals:
 * another operator's removal would otherwise come back (docs/DEPLOY.md, section 5).
 */
export const RemovalsDoc = z.object({
  schema_version: schemaVersion('removals'),
  generated: z.literal('by generator/; do not edit'),
  removals: z.array(Sha256Hex),
});
export type RemovalsDocT = z.infer<typeof RemovalsDoc>;

/**
 * `v/<version>/changes.json`: what changed in the listings since the version that was live before this one, and why.
 * Measurement fields (metro, shares, brand index) are not listing changes; the measurement documents hold their basis.
 */
export const ChangesDoc = z.object({
  schema_version: schemaVersion('changes').describe('Version of this document format.'),
  generated: z.literal('by generator/; do not edit').describe('Marks a generated document.'),
  version: z.string().describe('The published version this document describes.'),
  week: z.string().describe('ISO week of its data, e.g. 2026-W47.'),
  previous: z
    .object({ version: z.string().describe('The version live before.'), week: z.string().describe('Its ISO week.') })
    .nullable()
    .describe('Null: the first version of the site, nothing to compare with'),
  counts: z
    .object({
      added: z.number().int().describe('Listings added.'),
      removed: z.number().int().describe('Listings removed.'),
      changed: z.number().int().describe('Listings changed.'),
    })
    .describe('How many listings were added, removed and changed.'),
  added: z.array(ChangeListing.extend({ reasons })).describe('Listings new in this version.'),
  removed: z
    .array(
      z.object({
        listing_id: z.string().describe('The listing id.'),
        firm_id: z.string().describe('The firm id.'),
        old: ChangeListing.omit({ listing_id: true, firm_id: true })
          .nullable()
          .describe('Null when the listing was removed on request (a removal or a correction)'),
        reasons,
      }),
    )
    .describe('Listings no longer in this version.'),
  changed: z
    .array(
      ChangeListing.extend({
        fields: z
          .array(
            z.object({
              field: z.string().describe('Name of the changed field.'),
              old: z.unknown().describe('Its value before.'),
              new: z.unknown().describe('Its value now.'),
              reason: ChangeReason,
            }),
          )
          .describe('The fields that changed, each with old and new value.'),
      }),
    )
    .describe('Listings whose record changed.'),
});

export type PointerT = z.infer<typeof Pointer>;
export type MetaT = z.infer<typeof Meta>;
export type HashDocT = z.infer<typeof HashDoc>;
export type MetroSamplingT = z.infer<typeof MetroSampling>;
export type StoredHoursT = z.infer<typeof StoredHours>;
export type StoredVisibilityT = z.infer<typeof StoredVisibility>;
export type StoredBrandT = z.infer<typeof StoredBrand>;
export type StoredFirmBrandT = z.infer<typeof StoredFirmBrand>;
export type StoredOfficeT = z.infer<typeof StoredOffice>;
export type FirmDocT = z.infer<typeof FirmDoc>;
/** A firm pack as parsed. */
export type FirmPackT = z.infer<typeof FirmPack>;
export type CoverageDocT = z.infer<typeof CoverageDoc>;
export type CoverageCellsT = z.infer<typeof CoverageCells>;
export type ZipGazetteerT = z.infer<typeof ZipGazetteer>;
export type CityEntryT = z.infer<typeof CityEntry>;
export type CityGazetteerT = z.infer<typeof CityGazetteer>;
export type NameEntryT = z.infer<typeof NameEntry>;
export type NameGazetteerT = z.infer<typeof NameGazetteer>;
export type PointGazetteerT = z.infer<typeof PointGazetteer>;
export type BoundaryIndexT = z.infer<typeof BoundaryIndex>;
export type BoundaryRegionT = z.infer<typeof BoundaryRegion>;
export type BoundaryTileT = z.infer<typeof BoundaryTile>;
export type BoundaryTilesT = z.infer<typeof BoundaryTiles>;
export type BoundaryTilePolygonT = z.infer<typeof BoundaryTilePolygon>;
export type ManifestT = z.infer<typeof Manifest>;
export type LayersT = z.infer<typeof Layers>;
export type LayerEntryT = z.infer<typeof LayerEntry>;
export type ListingBucketT = z.infer<typeof ListingBucket>;
export type MeasurementDocT = z.infer<typeof MeasurementDoc>;
export type ChangeReasonT = z.infer<typeof ChangeReason>;
export type ChangesDocT = z.infer<typeof ChangesDoc>;

/** Store keys, built from the one list of paths (paths.ts). `version` keys are relative to the store root. */
export const keys = {
  pointer: 'current.json',
  root: (version: string) => `v/${version}/`,
  meta: inVersion(paths.meta),
  manifest: inVersion(paths.manifest),
  openapi: inVersion(paths.openapi),
  coverage: inVersion(paths.coverage),
  coverageCells: inVersion(paths.coverageCells),
  coveragePiece: inVersion(paths.coveragePiece),
  /** The cell tree (shim/format/cell-format.ts): top index, group trees, shared lists, office columns, full records. */
  cellIndex: inVersion(paths.cellIndex),
  cellGroup: inVersion(paths.cellGroup),
  cellShared: inVersion(paths.cellShared),
  cellBlock: inVersion(paths.cellBlock),
  cellPack: inVersion(paths.cellPack),
  cellRecords: inVersion(paths.cellRecords),
  firmPack: inVersion(paths.firmPack),
  listings: inVersion(paths.listings),
  zip: inVersion(paths.zip),
  city: inVersion(paths.city),
  cityState: inVersion(paths.cityState),
  names: inVersion(paths.names),
  points: inVersion(paths.points),
  boundaryIndex: inVersion(paths.boundaryIndex),
  boundary: inVersion(paths.boundary),
  boundaryTile: inVersion(paths.boundaryTile),
  /** One metro's published measurement: the ranked listing ids per grid point and query. */
  measurement: inVersion(paths.measurement),
  /** What changed since the previous version, and why (written after the version id, which it does not enter). */
  changes: inVersion(paths.changes),
  removals: inVersion(paths.removals),
  /** The sha256 of one group of documents meta.json does not record itself (hash-docs.ts). */
  hashes: inVersion(paths.hashes),
  /** The page behind a problem `type` URI (the shim serves the same page at /problems/{code}). */
  problem: inVersion(paths.problem),
} as const;

/** Listing ids are `l_` + 16 lowercase base32 characters; anything else is not a listing. */
export const LISTING_ID_RE = /^l_[a-z2-7]{16}$/;

/** The listings bucket a listing id falls in. */
export function listingPrefix(listingId: string, length: number): string {
  return listingId.slice(2, 2 + length);
}

/** The firm pack a listing id's document is in: its listings bucket's prefix and one character more. */
export function firmPackPrefix(listingId: string, listingPrefixLength: number): string {
  return listingPrefix(listingId, listingPrefixLength + 1);
}

/** The sha256 a listings bucket records for its firm pack `packPrefix` (the bucket's prefix and one character more). */
export function firmPackSha256(bucket: ListingBucketT, packPrefix: string): string | undefined {
  return bucket.firms_sha256[LISTING_ALPHABET.indexOf(packPrefix.slice(bucket.prefix.length))];
}

/** The name character of a normalised name: its first character when a-z or 0-9, else "_". */
export function cityBucket(key: string): string {
  const c = key.charAt(0);
  return /^[a-z0-9]$/.test(c) ? c : '_';
}

/** The names document of a normalised name: its first two characters, each a-z or 0-9, else "_". */
export function namePrefix(key: string): string {
  return [...key.slice(0, 2)].map((c) => (/^[a-z0-9]$/.test(c) ? c : '_')).join('');
}

/** Degrees of latitude and longitude of a points tile. */
export const POINT_TILE_DEGREES = 4;

/** The points tile of a position: its south-west corner in whole degrees, a multiple of POINT_TILE_DEGREES ("40_-76"). */
export function pointTile(lat: number, lng: number): string {
  return gridTile(lat, lng, POINT_TILE_DEGREES);
}

/** The `degrees` square holding a position, named by its south-west corner in whole degrees ("40_-76"). */
function gridTile(lat: number, lng: number, degrees: number): string {
  return `${Math.floor(lat / degrees) * degrees}_${Math.floor(lng / degrees) * degrees}`;
}

/**
 * The boundary tiles a version is written with (meta.json gazetteer.boundary_tiles): 4-degree squares over the box
 * around the US and its neighbours (west, south, east, north: 180°W to 60°W, the equator to 80°N): 331 tiles. Points
 * elsewhere (refused anyway) read the boundary index and region documents.
 */
export const BOUNDARY_TILES: BoundaryTilesT = { degrees: 4, bbox: [-180, 0, -60, 80] };

/** The boundary tile of a position: its south-west corner in whole degrees, a multiple of `degrees` ("40_-88"). */
export function boundaryTile(lat: number, lng: number, degrees = BOUNDARY_TILES.degrees): string {
  return gridTile(lat, lng, degrees);
}

/** True when (lat, lng) is in the box the tiles cover (south and west edges in, north and east out). */
export function inTiledBox(tiles: BoundaryTilesT, lat: number, lng: number): boolean {
  const [w, s, e, n] = tiles.bbox;
  return lat >= s && lat < n && lng >= w && lng < e;
}

/**
 * The city document holding a normalised name, given the state's document starts from meta.json (sorted characters):
 * the last start not after the name's character (order 0-9, _, a-z); null when the name's character precedes them all.
 */
export function cityDocument(key: string, starts: string): string | null {
  const c = cityBucket(key);
  let found: string | null = null;
  for (const s of starts) if (s <= c) found = s;
  return found;
}

/**
 * Normalise a city name for lookup: lower case, accents, apostrophes (and the Hawaiian ʻokina, however typed) and
 * punctuation dropped, St./Ft./Mt. expanded, then spaces removed, so "St. Louis" = "Saint Louis", "Mc Lean" (USPS) =
 * "McLean" = "mclean" and "‘Ewa Beach" = "Ewa Beach" (e.g. "saintlouis").
 */
export function normaliseCityName(name: string): string {
  let s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  s = s
    .replace(/[’'‘ʻʼ`´]/g, '')
    .replace(/[.,]/g, ' ')
    .replace(/-/g, ' ');
  s = s.replace(/\s+/g, ' ').trim();
  s = s
    .replace(/^(st|ste) /, 'saint ')
    .replace(/^ft /, 'fort ')
    .replace(/^mt /, 'mount ');
  s = s
    .replace(/ (st|ste) /g, ' saint ')
    .replace(/ ft /g, ' fort ')
    .replace(/ mt /g, ' mount ');
  return s.replace(/ /g, '');
}
