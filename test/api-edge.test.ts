/**
 * The HTTP edge over real HTTP: headers (CORS, caching, ETag/304, rate limit), methods, the redirect, the request log,
 * the per-address limit, store failures, and openapi.json as the schema of every body.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Reply } from './helpers/http.ts';
import { ResponseSchemas } from './helpers/openapi.ts';
import { recordHash } from './helpers/rehash.ts';
import { firmPackKey, readFirmDoc, writeFirmDoc } from './helpers/firm-pack.ts';
import { keys, type FirmDocT } from '../shim/format/site-format.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startTestServer } from './helpers/server.ts';
import { linkSite, type SiteCopy } from './helpers/site-copy.ts';

type Result = { listing_id: string; website: string | null; website_domain: string | null };
type Search = { query_id: string; covered: boolean; results: Result[] };
type Problem = { status: number; code: string; detail: string };

const RATE_LIMIT_RE = /^"hour";r=(\d+);t=(\d+)$/;

let server: TestApp;
let schemas: ResponseSchemas;
let openapiDoc: Record<string, unknown>;
const get = (path: string, init: RequestInit = {}): Promise<Reply> => request(server.url, path, init, schemas);

beforeAll(async () => {
  server = await startTestApp();
  openapiDoc = (await (await server.fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>;
  schemas = new ResponseSchemas(openapiDoc as unknown as ConstructorParameters<typeof ResponseSchemas>[0]);
});
afterAll(async () => {
  await server.close();
  if (schemas.undocumented.size > 0)
    console.info(`statuses not described in openapi.json: ${[...schemas.undocumented].sort().join('; ')}`);
});

async function search(query: string): Promise<Search> {
  const reply = await get(`/v1/attorneys?${query}`);
  expect(reply.status).toBe(200);
  return reply.body as Search;
}

async function aListing(): Promise<Result> {
  const body = await search('location=Houston,%20TX&limit=25');
  const withSite = body.results.find((r) => r.website !== null && r.website_domain !== null);
  expect(withSite).toBeDefined();
  return withSite as Result;
}

describe('openapi.json', () => {
  it('is a valid OpenAPI 3.1 document with version 1.0.1', async () => {
    const result = await new Validator().validate(openapiDoc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(openapiDoc.openapi).toMatch(/^3\.1\./);
    expect((openapiDoc.info as { version: string }).version).toBe('1.0.1');
  });
});

describe('headers', () => {
  it('GET /v1/attorneys: CORS, cacheable by shared caches until the next publish, nosniff, rate-limit headers, no ETag', async () => {
    const reply = await get('/v1/attorneys?zip=60601&limit=2');
    const h = reply.headers;
    expect(h.get('access-control-allow-origin')).toBe('*');
    expect(h.get('access-control-expose-headers')).toBe(
      'RateLimit, RateLimit-Policy, Retry-After, ETag, Directory-Version',
    );
    // A week for CloudFront (every publish invalidates /v1/attorneys*), five minutes for a browser's own copy.
    expect(h.get('cache-control')).toBe('public, max-age=300, s-maxage=604800');
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('content-type')).toMatch(/^application\/json/);
    expect(h.get('etag')).toBeNull();
    expect(h.get('ratelimit-policy')).toBe('"hour";q=100000;w=3600');
    const [, left, reset] = RATE_LIMIT_RE.exec(h.get('ratelimit') ?? '') ?? [];
    expect(Number(left)).toBeLessThan(100000);
    expect(Number(reset)).toBeGreaterThan(0);
    expect(Number(reset)).toBeLessThanOrEqual(3600);
  });

  it('errors of /v1/attorneys are never stored by any cache', async () => {
    for (const path of [
      '/v1/attorneys?radius=3',
      '/v1/attorneys?zip=00000',
      '/v1/attorneys',
      '/v1/attorneys?zip=60601&limit=99',
    ]) {
      const reply = await get(path);
      expect(reply.status, path).toBe(400);
      expect(reply.headers.get('cache-control'), path).toBe('no-store');
    }
  });

  it('every response carries the rate-limit headers and nosniff, errors included', async () => {
    for (const path of ['/', '/v1/coverage', '/nope', '/v1/attorneys?radius=3', '/v1/firms/l_aaaaaaaaaaaaaaaa']) {
      const h = (await get(path)).headers;
      expect(h.get('ratelimit-policy'), path).toBe('"hour";q=100000;w=3600');
      expect(h.get('ratelimit'), path).toMatch(RATE_LIMIT_RE);
      expect(h.get('x-content-type-options'), path).toBe('nosniff');
      expect(h.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('firm, coverage and openapi documents: public cache, strong ETag, 304 on If-None-Match', async () => {
    const listing = await aListing();
    // The identity representation has the strong tag; a compressed one carries it weak (see the compression suite).
    const identity = { 'accept-encoding': 'identity' };
    const get = (path: string, init: RequestInit = {}) =>
      request(
        server.url,
        path,
        { ...init, headers: { ...identity, ...(init.headers as Record<string, string> | undefined) } },
        schemas,
      );
    for (const path of [`/v1/firms/${listing.listing_id}`, '/v1/coverage', '/openapi.json']) {
      const first = await get(path);
      expect(first.status, path).toBe(200);
      expect(first.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = first.headers.get('etag') ?? '';
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      const again = await get(path);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.text).toBe(first.text);

      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const cached = await get(path, { headers: { 'if-none-match': inm } });
        expect(cached.status, `${path} If-None-Match: ${inm}`).toBe(304);
        expect(cached.text).toBe('');
        expect(cached.headers.get('etag')).toBe(etag);
        expect(cached.headers.get('cache-control')).toBe('public, max-age=300');
        expect(cached.headers.get('access-control-allow-origin')).toBe('*');
      }
      const stale = await get(path, { headers: { 'if-none-match': '"not-the-tag"' } });
      expect(stale.status).toBe(200);
      expect(stale.text).toBe(first.text);
    }
  });

  it('HEAD answers like GET without a body', async () => {
    const listing = await aListing();
    for (const path of [
      '/v1/coverage',
      `/v1/firms/${listing.listing_id}`,
      '/v1/attorneys?zip=60601&limit=1',
      '/nope',
    ]) {
      const full = await get(path);
      const head = await get(path, { method: 'HEAD' });
      expect(head.status, path).toBe(full.status);
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe(full.headers.get('content-type'));
      expect(head.headers.get('cache-control')).toBe(full.headers.get('cache-control'));
      if (!path.startsWith('/v1/attorneys'))
        expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(full.text)));
    }
  });

  it('wrong method: 405 problem with Allow', async () => {
    for (const [method, path, allow] of [
      ['POST', '/v1/attorneys?zip=60601', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/v1/coverage', 'GET, HEAD, OPTIONS'],
      ['PUT', '/v1/firms/l_aaaaaaaaaaaaaaaa', 'GET, HEAD, OPTIONS'],
      ['GET', '/mcp', 'POST, OPTIONS'],
      ['DELETE', '/mcp', 'POST, OPTIONS'],
    ] as const) {
      const reply = await get(path, { method });
      expect(reply.status, `${method} ${path}`).toBe(405);
      expect(reply.headers.get('allow')).toBe(allow);
      expect((reply.body as Problem).code).toBe('method_not_allowed');
    }
  });

  it('answers a CORS preflight with 204', async () => {
    const reply = await get('/v1/attorneys?zip=60601', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    expect(reply.headers.get('access-control-allow-methods')).toContain('GET');
    expect(reply.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match');
    const unknown = await get('/nope', { method: 'OPTIONS' });
    expect(unknown.status).toBe(404);
  });

  it('a preflight allows the request headers the browser asks for, on REST and on /mcp', async () => {
    const asked = 'X-Requested-With, Authorization, x-custom-trace';
    for (const path of ['/v1/attorneys?zip=60601', '/v1/coverage', '/mcp']) {
      const reply = await get(path, {
        method: 'OPTIONS',
        headers: {
          origin: `${server.url}`,
          'access-control-request-method': path === '/mcp' ? 'POST' : 'GET',
          'access-control-request-headers': asked,
        },
      });
      expect(reply.status, path).toBe(204);
      const allowed = (reply.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const name of asked.toLowerCase().split(/\s*,\s*/)) expect(allowed, `${path} ${name}`).toContain(name);
      expect(reply.headers.get('vary') ?? '', path).toMatch(/Access-Control-Request-Headers/);
    }
    // A malformed list is not echoed: the API's own list is allowed instead.
    const bad = await get('/v1/coverage', {
      method: 'OPTIONS',
      headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'a b, "c"' },
    });
    expect(bad.headers.get('access-control-allow-headers')).toMatch(/If-None-Match/);
  });

  it('serves a small JSON index at /', async () => {
    const reply = await get('/');
    expect(reply.status).toBe(200);
    expect((reply.body as { documentation: string }).documentation).toBe(`${server.url}/openapi.json`);
  });
});

