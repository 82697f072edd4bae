/**
 * Radius search over the generated sample site, checked against a brute-force scan of every office (read from the
 * firm documents, not the cell tree), plus the covered rule, tie order, and failures of the store.
 */
import { decodeCoords, type Coords } from '../shim/format/block-coords.ts';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { latLngToCell } from 'h3-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { BRAND_INDEX_WHAT, MAP_VISIBILITY_WHAT } from '../shim/contract/constants.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { AttorneysResponse, FirmResponse, type AttorneysResponseT } from '../shim/contract/schemas.ts';
import { metroAt } from '../shim/places/resolve.ts';
import { search } from '../shim/search/search.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { readFirmDoc } from './helpers/firm-pack.ts';
import { CellBlock } from '../shim/format/cell-format.ts';
import { buildCells } from '../generator/write/cells.ts';
import { hashSerialised, sealCellTree } from '../generator/write/cell-hashes.ts';
import { serialiseAt } from '../generator/write/json.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import {
  CoverageCells,
  FirmPack,
  keys,
  Meta,
  Pointer,
  type CoverageCellsT,
  type StoredOfficeT,
} from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { StoreError, type Store } from '../shim/store/types.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { rng } from './helpers/rng.ts';

const SITE = process.env.TEST_SITE_DIR;
if (SITE === undefined) throw new Error('TEST_SITE_DIR is not set (test/global-setup.ts sets it)');
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };
const version = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
const vdir = join(SITE, keys.root(version));

let offices: StoredOfficeT[] = [];
let coverage: CoverageCellsT;
const metros = (
  JSON.parse(readFileSync('data/metros.json', 'utf8')) as {
    metros: { slug: string; center: { lat: number; lng: number }; radius_miles: number }[];
  }
).metros;

beforeAll(() => {
  // Every listing has a firm document whose `office` is that listing: together they are every office of the site.
  offices = readdirSync(join(vdir, 'firms')).flatMap((f) =>
    FirmPack.parse(JSON.parse(readFileSync(join(vdir, 'firms', f), 'utf8'))).documents.map((d) => d.office),
  );
  coverage = CoverageCells.parse(JSON.parse(readFileSync(join(vdir, 'coverage-cells.json'), 'utf8')));
});

interface Brute {
  covered: boolean;
  metro: string | null;
  firms: { listing_id: string; distance: number; count: number }[];
}

/** The answer by scanning every office: nearest office per firm, ordered by distance then listing_id. */
function brute(lat: number, lng: number, radius: number): Brute {
  const metro = coverage.cells[latLngToCell(lat, lng, coverage.res)]?.[0] ?? null;
  if (metro === null) return { covered: false, metro, firms: [] };
  const byFirm = new Map<string, { listing_id: string; distance: number; count: number }>();
  for (const o of offices) {
    const d = haversineMiles(lat, lng, o.lat, o.lng);
    if (d > radius) continue;
    const f = byFirm.get(o.firm_id);
    if (f === undefined) byFirm.set(o.firm_id, { listing_id: o.listing_id, distance: d, count: 1 });
    else {
      f.count++;
      if (d < f.distance || (d === f.distance && o.listing_id < f.listing_id))
        Object.assign(f, { listing_id: o.listing_id, distance: d });
    }
  }
  const firms = [...byFirm.values()].sort((a, b) => a.distance - b.distance || (a.listing_id < b.listing_id ? -1 : 1));
  return { covered: true, metro, firms };
}

/** Random points refused as outside the US (at sea, or across a border) / all asked, over the service tests. */
const outside = { refused: 0, asked: 0 };

/** The service's answer, or null for a point it refuses as outside the United States: such a point has no search. */
async function answerOrOutside(
  service: ReturnType<typeof createService>,
  args: Parameters<ReturnType<typeof createService>['findAttorneys']>[0],
): Promise<AttorneysResponseT | null> {
  outside.asked++;
  try {
    return await service.findAttorneys(args, CTX);
  } catch (e) {
    if (!(e instanceof ApiError) || !/is a point (?:in [^,]+, )?outside the United States/.test(e.detail)) throw e;
    outside.refused++;
    return null;
  }
}

