/**
 * The MCP edge checks what the SDK would choke on before it reads it: tool arguments nested thousands of levels deep or
 * too large are a tool error carrying `invalid_parameter` (never "Maximum call stack size exceeded", internal_error or
 * a 500) that spends no answer; caller mistakes in a message (initialize without params, arguments that are not an
 * object) are -32602 with one plain sentence, never -32603 or a schema dump. Over raw HTTP on both protocol revisions
 * and through the official clients (SDK v1, v2).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH } from '../shim/mcp/message-guard.ts';
import { STACK_TRACE_RE } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

type Json = Record<string, unknown>;
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'guard-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** `"x"` inside `depth` arrays, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** A raw POST of `body` (text) in one revision; the answer's status, RateLimit remaining and parsed body. */
async function post(
  body: string,
  version: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  left: number;
  body: Json;
  text: string;
}> {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      ...headers,
    },
    body,
  });
  const text = await response.text();
  const left = Number(/;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? NaN);
  return { status: response.status, left, body: JSON.parse(text) as Json, text };
}

/** A tools/call message as text in one revision (the envelope and standard headers on 2026-07-28). */
function toolCall(version: string, name: string, args: string): [string, string, Record<string, string>] {
  const meta = version === MODERN ? `,"_meta":${JSON.stringify(META)}` : '';
  const headers: Record<string, string> = version === MODERN ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {};
  return [
    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${name}","arguments":${args}${meta}}}`,
    version,
    headers,
  ];
}

function listTools(version: string): [string, string, Record<string, string>] {
  const meta = version === MODERN ? `,"params":{"_meta":${JSON.stringify(META)}}` : '';
  return [
    `{"jsonrpc":"2.0","id":1,"method":"tools/list"${meta}}`,
    version,
    version === MODERN ? { 'mcp-method': 'tools/list' } : {},
  ];
}

