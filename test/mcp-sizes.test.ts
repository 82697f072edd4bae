/**
 * Keeps the size table of docs/MCP.md true: measures `tools/list` and typical tool results on a live server over the
 * sample site (links on a fixed public base URL, so the numbers do not depend on the test's port) and compares them
 * with the table. UPDATE_MCP_SIZES=1 rewrites the table instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { largestFirm } from './helpers/largest-firm.ts';

const DOC = resolve('docs/MCP.md');
const START = '<!-- mcp-sizes: measured by test/mcp-sizes.test.ts (UPDATE_MCP_SIZES=1 rewrites this table) -->';
const END = '<!-- /mcp-sizes -->';

type Json = Record<string, unknown>;

let server: TestServer;
let largest = { id: '', offices: 0 };
beforeAll(async () => {
  largest = largestFirm();
  server = await startTestServer({ PUBLIC_BASE_URL: 'http://127.0.0.1:8787' });
});
afterAll(async () => {
  await server?.close();
});

async function rpc(method: string, params: Json = {}): Promise<Json> {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result: Json };
  return body.result;
}

const n = (v: number): string => v.toLocaleString('en-US');

/** One table row: the text blocks a model reads and the whole result a client receives, with characters/4. */
function row(label: string, result: Json): string {
  const content = result.content as { text: string }[] | undefined;
  const text = content === undefined ? null : content.reduce((sum, c) => sum + c.text.length, 0);
  const whole = JSON.stringify(result).length;
  const t = text === null ? '–' : n(text);
  const tt = text === null ? '–' : n(Math.round(text / 4));
  return `| ${label} | ${t} | ${tt} | ${n(whole)} | ${n(Math.round(whole / 4))} |`;
}

it('docs/MCP.md shows the sizes a live server answers with', async () => {
  const call = (name: string, args: Json): Promise<Json> => rpc('tools/call', { name, arguments: args });
  const rows = [
    row('`tools/list` (three tools with input and output schemas)', await rpc('tools/list')),
    row(
      '`find_injury_attorneys` "Chicago, IL", 10 results',
      await call('find_injury_attorneys', { location: 'Chicago, IL' }),
    ),
    row(
      '`find_injury_attorneys` "Chicago, IL", 25 results',
      await call('find_injury_attorneys', { location: 'Chicago, IL', limit: 25 }),
    ),
    row(
      '`find_injury_attorneys` "New Haven, CT", 50 miles (covered: false)',
      await call('find_injury_attorneys', { location: 'New Haven, CT', radius_miles: 50 }),
    ),
    row(
      `\`get_firm\` of the largest firm (${largest.offices} offices)`,
      await call('get_firm', { listing_id: largest.id }),
    ),
    row('`get_coverage`', await call('get_coverage', {})),
    row(
      'an error (`radius_miles: 51`)',
      await call('find_injury_attorneys', { location: 'Chicago, IL', radius_miles: 51 }),
    ),
  ];
  const table = [
    START,
    '| Message | Text blocks (characters) | ≈ tokens (characters/4) | Whole result (characters) | ≈ tokens (characters/4) |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    END,
  ].join('\n');
  const doc = readFileSync(DOC, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  expect(from, 'docs/MCP.md has the size table markers').toBeGreaterThanOrEqual(0);
  const current = doc.slice(from, to + END.length);
  if (process.env.UPDATE_MCP_SIZES === '1') writeFileSync(DOC, doc.slice(0, from) + table + doc.slice(to + END.length));
  else expect(current).toBe(table);
});
