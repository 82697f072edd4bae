/**
 * The limit is spent on answers, over real HTTP on loopback: API calls (/v1/*, /r/*) and MCP tool calls spend it;
 * MCP protocol messages, refused batches, pages, assets and documents do not, under a ceiling of ten times the
 * limit on every request. The favicon, robots.txt and security.txt exist locally and from the Lambda handler.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLambdaEnv } from '../shim/edge/env.ts';
import { createHandler } from '../shim/aws/handler.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { functionUrlEvent } from '../bench/lib/function-url.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function search(id: number | string, location = '60601'): object {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'find_injury_attorneys', arguments: { location, limit: 1 } },
  };
}

async function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const reply = await request(url, '/mcp', {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: reply.body };
}

/** Answers left for this address, read from a request that spends none. */
async function answersLeft(url: string): Promise<number> {
  const reply = await request(url, '/robots.txt', { method: 'HEAD' });
  const left = /^"hour";r=(\d+);t=\d+$/.exec(reply.headers.get('ratelimit') ?? '')?.[1];
  if (left === undefined) throw new Error(`no answer count in ${reply.headers.get('ratelimit')}`);
  return Number(left);
}

describe('an assistant session spends only its tool calls', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_HOUR: '12' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('SDK v1 with the limit at 12: connect, tools/list and 10 searches all answered, 2 answers left', async () => {
    const client = new ClientV1({ name: 'limit-test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${server.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('find_injury_attorneys');
      const zips = ['60601', '10001', '77002', '90012', '33130', '85004', '98104', '30303', '19103', '02108'];
      for (const zip of zips) {
        const result = await client.callTool({ name: 'find_injury_attorneys', arguments: { location: zip, limit: 1 } });
        expect(result.isError ?? false, zip).toBe(false);
        expect(result.structuredContent, zip).toMatchObject({ location: { input: zip } });
      }
    } finally {
      await client.close();
    }
    expect(await answersLeft(server.url)).toBe(2);
  });

  it('SDK v2, each negotiation mode: a session with one search spends one answer', async () => {
    for (const mode of ['legacy', 'auto'] as const) {
      const local = await startTestServer({ RATE_LIMIT_PER_HOUR: '12' });
      try {
        const client = new ClientV2(
          { name: 'limit-test-v2', version: '1.0.0' },
          mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {},
        );
        await client.connect(new TransportV2(new URL(`${local.url}/mcp`)));
        await client.listTools();
        const result = await client.callTool({
          name: 'find_injury_attorneys',
          arguments: { location: '60601', limit: 1 },
        });
        expect(result.isError ?? false).toBe(false);
        await client.close();
        expect(await answersLeft(local.url), mode).toBe(11);
      } finally {
        await local.close();
      }
    }
  });
});

describe('MCP messages that get no result spend nothing', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_HOUR: '200' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('batches refused whole: over 100 messages, a revision without batches, two initialize requests', async () => {
    const before = await answersLeft(server.url);
    const over100 = await postMcp(
      server.url,
      Array.from({ length: 101 }, (_, i) => search(i)),
    );
    expect(over100.status).toBe(400);
    const modern = await postMcp(
      server.url,
      Array.from({ length: 50 }, (_, i) => search(i)),
      { 'mcp-protocol-version': '2026-07-28' },
    );
    expect(modern.status).toBe(400);
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const twoInits = await postMcp(server.url, [initialize, { ...initialize, id: 1 }, search(2)]);
    expect(twoInits.status).toBe(400);
    expect(await answersLeft(server.url)).toBe(before);
  });

  it('a batch whose calls share an id is refused whole, naming the id, and spends nothing', async () => {
    const before = await answersLeft(server.url);
    const shared = await postMcp(
      server.url,
      Array.from({ length: 40 }, () => search(7)),
      { 'mcp-protocol-version': '2025-03-26' },
    );
    expect(shared.status).toBe(400);
    expect(shared.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect(JSON.stringify(shared.body)).toContain('id 7 is used more than once');
    expect(await answersLeft(server.url)).toBe(before);
    // Distinct ids: each call is answered and each spends one.
    const distinct = await postMcp(server.url, [search(1), search(2, '10001')], {
      'mcp-protocol-version': '2025-03-26',
    });
    expect(distinct.status).toBe(200);
    expect((distinct.body as unknown[]).length).toBe(2);
    expect(await answersLeft(server.url)).toBe(before - 2);
  });

  it('an unknown tool is a JSON-RPC error and spends nothing; a bad argument is a tool result and spends one', async () => {
    const before = await answersLeft(server.url);
    const unknown = await postMcp(server.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_lawyers', arguments: {} },
    });
    expect(unknown.body).toMatchObject({ error: { code: -32602 } });
    expect(await answersLeft(server.url)).toBe(before);
    const bad = await postMcp(
      server.url,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'find_injury_attorneys', arguments: { location: '60601', limit: 99 } },
      },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(bad.body).toMatchObject({ result: { isError: true } });
    expect(await answersLeft(server.url)).toBe(before - 1);
  });
});

