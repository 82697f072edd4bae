/** planShards + reading the planned shards + exact distance filter == brute-force scan of every office; never more than the shard bound. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.ts';
import { MetrosFile } from '../generator/inputs/schema.ts';
import { serialise } from '../generator/json.ts';
import { buildShardIndex, buildShards } from '../generator/shards.ts';
import { MAX_SHARDS_PER_QUERY, RADIUS_MILES } from '../shim/core/constants.ts';
import { cellsCoveringCircle, destination, haversineMiles } from '../shim/core/geo.ts';
import { planShards } from '../shim/core/shards.ts';
import { CoverageDoc, keys, Pointer, ShardIndex } from '../shim/core/site-format.ts';
import type { CoverageDocT, FirmDocT, ShardIndexT, ShardT, StoredOfficeT } from '../shim/core/site-format.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { rng } from './helpers/rng.ts';


type Office = Pick<StoredOfficeT, 'listing_id' | 'lat' | 'lng'>;

function bruteForce(offices: readonly Office[], lat: number, lng: number, radius: number): string[] {
  return offices.filter((o) => haversineMiles(lat, lng, o.lat, o.lng) <= radius).map((o) => o.listing_id).sort();
}

// Average H3 hexagon areas in square miles (H3's published table), for the planner's "too fine to fit" rule.
const AREA_SQ_MI: Record<number, number> = { 3: 4_842, 4: 691.7, 5: 98.8 };

/**
 * The rule planShards must follow, computed independently: fewest bytes among resolutions within the bound, else
 * coarsest; a resolution finer than the coarsest is not considered when the circle's area is over 4x the bound in its
 * cells (it could fit only where offices are sparse, and its cover is the costliest to compute).
 */
function expectedRes(index: ShardIndexT, lat: number, lng: number, radius: number): Set<number> {
  const coarsest = Math.min(...index.resolutions);
  const considered = index.resolutions.filter((res) => res === coarsest || (Math.PI * radius * radius) / (AREA_SQ_MI[res] ?? 1) <= 4 * index.max_shards_per_query);
  const options = considered.map((res) => {
    const present = index.cells[String(res)] ?? {};
    const cells = cellsCoveringCircle(lat, lng, radius, res).filter((c) => present[c] !== undefined);
    return { res, n: cells.length, bytes: cells.reduce((s, c) => s + (present[c]?.[1] ?? 0), 0) };
  });
  const ok = options.filter((o) => o.n <= index.max_shards_per_query);
  if (ok.length === 0) return new Set([Math.min(...index.resolutions)]);
  const min = Math.min(...ok.map((o) => o.bytes));
  return new Set(ok.filter((o) => o.bytes === min).map((o) => o.res));
}

