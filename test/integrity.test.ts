/**
 * Stored objects are checked against the sha256 their parent records (meta.json, the cell index, a group, a block, a
 * listings bucket): an object altered into other valid JSON is a 503 with Retry-After, never a wrong 200, and once the
 * original is restored the same server answers exactly as an intact one, without a restart.
 */
import { decodeCoords, type Coords } from '../shim/format/block-coords.ts';
import { CellBlock } from '../shim/format/cell-format.ts';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Reply } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { packOfBlock } from './helpers/pack-of.ts';
import { keys } from '../shim/format/site-format.ts';
import { paths } from '../shim/format/paths.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { serialiseAt } from '../generator/write/json.ts';
import { coveragePieceOf } from '../shim/places/coverage.ts';

type Json = Record<string, unknown>;

const SITE = (): string => process.env.TEST_SITE_DIR as string;
const PUBLIC_BASE_URL = 'https://directory.example';

let version: string;
let copyDir: string;
let baseline: TestServer;
/** An office near the centre of Chicago, the files that hold it and a query that shows it. */
let target: { listingId: string; block: string; chunk: string; point: string; piece: string; cityPiece: string };
const expected = new Map<string, Reply>();

const inCopy = (rel: string): string => join(copyDir, 'v', version, rel);
// A cell block is stored in binary (block-binary.ts): read and written through the same decoding and encoding.
const readJson = (rel: string): Json => decodeStored(readFileSync(inCopy(rel)), rel) as Json;
/** Rewrite a stored object as other, still valid, JSON in the generator's compact form. */
const writeJson = (rel: string, value: unknown): void => writeFileSync(inCopy(rel), serialiseAt(rel, value));

function comparable(reply: Reply): unknown {
  if (reply.body === undefined || typeof reply.body !== 'object' || reply.body === null) return reply.text;
  const { query_id: _ignored, ...rest } = reply.body as Json;
  return rest;
}

beforeAll(async () => {
  version = (JSON.parse(readFileSync(join(SITE(), 'current.json'), 'utf8')) as { version: string }).version;
  copyDir = mkdtempSync(join(tmpdir(), 'iad-integrity-'));
  cpSync(SITE(), copyDir, { recursive: true });
  // The first office of the first record chunk of a block near Chicago (41.88, -87.63).
  const blocks = readdirSync(inCopy('cells/blocks')).map((f) => {
    const b = CellBlock.parse(readJson(`cells/blocks/${f}`));
    const { lat, lng } = decodeCoords(b, b.listing.length) as Coords;
    return { f, b: { cell: b.cell, lat: [...lat], lng: [...lng] } };
  });
  const near = blocks
    .map(({ b }) => ({ b, d: Math.hypot((b.lat[0] ?? 0) - 41.88, (b.lng[0] ?? 0) + 87.63) }))
    .sort((x, y) => x.d - y.d)[0] as { b: { cell: string; lat: number[]; lng: number[] } };
  const chunk = readJson(`cells/records/${near.b.cell}/0.json`) as {
    offices: { listing_id: string; lat: number; lng: number }[];
  };
  const office = chunk.offices[0] as { listing_id: string; lat: number; lng: number };
  const cities = readJson('gazetteer/city/IL/c.json') as { cities: Record<string, { lat: number; lng: number }> };
  const chicago = cities.cities.chicago as { lat: number; lng: number };
  target = {
    listingId: office.listing_id,
    block: paths.cellBlock(near.b.cell),
    chunk: `cells/records/${near.b.cell}/0.json`,
    point: `/v1/attorneys?lat=${office.lat}&lng=${office.lng}&radius_miles=1&limit=25`,
    piece: coveragePieceOf(office.lat, office.lng),
    cityPiece: coveragePieceOf(chicago.lat, chicago.lng),
  };
  baseline = await startTestServer({ SITE_DIR: copyDir, PUBLIC_BASE_URL });
  for (const path of [
    target.point,
    '/v1/attorneys?zip=60601',
    '/v1/attorneys?location=Chicago%2C%20IL',
    `/v1/firms/${target.listingId}`,
    '/corrections',
  ]) {
    const reply = await request(baseline.url, path);
    expect(reply.status, `${path} on the intact site`).toBe(200);
    expected.set(path, reply);
  }
  await baseline.close();
});
afterAll(() => {
  if (copyDir !== undefined) rmSync(copyDir, { recursive: true, force: true });
});

/** One alteration: the object, how it is changed into other valid JSON, and the requests that read it. */
interface Case {
  name: string;
  rel: () => string;
  alter: (value: Json) => unknown;
  probes: () => string[];
  /** Objects removed for the case (a block's pack, so that the block object is what the search reads). */
  absent?: () => (string | null)[];
}

