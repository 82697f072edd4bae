/**
 * Store faults under a running server: each kind of stored object (pointer, meta, coverage cells and a piece, cell index, a
 * cell block, a firm document, gazetteer ZIP and city documents, coverage document) deleted, emptied, truncated, garbled
 * and replaced by JSON of the wrong shape gives 503 with Retry-After on every request that needs it (never a 400,
 * 404 or partial 200), and once the object is restored the same server answers exactly as before, without a restart.
 */
import { decodeStored } from '../shim/format/site-json.ts';
import { decodeCoords, type Coords } from '../shim/format/block-coords.ts';
import { CellBlock } from '../shim/format/cell-format.ts';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexSite, type IndexedOffice, type SiteIndex } from './fuzz/site-index.ts';
import { request, type Reply } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { packOfBlock } from './helpers/pack-of.ts';
import { keys } from '../shim/format/site-format.ts';
import { coveragePieceOf } from '../shim/places/coverage.ts';

type Json = Record<string, unknown>;

/** How an object is damaged. */
const FAULTS = {
  deleted: (path: string) => unlinkSync(path),
  emptied: (path: string) => writeFileSync(path, ''),
  truncated: (path: string) => {
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
  },
  garbled: (path: string) => {
    const bytes = Buffer.from(readFileSync(path));
    bytes.fill(0xff, Math.floor(bytes.length / 3), Math.floor((2 * bytes.length) / 3));
    writeFileSync(path, bytes);
  },
  'wrong shape': (path: string) => writeFileSync(path, '{"schema_version":1,"unexpected":true}'),
} as const;

/** One kind of stored object: the files that stand for it and the requests that must read it. */
interface Kind {
  name: string;
  /** Paths relative to v/<version>/, or "current.json" for the pointer. */
  files: string[];
  probes: string[];
  /** A request that does not read the object, sent before the fault so the server is running warm; none for the pointer and meta. */
  warmUp: string | null;
  /** Files removed for the case: a block's pack, so that the block object is what the search reads. */
  absent?: string[];
}

const SITE = (): string => process.env.TEST_SITE_DIR as string;
/** Both servers write the same links, so answers compare byte for byte. */
const PUBLIC_BASE_URL = 'https://directory.example';

let site: SiteIndex;
let office: IndexedOffice;
let kinds: Kind[];
let baseline: TestServer;
/** A real copy of the test site that the cases damage and restore one at a time (linking 9,000 firm documents per case is slower). */
let copyDir: string;
const expected = new Map<string, Reply>();

function zip3Doc(zip: string): Json {
  return JSON.parse(
    readFileSync(join(SITE(), 'v', site.version, 'gazetteer', 'zip', `${zip.slice(0, 3)}.json`), 'utf8'),
  ) as Json;
}

/** The body as a test compares it: without the per-request query_id. */
function comparable(reply: Reply): unknown {
  if (reply.body === undefined || typeof reply.body !== 'object' || reply.body === null) return reply.text;
  const { query_id: _ignored, ...rest } = reply.body as Json;
  return rest;
}

beforeAll(async () => {
  site = indexSite(SITE());
  // An office with a website, in Chicago, whose cell block and firm document the probes read.
  const chicago = (zip3Doc('60601').zips as Record<string, [number, number]>)['60601'] as [number, number];
  const near = site.offices
    .filter((o) => site.websites.get(o.listingId) !== null)
    .map((o) => ({ o, d: Math.hypot(o.lat - chicago[0], o.lng - chicago[1]) }))
    .sort((a, b) => a.d - b.d);
  office = (near[0] as { o: IndexedOffice }).o;
  const point = `/v1/attorneys?lat=${office.lat}&lng=${office.lng}&radius_miles=1`;
  const { version } = JSON.parse(readFileSync(join(SITE(), 'current.json'), 'utf8')) as { version: string };
  const blockDir = join(SITE(), 'v', version, 'cells', 'blocks');
  const holding = readdirSync(blockDir).find((f) => {
    const b = CellBlock.parse(decodeStored(readFileSync(join(blockDir, f)), `cells/blocks/${f}`));
    const { lat, lng } = decodeCoords(b, b.listing.length) as Coords;
    return lat.some((x, i) => x === office.lat && lng[i] === office.lng);
  });
  const blockFiles = [`cells/blocks/${holding ?? 'missing'}`];
  const cityDoc = join(SITE(), 'v', version, 'gazetteer', 'city', 'IL', 'c.json');
  const chicagoCity = (
    JSON.parse(readFileSync(cityDoc, 'utf8')) as { cities: Record<string, { lat: number; lng: number }> }
  ).cities.chicago as { lat: number; lng: number };
  kinds = [
    {
      name: 'pointer current.json',
      files: ['current.json'],
      probes: ['/v1/attorneys?zip=60601', '/v1/coverage', `/v1/firms/${office.listingId}`],
      warmUp: null,
    },
    {
      name: 'meta.json',
      files: ['meta.json'],
      probes: ['/v1/attorneys?zip=60601', '/v1/coverage', `/r/${office.listingId}`],
      warmUp: null,
    },
    {
      // A place name reads the piece of the point its city document gives (coverage-cells.json only in a version
      // written before the pieces).
      name: 'the coverage piece of a city',
      files: [coveragePieceOf(chicagoCity.lat, chicagoCity.lng)],
      probes: ['/v1/attorneys?location=Chicago%2C%20IL'],
      warmUp: '/v1/coverage',
    },
    {
      name: 'the coverage piece of the point',
      files: [...new Set([coveragePieceOf(office.lat, office.lng), coveragePieceOf(chicago[0], chicago[1])])],
      probes: ['/v1/attorneys?zip=60601', point],
      warmUp: '/v1/coverage',
    },
    {
      // A search reads the copy meta.json carries (its faults are the meta.json case); the file is still published.
      name: 'cell index',
      files: ['cells/index.json'],
      probes: [`/v/${version}/cells/index.json`],
      warmUp: '/v1/coverage',
    },
    {
      name: 'a cell block (the one holding the point)',
      files: blockFiles,
      probes: [point],
      warmUp: '/v1/attorneys?zip=10001',
      absent: [packOfBlock(join(SITE(), keys.root(version)), (holding ?? '').replace(/\.pb$/, ''))].filter(
        (p): p is string => p !== null,
      ),
    },
    {
      name: 'a firm document (its firm pack)',
      files: [firmPackKey(SITE(), version, office.listingId).slice(keys.root(version).length)],
      probes: [`/v1/firms/${office.listingId}`, `/r/${office.listingId}`],
      warmUp: '/v1/attorneys?zip=60601',
    },
    {
      name: 'gazetteer ZIP document',
      files: ['gazetteer/zip/606.json'],
      probes: ['/v1/attorneys?zip=60601', '/v1/attorneys?location=60601-1234'],
      warmUp: point,
    },
    {
      name: 'gazetteer city document',
      files: ['gazetteer/city/IL/c.json'],
      probes: ['/v1/attorneys?location=Chicago,%20IL'],
      warmUp: '/v1/attorneys?zip=60601',
    },
    {
      name: 'coverage document',
      files: ['coverage.json'],
      probes: ['/v1/coverage'],
      warmUp: '/v1/attorneys?zip=60601',
    },
  ];
  copyDir = mkdtempSync(join(tmpdir(), 'iad-faults-'));
  cpSync(SITE(), copyDir, { recursive: true });
  baseline = await startTestServer({ PUBLIC_BASE_URL });
  for (const kind of kinds) {
    for (const path of kind.probes) {
      const reply = await request(baseline.url, path);
      expect([200, 302], `${path} on the intact site`).toContain(reply.status);
      expected.set(path, reply);
    }
  }
});
afterAll(async () => {
  await baseline?.close();
  if (copyDir !== undefined) rmSync(copyDir, { recursive: true, force: true });
});