function randomQueries(count: number): { lat: number; lng: number; radius: number }[] {
  const rand = rng(47);
  const slugs = [
    'new-york',
    'chicago',
    'houston',
    'miami',
    'washington',
    'baltimore',
    'denver',
    'portland',
    'san-francisco',
    'dallas-fort-worth',
  ];
  const radii = [1, 2.5, 5, 15, 30, 50];
  const out: { lat: number; lng: number; radius: number }[] = [];
  for (let i = 0; i < count; i++) {
    const m = metros.find((x) => x.slug === slugs[i % slugs.length])!;
    const dist = m.radius_miles * 1.2 * Math.sqrt(rand());
    const bearing = 2 * Math.PI * rand();
    const lat = m.center.lat + (dist / 69) * Math.cos(bearing);
    const lng = m.center.lng + (dist / (69 * Math.cos((m.center.lat * Math.PI) / 180))) * Math.sin(bearing);
    const radius = i % 3 === 0 ? 1 + 49 * rand() : radii[i % radii.length]!;
    out.push({ lat: Number(lat.toFixed(5)), lng: Number(lng.toFixed(5)), radius: Number(radius.toFixed(2)) });
  }
  return out;
}

describe('search against a brute-force scan of every office', () => {
  it('finds the same firms, nearest offices, counts and order, at many points and radii', async () => {
    const source = createSiteSource(new FolderStore(SITE));
    const reader = await source.current();
    let covered = 0;
    let nonEmpty = 0;
    for (const q of randomQueries(120)) {
      const want = brute(q.lat, q.lng, q.radius);
      const metro = await metroAt(reader, q.lat, q.lng);
      const got = await search(reader, { lat: q.lat, lng: q.lng, metro }, q.radius, Number.MAX_SAFE_INTEGER);
      expect({ q, covered: got.covered, metro }).toEqual({ q, covered: want.covered, metro: want.metro });
      expect(got.firmsWithinRadius).toBe(want.firms.length);
      expect(got.hits.map((h) => [h.office.listing_id, h.distanceMiles, h.officesWithinRadius])).toEqual(
        want.firms.map((f) => [f.listing_id, f.distance, f.count]),
      );
      if (got.covered) covered++;
      if (got.hits.length > 0) nonEmpty++;
    }
    expect(covered).toBeGreaterThan(90);
    expect(nonEmpty).toBeGreaterThan(80);
  });

  it('answers through the service with the brute-force firms, rounded distances and counts, limited', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    for (const [i, q] of randomQueries(40).entries()) {
      const limit = 1 + (i % 25);
      const body = await answerOrOutside(service, {
        lat: String(q.lat),
        lng: String(q.lng),
        radius_miles: String(q.radius),
        limit: String(limit),
      });
      if (body === null) continue;
      expect(AttorneysResponse.parse(body)).toEqual(body);
      const want = brute(q.lat, q.lng, q.radius);
      expect(body.covered).toBe(want.covered);
      expect(body.location.metro).toBe(want.metro);
      expect(body.radius_miles_used).toBe(q.radius);
      expect(body.firms_within_radius).toBe(want.firms.length);
      expect(body.results.map((r) => [r.listing_id, r.distance_miles, r.offices_within_radius])).toEqual(
        want.firms.slice(0, limit).map((f) => [f.listing_id, Math.round(f.distance * 100) / 100, f.count]),
      );
    }
  });

  it("shows each result's stored record in full: hours text, map_visibility and brand_index with meta's week and denominators", async () => {
    const meta = Meta.parse(JSON.parse(readFileSync(join(vdir, 'meta.json'), 'utf8')));
    const byId = new Map(offices.map((o) => [o.listing_id, o]));
    const service = createService(createSiteSource(new FolderStore(SITE)));
    let measured = 0;
    for (const q of randomQueries(10)) {
      const body = await answerOrOutside(service, { lat: q.lat, lng: q.lng, radius_miles: q.radius, limit: 25 });
      if (body === null) continue;
      for (const r of body.results) {
        const o = byId.get(r.listing_id)!;
        const m = o.metro === null ? undefined : meta.metros[o.metro];
        const mv =
          o.visibility === null || m === undefined
            ? null
            : { metro: o.metro, week_of: meta.week_of, ...o.visibility, ...m, what_this_is: MAP_VISIBILITY_WHAT };
        const bi =
          o.brand === null
            ? null
            : { metro: o.metro, week_of: meta.week_of, ...o.brand, what_this_is: BRAND_INDEX_WHAT };
        expect(r.map_visibility).toEqual(mv);
        expect(r.brand_index).toEqual(bi);
        expect(r.hours?.weekly ?? null).toEqual(o.hours?.weekly ?? null);
        expect(r.hours?.text.length ?? 7).toBe(7);
        if (mv !== null) measured++;
      }
    }
    expect(measured).toBeGreaterThan(50);
  });

  it('agrees with the firm documents: the result is the nearest office of its firm and the count is right', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    for (const q of randomQueries(12)) {
      const body = await answerOrOutside(service, { lat: q.lat, lng: q.lng, radius_miles: q.radius, limit: 25 });
      if (body === null) continue;
      for (const r of body.results) {
        const firm = await service.getFirm(r.listing_id, CTX);
        expect(FirmResponse.parse(firm)).toEqual(firm);
        const all = [firm.office, ...firm.other_offices]
          .map((o) => ({ id: o.listing_id, d: haversineMiles(q.lat, q.lng, o.lat, o.lng) }))
          .filter((o) => o.d <= q.radius)
          .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1));
        expect(all.length).toBe(r.offices_within_radius);
        expect(all[0]?.id).toBe(r.listing_id);
      }
    }
  });

  it('refused few of those random points, each as outside the US (at sea or across a border)', () => {
    expect(outside.asked).toBeGreaterThan(50);
    expect(outside.refused / outside.asked).toBeLessThan(0.15);
  });
});