const CASES: Case[] = [
  {
    name: "a record chunk with its offices' names changed",
    rel: () => target.chunk,
    // The chunk object is what a search reads only without its pack, which holds the intact copy.
    absent: () => [packOfBlock(join(copyDir, 'v', version), target.chunk.split('/')[2] ?? '')],
    alter: (v) => ({
      ...v,
      offices: (v.offices as Json[]).map((o) => ({ ...o, name: `${String(o.name)} (altered)` })),
    }),
    probes: () => [target.point],
  },
  {
    name: 'a block with its columns shuffled',
    rel: () => target.block,
    // The block object is what a search reads only without its pack, which holds the intact copy.
    absent: () => [packOfBlock(join(copyDir, 'v', version), target.block.slice('cells/blocks/'.length, -'.pb'.length))],
    alter: (v) => ({
      ...v,
      dlat: (v.dlat as number[]).slice().reverse(),
      dlng: (v.dlng as number[]).slice().reverse(),
    }),
    probes: () => [target.point],
  },
  {
    name: "a city's coverage piece emptied",
    rel: () => target.cityPiece,
    alter: (v) => ({ ...v, cells: {} }),
    probes: () => ['/v1/attorneys?location=Chicago%2C%20IL'],
  },
  {
    name: "the point's coverage piece emptied",
    rel: () => target.piece,
    alter: (v) => ({ ...v, cells: {} }),
    probes: () => [target.point],
  },
  {
    name: 'a firm document with another phone number (its firm pack altered)',
    rel: () => firmPackKey(copyDir, version, target.listingId).slice(keys.root(version).length),
    alter: (v) => ({
      ...v,
      documents: (v.documents as Json[]).map((d) =>
        (d.office as Json).listing_id === target.listingId
          ? { ...d, office: { ...(d.office as Json), phone: '+1-555-0199' } }
          : d,
      ),
    }),
    probes: () => [`/v1/firms/${target.listingId}`],
  },
  {
    name: 'a page with other text',
    rel: () => 'pages/corrections.json',
    alter: (v) => ({ ...v, body: String(v.body).replace('<h1', '<h1 data-altered') }),
    probes: () => ['/corrections'],
  },
];

describe('an object altered into other valid JSON is 503, and its restored copy is served again by the same server', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const rel = c.rel();
      const original = readFileSync(inCopy(rel));
      const absent = (c.absent?.() ?? [])
        .filter((r): r is string => r !== null)
        .map((r) => ({ path: inCopy(r), bytes: readFileSync(inCopy(r)) }));
      for (const { path } of absent) unlinkSync(path);
      const server = await startTestServer({ SITE_DIR: copyDir, PUBLIC_BASE_URL });
      try {
        writeJson(rel, c.alter(decodeStored(original, rel) as Json));
        for (const path of c.probes()) {
          // Twice: the altered object must not be cached as good, nor the first answer replayed.
          for (let i = 0; i < 2; i++) {
            const reply = await request(server.url, path);
            expect(reply.status, `${path} with ${c.name}: ${reply.text.slice(0, 200)}`).toBe(503);
            expect((reply.body as Json).code).toBe('service_unavailable');
            expect(Number(reply.headers.get('retry-after')), 'Retry-After seconds').toBeGreaterThan(0);
            expect(reply.headers.get('cache-control')).toBe('no-store');
          }
        }
        writeFileSync(inCopy(rel), original);
        for (const { path, bytes } of absent) writeFileSync(path, bytes);
        for (const path of c.probes()) {
          const want = expected.get(path) as Reply;
          const reply = await request(server.url, path);
          expect(reply.status, `${path} after the original is restored`).toBe(want.status);
          expect(comparable(reply), `${path} after the original is restored`).toEqual(comparable(want));
        }
      } finally {
        writeFileSync(inCopy(rel), original);
        for (const { path, bytes } of absent) writeFileSync(path, bytes);
        await server.close();
      }
    });
  }
});

describe('a page or asset missing from the served version is 503, never a 404 or the JSON index', () => {
  it('/corrections, /metros/{slug}, /assets/{file} and the index page for a browser', async () => {
    const asset = readdirSync(inCopy('pages/assets'))[0] as string;
    const html = { accept: 'text/html,application/xhtml+xml' };
    const cases: [rel: string, path: string, headers: Record<string, string>][] = [
      ['pages/corrections.json', '/corrections', {}],
      ['pages/metros/chicago.json', '/metros/chicago', {}],
      [`pages/assets/${asset}`, `/assets/${asset.replace(/\.json$/, '')}`, {}],
      ['pages/index.json', '/', html],
    ];
    const server = await startTestServer({ SITE_DIR: copyDir, PUBLIC_BASE_URL });
    try {
      for (const [rel, path, headers] of cases) {
        const original = readFileSync(inCopy(rel));
        try {
          // Deleted before the server first reads it (a page read intact stays cached, correctly).
          unlinkSync(inCopy(rel));
          const reply = await request(server.url, path, { headers });
          expect(reply.status, `${path} with ${rel} missing: ${reply.text.slice(0, 200)}`).toBe(503);
          expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
        } finally {
          writeFileSync(inCopy(rel), original);
        }
        expect((await request(server.url, path, { headers })).status, `${path} restored`).toBe(200);
      }
      // What the version never had stays a 404.
      expect((await request(server.url, '/metros/nowhere')).status).toBe(404);
      expect((await request(server.url, '/assets/nothing.css')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
