/**
 * /mcp over real HTTP on loopback: the v1 SDK client (2025-11-25), the v2 client in each negotiation mode,
 * and raw JSON-RPC POSTs without session headers, against the REST answers for the same arguments; the request log
 * and the shared rate limit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, STACK_TRACE_RE } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { expectCompactCoverage, expectCompactFirm, expectCompactSearch } from './helpers/compact-check.ts';
import { MAX_OTHER_OFFICES } from '../shim/mcp/answer-text.ts';

type Json = Record<string, unknown>;

interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/** The calls both SDK generations offer, behind one shape. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool(params: { name: string; arguments: Json }): Promise<ToolResult>;
  close(): Promise<void>;
  protocolVersion(): string | undefined;
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function restJson(path: string): Promise<{ status: number; body: Json }> {
  const reply = await request(server.url, path);
  return { status: reply.status, body: reply.body as Json };
}

function withoutQueryId(body: unknown): Json {
  const { query_id: _ignored, ...rest } = body as Json;
  return rest;
}

function textOf(result: ToolResult): string {
  return (result.content as { type: string; text: string }[])[0]?.text ?? '';
}

async function v1Client(): Promise<AnyClient> {
  const client = new ClientV1({ name: 'mcp-http-test-v1', version: '1.0.0' });
  const transport = new TransportV1(new URL(`${server.url}/mcp`));
  await client.connect(transport);
  return {
    listTools: () => client.listTools(),
    callTool: (p) => client.callTool(p) as Promise<ToolResult>,
    close: () => client.close(),
    protocolVersion: () => transport.protocolVersion,
  };
}

async function v2Client(mode: 'legacy' | 'auto' | 'pin'): Promise<AnyClient> {
  const client = new ClientV2(
    { name: 'mcp-http-test-v2', version: '1.0.0' },
    mode === 'legacy' ? {} : { versionNegotiation: { mode: mode === 'auto' ? 'auto' : { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(new URL(`${server.url}/mcp`)));
  return {
    listTools: () => client.listTools(),
    callTool: (p) => client.callTool(p) as Promise<ToolResult>,
    close: () => client.close(),
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
  };
}

const CLIENTS: [string, () => Promise<AnyClient>, string][] = [
  ['v1 SDK client', v1Client, '2025-11-25'],
  ['v2 client, default (2025 handshake)', () => v2Client('legacy'), '2025-11-25'],
  ['v2 client, auto negotiation', () => v2Client('auto'), '2026-07-28'],
  ['v2 client, pinned to 2026-07-28', () => v2Client('pin'), '2026-07-28'],
];

describe.each(CLIENTS)('%s', (_label, connect, expectedVersion) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it(`negotiates ${expectedVersion} and lists the three tools`, async () => {
    expect(client.protocolVersion()).toBe(expectedVersion);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['find_injury_attorneys', 'get_firm', 'get_coverage']);
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: 'object' });
  });

  it('find_injury_attorneys equals GET /v1/attorneys for the same arguments (city, ZIP, point, uncovered)', async () => {
    const cases: [Json, string][] = [
      [{ location: 'Chicago, IL', limit: 5 }, 'location=Chicago%2C%20IL&limit=5'],
      [{ zip: '77002', radius_miles: 7.5 }, 'zip=77002&radius_miles=7.5'],
      [{ lat: 33.75, lng: -84.39, limit: 25, src: 'mcp-test' }, 'lat=33.75&lng=-84.39&limit=25&src=mcp-test'],
      [{ location: '44.08,-103.23' }, 'location=44.08%2C-103.23'],
    ];
    for (const [args, query] of cases) {
      const result = await client.callTool({ name: 'find_injury_attorneys', arguments: args });
      const rest = await restJson(`/v1/attorneys?${query}`);
      expect(rest.status).toBe(200);
      expect(result.isError).toBeFalsy();
      expectCompactSearch(result.structuredContent, rest.body);
      // format "json": the REST body, as structuredContent and as the text.
      const asJson = await client.callTool({ name: 'find_injury_attorneys', arguments: { ...args, format: 'json' } });
      expect(withoutQueryId(asJson.structuredContent)).toEqual(withoutQueryId(rest.body));
      expect(JSON.parse(textOf(asJson))).toEqual(asJson.structuredContent);
    }
  });

  it('get_firm and get_coverage equal the REST documents', async () => {
    const search = await restJson('/v1/attorneys?location=Chicago%2C%20IL&limit=2');
    const id = (search.body.results as { listing_id: string }[])[0]?.listing_id ?? '';
    const restFirm = (await restJson(`/v1/firms/${id}`)).body;
    const firm = await client.callTool({ name: 'get_firm', arguments: { listing_id: id } });
    expectCompactFirm(firm.structuredContent, restFirm, MAX_OTHER_OFFICES);
    const firmJson = await client.callTool({ name: 'get_firm', arguments: { listing_id: id, format: 'json' } });
    expect(firmJson.structuredContent).toEqual(restFirm);
    // With the person's point, as REST's ?lat=&lng=: distances, nearest first.
    const near = await client.callTool({
      name: 'get_firm',
      arguments: { listing_id: id, lat: 41.9, lng: -87.7, format: 'json' },
    });
    expect(near.structuredContent).toEqual((await restJson(`/v1/firms/${id}?lat=41.9&lng=-87.7`)).body);
    const restCoverage = (await restJson('/v1/coverage')).body;
    const coverage = await client.callTool({ name: 'get_coverage', arguments: {} });
    expectCompactCoverage(coverage.structuredContent, restCoverage);
    const coverageJson = await client.callTool({ name: 'get_coverage', arguments: { format: 'json' } });
    expect(coverageJson.structuredContent).toEqual(restCoverage);
  });

  it('bad arguments and an unknown listing are isError results with the REST problem detail', async () => {
    const cases: [string, Json, string][] = [
      [
        'find_injury_attorneys',
        { location: 'Chicago, IL', radius_miles: 51 },
        '/v1/attorneys?location=Chicago%2C%20IL&radius_miles=51',
      ],
      [
        'find_injury_attorneys',
        { location: 'Chicago, IL', radius: 10 },
        '/v1/attorneys?location=Chicago%2C%20IL&radius=10',
      ],
      ['find_injury_attorneys', {}, '/v1/attorneys'],
      ['get_firm', { listing_id: 'l_aaaaaaaaaaaaaaaa' }, '/v1/firms/l_aaaaaaaaaaaaaaaa'],
    ];
    for (const [name, args, path] of cases) {
      const result = await client.callTool({ name, arguments: args });
      const rest = await restJson(path);
      expect(rest.status).toBeGreaterThanOrEqual(400);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(rest.body.detail);
    }
  });

  it('an unknown tool is rejected as a protocol error', async () => {
    await expect(client.callTool({ name: 'recommend_best_lawyer', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

describe('raw JSON-RPC POSTs without session headers', () => {
  async function post(
    message: Json,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: Json }> {
    const reply = await request(server.url, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(message),
    });
    return { status: reply.status, headers: reply.headers, body: (reply.body ?? {}) as Json };
  }

  const args = { location: 'Chicago, IL', limit: 3 };

  it('2025-era: initialize, then a tools/call on a new connection, answered as JSON with no session id', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.headers.get('cache-control')).toBe('no-store');
    expect(init.headers.get('ratelimit-policy')).toBeTruthy();

    const call = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find_injury_attorneys', arguments: args } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toMatch(/^application\/json/);
    const rest = await restJson('/v1/attorneys?location=Chicago%2C%20IL&limit=3');
    expectCompactSearch((call.body.result as Json).structuredContent, rest.body);
  });

  it('2026-07-28: a tools/call carrying the per-request envelope, with no handshake at all', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 'a',
        method: 'tools/call',
        params: { name: 'find_injury_attorneys', arguments: args, _meta: meta },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'find_injury_attorneys' },
    );
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toMatch(/^application\/json/);
    expect(call.headers.get('mcp-session-id')).toBeNull();
    const rest = await restJson('/v1/attorneys?location=Chicago%2C%20IL&limit=3');
    expectCompactSearch((call.body.result as Json).structuredContent, rest.body);
  });

  it('GET and DELETE answer 405 with Allow naming POST; a foreign Origin 403', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await request(server.url, '/mcp', { method, headers: { accept: 'text/event-stream' } });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toMatch(/\bPOST\b/);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const foreign = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(JSON.stringify(foreign.body)).not.toMatch(STACK_TRACE_RE);
  });

  it('tool calls reach the request log with the tool, location, query id and status', async () => {
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'find_injury_attorneys', arguments: { zip: '60601', src: 'log-check' } },
      },
      { 'mcp-protocol-version': '2025-11-25', 'user-agent': 'mcp-log-test/1' },
    );
    const queryId = ((call.body.result as Json).structuredContent as Json).query_id;
    await server.flushLog();
    const lines = readdirSync(server.logDir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(server.logDir, f), 'utf8').split('\n').filter(Boolean))
      .map((l) => JSON.parse(l) as Json);
    const line = lines.find((l) => l.query_id === queryId);
    expect(line).toMatchObject({
      endpoint: '/mcp find_injury_attorneys',
      location: '60601',
      src: 'log-check',
      covered: true,
      status: 200,
      user_agent: 'mcp-log-test/1',
    });
    expect(JSON.stringify(line)).not.toContain('127.0.0.1');
  });
});

describe('the shared rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMIT_PER_HOUR: '4' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('counts REST and MCP together and answers 429 on /mcp', async () => {
    const mcp = (): Promise<Response> =>
      fetch(`${limited.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_coverage', arguments: {} },
        }),
      });
    expect((await fetch(`${limited.url}/v1/coverage`)).status).toBe(200);
    expect((await fetch(`${limited.url}/v1/coverage`)).status).toBe(200);
    expect((await mcp()).status).toBe(200);
    expect((await mcp()).status).toBe(200);
    const over = await mcp();
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await over.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await fetch(`${limited.url}/v1/coverage`)).status).toBe(429);
  });
});