describe('pages, assets and documents spend nothing; API paths spend one each', () => {
  it('a page load with its assets, the documents, protocol messages and the GET probe of /mcp leave the count alone', async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_HOUR: '12' });
    try {
      const coverage = await request(server.url, '/v1/coverage');
      const slug = (coverage.body as { metros: { slug: string }[] }).metros[0]?.slug ?? '';
      expect(await answersLeft(server.url)).toBe(11);
      const html = { accept: 'text/html' };
      const free: [string, RequestInit][] = [
        ['/', { headers: html }],
        ['/docs', { headers: html }],
        [`/metros/${slug}`, { headers: html }],
        ['/assets/site.css', {}],
        ['/favicon.ico', {}],
        ['/robots.txt', {}],
        ['/.well-known/security.txt', {}],
        ['/openapi.json', {}],
        ['/terms', {}],
        ['/problems/rate_limited', {}],
        ['/nope', {}],
        ['/mcp', { headers: { accept: 'text/event-stream' } }],
        [
          '/v1/coverage',
          { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } },
        ],
      ];
      for (const [path, init] of free) {
        const reply = await request(server.url, path, init);
        expect(reply.status, path).toBeLessThan(path === '/nope' || path === '/mcp' ? 500 : 400);
      }
      for (const method of ['ping', 'tools/list'])
        await postMcp(server.url, { jsonrpc: '2.0', id: 1, method }, { 'mcp-protocol-version': '2025-11-25' });
      await postMcp(
        server.url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-protocol-version': '2025-11-25' },
      );
      expect(await answersLeft(server.url)).toBe(11);
      for (const path of ['/v1/nope', '/r/l_aaaaaaaaaaaaaaaa', '/v1/attorneys?location=60601&limit=1'])
        await request(server.url, path);
      expect(await answersLeft(server.url)).toBe(8);
    } finally {
      await server.close();
    }
  });

  it('every request counts toward a ceiling of ten times the limit; past it any request is 429 naming that policy', async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_HOUR: '2' });
    try {
      for (let i = 0; i < 20; i++)
        expect((await request(server.url, '/robots.txt')).status, `request ${i + 1}`).toBe(200);
      for (const path of ['/robots.txt', '/v1/coverage']) {
        const over = await request(server.url, path);
        expect(over.status, path).toBe(429);
        expect(over.body).toMatchObject({ code: 'rate_limited' });
        expect((over.body as { detail: string }).detail).toContain('More than 20 requests of any kind');
        expect(over.headers.get('ratelimit-policy')).toBe('"hour";q=2;w=3600, "all-hour";q=20;w=3600');
        expect(over.headers.get('ratelimit')).toMatch(/^"hour";r=2;t=\d+, "all-hour";r=0;t=(\d+)$/);
        expect(over.headers.get('retry-after')).toBe(
          /"all-hour";r=0;t=(\d+)$/.exec(over.headers.get('ratelimit') ?? '')?.[1],
        );
      }
    } finally {
      await server.close();
    }
  });
});

describe('favicon, robots.txt and security.txt', () => {
  function checkFiles(
    get: (path: string) => Promise<{ status: number; type: string | null; bytes: Buffer }>,
  ): Promise<void> {
    return (async () => {
      const icon = await get('/favicon.ico');
      expect(icon.status).toBe(200);
      expect(icon.type).toBe('image/x-icon');
      // An ICO directory of one 32x32 image, and that image a PNG.
      expect([...icon.bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
      expect(icon.bytes.subarray(22, 26).toString('latin1')).toBe('\x89PNG');

      const robots = await get('/robots.txt');
      expect(robots.status).toBe(200);
      expect(robots.type).toBe('text/plain; charset=utf-8');
      const rules = robots.bytes.toString('utf8');
      expect(rules).toMatch(/^User-agent: \*$/m);
      expect(rules).toMatch(/^Disallow: \/r\/$/m);
      expect(rules).not.toMatch(/^Disallow: \/v1/m);

      const security = await get('/.well-known/security.txt');
      expect(security.status).toBe(200);
      const text = security.bytes.toString('utf8');
      expect(text).toMatch(/^Contact: mailto:\S+@\S+$/m);
      const expires = Date.parse(/^Expires: (\S+)$/m.exec(text)?.[1] ?? '');
      expect(expires).toBeGreaterThan(Date.now());
      expect(expires).toBeLessThan(Date.now() + 365 * 86_400_000);
      expect(text).toMatch(/^Canonical: https?:\/\/\S+\/\.well-known\/security\.txt$/m);
    })();
  }

  it('are served by the local server', async () => {
    const server = await startTestServer();
    try {
      await checkFiles(async (path) => {
        const res = await fetch(server.url + path, { headers: { 'accept-encoding': 'identity' } });
        return {
          status: res.status,
          type: res.headers.get('content-type'),
          bytes: Buffer.from(await res.arrayBuffer()),
        };
      });
    } finally {
      await server.close();
    }
  });

  it('are served by the Lambda handler (the icon base64-encoded, as Function URLs carry bytes)', async () => {
    const secret = 'k7Qm2Xv9Lp4Rt8Wz3Nc6Hb1Jd5Fg0Sa7Ye2Ui4Oo9';
    const env = loadLambdaEnv({
      SITE_BUCKET: 'directory-site',
      SALT_BUCKET: 'directory-salt',
      ORIGIN_VERIFY_SECRETS: secret,
      PUBLIC_BASE_URL: 'https://directory.example',
    });
    const handler = createHandler(env, {
      store: new FolderStore(process.env.TEST_SITE_DIR as string),
      salt: { saltFor: async () => new Uint8Array(32) },
      log: { write: () => {} },
    });
    await checkFiles(async (path) => {
      const result = await handler(functionUrlEvent({ target: path }, secret));
      const body = result.body ?? '';
      return {
        status: result.statusCode,
        type: result.headers?.['content-type'] ?? null,
        bytes: Buffer.from(body, result.isBase64Encoded ? 'base64' : 'utf8'),
      };
    });
  });
});
