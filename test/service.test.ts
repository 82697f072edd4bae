/** The Service over the generated sample site: firms, redirects, coverage, OpenAPI, caching, and one version per answer. */
import { binaryCellKind, isCellPack } from '../shim/format/paths.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { serialiseAt } from '../generator/write/json.ts';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRAND_INDEX_WHAT, MAP_VISIBILITY_WHAT, SERVICE_NAME } from '../shim/contract/constants.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { AttorneysResponse, CoverageResponse, FirmResponse } from '../shim/contract/schemas.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { FirmPack, keys, Meta, Pointer, type FirmDocT } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';

const SITE = process.env.TEST_SITE_DIR;
if (SITE === undefined) throw new Error('TEST_SITE_DIR is not set (test/global-setup.ts sets it)');
const CTX = { publicBaseUrl: 'https://directory.example' };
const version = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
const vdir = join(SITE, keys.root(version));
const firmFiles = readdirSync(join(vdir, 'firms')).sort();
let docs: FirmDocT[] | null = null;
/** Every firm document of the site, read once. */
function allDocs(): FirmDocT[] {
  docs ??= firmFiles.flatMap((f) => FirmPack.parse(JSON.parse(readFileSync(join(vdir, 'firms', f), 'utf8'))).documents);
  return docs;
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('getFirm', () => {
  const service = createService(createSiteSource(new FolderStore(SITE)));

  it('returns the firm, the office and the other offices ordered by listing_id', async () => {
    const multi = allDocs().find((d) => d.other_offices.length >= 2)!;
    const body = await service.getFirm(multi.listing_id, CTX);
    expect(FirmResponse.parse(body)).toEqual(body);
    expect(body.listing_id).toBe(multi.listing_id);
    expect(body.office.listing_id).toBe(multi.listing_id);
    const others = body.other_offices.map((o) => o.listing_id);
    expect(others).toEqual([...others].sort());
    expect(others).not.toContain(multi.listing_id);
    expect(body.firm.website).toBe(`${CTX.publicBaseUrl}/r/${multi.listing_id}`);
  });

  it('expands the stored firm and offices: brand_index, map_visibility and hours text, from meta.json', async () => {
    const meta = Meta.parse(JSON.parse(readFileSync(join(vdir, 'meta.json'), 'utf8')));
    const sample = allDocs().filter((_, i) => i % 40 === 0);
    let firmBrands = 0;
    for (const doc of sample) {
      const body = await service.getFirm(doc.listing_id, CTX);
      const b = doc.firm.brand;
      expect(body.firm.brand_index).toEqual(
        b === null ? null : { ...b, week_of: meta.week_of, what_this_is: BRAND_INDEX_WHAT },
      );
      if (b !== null) firmBrands++;
      for (const [shown, stored] of [
        [body.office, doc.office],
        ...body.other_offices.map((o, i) => [o, doc.other_offices[i]!] as const),
      ] as const) {
        expect(shown.listing_id).toBe(stored.listing_id);
        const m = stored.metro === null ? undefined : meta.metros[stored.metro];
        expect(shown.map_visibility).toEqual(
          stored.visibility === null
            ? null
            : {
                metro: stored.metro,
                week_of: meta.week_of,
                ...stored.visibility,
                ...m,
                what_this_is: MAP_VISIBILITY_WHAT,
              },
        );
        expect(shown.hours === null ? null : { timezone: shown.hours.timezone, weekly: shown.hours.weekly }).toEqual(
          stored.hours,
        );
      }
    }
    expect(firmBrands).toBeGreaterThan(sample.length / 2);
  });

  it('answers not_found for unknown and malformed ids', async () => {
    for (const id of [
      'l_aaaaaaaaaaaaaaaa',
      'nope',
      '',
      'l_AAAAAAAAAAAAAAAA',
      '../current',
      `${allDocs()[0]!.listing_id}x`,
    ]) {
      const e = await apiError(service.getFirm(id, CTX));
      expect(e.code).toBe('not_found');
      expect(e.status).toBe(404);
    }
  });
});

describe('redirectTarget', () => {
  const service = createService(createSiteSource(new FolderStore(SITE)));

  it("is the listing's own site with utm_source set", async () => {
    const doc = allDocs().find((d) => d.office.website_url !== null)!;
    const target = new URL(await service.redirectTarget(doc.listing_id));
    const own = new URL(doc.office.website_url!);
    expect(target.origin).toBe(own.origin);
    expect(target.pathname).toBe(own.pathname);
    expect(target.searchParams.getAll('utm_source')).toEqual([SERVICE_NAME]);
  });

  it('is not_found for unknown ids and for listings without a website', async () => {
    expect((await apiError(service.redirectTarget('l_aaaaaaaaaaaaaaaa'))).code).toBe('not_found');
    expect((await apiError(service.redirectTarget('https://evil.example/'))).code).toBe('not_found');
    const noSite = allDocs().find((d) => d.office.website_url === null);
    expect(noSite).toBeDefined();
    expect((await apiError(service.redirectTarget(noSite!.listing_id))).code).toBe('not_found');
  });
});

describe('getCoverage and openapi', () => {
  it('serve the documents of the current version', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    const coverage = await service.getCoverage(CTX);
    expect(CoverageResponse.parse(coverage)).toEqual(coverage);
    expect(coverage).not.toHaveProperty('schema_version');
    expect(coverage.metros).toHaveLength(27);
    expect(coverage.dataset.synthetic).toBe(true);
    const doc = (await service.openapi()) as { openapi: string; info: { version: string } };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.1');
  });
});