describe('shard search on the generated sample site', () => {
  let site: string;
  let version: string;
  let index: ShardIndexT;
  let coverage: CoverageDocT;
  let offices: Office[];
  const shardCache = new Map<string, ShardT>();
  afterAll(removeTempDirs);

  beforeAll(async () => {
    site = process.env.TEST_SITE_DIR ?? join(await tempDir('shard-site'), 'site');
    if (process.env.TEST_SITE_DIR === undefined) await generate({ dataDir: 'data', outDir: site, quiet: true });
    version = Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).version;
    index = ShardIndex.parse(JSON.parse(await readFile(join(site, keys.shardIndex(version)), 'utf8')));
    coverage = CoverageDoc.parse(JSON.parse(await readFile(join(site, keys.coverage(version)), 'utf8')));
    // The brute-force side reads the firm documents, not the shards.
    const dir = join(site, keys.firm(version, 'x')).replace(/x\.json$/, '');
    offices = [];
    for (const f of (await readdir(dir)).sort()) {
      const doc = JSON.parse(await readFile(join(dir, f), 'utf8')) as FirmDocT;
      offices.push({ listing_id: doc.office.listing_id, lat: doc.office.lat, lng: doc.office.lng });
    }
  });

  async function search(lat: number, lng: number, radius: number): Promise<{ ids: string[]; shards: number }> {
    const plan = planShards(index, lat, lng, radius);
    const ids: string[] = [];
    for (const cell of plan.cells) {
      const key = keys.shard(version, plan.res, cell);
      let shard = shardCache.get(key);
      if (shard === undefined) {
        shard = JSON.parse(await readFile(join(site, key), 'utf8')) as ShardT;
        expect(shard.cell).toBe(cell);
        shardCache.set(key, shard);
      }
      for (const o of shard.offices) if (haversineMiles(lat, lng, o.lat, o.lng) <= radius) ids.push(o.listing_id);
    }
    return { ids: ids.sort(), shards: plan.cells.length };
  }

  it('matches a brute-force scan for seeded points in, at the edge of, and between metros, radii 1..50', async () => {
    expect(offices.length).toBeGreaterThan(1000);
    const rand = rng(20261116);
    const points: [number, number][] = [];
    const metros = coverage.metros;
    // The coverage document has no radius; the sample site is generated from data/metros.json.
    const metrosFile = MetrosFile.parse(JSON.parse(await readFile('data/metros.json', 'utf8')));
    const radiusOf = new Map(metrosFile.metros.map((m) => [m.slug, m.radius_miles]));
    for (const m of metros) {
      const r = radiusOf.get(m.slug) ?? 40;
      points.push([m.center.lat, m.center.lng]);
      for (let i = 0; i < 3; i++) points.push(destination(m.center.lat, m.center.lng, rand() * r, rand() * 2 * Math.PI));
      for (let i = 0; i < 2; i++) points.push(destination(m.center.lat, m.center.lng, r, rand() * 2 * Math.PI));
      points.push(destination(m.center.lat, m.center.lng, r * 1.3, rand() * 2 * Math.PI));
      const nearest = metros
        .filter((o) => o.slug !== m.slug)
        .sort((a, b) => haversineMiles(m.center.lat, m.center.lng, a.center.lat, a.center.lng) - haversineMiles(m.center.lat, m.center.lng, b.center.lat, b.center.lng))[0];
      if (nearest) points.push([(m.center.lat + nearest.center.lat) / 2, (m.center.lng + nearest.center.lng) / 2]);
    }
    for (let i = 0; i < 15; i++) points.push([25 + rand() * 23, -124 + rand() * 57]);

    let queries = 0;
    let fifty = 0;
    let found = 0;
    for (const [lat, lng] of points) {
      const radii = [1, 15, 50, RADIUS_MILES.min + rand() * (RADIUS_MILES.max - RADIUS_MILES.min)];
      for (const radius of radii.filter((_, i) => i === 3 || rand() < 0.5)) {
        const got = await search(lat, lng, radius);
        const want = bruteForce(offices, lat, lng, radius);
        expect(got.ids, `${lat},${lng} r=${radius}`).toEqual(want);
        expect(got.shards).toBeLessThanOrEqual(MAX_SHARDS_PER_QUERY);
        if (queries % 4 === 0) {
          const plan = planShards(index, lat, lng, radius);
          expect(expectedRes(index, lat, lng, radius).has(plan.res)).toBe(true);
          // The planner's band search over non-empty cells picks exactly the cells of the H3 grid-disk cover.
          const present = index.cells[String(plan.res)] ?? {};
          expect(plan.cells, `${lat},${lng} r=${radius}`).toEqual(cellsCoveringCircle(lat, lng, radius, plan.res).filter((c) => present[c] !== undefined));
        }
        queries++;
        found += want.length;
        if (radius === 50) fifty++;
      }
    }
    expect(queries).toBeGreaterThan(200);
    expect(fifty).toBeGreaterThan(50);
    expect(found).toBeGreaterThan(10_000);
  });

  it('every office is in exactly one shard per resolution', async () => {
    for (const res of index.resolutions) {
      const cells = Object.entries(index.cells[String(res)] ?? {});
      expect(cells.reduce((n, [, [count]]) => n + count, 0)).toBe(offices.length);
    }
  });
});

describe('shard bound with offices everywhere', () => {
  it('falls back to a coarser resolution and stays exact when fine cells are all non-empty', () => {
    const rand = rng(7);
    // 20,000 offices spread over the eastern US: a 50-mile circle at res 4 overlaps up to ~29 non-empty cells.
    const offices = Array.from({ length: 20_000 }, (_, i) => ({
      listing_id: `l_${String(i).padStart(16, '0')}`,
      lat: 30 + rand() * 12,
      lng: -90 + rand() * 15,
    }));
    const shards = buildShards(offices as unknown as StoredOfficeT[]);
    const index = buildShardIndex(shards, shards.map((s) => serialise(s).length));
    const byKey = new Map(shards.map((s) => [`${s.res}/${s.cell}`, s]));
    let coarse = 0;
    for (let i = 0; i < 90; i++) {
      const lat = 31 + rand() * 10;
      const lng = -89 + rand() * 13;
      const radius = i % 3 === 0 ? 50 : 1 + rand() * 49;
      const plan = planShards(index, lat, lng, radius);
      expect(plan.cells.length).toBeLessThanOrEqual(MAX_SHARDS_PER_QUERY);
      expect(expectedRes(index, lat, lng, radius).has(plan.res)).toBe(true);
      if (plan.res === Math.min(...index.resolutions)) coarse++;
      const ids = plan.cells
        .flatMap((c) => byKey.get(`${plan.res}/${c}`)?.offices ?? [])
        .filter((o) => haversineMiles(lat, lng, o.lat, o.lng) <= radius)
        .map((o) => o.listing_id)
        .sort();
      expect(ids).toEqual(bruteForce(offices, lat, lng, radius));
    }
    expect(coarse).toBeGreaterThan(0);
  });
});
