/** What the fuzz needs from a generated site, read straight from its files: every office, the coverage cells, and pools of real inputs. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One stored office, as much of it as a brute-force search needs. */
export interface IndexedOffice {
  listingId: string;
  firmId: string;
  lat: number;
  lng: number;
}

/** The served version of a site, indexed for brute force and for drawing realistic inputs. */
export interface SiteIndex {
  version: string;
  offices: IndexedOffice[];
  /** Listing id -> office (a Map: ids come back from the server and are compared as caller-shaped input). */
  byListing: Map<string, IndexedOffice>;
  /** Listing id -> the firm's own site (website_url), null when it has none. */
  websites: Map<string, string | null>;
  coverageRes: number;
  coveredCells: Set<string>;
  /** Five-digit ZIPs of the gazetteer, and "City, ST" names, and metro centres. */
  zips: string[];
  cities: string[];
  centres: { lat: number; lng: number }[];
}

function json(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** Read `siteDir` (a folder with current.json and v/<version>/). */
export function indexSite(siteDir: string): SiteIndex {
  const { version } = json(join(siteDir, 'current.json')) as { version: string };
  const root = join(siteDir, 'v', version);
  // Every office lies in exactly one record chunk, so the chunks list them all.
  const offices: IndexedOffice[] = [];
  const websites = new Map<string, string | null>();
  const chunks = readdirSync(join(root, 'cells', 'records'), { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.json'))
    .sort();
  for (const name of chunks) {
    const chunk = json(join(root, 'cells', 'records', name)) as {
      offices: { listing_id: string; firm_id: string; lat: number; lng: number; website_url: string | null }[];
    };
    for (const o of chunk.offices) {
      offices.push({ listingId: o.listing_id, firmId: o.firm_id, lat: o.lat, lng: o.lng });
      websites.set(o.listing_id, o.website_url);
    }
  }
  const cells = json(join(root, 'coverage-cells.json')) as { res: number; cells: Record<string, string[]> };
  const zips: string[] = [];
  for (const name of readdirSync(join(root, 'gazetteer', 'zip')).sort()) {
    const doc = json(join(root, 'gazetteer', 'zip', name)) as { zips: Record<string, unknown> };
    zips.push(...Object.keys(doc.zips));
  }
  const cities: string[] = [];
  for (const state of readdirSync(join(root, 'gazetteer', 'city')).sort()) {
    for (const name of readdirSync(join(root, 'gazetteer', 'city', state)).sort()) {
      const doc = json(join(root, 'gazetteer', 'city', state, name)) as {
        state: string;
        cities: Record<string, { name: string; population: number | null }>;
      };
      // The larger places: the whole list is ~40k names, and the fuzz wants covered ones often.
      for (const entry of Object.values(doc.cities))
        if ((entry.population ?? 0) > 20_000) cities.push(`${entry.name}, ${doc.state}`);
    }
  }
  const metros = json(join(root, 'meta.json')) as { metros: Record<string, unknown> };
  const centres = (
    json(fileURLToPath(new URL('../../data/metros.json', import.meta.url))) as {
      metros: { slug: string; center: { lat: number; lng: number } }[];
    }
  ).metros
    .filter((m) => Object.hasOwn(metros.metros, m.slug))
    .map((m) => m.center);
  return {
    version,
    offices,
    byListing: new Map(offices.map((o) => [o.listingId, o])),
    websites,
    coverageRes: cells.res,
    coveredCells: new Set(Object.keys(cells.cells)),
    zips,
    cities,
    centres,
  };
}
