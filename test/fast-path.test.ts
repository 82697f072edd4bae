/**
 * The answer cache, as a caller sees it: a server with the cache answers every request with
 * the same status, headers (but Date) and bytes as a server without it, over raw HTTP, for many queries, encodings,
 * GET and HEAD, rate limiting included; the log lines match; a publish flips the version and the cache follows.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../shim/edge/env.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { createRequestLimits } from '../shim/http/admission.ts';
import { startServer, type RunningServer } from '../shim/server.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { recordMetaHash } from './helpers/rehash.ts';
import { linkSite, type SiteCopy } from './helpers/site-copy.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

function raw(base: string, path: string, headers: Record<string, string>, method: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function withoutDate(headers: Raw['headers']): Raw['headers'] {
  const { date: _date, ...rest } = headers;
  return rest;
}

const dirs: string[] = [];
/** A server over `siteDir` whose limiter runs on a fixed clock, so two servers given the same requests advertise the same RateLimit. */
async function serve(
  siteDir: string,
  answerCacheMib: number,
  limit = 100_000,
  pointerTtlMs?: number,
): Promise<RunningServer> {
  const logDir = mkdtempSync(join(tmpdir(), 'iad-fast-log-'));
  dirs.push(logDir);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SITE_DIR: siteDir,
    LOG_DIR: logDir,
    ANSWER_CACHE_MIB: String(answerCacheMib),
    PUBLIC_BASE_URL: 'https://directory.example',
  });
  const t = 1_800_000_000_000;
  return startServer(config, {
    limits: createRequestLimits({ limit, now: () => t }),
    ...(pointerTtlMs !== undefined
      ? { service: createService(createSiteSource(new FolderStore(siteDir), { pointerTtlMs })) }
      : {}),
  });
}