describe('GET /r/{listing_id}', () => {
  it('redirects to the firm site with utm_source, no-store', async () => {
    const listing = await aListing();
    expect(listing.website).toBe(`${server.url}/r/${listing.listing_id}`);
    const reply = await get(`/r/${listing.listing_id}`);
    expect(reply.status).toBe(302);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const location = new URL(reply.headers.get('location') ?? '');
    expect(location.protocol).toMatch(/^https?:$/);
    expect(
      location.hostname === listing.website_domain || location.hostname.endsWith(`.${listing.website_domain}`),
    ).toBe(true);
    expect(location.searchParams.getAll('utm_source')).toEqual(['injury-attorney-directory']);
    expect((await get(`/r/${listing.listing_id}`, { method: 'HEAD' })).status).toBe(302);
  });

  it('keeps other parameters, replaces an existing utm_source, refuses unknown ids', async () => {
    const listing = await aListing();
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    const doc = readFirmDoc(process.env.TEST_SITE_DIR as string, copy.version, listing.listing_id) as FirmDocT;
    const site = `https://${listing.website_domain ?? 'firm.example'}/contact?a=1&utm_source=old&b=x%20y&utm_medium=map#top`;
    doc.firm.website_url = site;
    doc.office.website_url = site;
    const key = writeFirmDoc(copy.dir, copy.version, doc, copy.own);
    recordHash(copy, key.slice(keys.root(copy.version).length));
    const local = await startTestApp({ SITE_DIR: copy.dir });
    try {
      const reply = await request(local.url, `/r/${listing.listing_id}`, {}, schemas);
      expect(reply.status).toBe(302);
      const location = new URL(reply.headers.get('location') ?? '');
      expect(location.pathname).toBe('/contact');
      expect(location.searchParams.get('a')).toBe('1');
      expect(location.searchParams.get('b')).toBe('x y');
      expect(location.searchParams.get('utm_medium')).toBe('map');
      expect(location.searchParams.getAll('utm_source')).toEqual(['injury-attorney-directory']);
      expect((await request(local.url, '/r/l_aaaaaaaaaaaaaaaa', {}, schemas)).status).toBe(404);
      expect((await request(local.url, '/r/https%3A%2F%2Fevil.example', {}, schemas)).status).toBe(404);
    } finally {
      await local.close();
      copy.remove();
    }
  });
});

