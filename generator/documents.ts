/** The documents of a version besides shards: firm documents, coverage, coverage cells, meta, manifest, pointer. */
import { COVERAGE_RESOLUTION, DISCLOSURE, SCHEMA_VERSION } from '../shim/core/constants.ts';
import { LISTING_ALPHABET, listingPrefix } from '../shim/core/site-format.ts';
import type { CoverageCellsT, CoverageDocT, FirmDocT, ListingBucketT, ManifestT, MetaT, MetroSamplingT, PointerT } from '../shim/core/site-format.ts';
import type { CoverageMap } from './coverage.ts';
import type { DatasetFileT, MetroT } from './inputs/schema.ts';
import { firmBrandFor, type BuiltFirm } from './offices.ts';
import type { Visibility } from './visibility.ts';
import type { Entry } from './write.ts';

/** The part of an office's firm document before `office`: schema version, listing id and the firm. */
function firmDocHead(built: BuiltFirm, office: BuiltFirm['offices'][number]): Pick<FirmDocT, 'schema_version' | 'listing_id' | 'firm'> {
  const { firm } = built;
  return {
    schema_version: SCHEMA_VERSION,
    listing_id: office.listing_id,
    firm: {
      firm_id: firm.firmId,
      name: firm.name,
      website_url: firm.websiteUrl,
      website_domain: firm.domain,
      profile_type: firm.profileType,
      sponsored: firm.sponsored,
      brand: firmBrandFor(office, built),
    },
  };
}

/** One firm document per office of the firm: the office, the firm, and the firm's other offices by listing_id. */
export function firmDocs(built: BuiltFirm): FirmDocT[] {
  return built.offices.map((office) => ({ ...firmDocHead(built, office), office, other_offices: built.offices.filter((o) => o !== office) }));
}

/**
 * firmDocs(built) as JSON texts, each exactly `JSON.stringify(doc)`, with every office serialised once per firm: a firm
 * of n offices has n documents listing n - 1 others, and serialising those objects again for each document was most of
 * the generator's time at a million offices.
 */
export function firmDocTexts(built: BuiltFirm): { listingId: string; json: string }[] {
  const texts = built.offices.map((o) => JSON.stringify(o));
  return built.offices.map((office, i) => {
    const head = JSON.stringify(firmDocHead(built, office));
    const others = texts.filter((_, j) => j !== i).join(',');
    return { listingId: office.listing_id, json: `${head.slice(0, -1)},"office":${texts[i] ?? ''},"other_offices":[${others}]}` };
  });
}

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
    schema_version: SCHEMA_VERSION,
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
    disclosure: DISCLOSURE,
  };
}

/** coverage-cells.json. */
export function coverageCellsDoc(coverage: CoverageMap): CoverageCellsT {
  const cells: Record<string, string[]> = {};
  for (const cell of [...coverage.keys()].sort()) cells[cell] = coverage.get(cell) ?? [];
  return { schema_version: SCHEMA_VERSION, res: COVERAGE_RESOLUTION, cells };
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
  contents: { zip3: readonly string[]; cityBuckets: ReadonlyMap<string, readonly string[]>; listingPrefixLength: number },
): MetaT {
  return {
    schema_version: 2,
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
      cities: Object.fromEntries([...contents.cityBuckets].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([st, bs]) => [st, [...bs].sort().join('')])),
    },
    listing_prefix_length: contents.listingPrefixLength,
  };
}

/** Most listing ids a listings bucket should hold; the prefix grows a character when buckets would exceed it. */
const LISTINGS_PER_BUCKET = 2048;

/** The bucket prefix length for `count` listings: one character (32 buckets) up to 64k listings, two up to 2M. */
export function listingPrefixLength(count: number): number {
  let length = 1;
  while (length < 4 && count / LISTING_ALPHABET.length ** length > LISTINGS_PER_BUCKET) length++;
  return length;
}

/** Every listings bucket of `length`, in prefix order, each with its listing ids sorted (empty buckets included). */
export function listingBuckets(listingIds: readonly string[], length: number): ListingBucketT[] {
  const byPrefix = new Map<string, string[]>();
  const prefixes = (n: number): string[] => (n === 0 ? [''] : prefixes(n - 1).flatMap((p) => [...LISTING_ALPHABET].map((c) => p + c)));
  for (const prefix of prefixes(length)) byPrefix.set(prefix, []);
  for (const id of listingIds) byPrefix.get(listingPrefix(id, length))?.push(id);
  return [...byPrefix].map(([prefix, ids]) => ({ schema_version: SCHEMA_VERSION, prefix, listing_ids: ids.sort() }));
}

/** The relative keys of `entries` in manifest order (sorted; the version prefix does not change the order). */
export function sortedKeys(entries: ReadonlyMap<string, Entry>): string[] {
  return [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * manifest.json as JSON text: every object of the version but itself, by full store key (`prefix` + relative key),
 * keys sorted; exactly JSON.stringify of the ManifestT object, built without that object of a million properties.
 */
export function manifestJson(version: string, entries: ReadonlyMap<string, Entry>, sorted: readonly string[], prefix: string): string {
  const parts = sorted.map((rel) => {
    const e = entries.get(rel) as Entry;
    return `${JSON.stringify(prefix + rel)}:{"sha256":${JSON.stringify(e.sha256)},"bytes":${e.bytes}}`;
  });
  return `{"schema_version":${SCHEMA_VERSION},"version":${JSON.stringify(version)},"objects":{${parts.join(',')}}}`;
}

/** manifest.json as an object (what manifestJson serialises). */
export function manifestDoc(version: string, entries: ReadonlyMap<string, Entry>, keyOf: (rel: string) => string): ManifestT {
  const objects: ManifestT['objects'] = {};
  for (const rel of sortedKeys(entries)) {
    const e = entries.get(rel) as Entry;
    objects[keyOf(rel)] = { sha256: e.sha256, bytes: e.bytes };
  }
  return { schema_version: SCHEMA_VERSION, version, objects };
}

/** current.json. */
export function pointerDoc(version: string, week: string): PointerT {
  return { schema_version: SCHEMA_VERSION, version, week };
}