function logLines(server: RunningServer): Record<string, unknown>[] {
  return readdirSync(server.log.dir)
    .sort()
    .flatMap((f) =>
      readFileSync(join(server.log.dir, f), 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    )
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const site = (): string => {
  const dir = process.env.TEST_SITE_DIR;
  if (dir === undefined) throw new Error('TEST_SITE_DIR is not set');
  return dir;
};

describe('fast path answers equal the ordinary path, header by header and byte by byte', () => {
  let slow: RunningServer;
  let fast: RunningServer;
  const paths: string[] = [];

  beforeAll(async () => {
    slow = await serve(site(), 0);
    fast = await serve(site(), 16);
    // Both servers see the same requests, so their rate-limit counts stay equal.
    await fetch(`${fast.url}/v1/coverage`).then((r) => r.arrayBuffer());
    const coverage = (await (await fetch(`${slow.url}/v1/coverage`)).json()) as {
      metros: { center: { lat: number; lng: number } }[];
    };
    // Five metros' centres in three forms each, beside the fixed queries: enough variety, a bounded run time.
    for (const m of coverage.metros.slice(0, 5)) {
      const { lat, lng } = m.center;
      paths.push(
        `/v1/attorneys?lat=${lat}&lng=${lng}`,
        `/v1/attorneys?location=${lat},${lng}&radius_miles=5&limit=3`,
        `/v1/attorneys?limit=25&radius_miles=50&lat=${lat}&lng=${lng}&src=test-app`,
      );
    }
    paths.push(
      '/v1/attorneys?zip=60601',
      '/v1/attorneys?location=60601',
      '/v1/attorneys?location=60601-1234&limit=2',
      '/v1/attorneys?location=Chicago,%20IL',
      '/v1/attorneys?location=chicago%2C+il&src=a%20b',
      '/v1/attorneys?lat=45&lng=-100',
      '/v1/attorneys?location=60601&radius=5',
      '/v1/attorneys?location=99999',
      '/v1/attorneys?zip=60601&zip=60602',
      '/v1/attorneys?location=Chicago, IL',
    );
  });
  afterAll(async () => {
    await Promise.all([slow.close(100), fast.close(100)]);
  });

  it('for every query, encoding and method, a miss, a stored miss, hits', { timeout: 120_000 }, async () => {
    const encodings: (string | undefined)[] = [
      undefined,
      'gzip',
      'br',
      'gzip, deflate, br',
      'br;q=0, gzip',
      'identity',
      '*',
      'gzip;q=0, br;q=0',
    ];
    let compared = 0;
    for (const path of paths) {
      for (const enc of encodings) {
        for (const method of ['GET', 'HEAD', 'GET']) {
          const headers: Record<string, string> = {
            'user-agent': 'fast-path-test/1',
            ...(enc !== undefined ? { 'accept-encoding': enc } : {}),
          };
          const a = await raw(slow.url, path, headers, method);
          const b = await raw(fast.url, path, headers, method);
          expect({ path, enc, method, status: b.status, headers: withoutDate(b.headers) }).toEqual({
            path,
            enc,
            method,
            status: a.status,
            headers: withoutDate(a.headers),
          });
          expect(b.bytes.equals(a.bytes), `${method} ${path} (${enc ?? 'no Accept-Encoding'})`).toBe(true);
          compared++;
        }
      }
    }
    const stats = fast.answers?.stats();
    // Every valid query's GETs and HEADs after its second answer (stored then) and the first per coding were hits.
    expect(stats?.hits).toBeGreaterThan(compared / 2);
    expect(slow.answers).toBeNull();
    // The log lines are the same, but for the time and the address hash (each server has its own day salt).
    await Promise.all([slow.log.flush(), fast.log.flush()]);
    const strip = (l: Record<string, unknown>): Record<string, unknown> => ({
      ...l,
      time: null,
      address_hash: typeof l.address_hash,
    });
    const la = logLines(slow).map(strip);
    const lb = logLines(fast).map(strip);
    expect(lb.length).toBe(compared + 1);
    expect(lb).toEqual(la);
    expect(JSON.stringify(logLines(fast))).not.toContain('127.0.0.1');
  });

  it('counts a cached answer against the rate limit and refuses past it like the ordinary path', async () => {
    const a = await serve(site(), 0, 4);
    const b = await serve(site(), 16, 4);
    try {
      for (let i = 0; i < 7; i++) {
        const ra = await raw(a.url, '/v1/attorneys?zip=60601', {}, 'GET');
        const rb = await raw(b.url, '/v1/attorneys?zip=60601', {}, 'GET');
        expect(withoutDate(rb.headers)).toEqual(withoutDate(ra.headers));
        expect(rb.status).toBe(i < 4 ? 200 : 429);
        expect(rb.bytes.equals(ra.bytes)).toBe(true);
      }
      // The first two answers were computed (the second stored); the next two within the limit were hits.
      expect(b.answers?.stats().hits).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all([a.close(100), b.close(100)]);
    }
  });
});

describe('a publish flips the version the cache answers from', () => {
  let copy: SiteCopy;
  let v2: string;

  beforeAll(() => {
    copy = linkSite(site());
    v2 = `${copy.version}-b`;
    // A second version: the same objects under another name, with its own meta.json naming it.
    const src = join(site(), 'v', copy.version);
    const root = join(copy.dir, 'v', v2);
    mkdirSync(root, { recursive: true });
    for (const name of readdirSync(src)) if (name !== 'meta.json') symlinkSync(join(src, name), join(root, name));
    const meta = JSON.parse(readFileSync(join(src, 'meta.json'), 'utf8')) as { version: string };
    writeFileSync(join(root, 'meta.json'), JSON.stringify({ ...meta, version: v2 }));
  });
  afterAll(() => copy.remove());

  const point = (version: string): void => {
    const pointer = JSON.parse(readFileSync(join(site(), 'current.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(copy.dir, 'current.json'), JSON.stringify({ ...pointer, version }));
    recordMetaHash(copy.dir);
  };

  it('never serves the old version once the pointer moved, and serves each version its own answer', async () => {
    const cached = await serve(copy.dir, 16, 100_000, 0);
    const fresh = await serve(copy.dir, 0, 100_000, 0);
    try {
      const path = '/v1/attorneys?location=Chicago,%20IL&limit=5';
      const get = async (s: RunningServer): Promise<{ version: string; body: string }> => {
        const r = await raw(s.url, path, { 'accept-encoding': 'identity' }, 'GET');
        expect(r.status).toBe(200);
        return { version: String(r.headers['directory-version']), body: r.bytes.toString('utf8') };
      };
      point(copy.version);
      const first = await get(cached);
      // The second answer is stored (a query is kept from its second sight on), the third is the stored one.
      expect(await get(cached)).toEqual(first);
      const again = await get(cached);
      expect(cached.answers?.stats().hits).toBe(1);
      expect(again).toEqual(first);
      expect(first.version).toBe(copy.version);

      point(v2);
      const after = await get(cached);
      expect(after.version).toBe(v2);
      expect(after).toEqual(await get(fresh));
      const ids = [first, after].map((r) => (JSON.parse(r.body) as { query_id: string }).query_id);
      expect(ids[0]).not.toBe(ids[1]);
      expect((await get(cached)).version).toBe(v2);

      // A rollback points back at the first version: its own answer again, never the second's.
      point(copy.version);
      expect(await get(cached)).toEqual(first);
    } finally {
      await Promise.all([cached.close(100), fresh.close(100)]);
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    }
  });
});