describe('request log', () => {
  function lines(dir: string): Record<string, unknown>[] {
    return readdirSync(dir)
      .filter((f) => /^requests-\d{4}-\d{2}-\d{2}\.jsonl$/.test(f))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  it('stores location as sent, user agent and a salted address hash, never the raw address', async () => {
    const agent = 'api-edge-test/1.0 (+https://tests.example)';
    const ok = await get('/v1/attorneys?location=Chicago,%20IL&limit=2&src=edge-test', {
      headers: { 'user-agent': agent },
    });
    const bad = await get('/v1/attorneys?location=Qwxyzville,%20TX', { headers: { 'user-agent': agent } });
    expect(bad.status).toBe(400);
    await server.flushLog();
    const files = readdirSync(server.logDir);
    expect(files.every((f) => /^requests-\d{4}-\d{2}-\d{2}\.jsonl$/.test(f))).toBe(true);
    const raw = files.map((f) => readFileSync(join(server.logDir, f), 'utf8')).join('');
    expect(raw).not.toContain('127.0.0.1');
    expect(raw).not.toContain('::1');

    const all = lines(server.logDir);
    const mine = all.filter((l) => l.user_agent === agent);
    expect(mine).toHaveLength(2);
    const [first, second] = mine as [Record<string, unknown>, Record<string, unknown>];
    expect(Object.keys(first).sort()).toEqual(
      [
        'address_hash',
        'covered',
        'endpoint',
        'location',
        'metro',
        'query_id',
        'result_count',
        'src',
        'status',
        'time',
        'user_agent',
        'zip3',
      ].sort(),
    );
    expect(first).toMatchObject({
      endpoint: '/v1/attorneys',
      location: 'Chicago, IL',
      src: 'edge-test',
      covered: true,
      result_count: 2,
      status: 200,
      query_id: (ok.body as Search).query_id,
      // Resolved metro and ZIP3, so research counts need not resolve the location again.
      metro: 'chicago',
      zip3: (ok.body as { location: { zip: string } }).location.zip.slice(0, 3),
    });
    expect(first.zip3).toMatch(/^\d{3}$/);
    expect(second).toMatchObject({
      endpoint: '/v1/attorneys',
      location: 'Qwxyzville, TX',
      status: 400,
      query_id: null,
      covered: null,
      metro: null,
      zip3: null,
    });
    expect(first.address_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(second.address_hash).toBe(first.address_hash);
    expect(Number.isNaN(Date.parse(first.time as string))).toBe(false);
  });

  it('takes the address the trusted proxy appended to X-Forwarded-For only when TRUST_PROXY is set, and hashes it too', async () => {
    for (const trust of ['true', 'false']) {
      const local = await startTestServer({ TRUST_PROXY: trust, RATE_LIMIT_PER_HOUR: '2' });
      try {
        const replies: number[] = [];
        for (const address of ['203.0.113.7', '203.0.113.8', '203.0.113.9']) {
          // The client wrote 10.0.0.1; the proxy appended the address it saw.
          const reply = await request(
            local.url,
            '/v1/coverage',
            { headers: { 'x-forwarded-for': `10.0.0.1, ${address}`, 'user-agent': 'xff' } },
            schemas,
          );
          replies.push(reply.status);
        }
        // Three different forwarded addresses: separate windows when trusted, one shared window (limit 2) when not.
        expect(replies).toEqual(trust === 'true' ? [200, 200, 200] : [200, 200, 429]);
        await local.flushLog();
        const raw = readdirSync(local.logDir)
          .map((f) => readFileSync(join(local.logDir, f), 'utf8'))
          .join('');
        expect(raw).not.toMatch(/203\.0\.113|10\.0\.0\.1|127\.0\.0\.1/);
        const hashes = new Set(lines(local.logDir).map((l) => l.address_hash));
        expect(hashes.size).toBe(trust === 'true' ? 3 : 1);
      } finally {
        await local.close();
      }
    }
  });

  it('cannot be dodged by writing addresses into X-Forwarded-For ahead of the proxy', async () => {
    const local = await startTestServer({ TRUST_PROXY: 'true', RATE_LIMIT_PER_HOUR: '2' });
    try {
      const replies: number[] = [];
      for (let i = 1; i <= 4; i++) {
        const reply = await request(
          local.url,
          '/v1/coverage',
          { headers: { 'x-forwarded-for': `10.0.0.${i}, 198.51.100.7` } },
          schemas,
        );
        replies.push(reply.status);
      }
      expect(replies).toEqual([200, 200, 429, 429]);
    } finally {
      await local.close();
    }
  });

  it('logs MCP tool calls with the same fields', async () => {
    const reply = await get('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'user-agent': 'mcp-log-test',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'find_injury_attorneys', arguments: { location: 'Austin, TX', limit: 2 } },
      }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('ratelimit')).toMatch(RATE_LIMIT_RE);
    await server.flushLog();
    const line = lines(server.logDir).find((l) => l.user_agent === 'mcp-log-test');
    expect(line).toMatchObject({ location: 'Austin, TX', covered: true, result_count: 2, status: 200 });
    expect(String(line?.endpoint)).toMatch(/^\/mcp/);
  });
});

describe('request size', () => {
  // The body limit is the Node adapter's own rule (node-guards.ts): this one needs a socket.
  it('refuses a request body over 64 KiB with 413, declared or streamed', async () => {
    const local = await startTestServer();
    try {
      const post = (init: RequestInit): Promise<Reply> =>
        request(local.url, '/mcp', { method: 'POST', ...init }, schemas);
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(70 * 1024) },
      });
      const declared = await post({ headers: { 'content-type': 'application/json' }, body: big });
      expect(declared.status).toBe(413);
      expect((declared.body as Problem).code).toBe('payload_too_large');
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 80; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
          controller.close();
        },
      });
      const streamed = await post({
        headers: { 'content-type': 'application/json' },
        body: chunks,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
    } finally {
      await local.close();
    }
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After after RATE_LIMIT_PER_HOUR API and tool calls, REST and MCP together', async () => {
    const local = await startTestApp({ RATE_LIMIT_PER_HOUR: '4' });
    try {
      const seen: string[] = [];
      const paths = ['/v1/coverage', '/v1/attorneys?zip=60601&limit=1', '/v1/nope', '/v1/attorneys?radius=1'];
      for (const path of paths) {
        const reply = await request(local.url, path, {}, schemas);
        expect(reply.status, path).not.toBe(429);
        expect(reply.headers.get('ratelimit-policy')).toBe('"hour";q=4;w=3600');
        seen.push(reply.headers.get('ratelimit') ?? '');
      }
      expect(seen.map((s) => RATE_LIMIT_RE.exec(s)?.[1])).toEqual(['3', '2', '1', '0']);
      // A preflight is answered without using the budget.
      expect((await request(local.url, '/v1/coverage', { method: 'OPTIONS' })).status).toBe(204);

      for (const [path, init] of [
        ['/v1/coverage', {}],
        [
          '/mcp',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_coverage","arguments":{}}}',
          },
        ],
        ['/r/l_aaaaaaaaaaaaaaaa', { method: 'HEAD' }],
      ] as const) {
        const limited = await request(local.url, path, init, schemas);
        expect(limited.status, path).toBe(429);
        const [, left, reset] = RATE_LIMIT_RE.exec(limited.headers.get('ratelimit') ?? '') ?? [];
        expect(left).toBe('0');
        expect(Number(reset)).toBeGreaterThan(0);
        expect(limited.headers.get('retry-after')).toBe(reset);
        if (init.method !== 'HEAD') expect((limited.body as Problem).code).toBe('rate_limited');
        expect(limited.headers.get('cache-control')).toBe('no-store');
      }
    } finally {
      await local.close();
    }
  });

  it('RATE_LIMIT_PER_HOUR=0 disables the limit and its headers', async () => {
    const local = await startTestApp({ RATE_LIMIT_PER_HOUR: '0' });
    try {
      for (let i = 0; i < 5; i++) {
        const reply = await request(local.url, '/v1/coverage', {}, schemas);
        expect(reply.status).toBe(200);
        expect(reply.headers.get('ratelimit')).toBeNull();
      }
    } finally {
      await local.close();
    }
  });
});