/** A store over the sample site that counts reads. */
class CountingStore implements Store {
  readonly kind = 'counting';
  reads = 0;
  private readonly inner: Store;
  constructor(inner: Store) {
    this.inner = inner;
  }
  async get(key: string): Promise<Uint8Array | null> {
    this.reads++;
    return this.inner.get(key);
  }
}

describe('caching', () => {
  it('answers a repeated query from memory, without reading the store', async () => {
    const store = new CountingStore(new FolderStore(SITE));
    const source = createSiteSource(store, { pointerTtlMs: 60_000 });
    const service = createService(source);
    const first = await service.findAttorneys({ zip: '10001', radius_miles: '50', limit: '25' }, CTX);
    const reads = store.reads;
    expect(reads).toBeGreaterThan(3);
    const again = await service.findAttorneys({ zip: '10001', radius_miles: '50', limit: '25' }, CTX);
    expect(store.reads).toBe(reads);
    expect({ ...again, query_id: '' }).toEqual({ ...first, query_id: '' });
    expect(source.stats().cacheHits).toBeGreaterThan(3);
  });
});

describe('versions', () => {
  it('never mixes two versions in one answer, even when the pointer moves mid-request', async () => {
    // Version B is the sample site with every name prefixed "B "; the pointer flips to B when A's first cell block is read.
    const folder = new FolderStore(SITE);
    const A = version;
    const B = `${version}-b`;
    let pointer = A;
    let flipped = false;
    // B's objects record B's hashes, as a generator writing B would: each sha256 of an A object that a parent records
    // (found through A's manifest) becomes the sha256 of that object as B serves it.
    const manifest = JSON.parse(readFileSync(join(vdir, 'manifest.json'), 'utf8')) as {
      objects: Record<string, { sha256: string }>;
    };
    // A pack holding one block has that block's hash; nothing records a pack's, so packs are left out.
    const relOfHash = new Map(
      Object.entries(manifest.objects)
        .filter(([key]) => !isCellPack(key))
        .map(([key, e]) => [e.sha256, key.slice(keys.root(A).length)]),
    );
    const bMemo = new Map<string, Promise<Uint8Array | null>>();
    const inB = (rel: string): Promise<Uint8Array | null> => {
      let got = bMemo.get(rel);
      if (got === undefined) bMemo.set(rel, (got = alteredForB(rel)));
      return got;
    };
    const alteredForB = async (rel: string): Promise<Uint8Array | null> => {
      const bytes = await folder.get(keys.root(A) + rel);
      if (bytes === null) return null;
      // A binary cell object is altered as the JSON of its values, then coded again.
      const binary = binaryCellKind(rel) !== null;
      const text = (binary ? JSON.stringify(decodeStored(bytes, rel)) : new TextDecoder().decode(bytes))
        .replaceAll(`"version":"${A}"`, `"version":"${B}"`)
        .replaceAll('"name":"', '"name":"B ');
      const hashes = [...new Set(text.match(/\b[0-9a-f]{64}\b/g) ?? [])];
      const swapped = new Map<string, string>();
      for (const h of hashes) {
        const child = relOfHash.get(h);
        const childBytes = child === undefined ? null : await inB(child);
        if (childBytes !== null) swapped.set(h, createHash('sha256').update(childBytes).digest('hex'));
      }
      const out = text.replace(/\b[0-9a-f]{64}\b/g, (h) => swapped.get(h) ?? h);
      return binary ? serialiseAt(rel, JSON.parse(out)) : new TextEncoder().encode(out);
    };
    const store: Store = {
      kind: 'two-versions',
      async get(key) {
        if (key === keys.pointer)
          return new TextEncoder().encode(JSON.stringify({ schema_version: 1, version: pointer, week: '2026-W47' }));
        if (key.startsWith(keys.root(B))) return inB(key.slice(keys.root(B).length));
        if (key.startsWith(`${keys.root(A)}cells/blocks/`) && !flipped) {
          flipped = true;
          pointer = B;
        }
        return folder.get(key);
      },
    };
    const service = createService(createSiteSource(store, { pointerTtlMs: 0 }));
    const first = await service.findAttorneys({ zip: '60601', limit: '25' }, CTX);
    expect(flipped).toBe(true);
    expect(AttorneysResponse.parse(first)).toEqual(first);
    expect(first.results.length).toBe(25);
    expect(first.results.every((r) => !r.name.startsWith('B '))).toBe(true);
    const second = await service.findAttorneys({ zip: '60601', limit: '25' }, CTX);
    expect(second.results.every((r) => r.name.startsWith('B '))).toBe(true);
    expect(second.results.map((r) => r.listing_id)).toEqual(first.results.map((r) => r.listing_id));
  });
});
