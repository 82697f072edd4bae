/**
 * The generator on hand-made inputs: firms, ids, visibility arithmetic (stored compact, shown in full through the shim),
 * hours, determinism, manifest, bad input, atomicity, corrections.
 */
import { serialiseAt } from '../generator/write/json.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { binaryCellKind } from '../shim/format/paths.ts';
import { decodeCoords, type Coords } from '../shim/format/block-coords.ts';
import { PageDoc } from '../shim/format/page-format.ts';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { BadInputError, generate } from '../generator/generate.ts';
import { generateLive } from './helpers/generate-live.ts';
import { convertHours } from '../generator/model/hours.ts';
import { firmIdOf, listingIdOf, websiteDomainOf } from '../generator/inputs/ids.ts';
import { pct1 } from '../generator/model/visibility.ts';
import { mondayOfIsoWeek } from '../generator/inputs/week.ts';
import { API_VERSION, BRAND_INDEX_WHAT, MAP_VISIBILITY_WHAT } from '../shim/contract/constants.ts';
import { hoursText } from '../shim/answer/hours.ts';
import { DEFAULT_PUBLIC_BASE_URL } from '../shim/answer/openapi-info.ts';
import { problemPageHtml } from '../shim/pages/problem-pages.ts';
import type { ProblemCodeT } from '../shim/contract/schemas.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { shapeResult } from '../shim/answer/shape.ts';
import {
  RemovalsDoc,
  ChangesDoc,
  HashDoc,
  CityGazetteer,
  CoverageCells,
  CoverageDoc,
  FirmPack,
  keys,
  LISTING_ID_RE,
  ListingBucket,
  Manifest,
  MeasurementDoc,
  Meta,
  NameGazetteer,
  Pointer,
  PointGazetteer,
  ZipGazetteer,
  BoundaryIndex,
  BoundaryRegion,
  BoundaryTile,
} from '../shim/format/site-format.ts';
import type { CoverageDocT, FirmDocT, ManifestT, MetaT, PointerT } from '../shim/format/site-format.ts';
import {
  CellBlock,
  CellGroup,
  CellIndex,
  CellRecords,
  CellShared,
  type CellBlockT,
  type CellIndexT,
  type CellRecordsT,
} from '../shim/format/cell-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import {
  BASIC_FIXTURE,
  copyFixture,
  readJson,
  readTree,
  removeTempDirs,
  tempDir,
} from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { readFirmDoc } from './helpers/firm-pack.ts';

const quiet = { quiet: true, log: () => {} };

