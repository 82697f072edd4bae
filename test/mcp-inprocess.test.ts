/**
 * The /mcp route called in-process with web Requests, over the generated sample site: both protocol generations
 * (2025 initialize handshake, 2026-07-28 per-request envelope), tool results equal to the Service's answers,
 * errors as a REST caller would see them, and the HTTP-level gates (405, 403, 400).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../shim/contract/errors.ts';
import { createService } from '../shim/answer/service-impl.ts';
import type { Service } from '../shim/answer/service.ts';
import type { RequestInfo } from '../shim/edge/edge-types.ts';
import { createMcpRoute } from '../shim/mcp/route.ts';
import type { ToolCallRecord } from '../shim/mcp/tools.ts';
import { toApiError } from '../shim/contract/errors.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { MAX_OTHER_OFFICES } from '../shim/mcp/answer-text.ts';
import { expectCompactCoverage, expectCompactFirm, expectCompactSearch } from './helpers/compact-check.ts';
import { StoreError, type Store } from '../shim/store/types.ts';

const BASE = 'http://127.0.0.1:8787';
const INFO: RequestInfo = { clientAddress: '192.0.2.7' };
const MODERN = '2026-07-28';
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

type Json = Record<string, unknown>;
type Route = (request: Request, info: RequestInfo) => Promise<Response>;
interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

let service: Service;
let route: Route;
const logged: { call: ToolCallRecord; request: Request; info: RequestInfo }[] = [];

beforeAll(() => {
  const dir = process.env.TEST_SITE_DIR;
  if (dir === undefined) throw new Error('TEST_SITE_DIR is not set: run through vitest (test/global-setup.ts)');
  service = createService(createSiteSource(new FolderStore(dir)));
  route = createMcpRoute(service, {
    publicBaseUrl: BASE,
    allowedOrigins: ['https://assistant.example'],
    onToolCall: (call, request, info) => logged.push({ call, request, info }),
  });
});

/** One message to /mcp as a 2025-era client sends it (no envelope; the header after initialize). */
async function send(target: Route, message: Json, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await target(
    new Request(`${BASE}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(message),
    }),
    INFO,
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

let nextId = 1;
/** A request in one generation: 2025-era (`version` header, no envelope) or 2026-07-28 (envelope + standard headers). */
function rpc(version: string, method: string, params: Json = {}, target?: Route): Promise<Answer> {
  const id = nextId++;
  if (version !== MODERN)
    return send(target ?? route, { jsonrpc: '2.0', id, method, params }, { 'mcp-protocol-version': version });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name;
  return send(target ?? route, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, headers);
}

function result(answer: Answer): Json {
  expect(answer.body.error, JSON.stringify(answer.body.error)).toBeUndefined();
  return answer.body.result as Json;
}

function callTool(version: string, name: string, args: Json, target?: Route): Promise<Json> {
  return rpc(version, 'tools/call', { name, arguments: args }, target).then(result);
}

/** The problem a REST caller gets for the same arguments: the ApiError the shared Service rejects with. */
async function restDetail(call: () => Promise<unknown>): Promise<string> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).detail;
}

function withoutQueryId(body: Json): Json {
  const { query_id: _ignored, ...rest } = body;
  return rest;
}

const COVERED = { location: 'Chicago, IL', limit: 5 };
const UNCOVERED = { lat: 44.08, lng: -103.23 }; // Rapid City, SD: no measured metro

describe('2025-era clients (initialize handshake, no session)', () => {
  it.each(LEGACY_VERSIONS)('initialize answers %s with the tools capability and no session id', async (version) => {
    const answer = await send(route, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const init = result(answer);
    expect(init.protocolVersion).toBe(version);
    expect(init.capabilities).toMatchObject({ tools: {} });
    expect(init.serverInfo).toMatchObject({ name: 'injury-attorney-directory', version: '1.0.1' });
    expect(String(init.instructions)).toMatch(/not a recommendation/);

    const initialized = await send(
      route,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-protocol-version': version },
    );
    expect(initialized.status).toBe(202);
  });

  it('a request with no MCP-Protocol-Version header is served (2025-03-26 default)', async () => {
    const answer = await send(route, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(answer.status).toBe(200);
    expect((result(answer).tools as Json[]).map((t) => t.name)).toEqual([
      'find_injury_attorneys',
      'get_firm',
      'get_coverage',
    ]);
  });
});

describe.each(['2025-11-25', '2025-06-18', MODERN])('protocol %s', (version) => {
  it('tools/list advertises the REST bounds, output schemas and read-only annotations', async () => {
    const tools = result(await rpc(version, 'tools/list')).tools as Json[];
    expect(tools.map((t) => t.name)).toEqual(['find_injury_attorneys', 'get_firm', 'get_coverage']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      // Plain roots (clients read inputSchema.properties) and no 2020-12-only tuples (draft-07 validators reject them).
      expect(tool.inputSchema).not.toHaveProperty('$ref');
      expect(tool.outputSchema).not.toHaveProperty('$ref');
      expect(JSON.stringify(tool.outputSchema)).not.toContain('prefixItems');
      expect(String(tool.description).length).toBeGreaterThan(100);
    }
    const find = tools[0] as {
      inputSchema: { properties: Record<string, Json> };
      outputSchema: { anyOf: { required?: string[]; description?: string }[] };
      description: string;
    };
    expect(find.inputSchema.properties.radius_miles).toMatchObject({
      type: 'number',
      minimum: 1,
      maximum: 50,
      default: 15,
    });
    expect(find.inputSchema.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 25, default: 10 });
    expect(find.inputSchema.properties.zip).toMatchObject({ type: 'string', pattern: '^\\d{5}$' });
    expect(find.inputSchema.properties.lat).toMatchObject({ minimum: -90, maximum: 90 });
    expect(find.inputSchema.properties.src).toMatchObject({ maxLength: 100 });
    expect(find.inputSchema.properties.practice_area).toMatchObject({ enum: ['personal_injury'] });
    // The compact form, or with format "json" the REST body (described in /openapi.json).
    expect(find.outputSchema.anyOf[0]?.required).toEqual([
      'query_id',
      'covered',
      'location',
      'radius_miles_used',
      'firms_within_radius',
      'order',
      'results',
      'disclosure',
      'relaying',
    ]);
    expect(find.outputSchema.anyOf[1]?.description).toMatch(/format "json".*GET \/v1\/attorneys/);
    // The caller rules the issue asks the descriptions to carry.
    expect(find.description).toMatch(/own/);
    expect(find.description).toMatch(/covered is false/);
    expect(find.description).toMatch(/several firms/);
    expect(find.description).toMatch(/disclosure/);
    expect(find.description).toMatch(/exactly as returned/);
    expect(find.description).toMatch(/distance only/);
    expect(find.description).toMatch(/not a recommendation/);
  });

  it('find_injury_attorneys returns the Service answer as structuredContent, and as JSON text with format "json"', async () => {
    const call = await callTool(version, 'find_injury_attorneys', COVERED);
    expect(call.isError).toBeFalsy();
    const structured = call.structuredContent as Json;
    const expected = (await service.findAttorneys(COVERED, { publicBaseUrl: BASE })) as unknown as Json;
    expectCompactSearch(structured, expected);
    expect(structured.covered).toBe(true);
    expect((structured.results as Json[]).length).toBeGreaterThan(1);
    const content = call.content as { type: string; text: string }[];
    expect(content[0]?.type).toBe('text');
    expect(content[0]?.text).toContain((structured.results as { name: string }[])[0]?.name);
    const asJson = await callTool(version, 'find_injury_attorneys', { ...COVERED, format: 'json' });
    expect(withoutQueryId(asJson.structuredContent as Json)).toEqual(withoutQueryId(expected));
    expect(JSON.parse((asJson.content as { text: string }[])[0]?.text ?? '')).toEqual(asJson.structuredContent);
  });

  it('an uncovered location is covered: false with no results, not an error', async () => {
    const call = await callTool(version, 'find_injury_attorneys', UNCOVERED);
    expect(call.isError).toBeFalsy();
    expect(call.structuredContent).toMatchObject({ covered: false, results: [] });
  });

  it('get_firm and get_coverage return the Service documents', async () => {
    const found = (await service.findAttorneys(COVERED, { publicBaseUrl: BASE })).results[0];
    expect(found).toBeDefined();
    const expected = await service.getFirm(found?.listing_id ?? '', { publicBaseUrl: BASE });
    const firm = await callTool(version, 'get_firm', { listing_id: found?.listing_id });
    expectCompactFirm(firm.structuredContent, expected, MAX_OTHER_OFFICES);
    const firmJson = await callTool(version, 'get_firm', { listing_id: found?.listing_id, format: 'json' });
    expect(firmJson.structuredContent).toEqual(expected);
    const coverageExpected = await service.getCoverage({ publicBaseUrl: BASE });
    const coverage = await callTool(version, 'get_coverage', {});
    expectCompactCoverage(coverage.structuredContent, coverageExpected);
    const coverageJson = await callTool(version, 'get_coverage', { format: 'json' });
    expect(coverageJson.structuredContent).toEqual(coverageExpected);
    expect(JSON.parse((coverageJson.content as { text: string }[])[0]?.text ?? '')).toEqual(coverageExpected);
  });

  it.each<[string, Json]>([
    ['radius out of range', { ...COVERED, radius_miles: 51 }],
    ['fractional limit', { ...COVERED, limit: 2.5 }],
    ['limit as a string of letters', { ...COVERED, limit: 'ten' }],
    ['short zip', { zip: '6060' }],
    ['two location forms', { location: 'Chicago, IL', zip: '60601' }],
    ['typo in a parameter name', { location: 'Chicago, IL', radius: 10 }],
    ['no location', {}],
    ['unsupported practice area', { ...COVERED, practice_area: 'medical_malpractice' }],
    ['lat without lng', { lat: 41.88 }],
    ['unknown city', { location: 'Nowhereville, ZZ' }],
  ])('bad arguments (%s) give isError with the REST detail', async (_label, args) => {
    const call = await callTool(version, 'find_injury_attorneys', args);
    expect(call.isError).toBe(true);
    expect(call.structuredContent).toBeUndefined();
    expect((call.content as { text: string }[])[0]?.text).toBe(
      await restDetail(() => service.findAttorneys(args, { publicBaseUrl: BASE })),
    );
  });

  it('an unknown listing gives isError with the REST not_found detail', async () => {
    const call = await callTool(version, 'get_firm', { listing_id: 'l_aaaaaaaaaaaaaaaa' });
    expect(call.isError).toBe(true);
    expect((call.content as { text: string }[])[0]?.text).toBe(
      await restDetail(() => service.getFirm('l_aaaaaaaaaaaaaaaa', { publicBaseUrl: BASE })),
    );
  });

  it('an unknown tool is a JSON-RPC error naming the tools, not a tool result', async () => {
    const answer = await rpc(version, 'tools/call', { name: 'find_lawyers', arguments: {} });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toBeUndefined();
    expect(answer.body.error).toMatchObject({ code: -32602 });
    expect(String((answer.body.error as Json).message)).toContain('find_injury_attorneys');
  });

  it('an unknown method is a JSON-RPC method-not-found error', async () => {
    const answer = await rpc(version, 'lawyers/recommend');
    expect(answer.body.result).toBeUndefined();
    expect(answer.body.error).toMatchObject({ code: -32601 });
    // In-band (200) in the 2025 transport; the 2026-07-28 validation ladder answers it with 404.
    expect(answer.status).toBe(version === MODERN ? 404 : 200);
  });
});

describe('2026-07-28 discovery', () => {
  it('server/discover offers 2026-07-28 and the tools capability', async () => {
    const discover = result(await rpc(MODERN, 'server/discover'));
    expect(discover.supportedVersions).toContain(MODERN);
    expect(discover.capabilities).toMatchObject({ tools: {} });
  });
});

describe('tool calls are reported for the request log', () => {
  it('reports tool, location sent, src, covered, count, status and the request it came on', async () => {
    logged.length = 0;
    const ok = await callTool('2025-11-25', 'find_injury_attorneys', { ...COVERED, src: 'test-suite' });
    await callTool(MODERN, 'find_injury_attorneys', { zip: '6060' });
    await callTool('2025-11-25', 'get_firm', { listing_id: 'l_aaaaaaaaaaaaaaaa' });
    await callTool(MODERN, 'get_coverage', {});
    expect(logged.map((l) => l.call)).toEqual([
      {
        tool: 'find_injury_attorneys',
        args: { ...COVERED, src: 'test-suite' },
        query_id: (ok.structuredContent as Json).query_id,
        location: 'Chicago, IL',
        src: 'test-suite',
        covered: true,
        result_count: ((ok.structuredContent as Json).results as unknown[]).length,
        metro: 'chicago',
        zip3: ((ok.structuredContent as Json).location as { zip: string }).zip.slice(0, 3),
        status: 200,
      },
      {
        tool: 'find_injury_attorneys',
        args: { zip: '6060' },
        query_id: null,
        location: '6060',
        src: null,
        covered: null,
        result_count: null,
        metro: null,
        zip3: null,
        status: 400,
      },
      {
        tool: 'get_firm',
        args: { listing_id: 'l_aaaaaaaaaaaaaaaa' },
        query_id: null,
        location: null,
        src: null,
        covered: null,
        result_count: null,
        metro: null,
        zip3: null,
        status: 404,
      },
      {
        tool: 'get_coverage',
        args: {},
        query_id: null,
        location: null,
        src: null,
        covered: null,
        result_count: null,
        metro: null,
        zip3: null,
        status: 200,
      },
    ]);
    for (const l of logged) {
      expect(l.info).toEqual(INFO);
      expect(l.request.url).toBe(`${BASE}/mcp`);
    }
  });

  it('tools/list and the handshake are not tool calls', async () => {
    logged.length = 0;
    await rpc('2025-11-25', 'tools/list');
    await rpc(MODERN, 'tools/list');
    expect(logged).toEqual([]);
  });
});

describe('a store failure', () => {
  const broken: Store = {
    kind: 'broken',
    get: async (key) => {
      throw new StoreError('disk on fire', key, { cause: new Error('EIO at /secret/path') });
    },
  };

  it.each(['2025-11-25', MODERN])('is an isError result with a 503 message and no internals (%s)', async (version) => {
    const calls: ToolCallRecord[] = [];
    const failing = createMcpRoute(createService(createSiteSource(broken)), {
      publicBaseUrl: BASE,
      onToolCall: (c) => calls.push(c),
    });
    for (const [name, args] of [
      ['find_injury_attorneys', COVERED],
      ['get_coverage', {}],
    ] as const) {
      const call = await callTool(version, name, args, failing);
      expect(call.isError).toBe(true);
      const text = (call.content as { text: string }[])[0]?.text ?? '';
      // The same detail the REST 503 problem gives.
      expect(text).toBe(toApiError(new StoreError('x', 'k')).detail);
      expect(text).not.toMatch(/disk on fire|secret|EIO|\bat\s/);
    }
    expect(calls.map((c) => c.status)).toEqual([503, 503]);
  });
});

describe('HTTP gates', () => {
  it.each(['GET', 'DELETE', 'PUT'])('%s answers 405 problem+json with Allow: POST', async (method) => {
    const response = await route(
      new Request(`${BASE}/mcp`, { method, headers: { accept: 'text/event-stream' } }),
      INFO,
    );
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
    expect(await response.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it.each(['https://evil.example', 'http://127.0.0.1:9999', 'null', 'not a url'])(
    'a foreign Origin (%s) gets 403',
    async (origin) => {
      const answer = await send(route, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin });
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
      expect(answer.body).toMatchObject({ status: 403 });
    },
  );

  it.each([BASE, 'https://assistant.example'])('an allowed Origin (%s) is served', async (origin) => {
    const answer = await send(route, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin });
    expect(answer.status).toBe(200);
    expect(result(answer).tools).toHaveLength(3);
  });

  it('an unsupported MCP-Protocol-Version header gets 400', async () => {
    const answer = await send(
      route,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect(answer.status).toBe(400);
    expect(String((answer.body.error as Json).message)).toMatch(/Unsupported protocol version: 1999-01-01/);
  });

  it('an unsupported envelope revision gets 400 naming the supported one', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2099-01-01',
      'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const answer = await send(
      route,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } });
  });

  it('a body that is not JSON gets a JSON-RPC parse error; a non-JSON media type 415', async () => {
    const bad = await route(
      new Request(`${BASE}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":',
      }),
      INFO,
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    const text = await route(
      new Request(`${BASE}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }),
      INFO,
    );
    expect(text.status).toBe(415);
  });

  it.each<[Record<string, string>]>([[{ accept: 'application/json' }], [{}]])(
    'a client accepting only JSON (%o) gets JSON, not 406',
    async (accept) => {
      const response = await route(
        new Request(`${BASE}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25', ...accept },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'get_coverage', arguments: {} },
          }),
        }),
        INFO,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expectCompactCoverage(
        ((await response.json()) as { result: Json }).result.structuredContent,
        await service.getCoverage({ publicBaseUrl: BASE }),
      );
    },
  );

  it('an oversized body is refused before parsing', async () => {
    const big = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_injury_attorneys', arguments: { location: 'x'.repeat(100_000) } },
    };
    const answer = await send(route, big, { 'mcp-protocol-version': '2025-11-25' });
    expect(answer.status).toBe(413);
  });
});
