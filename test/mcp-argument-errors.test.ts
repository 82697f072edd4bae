/**
 * What a model is told when it calls a tool with arguments the tool does not take, through the official client over
 * real HTTP: every tool refuses a name it does not know as REST refuses an unknown parameter, and a refusal names the
 * value that was sent (its type included), never calling a sent argument missing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

type Problem = { status: number; code: string; parameter?: string; accepted?: string[]; detail: string };
type Result = { isError?: boolean; content: { text: string }[]; _meta?: { problem?: Problem } };

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = new Client({ name: 'mcp-argument-errors', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

/** The tool's refusal: an isError result whose problem is `code` for `parameter`, and its detail. */
async function refusal(name: string, args: Record<string, unknown>, code: string, parameter: string): Promise<Problem> {
  const result = await call(name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
  const problem = result._meta?.problem as Problem;
  expect(problem).toMatchObject({ status: 400, code, parameter });
  expect(result.content[0]?.text).toBe(problem.detail);
  return problem;
}

describe('an argument a tool does not know', () => {
  it('is refused by get_coverage too, naming it and the one argument it takes', async () => {
    const problem = await refusal('get_coverage', { metro: 'chicago' }, 'unknown_parameter', 'metro');
    expect(problem.accepted).toEqual(['format']);
    expect(problem.detail).toContain('"metro"');
    // Without it, the same call answers.
    expect((await call('get_coverage', {})).isError).toBeFalsy();
  });
});

describe('the id of get_firm under another name', () => {
  it('is refused as unknown, naming listing_id, not as a missing listing_id', async () => {
    // {"id": ...} was told "listing_id is required", though the model had sent the id.
    for (const name of ['id', 'listingId', 'firm_id']) {
      const problem = await refusal('get_firm', { [name]: 'l_aaaaaaaaaaaaaaaa' }, 'unknown_parameter', name);
      expect(problem.detail, name).toContain(`Unknown parameter ${JSON.stringify(name)}. Did you mean listing_id?`);
      expect(problem.accepted).toEqual(['listing_id', 'lat', 'lng', 'format']);
    }
  });
});

describe('an argument of the wrong type', () => {
  it('is named as sent: a listing_id that is not a string is not called missing', async () => {
    for (const [value, shown] of [
      [5, '5'],
      [null, 'null'],
      [['l_aaaaaaaaaaaaaaaa'], 'array'],
    ] as const) {
      const problem = await refusal('get_firm', { listing_id: value }, 'invalid_parameter', 'listing_id');
      expect(problem.detail, JSON.stringify(value)).not.toMatch(/required|missing/i);
      expect(problem.detail).toContain(shown);
      expect(problem.detail).toMatch(/string/);
    }
    // Left out, it is missing.
    expect((await refusal('get_firm', {}, 'invalid_parameter', 'listing_id')).detail).toMatch(/required/);
  });

  it('names a ZIP or location sent as a JSON number as a number, and the string to send', async () => {
    // "got 60601" read as if the ZIP itself were wrong, and a model sent the same number again.
    for (const [args, parameter, send] of [
      [{ zip: 60601 }, 'zip', '"60601"'],
      [{ location: 60601 }, 'location', '"60601"'],
      [{ zip: 2139 }, 'zip', 'zip=02139'],
    ] as const) {
      const problem = await refusal('find_injury_attorneys', args, 'invalid_parameter', parameter);
      expect(problem.detail, JSON.stringify(args)).toContain(`got the number ${String(Object.values(args)[0])}`);
      expect(problem.detail, JSON.stringify(args)).toContain('as a string');
      expect(problem.detail, JSON.stringify(args)).toContain(send);
    }
    expect((await call('find_injury_attorneys', { zip: '60601', limit: 1 })).isError).toBeFalsy();
  });

  it('is named as sent: a format that is not a string is not quoted as one', async () => {
    for (const [value, shown] of [
      [null, 'got null'],
      [1, 'got 1'],
      [{ as: 'json' }, 'got a value of type object'],
    ] as const) {
      for (const tool of ['get_coverage', 'find_injury_attorneys']) {
        const args = tool === 'get_coverage' ? { format: value } : { zip: '60601', format: value };
        const problem = await refusal(tool, args, 'invalid_parameter', 'format');
        expect(problem.detail, `${tool} ${JSON.stringify(value)}`).toContain(shown);
        expect(problem.detail).toMatch(/"text" or "json"/);
      }
    }
    expect((await refusal('get_coverage', { format: 'xml' }, 'invalid_parameter', 'format')).detail).toContain(
      'got "xml"',
    );
  });
});

describe('a tools/call without a tool name', () => {
  it('is -32602 saying params.name is needed and naming the tools, never a tool called "missing"', async () => {
    for (const params of [undefined, {}, { name: 5 }, { name: null, arguments: {} }]) {
      const response = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', ...(params ? { params } : {}) }),
      });
      const body = (await response.json()) as { id: number; error: { code: number; message: string } };
      expect(body.id).toBe(7);
      expect(body.error.code, JSON.stringify(params)).toBe(-32602);
      expect(body.error.message).not.toMatch(/missing\./);
      expect(body.error.message).toMatch(/params\.name/);
      expect(body.error.message).toContain('find_injury_attorneys, get_firm, get_coverage');
    }
  });
});
