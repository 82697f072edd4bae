/** The documents of a version besides the cell tree and the firm packs: listings buckets, coverage, coverage cells, hash documents, meta, manifest, pointer. */
import { attribution } from '../../shim/contract/attribution.ts';
import { COVERAGE_RESOLUTION, SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import { coveragePieceOfCell } from '../../shim/places/coverage.ts';
import { disclosureFor } from '../../shim/answer/disclosure.ts';
import { cityDocument, LISTING_ALPHABET, listingPrefix } from '../../shim/format/site-format.ts';
import { paths } from '../../shim/format/paths.ts';
import { hashDocPath, hashInMeta } from '../../shim/format/hash-docs.ts';
import type { CellIndexT } from '../../shim/format/cell-format.ts';
import { alphabetPrefixes } from './firm-packs.ts';
import type {
  BoundaryTilesT,
  CoverageCellsT,
  CoverageDocT,
  HashDocT,
  ListingBucketT,
  ManifestT,
  MetaT,
  MetroSamplingT,
  PointerT,
} from '../../shim/format/site-format.ts';
import type { CoverageMap } from '../model/coverage.ts';
import type { DatasetFileT, MetroT } from '../inputs/schema.ts';
import type { BuiltFirm } from '../model/offices.ts';
import type { Visibility } from '../model/visibility.ts';
import type { Entry } from './written.ts';

/** Totals shared by coverage.json and meta.json. */
export interface Totals {
  firms: number;
  offices: number;
  metros: number;
}

/** The totals over the built firms. */
export function totalsOf(built: readonly BuiltFirm[], metros: readonly MetroT[]): Totals {
  return { firms: built.length, offices: built.reduce((n, b) => n + b.offices.length, 0), metros: metros.length };
}

/** coverage.json: per metro, the firms and offices measured in it and its sampling. */
export function coverageDoc(
  built: readonly BuiltFirm[],
  metros: readonly MetroT[],
  vis: Pick<Visibility, 'metros'>,
  dataset: DatasetFileT,
  weekOf: string,
): CoverageDocT {
  const offices = new Map<string, number>();
  const firms = new Map<string, Set<string>>();
  for (const b of built) {
    for (const o of b.offices) {
      const slug = o.metro;
      if (slug === null) continue;
      offices.set(slug, (offices.get(slug) ?? 0) + 1);
      let set = firms.get(slug);
      if (!set) firms.set(slug, (set = new Set()));
      set.add(b.firm.firmId);
    }
  }
  return {
    schema_version: SCHEMA_VERSIONS.coverage,
    week_of: weekOf,
    generated_at: dataset.collected_at,
    dataset: { name: dataset.name, synthetic: dataset.synthetic },
    totals: totalsOf(built, metros),
    metros: metros.map((m) => {
      const st = vis.metros.get(m.slug);
      return {
        slug: m.slug,
        name: m.name,
        center: { lat: m.center.lat, lng: m.center.lng },
        firms: firms.get(m.slug)?.size ?? 0,
        offices: offices.get(m.slug) ?? 0,
        grid_points: st?.gridPoints ?? 0,
        grid_samples: st?.samples ?? 0,
        queries: st?.queries ?? 0,
        week_of: weekOf,
      };
    }),
    disclosure: disclosureFor(dataset),
    attribution: attribution(),
  };
}

/** coverage-cells.json. */
export function coverageCellsDoc(coverage: CoverageMap): CoverageCellsT {
  const cells: Record<string, string[]> = {};
  for (const cell of [...coverage.keys()].sort()) cells[cell] = coverage.get(cell) ?? [];
  return { schema_version: SCHEMA_VERSIONS.coverage, res: COVERAGE_RESOLUTION, cells };
}

/**
 * coverage-cells.json cut by each cell's parent at COVERAGE_PIECE_RES: relative path -> the cells under that parent,
 * as coverage-cells.json holds them, paths sorted. The whole document is still written, for shims reading it.
 */
export function coveragePieceDocs(whole: CoverageCellsT): Map<string, CoverageCellsT> {
  const pieces = new Map<string, CoverageCellsT>();
  for (const [cell, metros] of Object.entries(whole.cells)) {
    const rel = coveragePieceOfCell(cell);
    let piece = pieces.get(rel);
    if (piece === undefined)
      pieces.set(rel, (piece = { schema_version: whole.schema_version, res: whole.res, cells: {} }));
    piece.cells[cell] = metros;
  }
  return new Map([...pieces].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

/** meta.json `metros`: every metro's sampling by slug, slugs sorted. */
export function metroSampling(vis: Pick<Visibility, 'metros'>): Record<string, MetroSamplingT> {
  const out: Record<string, MetroSamplingT> = {};
  const bySlug = [...vis.metros.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  for (const st of bySlug) out[st.slug] = { grid_points: st.gridPoints, queries: st.queries, grid_samples: st.samples };
  return out;
}

/** meta.json. */
export function metaDoc(
  version: string,
  week: string,
  weekOf: string,
  dataset: DatasetFileT,
  totals: Totals,
  vis: Pick<Visibility, 'metros'>,
  contents: {
    zip3: readonly string[];
    cityBuckets: ReadonlyMap<string, readonly string[]>;
    names?: readonly string[];
    points?: readonly string[];
    boundary?: readonly string[];
    boundaryTiles?: BoundaryTilesT;
    listingPrefixLength: number;
    sha256: Record<string, string>;
    /** The cell index as written to cells/index.json, carried in meta.json too. */
    cellIndex?: CellIndexT;
    /** The root of the gazetteer documents' proofs (shim/format/proofs.ts). */
    gazetteerRoot?: string;
  },
): MetaT {
  return {
    schema_version: SCHEMA_VERSIONS.meta,
    generated: 'by generator/; do not edit',
    version,
    week,
    week_of: weekOf,
    generated_at: dataset.collected_at,
    dataset: { name: dataset.name, synthetic: dataset.synthetic },
    coverage_resolution: COVERAGE_RESOLUTION,
    totals,
    metros: metroSampling(vis),
    gazetteer: {
      zip3: [...contents.zip3].sort(),
      cities: Object.fromEntries(
        [...contents.cityBuckets]
          .sort((a, b) => (a[0] < b[0] ? -1 : 1))
          .map(([st, bs]) => [st, [...bs].sort().join('')]),
      ),
      ...(contents.names === undefined ? {} : { names: [...contents.names].sort() }),
      ...(contents.points === undefined ? {} : { points: [...contents.points].sort() }),
      ...(contents.boundary === undefined ? {} : { boundary: [...contents.boundary].sort() }),
      ...(contents.boundaryTiles === undefined ? {} : { boundary_tiles: contents.boundaryTiles }),
    },
    listing_prefix_length: contents.listingPrefixLength,
    sha256: contents.sha256,
    ...(contents.gazetteerRoot === undefined ? {} : { gazetteer_root: contents.gazetteerRoot }),
    ...(contents.cellIndex === undefined ? {} : { cell_index: contents.cellIndex }),
  };
}

/**
 * True for the objects the shim reads by a name meta.json gives it: the cell index, coverage, coverage cells, openapi,
 * changes, listing buckets, gazetteer documents, pages, the measurement documents (answered for the served version) and
 * the hashes/ documents that record most of their sha256 (hashDocs). The cell tree below the index and the firm packs are
 * checked against their parents instead (docs/SITE-FORMAT.md).
 */
export function namedByMeta(rel: string): boolean {
  return (
    rel === 'cells/index.json' ||
    rel === 'coverage.json' ||
    rel === 'coverage-cells.json' ||
    rel.startsWith('coverage-cells/') ||
    rel === 'openapi.json' ||
    rel === 'changes.json' ||
    rel === 'removals.json' ||
    rel.startsWith('listings/') ||
    rel.startsWith('gazetteer/') ||
    rel.startsWith('pages/') ||
    rel.startsWith('measurement/') ||
    rel.startsWith('hashes/')
  );
}

/** meta.json's `sha256`: relative key -> sha256 of each object namedByMeta that meta.json records itself (hashInMeta), in key order. */
export function namedByMetaHashes(entries: ReadonlyMap<string, { sha256: string }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of [...entries.keys()].filter((r) => namedByMeta(r) && hashInMeta(r)).sort())
    out[rel] = (entries.get(rel) as { sha256: string }).sha256;
  return out;
}

/**
 * The hashes/ documents (path -> document) recording the sha256 of every other object namedByMeta (hashDocPath), each
 * in key order. A state's city document is recorded too in the names-<c> document of every first character c it
 * covers (cityDocument), so "City, ST" finds both its names and its city document's hash in the one the name's first
 * character gives (cityHashDoc).
 */
export function hashDocs(entries: ReadonlyMap<string, { sha256: string }>): Map<string, HashDocT> {
  const out = new Map<string, HashDocT>();
  const add = (doc: string, rel: string): void => {
    let d = out.get(doc);
    if (d === undefined) out.set(doc, (d = { schema_version: SCHEMA_VERSIONS.hashes, sha256: {} }));
    d.sha256[rel] = (entries.get(rel) as { sha256: string }).sha256;
  };
  const named = [...entries.keys()].filter(namedByMeta);
  const starts = new Map<string, string>();
  for (const rel of named) {
    const m = CITY_RE.exec(rel);
    if (m !== null) starts.set(m[1] as string, (starts.get(m[1] as string) ?? '') + (m[2] as string));
  }
  for (const rel of named) {
    const doc = hashDocPath(rel);
    if (doc !== null) add(doc, rel);
    const m = CITY_RE.exec(rel);
    if (m === null) continue;
    const [, state = '', bucket = ''] = m;
    const own = [...(starts.get(state) ?? '')].sort().join('');
    for (const c of NAME_FIRST)
      if (c !== bucket && cityDocument(c, own) === bucket) add(paths.hashes(`names-${c}`), rel);
  }
  for (const d of out.values())
    d.sha256 = Object.fromEntries(Object.entries(d.sha256).sort(([a], [b]) => (a < b ? -1 : 1)));
  return new Map([...out].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

/** A state's city document: `gazetteer/city/<ST>/<bucket>.json`. */
const CITY_RE = /^gazetteer\/city\/([A-Z]{2})\/([0-9_a-z])\.json$/;
/** Every first character of a name's bucket (cityBucket), in code unit order. */
const NAME_FIRST = [...'0123456789_abcdefghijklmnopqrstuvwxyz'];

/** Most listing ids a listings bucket should hold; the prefix grows a character when buckets would exceed it. */
const LISTINGS_PER_BUCKET = 2048;

/** The bucket prefix length for `count` listings: one character (32 buckets) up to 64k listings, two up to 2M. */
export function listingPrefixLength(count: number): number {
  let length = 1;
  while (length < 4 && count / LISTING_ALPHABET.length ** length > LISTINGS_PER_BUCKET) length++;
  return length;
}

/**
 * Every listings bucket of `length`, in prefix order, each with its listing ids sorted (empty buckets included) and the
 * sha256 of each firm pack below it (`packHash` of its prefix, for each character of LISTING_ALPHABET in its order).
 */
export function listingBuckets(
  listingIds: readonly string[],
  length: number,
  packHash: (prefix: string) => string,
): ListingBucketT[] {
  const byPrefix = new Map<string, string[]>();
  for (const prefix of alphabetPrefixes(length)) byPrefix.set(prefix, []);
  for (const id of listingIds) byPrefix.get(listingPrefix(id, length))?.push(id);
  return [...byPrefix].map(([prefix, ids]) => ({
    schema_version: SCHEMA_VERSIONS.listings,
    prefix,
    listing_ids: ids.sort(),
    firms_sha256: [...LISTING_ALPHABET].map((c) => packHash(prefix + c)),
  }));
}

/** The relative keys of `entries` in manifest order (sorted; the version prefix does not change the order). */
export function sortedKeys(entries: ReadonlyMap<string, Entry>): string[] {
  // The default sort compares strings by UTF-16 code units, as `<` does, without calling back into JavaScript for each
  // of the ~20 million comparisons a national version's keys take.
  return [...entries.keys()].sort();
}

/**
 * manifest.json's bytes (JSON and its trailing newline): every object of the version but itself, by full store key
 * (`prefix` + relative key), keys sorted; exactly JSON.stringify of the ManifestT object. Written straight into one
 * buffer of the right size (its own memory, see StagingWriter.putOwned), without that object of a million properties,
 * a string per entry or the joined text.
 */
export function manifestBytes(
  version: string,
  entries: ReadonlyMap<string, Entry>,
  sorted: readonly string[],
  prefix: string,
): Buffer {
  const head = `{"schema_version":${SCHEMA_VERSIONS.manifest},"version":${JSON.stringify(version)},"objects":{`;
  const tail = '}}\n';
  // Each entry: KEY:{"sha256":"<64 hex>","bytes":N} plus a comma between entries.
  const fixed = '{"sha256":"","bytes":}'.length + 1 + 64;
  let len = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, sorted.length - 1);
  for (const rel of sorted)
    len += Buffer.byteLength(JSON.stringify(prefix + rel)) + fixed + String((entries.get(rel) as Entry).bytes).length;
  const out = Buffer.allocUnsafeSlow(len);
  let at = out.write(head, 0);
  sorted.forEach((rel, i) => {
    const e = entries.get(rel) as Entry;
    at += out.write(
      `${i === 0 ? '' : ','}${JSON.stringify(prefix + rel)}:{"sha256":"${e.sha256}","bytes":${e.bytes}}`,
      at,
    );
  });
  at += out.write(tail, at);
  if (at !== len) throw new Error(`manifest: wrote ${at} bytes, expected ${len}`);
  return out;
}

/** manifest.json as an object (what manifestBytes serialises). */
export function manifestDoc(
  version: string,
  entries: ReadonlyMap<string, Entry>,
  keyOf: (rel: string) => string,
): ManifestT {
  const objects: ManifestT['objects'] = {};
  for (const rel of sortedKeys(entries)) {
    const e = entries.get(rel) as Entry;
    objects[keyOf(rel)] = { sha256: e.sha256, bytes: e.bytes };
  }
  return { schema_version: SCHEMA_VERSIONS.manifest, version, objects };
}

/** current.json; `metaSha256` is the sha256 of the version's meta.json as stored beside this pointer. */
export function pointerDoc(version: string, week: string, metaSha256?: string): PointerT {
  return metaSha256 === undefined
    ? { schema_version: SCHEMA_VERSIONS.pointer, version, week }
    : { schema_version: SCHEMA_VERSIONS.pointer, version, week, meta_sha256: metaSha256 };
}
