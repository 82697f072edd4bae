/** The pages for people of a site version: /, /docs, /corrections, /metros/{slug} and their assets. */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_CORRECTIONS_EMAIL } from '../../shim/answer/openapi-info.ts';
import type { PageDocT } from '../../shim/format/page-format.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import type { Firm } from '../model/firms.ts';
import { readJsonl } from '../inputs/jsonl.ts';
import { SampleRecord, WEEK_FILES } from '../inputs/schema.ts';
import type { MetroT, SampleRecordT } from '../inputs/schema.ts';
import type { PageContext } from './context.ts';
import { correctionsPage } from './corrections-page.ts';
import { docsPage } from './docs-page.ts';
import { indexPage } from './index-page.ts';
import { firmLookup, metroPageData, metroWeeks } from './metro-data.ts';
import type { FirmLookup, MetroWeek } from './metro-data.ts';
import { metroFiles } from './metro-page.ts';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');
const HTML = 'text/html; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const SVG = 'image/svg+xml; charset=utf-8';

/** `data/site.json`: settings of the pages (optional). */
export const SiteSettings = z.object({
  schema_version: z.literal(1),
  corrections_address: z.string().email().describe('Where firms write to correct or remove their record'),
});

/** Used when data/site.json is absent: the shim's default CORRECTIONS_EMAIL, so the page and the OpenAPI contact agree. */
export const DEFAULT_CORRECTIONS_ADDRESS = DEFAULT_CORRECTIONS_EMAIL;

/** Reads data/site.json; absent means the defaults. */
export async function readSiteSettings(dataDir: string): Promise<z.infer<typeof SiteSettings>> {
  let text: string;
  try {
    text = await readFile(join(dataDir, 'site.json'), 'utf8');
  } catch {
    return { schema_version: 1, corrections_address: DEFAULT_CORRECTIONS_ADDRESS };
  }
  return SiteSettings.parse(JSON.parse(text));
}

/** This week's per-metro measurement, computed while the week's samples and firms are still in memory. */
export function pageMeasurement(
  metros: readonly MetroT[],
  samples: Iterable<SampleRecordT>,
  firms: readonly Firm[],
): { lookup: FirmLookup; weeks: Map<string, MetroWeek> } {
  const lookup = firmLookup(firms);
  return { lookup, weeks: metroWeeks(metros, samples, lookup) };
}

/** The week before `week` among the folders of <dataDir>/weeks, read for week-over-week figures; null when there is none. */
async function previousWeek(
  dataDir: string,
  week: string,
  metros: readonly MetroT[],
  lookup: FirmLookup,
): Promise<{ name: string; weeks: Map<string, MetroWeek> } | null> {
  const names = (await readdir(join(dataDir, 'weeks')).catch(() => [] as string[]))
    .filter((n) => /^\d{4}-W\d{2}$/.test(n) && n < week)
    .sort();
  const name = names[names.length - 1];
  if (name === undefined) return null;
  const read = await readJsonl(join(dataDir, 'weeks', name, WEEK_FILES.samples), SampleRecord);
  if (read === null || read.rows.length === 0) return null;
  return {
    name,
    weeks: metroWeeks(
      metros,
      read.rows.map((r) => r.value),
      lookup,
    ),
  };
}

/** Everything the pages need besides what the generator already built. */
export interface PagesInput {
  dataDir: string;
  week: string;
  weekOf: string;
  synthetic: boolean;
  metros: readonly MetroT[];
  offices: readonly StoredOfficeT[];
  measurement: { lookup: FirmLookup; weeks: Map<string, MetroWeek> };
}

function doc(path: string, contentType: string, body: string): PageDocT {
  return { schema_version: 1, generated: 'by generator/; do not edit', path, content_type: contentType, body };
}

/** Every page and asset by page name, in a fixed order. */
export async function buildPages(input: PagesInput): Promise<Map<string, PageDocT>> {
  const settings = await readSiteSettings(input.dataDir);
  const prev = await previousWeek(input.dataDir, input.week, input.metros, input.measurement.lookup);
  const ctx: PageContext = {
    week: input.week,
    weekOf: input.weekOf,
    previousWeek: prev?.name ?? null,
    synthetic: input.synthetic,
    metros: metroPageData(input.metros, input.measurement.weeks, prev?.weeks ?? null, input.offices),
    correctionsAddress: settings.corrections_address,
    footnote: `Data of week ${input.week} (from ${input.weekOf})${input.synthetic ? ', a synthetic sample: not real firms' : ''}.`,
  };
  const pages = new Map<string, PageDocT>();
  pages.set('index', doc('/', HTML, indexPage(ctx)));
  pages.set('docs', doc('/docs', HTML, docsPage(ctx)));
  pages.set('corrections', doc('/corrections', HTML, correctionsPage(ctx)));
  for (const m of ctx.metros) {
    const files = metroFiles(ctx, m);
    const slug = m.metro.slug;
    pages.set(`metros/${slug}`, doc(`/metros/${slug}`, HTML, files.html));
    pages.set(`assets/metro-${slug}-lorenz.svg`, doc(`/assets/metro-${slug}-lorenz.svg`, SVG, files.lorenzSvg));
    pages.set(`assets/metro-${slug}-map.svg`, doc(`/assets/metro-${slug}-map.svg`, SVG, files.mapSvg));
  }
  const own = async (file: string): Promise<string> => readFile(join(ASSETS, file), 'utf8');
  pages.set('assets/site.css', doc('/assets/site.css', CSS, await own('site.css')));
  pages.set('assets/search.js', doc('/assets/search.js', JS, await own('search.js')));
  pages.set('assets/docs.js', doc('/assets/docs.js', JS, await own('docs.js')));
  pages.set('assets/docs.css', doc('/assets/docs.css', CSS, await own('docs.css')));
  const swagger = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // The source map is not published, so its comment would only cause a 404 in developer tools.
  const bundle = (await readFile(join(swagger, 'swagger-ui-bundle.js'), 'utf8')).replace(
    /\n\/\/# sourceMappingURL=\S+\s*$/,
    '\n',
  );
  pages.set('assets/swagger-ui-bundle.js', doc('/assets/swagger-ui-bundle.js', JS, bundle));
  const css = (await readFile(join(swagger, 'swagger-ui.css'), 'utf8')).replace(
    /\n?\/\*# sourceMappingURL=\S+ \*\/\s*$/,
    '\n',
  );
  pages.set('assets/swagger-ui.css', doc('/assets/swagger-ui.css', CSS, css));
  return pages;
}
