/**
 * Defects found by trying the service as an attacker and an operator would (each failed before its fix): caller input
 * that names JavaScript built-ins, objects missing from the served version and their return, JSON-RPC batches against
 * the rate limit, methods a web Request cannot carry, and what node's HTTP parser refuses.
 */
import { rmSync, renameSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Reply } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { keys } from '../shim/format/site-format.ts';
import { linkSite } from './helpers/site-copy.ts';

type Problem = { status: number; code: string; detail: string };
type Search = { covered: boolean; location: { lat: number; lng: number }; results: { listing_id: string }[] };

const BUILT_INS = Object.getOwnPropertyNames(Object.prototype);
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** One raw HTTP/1.1 exchange over a socket, for what fetch refuses to send; resolves with the whole answer text. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** Status, lower-case headers and parsed JSON body of a raw HTTP answer. */
function parseRaw(text: string): { status: number; headers: Map<string, string>; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) };
}

function mcpCall(id: number, args: Record<string, unknown>): object {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'find_injury_attorneys', arguments: args } };
}

describe('caller input that names JavaScript built-ins', () => {
  it('is an ordinary unknown city, never a 500 (REST)', async () => {
    for (const name of [...BUILT_INS, 'Con Structor']) {
      for (const location of [`${name}, IL`, `${name} TX`]) {
        const reply = await request(server.url, `/v1/attorneys?location=${encodeURIComponent(location)}`);
        expect({ location, status: reply.status, code: (reply.body as Problem).code }).toEqual({
          location,
          status: 400,
          code: 'location_not_understood',
        });
      }
    }
  });

  it('is an unknown parameter, named as sent, with no built-in in the hint', async () => {
    for (const name of BUILT_INS) {
      const reply = await request(server.url, `/v1/attorneys?zip=60601&${encodeURIComponent(name)}=1`);
      const problem = reply.body as Problem & { parameter: string };
      expect({ name, status: reply.status, code: problem.code, parameter: problem.parameter }).toEqual({
        name,
        status: 400,
        code: 'unknown_parameter',
        parameter: name,
      });
      expect(problem.detail).not.toMatch(/native code|function|\[object/);
    }
  });

  it('is an ordinary unknown city over MCP: an isError result, not a protocol fault', async () => {
    const reply = await request(server.url, '/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(mcpCall(1, { location: 'constructor, IL' })),
    });
    expect(reply.status).toBe(200);
    const result = (reply.body as { result: { isError: boolean; content: { text: string }[] } }).result;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/No place named "constructor"/);
  });
});