describe('store failures', () => {
  async function expect503(copy: SiteCopy, paths: string[]): Promise<void> {
    const local = await startTestApp({ SITE_DIR: copy.dir });
    try {
      for (const path of paths) {
        const reply = await request(local.url, path, {}, schemas);
        expect(reply.status, path).toBe(503);
        expect((reply.body as Problem).code).toBe('service_unavailable');
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(reply.headers.get('cache-control')).toBe('no-store');
      }
    } finally {
      await local.close();
      copy.remove();
    }
  }

  it('a corrupt current.json is 503 on every data endpoint', async () => {
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    writeFileSync(join(copy.dir, 'current.json'), '{"schema_version":1,"vers');
    await expect503(copy, [
      '/v1/attorneys?zip=60601',
      '/v1/coverage',
      '/openapi.json',
      '/v1/firms/l_aaaaaaaaaaaaaaaa',
      '/r/l_aaaaaaaaaaaaaaaa',
    ]);
  });

  it('missing cell blocks are 503, never a partial answer', async () => {
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    copy.empty('cells/blocks');
    // The packs too: a cold search reads its blocks from them.
    copy.empty('cells/packs');
    await expect503(copy, ['/v1/attorneys?zip=60601', '/v1/attorneys?location=Houston,%20TX&radius_miles=50']);
  });

  it('a corrupt firm document is 503', async () => {
    const listing = await aListing();
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    const key = firmPackKey(copy.dir, copy.version, listing.listing_id);
    writeFileSync(copy.own(key.slice(keys.root(copy.version).length)), '{"schema_version":2,"prefix":');
    await expect503(copy, [`/v1/firms/${listing.listing_id}`, `/r/${listing.listing_id}`]);
  });
});