function pathIn(file: string): string {
  return file === 'current.json' ? join(copyDir, 'current.json') : join(copyDir, 'v', site.version, file);
}

async function expectSameAsIntact(url: string, path: string): Promise<void> {
  const reply = await request(url, path);
  const want = expected.get(path) as Reply;
  expect(reply.status, `${path} after the object is restored`).toBe(want.status);
  expect(comparable(reply), `${path} after the object is restored`).toEqual(comparable(want));
  expect(reply.headers.get('location'), `${path} redirect after restore`).toBe(want.headers.get('location'));
}

describe('a damaged stored object is 503 under a running server, and the server recovers once it is restored', () => {
  const names = [
    'pointer current.json',
    'meta.json',
    'the coverage piece of a city',
    'the coverage piece of the point',
    'cell index',
    'a cell block (the one holding the point)',
    'a firm document (its firm pack)',
    'gazetteer ZIP document',
    'gazetteer city document',
    'coverage document',
  ];
  for (const kindName of names) {
    for (const fault of Object.keys(FAULTS) as (keyof typeof FAULTS)[]) {
      it(`${kindName}, ${fault}`, async () => {
        const kind = kinds.find((k) => k.name === kindName) as Kind;
        const server = await startTestServer({ SITE_DIR: copyDir, PUBLIC_BASE_URL });
        const originals = kind.files.map((file) => ({ path: pathIn(file), bytes: readFileSync(pathIn(file)) }));
        const absent = (kind.absent ?? []).map((file) => ({ path: pathIn(file), bytes: readFileSync(pathIn(file)) }));
        for (const { path } of absent) unlinkSync(path);
        try {
          if (kind.warmUp !== null)
            expect((await request(server.url, kind.warmUp)).status, `warm-up ${kind.warmUp}`).toBe(200);
          for (const { path } of originals) FAULTS[fault](path);
          for (const path of kind.probes) {
            const reply = await request(server.url, path);
            expect(reply.status, `${path} with ${kindName} ${fault}: ${reply.text.slice(0, 200)}`).toBe(503);
            expect((reply.body as Json).code).toBe('service_unavailable');
            expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(Number(reply.headers.get('retry-after')), 'Retry-After seconds').toBeGreaterThan(0);
            expect(reply.headers.get('cache-control')).toBe('no-store');
          }
          for (const { path, bytes } of [...originals, ...absent]) writeFileSync(path, bytes);
          for (const path of kind.probes) await expectSameAsIntact(server.url, path);
        } finally {
          for (const { path, bytes } of [...originals, ...absent]) writeFileSync(path, bytes);
          await server.close();
        }
      });
    }
  }
});

describe('what is truly absent stays a 400 or 404 (the 503s above are not a blanket answer)', () => {
  it('an unknown listing id is 404 and a ZIP missing from an intact gazetteer document is 400', async () => {
    expect((await request(baseline.url, '/v1/firms/l_aaaaaaaaaaaaaaaa')).status).toBe(404);
    expect((await request(baseline.url, '/r/l_aaaaaaaaaaaaaaaa')).status).toBe(404);
    const known = new Set(Object.keys(zip3Doc('60601').zips as Json));
    const unknown = Array.from({ length: 100 }, (_, i) => `606${String(i).padStart(2, '0')}`).find(
      (z) => !known.has(z),
    ) as string;
    const reply = await request(baseline.url, `/v1/attorneys?zip=${unknown}`);
    expect(reply.status, `zip=${unknown}`).toBe(400);
  });
});