describe('covered', () => {
  const service = () => createService(createSiteSource(new FolderStore(SITE!)));

  it('is false, with no results, outside every measured metro', async () => {
    for (const args of [
      { zip: '59101' },
      { location: 'Billings, MT' },
      { lat: '44.37', lng: '-100.35' },
      { location: '59101', radius_miles: '50' },
    ]) {
      const body = await service().findAttorneys(args, CTX);
      expect(AttorneysResponse.parse(body)).toEqual(body);
      expect(body.covered).toBe(false);
      expect(body.results).toEqual([]);
      expect(body.firms_within_radius).toBe(0);
      expect(body.location.metro).toBeNull();
    }
  });

  it('gives the same answer for the zip, location and lat/lng forms of one place', async () => {
    const s = service();
    const byZip = await s.findAttorneys({ zip: '60601', radius_miles: '20', limit: '25' }, CTX);
    expect(byZip.covered).toBe(true);
    expect(byZip.results.length).toBe(25);
    const { lat, lng } = byZip.location;
    const others = [
      await s.findAttorneys({ location: '60601', radius_miles: 20, limit: 25 }, CTX),
      await s.findAttorneys({ location: '60601-1234', radius_miles: '20', limit: '25' }, CTX),
      await s.findAttorneys({ lat: String(lat), lng: String(lng), radius_miles: '20', limit: '25' }, CTX),
      await s.findAttorneys({ location: `${lat},${lng}`, radius_miles: '20', limit: '25' }, CTX),
    ];
    const strip = (b: AttorneysResponseT) => ({
      ...b,
      query_id: null,
      location: { lat: b.location.lat, lng: b.location.lng, metro: b.location.metro },
    });
    for (const o of others) expect(strip(o)).toEqual(strip(byZip));
    // query_id names the normalised query: zip=60601 and location=60601 are one query, lat/lng and "lat,lng" another,
    // ZIP+4 a third (its answer echoes a different input).
    const ids = [byZip, ...others].map((b) => b.query_id);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[4]).toBe(ids[3]);
    expect(new Set(ids).size).toBe(3);
    expect((await s.findAttorneys({ limit: '25', radius_miles: '20', zip: '60601' }, CTX)).query_id).toBe(
      byZip.query_id,
    );
    expect((await s.findAttorneys({ zip: '60601', radius_miles: '20', limit: '24' }, CTX)).query_id).not.toBe(
      byZip.query_id,
    );
    expect((await s.findAttorneys({ zip: '60601', radius_miles: '15' }, CTX)).query_id).toBe(
      (await s.findAttorneys({ zip: '60601' }, CTX)).query_id,
    );
    expect(others[2]!.location).toMatchObject({ kind: 'point', source: 'input', approximate: false, zip: null });
    expect(byZip.location).toMatchObject({
      kind: 'zip',
      input: '60601',
      zip: '60601',
      approximate: true,
      metro: 'chicago',
    });
  });
});

