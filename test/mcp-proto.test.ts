/**
 * A `__proto__` argument is an unknown parameter on MCP as on REST: REST answers 400 unknown_parameter naming it, and
 * the find_injury_attorneys tool answers a tool error with the same detail instead of dropping the key silently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** POST a raw JSON-RPC body to /mcp (raw text: a JS object literal cannot hold an own __proto__ key). */
async function mcp(text: string): Promise<{
  status: number;
  body: { result?: { isError?: boolean; content?: { text: string }[] }; error?: unknown };
}> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as never };
}

describe('a __proto__ argument', () => {
  it('is a tool error naming it, with the detail REST gives for ?__proto__=', async () => {
    const rest = await fetch(`${server.url}/v1/attorneys?zip=60601&__proto__=1`);
    expect(rest.status).toBe(400);
    const problem = (await rest.json()) as { code: string; detail: string };
    expect(problem.code).toBe('unknown_parameter');
    expect(problem.detail).toContain('"__proto__"');

    for (const value of ['1', '{"limit":1}', 'null']) {
      const reply = await mcp(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_injury_attorneys","arguments":{"zip":"60601","__proto__":${value}}}}`,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.result?.isError, `__proto__: ${value}`).toBe(true);
      expect(reply.body.result?.content?.[0]?.text).toBe(problem.detail);
    }
  });

  it('leaves a call without one to the tool as before', async () => {
    const reply = await mcp(
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"find_injury_attorneys","arguments":{"zip":"60601","limit":1}}}',
    );
    expect(reply.status).toBe(200);
    expect(reply.body.result?.isError ?? false).toBe(false);
  });
});