describe.each(['2025-11-25', MODERN])('protocol %s over raw HTTP', (version) => {
  it.each([5_000, 20_000])(
    'a location nested %i levels deep is a tool error with invalid_parameter that spends nothing',
    async (depth) => {
      const before = await post(...listTools(version));
      const args = `{"location":${'['.repeat(depth)}"x"${']'.repeat(depth)}}`;
      const deep = await post(...toolCall(version, 'find_injury_attorneys', args));
      expect(deep.status).toBe(200);
      expect(deep.text).not.toMatch(/Maximum call stack|internal_error|Internal error/);
      expect(deep.text).not.toMatch(STACK_TRACE_RE);
      const result = deep.body.result as { isError: boolean; content: { text: string }[]; _meta: Json };
      expect(result.isError).toBe(true);
      expect(result._meta.problem).toMatchObject({ code: 'invalid_parameter', status: 400, parameter: 'location' });
      expect(result.content[0]?.text).toMatch(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep`);
      expect(result.content[1]?.text).toMatch(/^problem: \{.*"code":"invalid_parameter"/);
      // Nothing spent: the quota left is what it was; an ordinary call then spends one.
      expect(deep.left).toBe(before.left);
      const ok = await post(...toolCall(version, 'find_injury_attorneys', '{"zip":"60601","limit":1}'));
      expect((ok.body.result as Json).isError).toBeFalsy();
      expect(ok.left).toBe(before.left - 1);
    },
  );

  it('arguments larger than the limit are a tool error with invalid_parameter, on every tool', async () => {
    const big = JSON.stringify(
      Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'y'.repeat(MAX_ARGUMENT_CHARS / 50)])),
    );
    for (const tool of ['find_injury_attorneys', 'get_firm', 'get_coverage']) {
      const reply = await post(...toolCall(version, tool, big));
      const result = reply.body.result as { isError: boolean; _meta: Json };
      expect(result.isError, tool).toBe(true);
      expect(result._meta.problem, tool).toMatchObject({ code: 'invalid_parameter' });
    }
  });

  it.each([
    ['an array', '[]', 'got an array'],
    ['null', 'null', 'got null'],
    ['a string', '"str"', 'got a string'],
  ])('arguments that are %s are -32602 with one plain sentence', async (_label, args, got) => {
    const reply = await post(...toolCall(version, 'find_injury_attorneys', args));
    const error = reply.body.error as { code: number; message: string };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params: arguments must be an object/);
    expect(error.message).toContain(got);
    expect(error.message).not.toMatch(/\n|"expected"|invalid_type/);
    expect(reply.body.id).toBe(7);
  });
});

describe('JSON-RPC mistakes on the 2025 handshake', () => {
  it('initialize without params is -32602 with one plain sentence, not -32603 with a schema dump', async () => {
    const reply = await post('{"jsonrpc":"2.0","id":1,"method":"initialize"}', '2025-11-25');
    const error = reply.body.error as { code: number; message: string };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params: initialize needs params with protocolVersion/);
    expect(error.message).not.toMatch(/\n|"expected"/);
  });

  it('params that are not an object are -32602', async () => {
    const reply = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}', '2025-11-25');
    expect(reply.body.error).toEqual({
      code: -32602,
      message: 'Invalid params: params must be an object; got an array.',
    });
  });

  it('a batch with one such mistake is refused whole (-32600) and spends nothing', async () => {
    const before = await post(...listTools('2025-11-25'));
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_coverage', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_coverage', arguments: [] } },
    ]);
    const reply = await post(batch, '2025-11-25');
    const error = reply.body.error as { code: number; message: string };
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/\(id 2\) has a mistake, so nothing was run/);
    expect(reply.left).toBe(before.left);
  });
});

/** Deepest value both clients serialise and check themselves in a test worker (at 5,000 levels their own code overflows). */
const CLIENT_DEPTH = 4_000;

/** What the client tests need: a tool call, and the quota left as the last answer's RateLimit header said. */
interface Connected {
  call: (args: Json) => Promise<Json>;
  left: () => number;
  close: () => Promise<void>;
}

/** A fetch that keeps the remaining quota of each answer, for the clients' transports. */
function counting(): { fetch: typeof fetch; left: () => number } {
  let left = NaN;
  return {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      left = Number(/;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? NaN);
      return response;
    },
    left: () => left,
  };
}

describe.each<[string, () => Promise<Connected>]>([
  [
    'SDK v1 client',
    async () => {
      const quota = counting();
      const client = new ClientV1({ name: 'guard-v1', version: '1' });
      await client.connect(new TransportV1(new URL(`${server.url}/mcp`), { fetch: quota.fetch }));
      return {
        call: (args) => client.callTool({ name: 'find_injury_attorneys', arguments: args }) as Promise<Json>,
        left: quota.left,
        close: () => client.close(),
      };
    },
  ],
  [
    'v2 client (2026-07-28)',
    async () => {
      const quota = counting();
      const client = new ClientV2(
        { name: 'guard-v2', version: '1' },
        { versionNegotiation: { mode: { pin: MODERN } } },
      );
      await client.connect(new TransportV2(new URL(`${server.url}/mcp`), { fetch: quota.fetch }));
      return {
        call: (args) => client.callTool({ name: 'find_injury_attorneys', arguments: args }) as Promise<Json>,
        left: quota.left,
        close: () => client.close(),
      };
    },
  ],
])('%s', (_label, connect) => {
  it(`an argument nested ${CLIENT_DEPTH} levels deep is a tool error with invalid_parameter that spends nothing`, async () => {
    const client = await connect();
    try {
      const before = client.left();
      expect(before).toBeGreaterThan(0);
      const result = await client.call({ location: nested(CLIENT_DEPTH) });
      expect(result.isError).toBe(true);
      expect((result._meta as Json).problem).toMatchObject({ code: 'invalid_parameter', parameter: 'location' });
      expect(JSON.stringify(result)).not.toMatch(/Maximum call stack|internal_error/);
      expect(client.left()).toBe(before);
    } finally {
      await client.close();
    }
  });
});