/** A store over the sample site that rewrites some objects on the way out. */
class RewritingStore implements Store {
  readonly kind = 'rewriting';
  private readonly inner: Store;
  private readonly rewrite: (key: string, bytes: Uint8Array | null) => Uint8Array | null;
  constructor(inner: Store, rewrite: (key: string, bytes: Uint8Array | null) => Uint8Array | null) {
    this.inner = inner;
    this.rewrite = rewrite;
  }
  async get(key: string): Promise<Uint8Array | null> {
    const bytes = await this.inner.get(key);
    if (key !== keys.pointer || bytes === null) return this.rewrite(key, bytes);
    // The pointer records meta.json's sha256: keep it true to the meta.json this store serves, as a release would.
    const pointer = JSON.parse(new TextDecoder().decode(bytes)) as { version: string; meta_sha256?: string };
    if (pointer.meta_sha256 === undefined) return this.rewrite(key, bytes);
    const meta = this.rewrite(keys.meta(pointer.version), await this.inner.get(keys.meta(pointer.version)));
    if (meta !== null) pointer.meta_sha256 = createHash('sha256').update(meta).digest('hex');
    return this.rewrite(key, new TextEncoder().encode(`${JSON.stringify(pointer)}\n`));
  }
}

describe('ties and failures', () => {
  it('breaks distance ties by listing_id, between firms and within one firm', async () => {
    const base = offices.find((o) => o.state === 'IL' && o.city === 'Chicago')!;
    const clone = (listing_id: string, firm_id: string): StoredOfficeT => ({ ...base, listing_id, firm_id });
    // Digits sort before letters in listing ids ("l_2..." < "l_a..."), as in byte order.
    const earlier = clone('l_2222222222222222', 'f_tie_other_a');
    const later = clone('l_zzzzzzzzzzzzzzzz', 'f_tie_other_z');
    const sameFirm = clone('l_2222222222222223', base.firm_id);
    // The version's cell tree rebuilt with the three clones at the same spot as `base`, served in place of the published one.
    const tree = buildCells([later, ...offices, sameFirm, earlier]);
    sealCellTree(tree);
    const cells = new Map<string, unknown>([[keys.cellIndex(version), tree.index]]);
    for (const g of tree.groups) cells.set(keys.cellGroup(version, g.cell, g.schema_version), g);
    for (const a of tree.shared) cells.set(keys.cellShared(version, a.cell, a.schema_version), a);
    for (const bl of tree.blocks) cells.set(keys.cellBlock(version, bl.cell), bl);
    for (const r of tree.records) cells.set(keys.cellRecords(version, r.block, r.chunk), r);
    // Served as a generator writes them (a newline after each object), and meta.json recording the new index's hash.
    const written = (v: unknown, key = ''): Uint8Array => serialiseAt(key, v);
    const withIndexHash = (bytes: Uint8Array | null): Uint8Array | null => {
      if (bytes === null) return null;
      const meta = JSON.parse(new TextDecoder().decode(bytes)) as {
        sha256?: Record<string, string>;
        cell_index?: unknown;
      };
      if (meta.sha256 !== undefined) meta.sha256['cells/index.json'] = hashSerialised('cells/index.json', tree.index);
      if (meta.cell_index !== undefined) meta.cell_index = tree.index;
      return written(meta);
    };
    const store = new RewritingStore(new FolderStore(SITE), (key, bytes) =>
      key === keys.meta(version)
        ? withIndexHash(bytes)
        : key.includes('/cells/')
          ? cells.has(key)
            ? written(cells.get(key), key)
            : null
          : bytes,
    );
    const service = createService(createSiteSource(store));
    const body = await service.findAttorneys({ lat: base.lat, lng: base.lng, radius_miles: 1, limit: 25 }, CTX);
    const ids = body.results.map((r) => r.listing_id);
    expect(ids.slice(0, 3)).toEqual(['l_2222222222222222', 'l_2222222222222223', 'l_zzzzzzzzzzzzzzzz']);
    expect(ids).not.toContain(base.listing_id);
    expect(body.results[1]!.offices_within_radius).toBeGreaterThanOrEqual(2);
    expect(body.results.slice(0, 3).map((r) => r.distance_miles)).toEqual([0, 0, 0]);
  });

  it('fails with StoreError, never a partial answer, when a block the query needs is missing', async () => {
    const q = { lat: 41.8781, lng: -87.6298, radius: 15 };
    // The block the nearest office's records name: the search must read it (nearest first).
    const near = await createService(createSiteSource(new FolderStore(SITE))).findAttorneys(
      { lat: q.lat, lng: q.lng, radius_miles: q.radius, limit: 1 },
      CTX,
    );
    const nearest = readFirmDoc(SITE, version, near.results[0]!.listing_id)!.office;
    const blocks = readdirSync(join(vdir, 'cells', 'blocks')).map((f) =>
      CellBlock.parse(decodeStored(readFileSync(join(vdir, 'cells', 'blocks', f)), `cells/blocks/${f}`)),
    );
    const holding = blocks.find((b) => {
      const { lat, lng } = decodeCoords(b, b.listing.length) as Coords;
      return lat.some((x, i) => x === nearest.lat && lng[i] === nearest.lng);
    })!;
    const hidden = keys.cellBlock(version, holding.cell);
    const store = new RewritingStore(new FolderStore(SITE), (key, bytes) => (key === hidden ? null : bytes));
    const service = createService(createSiteSource(store));
    await expect(service.findAttorneys({ lat: q.lat, lng: q.lng, radius_miles: q.radius }, CTX)).rejects.toBeInstanceOf(
      StoreError,
    );
    // A point elsewhere, not needing that block, is still answered.
    const body = await service.findAttorneys({ zip: '77002' }, CTX);
    expect(body.results.length).toBeGreaterThan(0);
  });

  it('fails with StoreError when a cell block is corrupt', async () => {
    const store = new RewritingStore(new FolderStore(SITE), (key, bytes) =>
      bytes !== null && key.includes('/cells/blocks/')
        ? new TextEncoder().encode('{"schema_version":2,"listing":[{')
        : bytes,
    );
    await expect(createService(createSiteSource(store)).findAttorneys({ zip: '60601' }, CTX)).rejects.toBeInstanceOf(
      StoreError,
    );
  });

  it('fails with StoreError naming the schema when the version is of an older schema than this release reads', async () => {
    const text = (bytes: Uint8Array): Record<string, unknown> =>
      JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    const encode = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value)}\n`);
    // The cell tree of the previous schema (3: without the hashes), its hash in meta.json kept true.
    const index3 = (bytes: Uint8Array): Uint8Array => {
      const { group_sha256: _h, ...rest } = text(bytes);
      return encode({ ...rest, schema_version: 3 });
    };
    const cells3 = new RewritingStore(new FolderStore(SITE), (key, bytes) => {
      if (bytes === null) return null;
      if (key === keys.cellIndex(version)) return index3(bytes);
      if (key !== keys.meta(version)) return bytes;
      const meta = text(bytes) as { sha256?: Record<string, string>; cell_index?: unknown };
      // Schema 3's meta.json carried no cell index.
      delete meta.cell_index;
      if (meta.sha256 !== undefined)
        meta.sha256['cells/index.json'] = hashSerialised(
          'cells/index.json',
          JSON.parse(new TextDecoder().decode(index3(readFileSync(join(vdir, 'cells', 'index.json'))))),
        );
      return encode(meta);
    });
    const err = await createService(createSiteSource(cells3))
      .findAttorneys({ zip: '60601' }, CTX)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain(
      'cells schema 3, but this release reads cells schema 9 or 8 only: generate the week again with this release and publish it',
    );
    // meta.json of an older schema: nothing of the version is served, the same way.
    const meta1 = new RewritingStore(new FolderStore(SITE), (key, bytes) =>
      bytes !== null && key === keys.meta(version) ? encode({ ...text(bytes), schema_version: 1 }) : bytes,
    );
    const err1 = await createService(createSiteSource(meta1))
      .findAttorneys({ zip: '60601' }, CTX)
      .catch((e: unknown) => e);
    expect(err1).toBeInstanceOf(StoreError);
    expect((err1 as Error).message).toContain('meta schema 1, but this release reads meta schema 3 only');
  });
});