/** Independent base32 (RFC 4648, lowercase) via a bit string, to check the generator's ids. */
function base32Reference(bytes: Buffer): string {
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += 'abcdefghijklmnopqrstuvwxyz234567'[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}
const refId = (prefix: string, input: string): string =>
  prefix + base32Reference(createHash('sha256').update(input).digest()).slice(0, 16);

interface Site {
  dir: string;
  pointer: PointerT;
  files: Map<string, Buffer>;
  json<T>(key: string): T;
}

async function loadSite(dir: string): Promise<Site> {
  const files = await readTree(dir);
  const pointer = Pointer.parse(await readJson(dir, keys.pointer));
  return {
    dir,
    pointer,
    files,
    json<T>(key: string): T {
      const b = files.get(key);
      if (b === undefined) throw new Error(`missing ${key}`);
      return decodeStored(b, key) as T;
    },
  };
}

const firmDocOf = (site: Site, placeId: string): FirmDocT =>
  readFirmDoc(site.dir, site.pointer.version, listingIdOf(placeId)) as FirmDocT;
const recordsOf = (site: Site): CellRecordsT[] =>
  [...site.files.keys()].filter((k) => k.includes('/cells/records/')).map((k) => site.json<CellRecordsT>(k));

let base: Site;
afterAll(removeTempDirs);
beforeAll(async () => {
  const out = join(await tempDir('base'), 'site');
  // The fixture's site, generated once per run by the global setup ('is deterministic' generates it again here).
  await copyFixtureSite(out);
  base = await loadSite(out);
});

describe('ids', () => {
  it('listing and firm ids are l_/f_ + 16 base32 characters of sha256, stable', () => {
    for (const id of ['p1', 'ChIJ_ogN1F29w5EuICLmt0ZFWSH', 'ünïcode place', 'x'.repeat(256)]) {
      expect(listingIdOf(id)).toMatch(LISTING_ID_RE);
      expect(listingIdOf(id)).toBe(refId('l_', `listing:${id}`));
      expect(firmIdOf(id)).toBe(refId('f_', `firm:${id}`));
    }
    expect(listingIdOf('p1')).toBe(listingIdOf('p1'));
    expect(listingIdOf('p1')).not.toBe(listingIdOf('P1'));
  });

  it('website domain: lowercase host without leading www.', () => {
    expect(websiteDomainOf('https://WWW.Example-Law.example/path?q=1')).toBe('example-law.example');
    expect(websiteDomainOf('http://law.example:8080/')).toBe('law.example');
    expect(websiteDomainOf('https://www2.law.example/')).toBe('www2.law.example');
    expect(websiteDomainOf(null)).toBeNull();
  });
});

describe('firms', () => {
  it('groups offices by website domain regardless of www. and case', () => {
    const d1 = firmDocOf(base, 'p1');
    expect(d1.firm.website_domain).toBe('alphalaw.example');
    expect(d1.firm.firm_id).toBe(refId('f_', 'firm:alphalaw.example'));
    expect(d1.other_offices.map((o) => o.listing_id)).toEqual([listingIdOf('p2'), listingIdOf('p3')].sort());
    for (const p of ['p2', 'p3']) expect(firmDocOf(base, p).firm.firm_id).toBe(d1.firm.firm_id);
  });

  it('an office without a website is a firm of its own, even with the same name', () => {
    const d4 = firmDocOf(base, 'p4');
    const d5 = firmDocOf(base, 'p5');
    expect(d4.firm.firm_id).toBe(refId('f_', 'firm:place:p4'));
    expect(d5.firm.firm_id).toBe(refId('f_', 'firm:place:p5'));
    expect(d4.other_offices).toEqual([]);
    expect(d4.firm.website_url).toBeNull();
  });

  it('firm name is the most frequent office name, ties lexically; flags apply by normalised firm key', () => {
    expect(firmDocOf(base, 'p3').firm.name).toBe('Alpha Injury Law');
    expect(firmDocOf(base, 'p3').office.name).toBe('Alpha Law Group');
    expect(firmDocOf(base, 'p9').firm.name).toBe('Zeta A');
    expect(firmDocOf(base, 'p1').firm).toMatchObject({ profile_type: 'enhanced', sponsored: true });
    expect(firmDocOf(base, 'p1').office).toMatchObject({ profile_type: 'enhanced', sponsored: true });
    expect(firmDocOf(base, 'p5').firm).toMatchObject({ profile_type: 'enhanced', sponsored: false });
    expect(firmDocOf(base, 'p4').firm).toMatchObject({ profile_type: 'standard', sponsored: false });
  });
});

describe('map visibility and brand index', () => {
  // Worked by hand from test/fixtures/generator/basic/weeks/2026-W47/samples.jsonl:
  // alpha has 2 grid points x 5 queries = 10 samples, beta 1 x 5 = 5.
  const office: Record<string, [string, number, number] | null> = {
    p1: ['alpha', 50, 60], // top 3 in a1 q1,q2,q3, a2 q2,q5; also a1 q5 at rank 4
    p2: ['alpha', 40, 40],
    p3: ['alpha', 10, 20],
    p4: ['alpha', 40, 50],
    p5: ['alpha', 20, 20],
    p6: ['beta', 40, 60], // 2 alpha samples, 3 beta samples: measured in beta
    p7: ['alpha', 0, 0], // never sampled, inside alpha's coverage cells
    p8: null, // Denver: no metro
    p9: ['beta', 20, 20], // 1 sample in each metro: nearest centre (Milwaukee) wins
    p10: ['alpha', 10, 20],
  };
  const brand: Record<string, [string, number, number, number] | null> = {
    p1: ['alpha', 60, 70, 3], // any of p1-p3 top 3 in 6 samples, appears in 7
    p6: ['beta', 40, 60, 1],
    p7: ['alpha', 0, 0, 1],
    p8: null,
    p9: ['beta', 20, 20, 1], // zeta in beta: b1 q4
    p10: ['alpha', 20, 20, 1], // zeta in alpha: a2 q3 (p9 at 3), a2 q4 (p10 at 3)
  };

  const CTX = { publicBaseUrl: 'https://directory.example' };
  const WEEK_OF = '2026-11-16';
  const sampling: Record<string, { grid_points: number; queries: number; grid_samples: number }> = {
    alpha: { grid_points: 2, queries: 5, grid_samples: 10 },
    beta: { grid_points: 1, queries: 5, grid_samples: 5 },
  };
  const metaOf = (site: Site): MetaT => Meta.parse(site.json(keys.meta(site.pointer.version)));
  const serviceOf = (site: Site) => createService(createSiteSource(new FolderStore(site.dir)));

  it("meta.json carries every metro's sampling: the denominators of the shares", () => {
    const meta = metaOf(base);
    expect(meta.metros).toEqual(sampling);
    expect(Object.keys(meta.metros)).toEqual(['alpha', 'beta']);
    expect(meta.week_of).toBe(WEEK_OF);
  });

  it('office shares match the hand computation: stored compact, shown in full', async () => {
    const service = serviceOf(base);
    for (const [place, want] of Object.entries(office)) {
      const stored = firmDocOf(base, place).office;
      const shown = (await service.getFirm(listingIdOf(place), CTX)).office.map_visibility;
      if (want === null) {
        expect([stored.metro, stored.visibility, stored.brand, shown], place).toEqual([null, null, null, null]);
        continue;
      }
      const [metro, top3, appears] = want;
      expect(stored.metro, place).toBe(metro);
      expect(stored.visibility, place).toEqual({ top3_share_pct: top3, appears_share_pct: appears });
      // The public object, byte for byte: schema order, week and denominators from meta, the fixed text.
      const { grid_points, queries, grid_samples } = sampling[metro]!;
      // The seed's fields in the seed's order (grid_samples before what_this_is), then the extras.
      expect(JSON.stringify(shown), place).toBe(
        JSON.stringify({
          metro,
          week_of: WEEK_OF,
          top3_share_pct: top3,
          appears_share_pct: appears,
          grid_samples,
          what_this_is: MAP_VISIBILITY_WHAT,
          grid_points,
          queries,
        }),
      );
    }
  });

  it("brand index is per firm in the office's own measured metro: stored compact, shown in full", () => {
    const meta = metaOf(base);
    for (const [place, want] of Object.entries(brand)) {
      const stored = firmDocOf(base, place).office;
      const shown = shapeResult(stored, meta, 0, 1, CTX.publicBaseUrl).brand_index;
      if (want === null) {
        expect([stored.brand, shown], place).toEqual([null, null]);
        continue;
      }
      const [metro, top3, appears, measured] = want;
      expect(stored.metro, place).toBe(metro);
      expect(stored.brand, place).toEqual({
        top3_share_pct: top3,
        appears_share_pct: appears,
        offices_measured: measured,
      });
      expect(JSON.stringify(shown), place).toBe(
        JSON.stringify({
          metro,
          week_of: WEEK_OF,
          top3_share_pct: top3,
          appears_share_pct: appears,
          offices_measured: measured,
          what_this_is: BRAND_INDEX_WHAT,
        }),
      );
    }
    // Every office of a firm carries the same brand index within one metro.
    for (const p of ['p2', 'p3']) expect(firmDocOf(base, p).office.brand).toEqual(firmDocOf(base, 'p1').office.brand);
  });

  it("the firm's brand index is the office's own, else the firm's in the metro measuring most of its offices", async () => {
    expect(firmDocOf(base, 'p1').firm.brand).toEqual({
      metro: 'alpha',
      top3_share_pct: 60,
      appears_share_pct: 70,
      offices_measured: 3,
    });
    expect(firmDocOf(base, 'p9').firm.brand).toEqual({
      metro: 'beta',
      top3_share_pct: 20,
      appears_share_pct: 20,
      offices_measured: 1,
    });
    expect(firmDocOf(base, 'p8').firm.brand).toBeNull();
    // Move the unmeasured Denver office p8 into Zeta (one office measured in alpha, one in beta: the tie goes to alpha).
    const data = await copyFixture();
    const move = {
      action: 'update',
      place_id: 'p8',
      reason: 'same firm',
      date: '2026-11-19',
      set: { website: 'https://zeta.example/den' },
    };
    await writeFile(join(data, 'corrections.jsonl'), `${JSON.stringify(move)}\n`);
    const out = join(await tempDir('brand'), 'site');
    await generateLive({ dataDir: data, outDir: out, ...quiet });
    const site = await loadSite(out);
    const d8 = firmDocOf(site, 'p8');
    expect([d8.office.metro, d8.office.visibility, d8.office.brand]).toEqual([null, null, null]);
    expect(d8.firm.brand).toEqual({ metro: 'alpha', top3_share_pct: 20, appears_share_pct: 20, offices_measured: 1 });
    const body = await serviceOf(site).getFirm(listingIdOf('p8'), CTX);
    expect(body.office.map_visibility).toBeNull();
    expect(JSON.stringify(body.firm.brand_index)).toBe(
      JSON.stringify({
        metro: 'alpha',
        week_of: WEEK_OF,
        top3_share_pct: 20,
        appears_share_pct: 20,
        offices_measured: 1,
        what_this_is: BRAND_INDEX_WHAT,
      }),
    );
    expect(body.other_offices.map((o) => [o.listing_id, o.map_visibility?.metro])).toEqual(
      [
        [listingIdOf('p10'), 'alpha'],
        [listingIdOf('p9'), 'beta'],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
  });

  it('percentages round half up to one decimal', () => {
    expect(pct1(1, 3)).toBe(33.3);
    expect(pct1(2, 3)).toBe(66.7);
    expect(pct1(1, 16)).toBe(6.3);
    expect(pct1(0, 0)).toBe(0);
    expect(pct1(7, 7)).toBe(100);
  });

  it('coverage counts offices and firms by measured metro, and sampling per metro', () => {
    const cov = base.json<CoverageDocT>(keys.coverage(base.pointer.version));
    expect(cov.totals).toEqual({ firms: 7, offices: 10, metros: 2 });
    expect(cov.metros.map((m) => [m.slug, m.firms, m.offices, m.grid_points, m.grid_samples, m.queries])).toEqual([
      ['alpha', 5, 7, 2, 10, 5],
      ['beta', 2, 2, 1, 5, 5],
    ]);
    expect(cov.week_of).toBe('2026-11-16');
    expect(cov.generated_at).toBe('2026-11-18T14:00:00Z');
    expect(cov.dataset).toEqual({ name: 'Hand-made generator fixture', synthetic: true });
  });

  it('ISO week Monday', () => {
    expect(mondayOfIsoWeek('2026-W47')).toBe('2026-11-16');
    expect(mondayOfIsoWeek('2026-W01')).toBe('2025-12-29');
    expect(mondayOfIsoWeek('2020-W53')).toBe('2020-12-28');
  });
});

describe('hours', () => {
  const p = (d: number, o: string, cd?: number, c?: string) => ({
    open: { day: d, time: o },
    ...(cd !== undefined && c !== undefined ? { close: { day: cd, time: c } } : {}),
  });

  it('weekdays 9-5, day names Monday first, closed days empty', () => {
    const h = convertHours(
      [1, 2, 3, 4, 5].map((d) => p(d, '0900', d, '1700')),
      'America/Chicago',
    );
    expect(h?.timezone).toBe('America/Chicago');
    expect(h?.weekly).toEqual({
      mon: [{ opens: '09:00', closes: '17:00' }],
      tue: [{ opens: '09:00', closes: '17:00' }],
      wed: [{ opens: '09:00', closes: '17:00' }],
      thu: [{ opens: '09:00', closes: '17:00' }],
      fri: [{ opens: '09:00', closes: '17:00' }],
      sat: [],
      sun: [],
    });
    expect(h).not.toHaveProperty('text'); // rendered by the shim
    expect(hoursText(h!.weekly)[0]).toBe('Monday: 9:00 AM – 5:00 PM');
    expect(hoursText(h!.weekly)[5]).toBe('Saturday: Closed');
  });

  it('past midnight splits at 24:00, including Saturday into Sunday', () => {
    const h = convertHours(
      [p(5, '2000', 6, '0200'), p(6, '2200', 0, '0100'), p(3, '1200', 4, '0000')],
      'America/New_York',
    );
    expect(h?.weekly.wed).toEqual([{ opens: '12:00', closes: '24:00' }]);
    expect(h?.weekly.thu).toEqual([]);
    expect(h?.weekly.fri).toEqual([{ opens: '20:00', closes: '24:00' }]);
    expect(h?.weekly.sat).toEqual([
      { opens: '00:00', closes: '02:00' },
      { opens: '22:00', closes: '24:00' },
    ]);
    expect(h?.weekly.sun).toEqual([{ opens: '00:00', closes: '01:00' }]);
    expect(hoursText(h!.weekly)[4]).toBe('Friday: 8:00 PM – 12:00 AM');
  });

  it('always open, split lunch, open without close, and no periods', () => {
    const always = convertHours([p(0, '0000')], 'America/Denver');
    expect(
      Object.values(always?.weekly ?? {}).every((d) => JSON.stringify(d) === '[{"opens":"00:00","closes":"24:00"}]'),
    ).toBe(true);
    expect(hoursText(always!.weekly)[6]).toBe('Sunday: Open 24 hours');
    const lunch = convertHours([p(1, '1300', 1, '1700'), p(1, '0800', 1, '1200')], 'UTC');
    expect(lunch?.weekly.mon).toEqual([
      { opens: '08:00', closes: '12:00' },
      { opens: '13:00', closes: '17:00' },
    ]);
    expect(hoursText(lunch!.weekly)[0]).toBe('Monday: 8:00 AM – 12:00 PM, 1:00 PM – 5:00 PM');
    expect(convertHours([p(2, '0930')], 'UTC')?.weekly.tue).toEqual([{ opens: '09:30', closes: '24:00' }]);
    expect(convertHours([], 'UTC')).toBeNull();
    expect(convertHours(null, 'UTC')).toBeNull();
  });

  it('timezone comes from the record, else the state', () => {
    expect(firmDocOf(base, 'p8').office.hours).toBeNull();
    expect(firmDocOf(base, 'p1').office.hours?.timezone).toBe('America/Chicago');
  });

  it('the shim shows the stored weekly hours with their text lines, Monday first', async () => {
    const stored = firmDocOf(base, 'p1').office.hours!;
    const shown = (
      await createService(createSiteSource(new FolderStore(base.dir))).getFirm(listingIdOf('p1'), {
        publicBaseUrl: 'https://d.example',
      })
    ).office.hours;
    expect(shown).toEqual({ timezone: stored.timezone, weekly: stored.weekly, text: hoursText(stored.weekly) });
    expect(Object.keys(shown!)).toEqual(['timezone', 'weekly', 'text']);
    expect(shown!.text.map((l) => l.split(':')[0])).toEqual([
      'Monday',
      'Tuesday',
      'Wednesday',
      'Thursday',
      'Friday',
      'Saturday',
      'Sunday',
    ]);
  });
});

describe('published site', () => {
  it('every object matches its schema, openapi.json is valid OpenAPI 3.1, record chunks hold every office once', async () => {
    const v = base.pointer.version;
    expect(v).toMatch(/^2026-W47-[0-9a-f]{10}$/);
    const schemaOf = (key: string): ZodType | null => {
      const r = key.slice(keys.root(v).length);
      if (r === 'meta.json') return Meta;
      if (r === 'manifest.json') return Manifest;
      if (r === 'coverage.json') return CoverageDoc;
      if (r === 'coverage-cells.json' || r.startsWith('coverage-cells/')) return CoverageCells;
      if (r.startsWith('gazetteer/tiles/')) return BoundaryTile;
      if (r === 'cells/index.json') return CellIndex;
      if (r.startsWith('cells/groups/')) return CellGroup;
      if (r.startsWith('cells/shared/')) return CellShared;
      if (r.startsWith('cells/blocks/')) return CellBlock;
      if (r.startsWith('cells/records/')) return CellRecords;
      if (r.startsWith('firms/')) return FirmPack;
      if (r.startsWith('gazetteer/zip/')) return ZipGazetteer;
      if (r.startsWith('gazetteer/city/')) return CityGazetteer;
      if (r.startsWith('gazetteer/names/')) return NameGazetteer;
      if (r.startsWith('gazetteer/points/')) return PointGazetteer;
      if (r === 'gazetteer/boundary/index.json') return BoundaryIndex;
      if (r.startsWith('gazetteer/boundary/')) return BoundaryRegion;
      if (r.startsWith('pages/')) return PageDoc;
      if (r.startsWith('listings/')) return ListingBucket;
      if (r.startsWith('measurement/')) return MeasurementDoc;
      if (r === 'changes.json') return ChangesDoc;
      if (r === 'removals.json') return RemovalsDoc;
      if (r.startsWith('hashes/')) return HashDoc;
      return null;
    };
    for (const [key, bytes] of base.files) {
      if (key.endsWith('.bin')) {
        // A group's pack: its block objects, one after another (catalogue.test.ts checks the order and lengths).
        expect(key, key).toMatch(/\/cells\/packs\/[0-9a-f]{15}\.bin$/);
        expect(bytes.length, key).toBeGreaterThan(0);
        continue;
      }
      if (key.endsWith('.pb')) {
        // A binary cell object (block-, group-, shared-binary.ts): checked through its decoding, and coded as its
        // values give.
        const kind = binaryCellKind(key);
        const schema = kind === 'block' ? CellBlock : kind === 'group' ? CellGroup : CellShared;
        const value = schema.parse(decodeStored(bytes, key));
        expect(kind, key).not.toBeNull();
        expect(value.schema_version, key).toBe(9);
        expect(serialiseAt(key, value).equals(bytes), key).toBe(true);
        continue;
      }
      const text = bytes.toString('utf8');
      if (key.endsWith('.html')) {
        // The pages behind problem type URIs, the same the shim serves at /problems/{code}.
        const code = key.slice(`${keys.root(v)}problems/`.length, -'.html'.length);
        expect(key).toBe(keys.problem(v, code));
        expect(text, key).toBe(problemPageHtml(code as ProblemCodeT));
        continue;
      }
      expect(text.endsWith('\n'), key).toBe(true);
      expect(text.split('\n').length, `${key} is compact`).toBe(2);
      const json = JSON.parse(text) as { schema_version?: number };
      if (key === keys.openapi(v)) continue;
      const twice = /\/(firms|listings)\//.test(key);
      expect(json.schema_version, key).toBe(key.includes('/cells/') ? 9 : key === keys.meta(v) ? 3 : twice ? 2 : 1);
      if (key === keys.pointer) continue;
      const schema = schemaOf(key);
      expect(schema, key).not.toBeNull();
      schema?.parse(json);
      // Stored records are compact: no constant texts, no hours text, no per-metro facts (the shim adds them).
      if (schema === CellRecords || schema === FirmPack)
        expect(text, key).not.toMatch(/what_this_is|week_of|grid_points|"text"|map_visibility|brand_index/);
    }
    const openapi = base.json<{ info: { version: string }; servers: unknown }>(keys.openapi(v));
    expect(openapi.info.version).toBe(API_VERSION);
    // The stored document names the default base; the shim serves it re-based onto its own public base URL.
    expect(openapi.servers).toEqual([{ url: DEFAULT_PUBLIC_BASE_URL, description: 'This service' }]);
    expect(await new Validator().validate(openapi as unknown as Record<string, unknown>)).toEqual({ valid: true });

    const meta = base.json<{ generated_at: string; totals: unknown }>(keys.meta(v));
    expect(meta.generated_at).toBe('2026-11-18T14:00:00Z');
    // Every listing has its document in the firm pack its prefix names, and no pack holds another.
    const firmIds = [...base.files.keys()]
      .filter((k) => k.startsWith(`${keys.root(v)}firms/`))
      .flatMap((k) => {
        const pack = FirmPack.parse(base.json(k));
        for (const d of pack.documents) expect(d.listing_id.slice(2, 2 + pack.prefix.length), k).toBe(pack.prefix);
        return pack.documents.map((d) => d.listing_id);
      })
      .sort();
    expect(firmIds).toEqual(Array.from({ length: 10 }, (_, i) => listingIdOf(`p${i + 1}`)).sort());
    // The record chunks hold every office once, and each agrees with its block's columns at its position.
    const records = recordsOf(base);
    expect(records.flatMap((r) => r.offices.map((o) => o.listing_id)).sort()).toEqual(firmIds);
    const index = base.json<CellIndexT>(keys.cellIndex(v));
    expect(index.offices).toBe(10);
    for (const r of records) {
      const block = base.json<CellBlockT>(keys.cellBlock(v, r.block));
      const { lat, lng } = decodeCoords(block, block.listing.length) as Coords;
      r.offices.forEach((o, i) => {
        const p = r.chunk * index.record_chunk + i;
        expect([lat[p], lng[p], block.listing[p]]).toEqual([o.lat, o.lng, firmIds.indexOf(o.listing_id)]);
      });
    }
  });

  it('the manifest lists exactly the files of the version with their sha256 and size', () => {
    const v = base.pointer.version;
    const manifest = base.json<ManifestT>(keys.manifest(v));
    expect(manifest.version).toBe(v);
    const files = [...base.files.keys()].filter((k) => k.startsWith(keys.root(v)) && k !== keys.manifest(v)).sort();
    expect(Object.keys(manifest.objects)).toEqual(files);
    for (const f of files) {
      const bytes = base.files.get(f) as Buffer;
      expect(manifest.objects[f]).toEqual({
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
      });
    }
    expect([...base.files.keys()].filter((k) => !k.startsWith(keys.root(v)))).toEqual([keys.pointer]);
  });

  it('is deterministic: a second run gives a byte-identical version, and no pointer (only release writes one)', async () => {
    const out = join(await tempDir('again'), 'site');
    const r = await generate({ dataDir: BASIC_FIXTURE, outDir: out, ...quiet });
    expect(r.version).toBe(base.pointer.version);
    const again = await readTree(out);
    expect([...again.keys()].sort()).toEqual([...base.files.keys()].filter((k) => k !== keys.pointer).sort());
    for (const [k, b] of again) expect(b.equals(base.files.get(k) as Buffer), k).toBe(true);
    expect(r.objects).toBe(again.size);
    expect(r.bytes).toBe([...again.values()].reduce((n, b) => n + b.length, 0));
  });
});

describe('bad input', () => {
  it('reports file:line:reason and writes nothing', async () => {
    const data = await copyFixture();
    const week = join(data, 'weeks', '2026-W47');
    const places = join(week, 'places.jsonl');
    const firstLine = (await readTree(week)).get('places.jsonl')?.toString('utf8').split('\n')[0] ?? '';
    await appendFile(places, '{"place_id": "p11", "name": "Broken\n'); // line 11
    await appendFile(places, `${firstLine}\n`); // line 12: duplicate place id p1
    await appendFile(
      join(week, 'samples.jsonl'),
      `${JSON.stringify({ metro: 'gamma', point_id: 'g1', lat: 1, lng: 1, query: 'car accident lawyer', ranked: [] })}\n`,
    ); // line 16
    const outParent = await tempDir('bad');
    const out = join(outParent, 'site');
    const err = await generateLive({ dataDir: data, outDir: out, ...quiet }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadInputError);
    const rows = (err as BadInputError).rows.map((r) => `${basename(r.file)}:${r.line}: ${r.reason}`);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^places\.jsonl:11: not valid JSON/);
    expect(rows[1]).toMatch(/^places\.jsonl:12: duplicate place_id "p1" \(first at line 1\)/);
    expect(rows[2]).toMatch(/^samples\.jsonl:16: metro: unknown metro "gamma"/);
    expect(await readdir(outParent)).toEqual([]);

    // The CLI prints the same rows and exits non-zero.
    const cli = spawnSync(process.execPath, ['generator/cli.ts', '--data', data, '--out', out, '--quiet'], {
      encoding: 'utf8',
    });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(`${join(week, 'places.jsonl')}:11: not valid JSON`);
    expect(cli.stderr).toContain(`${join(week, 'samples.jsonl')}:16: metro: unknown metro "gamma"`);
    expect(await readdir(outParent)).toEqual([]);
  });

  it('more bad rows: schema errors, unknown query, duplicate sample, duplicate flags, bad correction', async () => {
    const data = await copyFixture();
    const week = join(data, 'weeks', '2026-W47');
    await appendFile(join(week, 'places.jsonl'), `${JSON.stringify({ place_id: 'p12', name: 'No coords' })}\n`);
    await appendFile(
      join(week, 'samples.jsonl'),
      `${JSON.stringify({ metro: 'alpha', point_id: 'a1', lat: 41.88, lng: -87.63, query: 'best lawyer', ranked: [] })}\n`,
    );
    await appendFile(
      join(week, 'samples.jsonl'),
      `${JSON.stringify({ metro: 'alpha', point_id: 'a1', lat: 41.88, lng: -87.63, query: 'car accident lawyer', ranked: [] })}\n`,
    );
    await appendFile(
      join(week, 'flags.jsonl'),
      `${JSON.stringify({ firm: 'alphalaw.example', profile_type: 'standard', sponsored: false })}\n`,
    );
    await writeFile(join(data, 'corrections.jsonl'), `${JSON.stringify({ action: 'delete', place_id: 'p1' })}\n`);
    const err = (await generateLive({ dataDir: data, outDir: join(await tempDir('bad2'), 'site'), ...quiet }).catch(
      (e: unknown) => e,
    )) as BadInputError;
    const rows = err.rows.map((r) => `${basename(r.file)}:${r.line}: ${r.reason}`);
    expect(rows).toHaveLength(5);
    expect(rows.some((r) => /^places\.jsonl:11: .*street_address/.test(r))).toBe(true);
    expect(rows.some((r) => /^samples\.jsonl:16: query: "best lawyer"/.test(r))).toBe(true);
    expect(rows.some((r) => /^samples\.jsonl:17: duplicate sample .* \(first at line 2\)/.test(r))).toBe(true);
    expect(
      rows.some((r) => /^flags\.jsonl:3: duplicate flags for firm "alphalaw\.example" \(first at line 1\)/.test(r)),
    ).toBe(true);
    expect(rows.some((r) => /^corrections\.jsonl:1: /.test(r))).toBe(true);
  });

  it('--skip-bad lists every skipped row and publishes the rest', async () => {
    const data = await copyFixture();
    const week = join(data, 'weeks', '2026-W47');
    await appendFile(join(week, 'places.jsonl'), 'not json\n');
    await appendFile(
      join(week, 'samples.jsonl'),
      `${JSON.stringify({ metro: 'nowhere', point_id: 'n1', lat: 1, lng: 1, query: 'car accident lawyer', ranked: ['p1'] })}\n`,
    );
    const lines: string[] = [];
    const out = join(await tempDir('skip'), 'site');
    const r = await generateLive({ dataDir: data, outDir: out, skipBad: true, quiet: true, log: (l) => lines.push(l) });
    expect(lines).toHaveLength(2);
    expect(lines[0]?.startsWith(`skipped ${join(week, 'places.jsonl')}:11: not valid JSON`)).toBe(true);
    expect(lines[1]).toBe(
      `skipped ${join(week, 'samples.jsonl')}:16: metro: unknown metro "nowhere" (not in metros.json)`,
    );
    expect(r.skipped).toHaveLength(2);
    expect(r.version).toBe(base.pointer.version); // the good rows are exactly the fixture
  });

  it('a failed run leaves the previous site intact and no temporary folder', async () => {
    const parent = await tempDir('keep');
    const out = join(parent, 'site');
    await copyFixtureSite(out);
    const before = await readTree(out);
    // Fail in the middle of writing: the log callback throws once the cell tree is written.
    const failing = generateLive({
      dataDir: BASIC_FIXTURE,
      outDir: out,
      log: (line) => {
        if (line.includes('cell tree written')) throw new Error('disk on fire');
      },
    });
    await expect(failing).rejects.toThrow('disk on fire');
    const after = await readTree(out);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [k, b] of after) expect(b.equals(before.get(k) as Buffer), k).toBe(true);
    expect(await readdir(parent)).toEqual(['site']);
    // Bad input fails before anything is touched too.
    const data = await copyFixture();
    await appendFile(join(data, 'weeks', '2026-W47', 'places.jsonl'), '{\n');
    await expect(generateLive({ dataDir: data, outDir: out, ...quiet })).rejects.toBeInstanceOf(BadInputError);
    expect((await readTree(out)).size).toBe(before.size);
    expect(await readdir(dirname(out))).toEqual(['site']);
  });

  it('two concurrent runs into one folder end with one complete site and no leftovers', async () => {
    const parent = await tempDir('race');
    const out = join(parent, 'site');
    await Promise.all([1, 2, 3].map(() => generateLive({ dataDir: BASIC_FIXTURE, outDir: out, ...quiet })));
    expect(await readdir(parent)).toEqual(['site']);
    const tree = await readTree(out);
    expect([...tree.keys()].sort()).toEqual([...base.files.keys()].sort());
  });

  it('the CLI has --help', () => {
    const cli = spawnSync(process.execPath, ['generator/cli.ts', '--help'], { encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/--skip-bad/);
    expect(cli.stdout).toMatch(/--week/);
  });
});

describe('corrections', () => {
  it('remove drops a place from every cell, firm document and count; update overrides fields', async () => {
    const data = await copyFixture();
    await writeFile(
      join(data, 'corrections.jsonl'),
      [
        { action: 'remove', place_id: 'p2', reason: 'firm asked', date: '2026-11-19' },
        {
          action: 'update',
          place_id: 'p6',
          reason: 'renamed',
          date: '2026-11-19',
          set: { name: 'Beta Legal LLP', phone: null },
        },
        { action: 'remove', place_id: 'p404', reason: 'not in this week', date: '2026-11-19' },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n') + '\n',
    );
    const out = join(await tempDir('corr'), 'site');
    await generateLive({ dataDir: data, outDir: out, ...quiet });
    const site = await loadSite(out);
    const v = site.pointer.version;
    const gone = listingIdOf('p2');
    expect(readFirmDoc(site.dir, v, gone)).toBeUndefined();
    for (const r of recordsOf(site)) expect(r.offices.some((o) => o.listing_id === gone)).toBe(false);
    for (const [k, b] of site.files)
      if (k.includes('/firms/')) expect(b.toString('utf8').includes(gone), k).toBe(false);
    expect(JSON.stringify(site.json(keys.manifest(v)))).not.toContain(gone);
    const cov = site.json<CoverageDocT>(keys.coverage(v));
    expect(cov.totals).toEqual({ firms: 7, offices: 9, metros: 2 });
    expect(cov.metros[0]).toMatchObject({ slug: 'alpha', offices: 6, firms: 5 });
    const d1 = firmDocOf(site, 'p1');
    expect(d1.other_offices.map((o) => o.listing_id)).toEqual([listingIdOf('p3')]);
    // Without p2 the firm is top 3 in 5 alpha samples (a2 q1 had only p2) and appears in 6; ranks of others are kept.
    expect(d1.office.brand).toEqual({ top3_share_pct: 50, appears_share_pct: 60, offices_measured: 2 });
    expect(d1.office.visibility).toEqual({ top3_share_pct: 50, appears_share_pct: 60 });
    const d6 = firmDocOf(site, 'p6');
    expect(d6.office).toMatchObject({ name: 'Beta Legal LLP', phone: null });
    expect(d6.firm.name).toBe('Beta Legal LLP');
  });
});
