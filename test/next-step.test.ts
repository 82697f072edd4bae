/**
 * Refusals that name the next step in one sentence (issue 33), over REST and through the real MCP SDK client on the
 * real server: swapped numeric lat/lng, a four-digit ZIP, limit over 25, "near me". Each is a 400 problem+json with
 * its code, and the step it names works when sent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startTestServer();
  client = new Client({ name: 'next-step', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function rest(query: string): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/v1/attorneys?${query}`);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function mcp(args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const r = (await client.callTool({ name: 'find_injury_attorneys', arguments: args })) as {
    isError?: boolean;
    content: { text: string }[];
  };
  return { isError: r.isError === true, text: r.content[0]?.text ?? '' };
}

const CASES: {
  says: string;
  query: string;
  args: Record<string, unknown>;
  code: string;
  step: RegExp;
  then: string;
}[] = [
  {
    says: 'swapped numbers',
    query: 'lat=-98.4936&lng=29.4241',
    args: { lat: -98.4936, lng: 29.4241 },
    code: 'invalid_parameter',
    step: /look swapped: send lat=29\.4241&lng=-98\.4936/,
    then: 'lat=29.4241&lng=-98.4936',
  },
  {
    says: 'a ZIP that lost its leading zero',
    query: 'zip=2139',
    args: { zip: '2139' },
    code: 'invalid_parameter',
    // Four digits are read as a ZIP that lost its leading zero; the model checks that reading with the person.
    step: /got "2139"\. Read as a ZIP whose leading zero was dropped \(as spreadsheets do\), it is 02139: check with the person, then send zip=02139\./,
    then: 'zip=02139',
  },
  {
    says: 'a location of four digits',
    query: 'location=2139',
    args: { location: '2139' },
    code: 'location_not_understood',
    step: /Read as a ZIP whose leading zero was dropped \(as spreadsheets do\), it is 02139: check with the person, then send "02139"\./,
    then: 'location=02139',
  },
  {
    says: 'more than 25 firms',
    query: 'zip=60601&limit=50',
    args: { zip: '60601', limit: 50 },
    code: 'invalid_parameter',
    step: /25 nearest firms are the most one answer gives, by design, and there is no paging: send limit=25, or a smaller radius_miles/,
    then: 'zip=60601&limit=25',
  },
  {
    says: 'near me',
    query: 'location=near%20me',
    args: { location: 'near me' },
    code: 'location_not_understood',
    step: /Ask the person for their city or ZIP code, then send it as "City, ST" or a 5-digit ZIP/,
    then: 'location=Austin%2C%20TX',
  },
];

describe('refusals name the next step', () => {
  for (const c of CASES) {
    it(`${c.says}: REST and MCP say what to send, and it works`, async () => {
      const r = await rest(c.query);
      expect(r.status).toBe(400);
      expect(r.type).toMatch(/^application\/problem\+json/);
      expect(r.body.code).toBe(c.code);
      expect(r.body.detail).toMatch(c.step);
      const m = await mcp(c.args);
      expect(m.isError).toBe(true);
      expect(m.text).toMatch(c.step);
      expect((await rest(c.then)).status).toBe(200);
    });
  }
});
