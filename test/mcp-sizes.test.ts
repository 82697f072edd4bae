/**
 * Keeps the size table of docs/MCP.md true and holds the sizes to their limits: measures `tools/list` and typical tool
 * results on a live server over the sample site (links on a fixed public base URL, so the numbers do not depend on the
 * test's port) with both official clients (SDK v1 on 2025-11-25, v2 on 2026-07-28), each result as JSON.stringify of
 * what the client returns, and compares them with the table. UPDATE_MCP_SIZES=1 rewrites the table instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

/** What the measurement needs of a client, either SDK. */
interface Measured {
  listTools(): Promise<unknown>;
  callTool(name: string, args: Json): Promise<Json>;
  close(): Promise<void>;
}

async function v1(): Promise<Measured> {
  const client = new ClientV1({ name: 'mcp-sizes-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${server.url}/mcp`)));
  return {
    listTools: () => client.listTools(),
    callTool: (name, args) => client.callTool({ name, arguments: args }) as Promise<Json>,
    close: () => client.close(),
  };
}

async function v2(): Promise<Measured> {
  const client = new ClientV2(
    { name: 'mcp-sizes-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(new URL(`${server.url}/mcp`)));
  return {
    listTools: () => client.listTools(),
    callTool: (name, args) => client.callTool({ name, arguments: args }) as Promise<Json>,
    close: () => client.close(),
  };
}

const n = (v: number): string => v.toLocaleString('en-US');
const len = (v: unknown): number => JSON.stringify(v).length;

/** One message measured with both clients: the text blocks, structuredContent and the whole result of each. */
interface Sizes {
  label: string;
  text: number | null;
  structured: number | null;
  v1: number;
  v2: number;
}

function sizesOf(label: string, one: Json, two: Json, list = false): Sizes {
  const content = one.content as { text: string }[] | undefined;
  const text = list || content === undefined ? null : content.reduce((sum, c) => sum + c.text.length, 0);
  const structured = one.structuredContent === undefined ? null : len(one.structuredContent);
  return { label, text, structured, v1: len(one), v2: len(two) };
}

/** One table row, with characters/4 as the token estimate of what a model reads. */
function row(s: Sizes): string {
  const cell = (v: number | null): string => (v === null ? '–' : n(v));
  const tokens = (v: number | null): string => (v === null ? '–' : n(Math.round(v / 4)));
  return `| ${s.label} | ${cell(s.text)} | ${tokens(s.text)} | ${cell(s.structured)} | ${tokens(s.structured)} | ${n(s.v1)} | ${n(s.v2)} |`;
}

it('docs/MCP.md shows the sizes both clients receive, within the limits', async () => {
  const one = await v1();
  const two = await v2();
  try {
    const both = async (label: string, name: string, args: Json): Promise<Sizes> =>
      sizesOf(label, await one.callTool(name, args), await two.callTool(name, args));
    const list = sizesOf(
      '`tools/list` (three tools with input and output schemas)',
      (await one.listTools()) as Json,
      (await two.listTools()) as Json,
      true,
    );
    const ten = await both('`find_injury_attorneys` "Chicago, IL", 10 results', 'find_injury_attorneys', {
      location: 'Chicago, IL',
    });
    const twentyFive = await both('`find_injury_attorneys` "Chicago, IL", 25 results', 'find_injury_attorneys', {
      location: 'Chicago, IL',
      limit: 25,
    });
    const firm = await both(`\`get_firm\` of the largest firm (${largest.offices} offices)`, 'get_firm', {
      listing_id: largest.id,
    });
    const rows = [
      list,
      ten,
      twentyFive,
      await both('`find_injury_attorneys` "New Haven, CT", 50 miles (covered: false)', 'find_injury_attorneys', {
        location: 'New Haven, CT',
        radius_miles: 50,
      }),
      firm,
      await both('`get_firm` of the largest firm, `format: "json"`', 'get_firm', {
        listing_id: largest.id,
        format: 'json',
      }),
      await both('`get_coverage`', 'get_coverage', {}),
      await both('an error (`radius_miles: 51`)', 'find_injury_attorneys', {
        location: 'Chicago, IL',
        radius_miles: 51,
      }),
    ];
    // The limits (docs/MCP.md): a host may forward either block, and tools/list is read in every conversation.
    expect(Math.max(list.v1, list.v2)).toBeLessThanOrEqual(10_000);
    expect(ten.text).toBeLessThanOrEqual(6_000);
    expect(ten.structured).toBeLessThanOrEqual(8_000);
    expect(twentyFive.structured).toBeLessThanOrEqual(16_000);
    expect(firm.structured).toBeLessThanOrEqual(8_000);
    expect(firm.text).toBeLessThanOrEqual(6_000);

    const table = [
      START,
      '| Message | Text blocks (characters) | ≈ tokens | `structuredContent` (characters) | ≈ tokens | Whole result, SDK v1 client (2025-11-25) | Whole result, v2 client (2026-07-28) |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows.map(row),
      END,
    ].join('\n');
    const doc = readFileSync(DOC, 'utf8');
    const from = doc.indexOf(START);
    const to = doc.indexOf(END);
    expect(from, 'docs/MCP.md has the size table markers').toBeGreaterThanOrEqual(0);
    const current = doc.slice(from, to + END.length);
    if (process.env.UPDATE_MCP_SIZES === '1')
      writeFileSync(DOC, doc.slice(0, from) + table + doc.slice(to + END.length));
    else expect(current).toBe(table);
  } finally {
    await one.close();
    await two.close();
  }
});