describe('objects missing from the served version', () => {
  it('are 503 with Retry-After (never a false 400 or 404), and answers come back once the objects return, without a restart', async () => {
    const found = (await request(server.url, '/v1/attorneys?zip=97201&limit=1')).body as Search;
    const listing = found.results[0]?.listing_id as string;
    expect(listing).toMatch(/^l_/);
    const checks: [string, number][] = [
      ['/v1/attorneys?zip=97201', 200],
      ['/v1/attorneys?location=Minneapolis,%20MN', 200],
      [`/v1/firms/${listing}`, 200],
      [`/r/${listing}`, 302],
    ];
    for (const [path, status] of checks) expect((await request(server.url, path)).status, path).toBe(status);
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    const local = await startTestServer({ SITE_DIR: copy.dir });
    try {
      const moved: [string, string][] = [
        [join(copy.own('gazetteer/zip'), '972.json'), ''],
        [join(copy.own('gazetteer/city/MN'), 'l.json'), ''], // the document holding Minneapolis
        [copy.own(firmPackKey(copy.dir, copy.version, listing).slice(keys.root(copy.version).length)), ''],
      ];
      for (const pair of moved) {
        pair[1] = `${pair[0]}.away`;
        renameSync(pair[0], pair[1]);
      }
      for (const [path] of checks) {
        const reply = await request(local.url, path);
        expect({ path, status: reply.status, code: (reply.body as Problem).code }).toEqual({
          path,
          status: 503,
          code: 'service_unavailable',
        });
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // A search still lists the firm whose document is missing: the 503 is the only honest answer for its link.
      const near = `/v1/attorneys?lat=${found.location.lat}&lng=${found.location.lng}&limit=25`;
      expect(((await request(local.url, near)).body as Search).results.map((r) => r.listing_id)).toContain(listing);

      for (const [from, to] of moved) renameSync(to, from);
      for (const [path, status] of checks)
        expect((await request(local.url, path)).status, `${path} after restore`).toBe(status);
    } finally {
      await local.close();
      copy.remove();
    }
  });

  it('a listings bucket that is missing is 503, while an unknown listing stays 404', async () => {
    const copy = linkSite(process.env.TEST_SITE_DIR as string);
    const local = await startTestServer({ SITE_DIR: copy.dir });
    try {
      expect((await request(local.url, '/v1/firms/l_aaaaaaaaaaaaaaaa')).status).toBe(404);
      const buckets = copy.own('listings');
      for (const f of readdirSync(buckets)) rmSync(join(buckets, f));
      // Bucket "b" was never read (bucket "a" is cached, as an object of an immutable version may be).
      expect((await request(local.url, '/v1/firms/l_bbbbbbbbbbbbbbbb')).status).toBe(503);
    } finally {
      await local.close();
      copy.remove();
    }
  });
});

describe('JSON-RPC batches against the rate limit', () => {
  it('count every tool call, and a batch larger than what is left is refused with 429', async () => {
    const local = await startTestServer({ RATE_LIMIT_PER_HOUR: '6' });
    try {
      const post = (body: unknown): Promise<Reply> =>
        request(local.url, '/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(body),
        });
      const first = await post([
        mcpCall(1, { zip: '60601', limit: 1 }),
        mcpCall(2, { zip: '10001', limit: 1 }),
        mcpCall(3, { zip: '77002', limit: 1 }),
      ]);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit')).toMatch(/^"hour";r=3;t=\d+$/);
      const tooBig = await post(Array.from({ length: 4 }, (_, i) => mcpCall(10 + i, { zip: '60601', limit: 1 })));
      expect(tooBig.status).toBe(429);
      expect((tooBig.body as Problem).code).toBe('rate_limited');
      expect(Number(tooBig.headers.get('retry-after'))).toBeGreaterThan(0);
      // The refused batch spent nothing: three single requests still fit.
      for (let i = 0; i < 3; i++) expect((await request(local.url, '/v1/coverage')).status).toBe(200);
      expect((await request(local.url, '/v1/coverage')).status).toBe(429);
    } finally {
      await local.close();
    }
  });
});

describe('methods and requests the HTTP layer refuses', () => {
  it('TRACE is a 405 problem, counted and logged like any request', async () => {
    const local = await startTestServer({ RATE_LIMIT_PER_HOUR: '10' });
    try {
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            `${local.url}/v1/attorneys?zip=60601`,
            { method: 'TRACE', headers: { 'user-agent': 'trace-test' } },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (body += c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
            },
          );
          req.on('error', reject);
          req.end();
        },
      );
      expect(answer.status).toBe(405);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((JSON.parse(answer.body) as Problem).code).toBe('method_not_allowed');
      expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(answer.headers.ratelimit).toMatch(/^"hour";r=9;/);
      await local.flushLog();
      const logged = readdirSync(local.logDir)
        .flatMap((f) => readFileSync(join(local.logDir, f), 'utf8').split('\n'))
        .filter((l) => l.includes('trace-test'));
      expect(logged.map((l) => (JSON.parse(l) as { status: number }).status)).toEqual([405]);
    } finally {
      await local.close();
    }
  });

  it('oversized headers, a bad request line, an unknown method and a missing Host get problem+json with CORS and RateLimit headers', async () => {
    const cases: [string, string, number][] = [
      ['oversized headers', `GET /v1/coverage HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['control bytes in the path', 'GET /v1/\x01cov HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['unknown method', 'FROB /v1/coverage HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['lower-case method', 'get /v1/coverage HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['CONNECT', 'CONNECT /v1/coverage HTTP/1.1\r\nHost: x\r\n\r\n', 405],
      ['missing Host', 'GET /v1/coverage HTTP/1.1\r\n\r\n', 400],
    ];
    for (const [what, bytes, status] of cases) {
      const answer = parseRaw(await raw(server.url, bytes));
      expect({ what, status: answer.status }).toEqual({ what, status });
      expect(answer.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
      expect((answer.body as Problem).status, what).toBe(status);
      expect((answer.body as Problem).code, what).toMatch(/^[a-z_]+$/);
      expect(answer.headers.get('access-control-allow-origin'), what).toBe('*');
      expect(answer.headers.get('ratelimit-policy'), what).toMatch(/^"hour";q=\d+;w=3600$/);
    }
  });
});
