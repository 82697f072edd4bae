/**
 * MCP answers sized and written for the model that relays them, with the official clients (SDK v1, v2) over real HTTP:
 * descriptions within 1,024 characters and the caller rules in the instructions; a compact text block with what a
 * person needs per firm and the disclosure and caveat once; the full JSON on request; get_firm's other offices capped
 * and nearest first; tool errors that carry the REST code.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAP_VISIBILITY_WHAT } from '../shim/contract/constants.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import type { AttorneysResponseT, FirmResponseT } from '../shim/contract/schemas.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { largestFirm } from './helpers/largest-firm.ts';
import { expectCompactFirm, expectCompactSearch } from './helpers/compact-check.ts';

type Json = Record<string, unknown>;
interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Json;
}
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; description?: string; inputSchema: Json }[] }>;
  callTool(params: { name: string; arguments: Json }): Promise<ToolResult>;
  instructions(): string | undefined;
  close(): Promise<void>;
}

let server: TestServer;
/** Found before the server starts: the scan blocks the event loop for seconds, which would drop idle keep-alive sockets. */
let largest = '';
beforeAll(async () => {
  largest = largestFirm().id;
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function v1(): Promise<AnyClient> {
  const client = new ClientV1({ name: 'mcp-answers-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${server.url}/mcp`)));
  return {
    listTools: () => client.listTools() as never,
    callTool: (p) => client.callTool(p) as Promise<ToolResult>,
    instructions: () => client.getInstructions(),
    close: () => client.close(),
  };
}

async function v2(): Promise<AnyClient> {
  const client = new ClientV2(
    { name: 'mcp-answers-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(new URL(`${server.url}/mcp`)));
  return {
    listTools: () => client.listTools() as never,
    callTool: (p) => client.callTool(p) as Promise<ToolResult>,
    instructions: () => client.getInstructions(),
    close: () => client.close(),
  };
}

function texts(result: ToolResult): string[] {
  return (result.content as { type: string; text: string }[]).map((c) => c.text);
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe.each<[string, () => Promise<AnyClient>]>([
  ['v1 SDK client', v1],
  ['v2 client (2026-07-28)', v2],
])('%s', (_label, connect) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('tool descriptions fit 1,024 characters; the caller rules and the sample-data warning are in the instructions', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeLessThanOrEqual(1024);
      expect(tool.description, tool.name).toMatch(/fictional/);
    }
    const rules = client.instructions() ?? '';
    expect(rules).toMatch(/person who needs a lawyer \(their own ZIP/);
    expect(rules).toMatch(/covered is false .* do not substitute another metro/);
    expect(rules).toMatch(/Show several firms, not only the first, and keep the disclosure/);
    expect(rules).toMatch(/website link exactly as returned/);
    expect(rules).toMatch(/not a recommendation/);
    expect(rules).toMatch(/fictional/);
  });

  it('the format argument is advertised on MCP only, beside the REST bounds', async () => {
    const { tools } = await client.listTools();
    const props = (name: string): Record<string, Json> =>
      (tools.find((t) => t.name === name)?.inputSchema.properties ?? {}) as Record<string, Json>;
    expect(props('find_injury_attorneys').format).toMatchObject({ enum: ['text', 'json'] });
    expect(props('find_injury_attorneys').radius_miles).toMatchObject({ minimum: 1, maximum: 50, default: 15 });
    expect(props('find_injury_attorneys').limit).toMatchObject({ minimum: 1, maximum: 25, default: 10 });
    expect(props('get_firm').lat).toMatchObject({ minimum: -90, maximum: 90 });
    expect(props('get_firm').lng).toMatchObject({ minimum: -180, maximum: 180 });
    const rest = await request(server.url, '/v1/attorneys?location=Chicago%2C%20IL&format=json');
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: 'unknown_parameter', parameter: 'format' });
  });

  it.each([
    ['Chicago, IL', 10],
    ['10001', 10],
    ['Houston, TX', 10],
    ['Austin, TX', 25],
  ])(
    'a search near %s with limit %i: one compact block per firm, disclosure and caveat once',
    async (location, limit) => {
      const result = await client.callTool({ name: 'find_injury_attorneys', arguments: { location, limit } });
      const rest = await request(server.url, `/v1/attorneys?location=${encodeURIComponent(location)}&limit=${limit}`);
      const body = rest.body as AttorneysResponseT;
      expect(body.results).toHaveLength(limit);
      // structuredContent, which several hosts forward instead of the text: compact, with the same firms.
      expectCompactSearch(result.structuredContent, body);
      expect(JSON.stringify(result.structuredContent).length).toBeLessThanOrEqual(limit === 10 ? 8000 : 16000);
      const [text] = texts(result);
      expect(text).toBeDefined();
      if (limit === 10) expect(text!.length).toBeLessThanOrEqual(6000);
      else expect(text!.length).toBeLessThanOrEqual(12000);
      for (const r of body.results) {
        expect(text).toContain(`${r.name} · ${r.distance_miles} mi`);
        expect(text).toContain(r.address);
        if (r.phone !== null) expect(text).toContain(r.phone);
        if (r.website !== null) expect(text).toContain(r.website);
        expect(text).toContain(`listing_id ${r.listing_id}`);
        if (r.map_visibility !== null)
          expect(text).toContain(
            `top 3 in ${r.map_visibility.top3_share_pct}%, shown in ${r.map_visibility.appears_share_pct}%`,
          );
      }
      expect(count(text!, body.disclosure)).toBe(1);
      expect(count(text!, MAP_VISIBILITY_WHAT)).toBe(1);
      expect(text).toMatch(/fictional/);
      expect(text).toMatch(/several firms/);
      // Firms in order, nearest first, numbered as a person would read them.
      const order = body.results.map((r) => text!.indexOf(`${r.name} · ${r.distance_miles} mi`));
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    },
  );

  it('hours read as one line per firm, days with the same hours grouped', async () => {
    const result = await client.callTool({
      name: 'find_injury_attorneys',
      arguments: { location: 'Chicago, IL', limit: 10 },
    });
    const body = (await request(server.url, '/v1/attorneys?location=Chicago%2C%20IL&limit=10'))
      .body as AttorneysResponseT;
    const day = (line: string | undefined): string => (line ?? '').replace(/^\w+day: /, '');
    const withHours = body.results.find((r) => r.hours !== null && day(r.hours.text[0]) === day(r.hours.text[4]));
    expect(withHours).toBeDefined();
    const mon = day(withHours!.hours!.text[0]);
    expect(texts(result)[0]).toContain(`Hours (${withHours!.hours!.timezone}): Mon–`);
    expect(texts(result)[0]).toContain(mon);
    const compact = (result.structuredContent as { results: { listing_id: string; hours: string }[] }).results;
    const line = compact.find((r) => r.listing_id === withHours!.listing_id)?.hours;
    expect(line?.startsWith('Mon–')).toBe(true);
    expect(line).toContain(mon);
    expect(line?.endsWith(`(${withHours!.hours!.timezone})`)).toBe(true);
  });

  it('an uncovered place reads as no data, never as no lawyers', async () => {
    const result = await client.callTool({
      name: 'find_injury_attorneys',
      arguments: { location: 'New Haven, CT', radius_miles: 50 },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ covered: false, results: [] });
    // A host that forwards structuredContent gets the line to say as a field.
    const sayThis = (result.structuredContent as { say_to_person?: string }).say_to_person;
    expect(sayThis).toMatch(/does not mean there are no personal injury lawyers there/);
    const [text] = texts(result);
    expect(text).toContain(`Say this to the person: ${sayThis}`);
    expect(text).toMatch(/^covered: false: no data/);
    expect(text).toMatch(/does not mean there are no personal injury lawyers there/);
    expect(text).toMatch(/Do not substitute firms from another metro or city/);
    expect(text).not.toMatch(/\b0 firms|no firms|no injury/i);
  });

  it('an answer with no firms never tells the model to show firms, in structuredContent as in the text', async () => {
    // No data for the place: the text says the line to say; the fields must not ask for "several firms" instead.
    const uncovered = await client.callTool({
      name: 'find_injury_attorneys',
      arguments: { location: 'New Haven, CT', radius_miles: 50 },
    });
    const none = uncovered.structuredContent as { relaying: string; say_to_person: string; results: unknown[] };
    expect(none.results).toEqual([]);
    expect(texts(uncovered)[0]).not.toMatch(/several firms/);
    expect(none.relaying).not.toMatch(/several firms/);
    expect(none.relaying).toMatch(/say_to_person/);
    expect(none.relaying).toMatch(/do not search another/i);

    // Covered, but no office within a small radius: both forms say a larger radius may find some.
    const args = { lat: 41.18, lng: -87.63, radius_miles: 1 };
    const rest = (await request(server.url, '/v1/attorneys?lat=41.18&lng=-87.63&radius_miles=1'))
      .body as AttorneysResponseT;
    expect(rest).toMatchObject({ covered: true, results: [] });
    const empty = await client.callTool({ name: 'find_injury_attorneys', arguments: args });
    const fields = empty.structuredContent as { relaying: string; more?: string };
    expect(texts(empty)[0]).toMatch(/larger radius_miles \(up to 50\)/);
    expect(texts(empty)[0]).not.toMatch(/several firms/);
    expect(fields.relaying).not.toMatch(/several firms/);
    expect(fields.more).toMatch(/larger radius_miles \(up to 50\)/);
  });

  it('an answer showing every firm within the radius points to a larger radius, not to limit or "several firms"', async () => {
    // One firm within a mile: "show several firms" and "limit up to 25" sent models after firms that are not there.
    const args = { lat: 42.05, lng: -88.3, radius_miles: 1 };
    const rest = (await request(server.url, '/v1/attorneys?lat=42.05&lng=-88.3&radius_miles=1'))
      .body as AttorneysResponseT;
    expect(rest.firms_within_radius).toBe(1);
    const one = await client.callTool({ name: 'find_injury_attorneys', arguments: args });
    const fields = one.structuredContent as { relaying: string; more?: string };
    for (const text of [texts(one)[0] ?? '', `${fields.relaying} ${fields.more ?? ''}`]) {
      expect(text).not.toMatch(/several firms|limit up to/);
      expect(text).toMatch(/larger radius_miles \(up to 50\) may find more/);
    }
    expect(fields.relaying).toMatch(/^Show the person the firm /);
    // With more firms than shown, limit is still the way to more.
    for (const limit of [1, 2]) {
      const many = await client.callTool({ name: 'find_injury_attorneys', arguments: { zip: '60601', limit } });
      expect(texts(many)[0]).toMatch(/several firms/);
      expect((many.structuredContent as { more: string }).more).toMatch(/^limit up to 25/);
    }
  });

  it('an answer already at limit 25 with more firms in the radius says it is at the most, not "limit up to 25"', async () => {
    const full = await client.callTool({ name: 'find_injury_attorneys', arguments: { zip: '60601', limit: 25 } });
    const more = (full.structuredContent as { more: string }).more;
    for (const text of [texts(full)[0] ?? '', more]) {
      expect(text).not.toMatch(/limit up to/);
      expect(text).toMatch(
        /the 25 nearest of \d+ firms within 15 miles are shown, the most one answer gives \(there is no paging\)/,
      );
    }
  });

  it('one mile, one firm and one measured office read in the singular, as a model would retell them', async () => {
    const oneMile = texts(
      await client.callTool({ name: 'find_injury_attorneys', arguments: { zip: '60601', radius_miles: 1, limit: 1 } }),
    )[0];
    expect(oneMile).toMatch(/ within 1 mile of /);
    const empty = texts(
      await client.callTool({
        name: 'find_injury_attorneys',
        arguments: { lat: 41.18, lng: -87.63, radius_miles: 1 },
      }),
    )[0];
    expect(empty).toMatch(/^No office is listed within 1 mile of /);
    // A firm measured by one office: "any of its 1 measured office".
    const body = (await request(server.url, '/v1/attorneys?location=Chicago%2C%20IL&limit=25'))
      .body as AttorneysResponseT;
    const single = body.results.find((r) => r.brand_index?.offices_measured === 1);
    expect(single).toBeDefined();
    const firm = texts(await client.callTool({ name: 'get_firm', arguments: { listing_id: single!.listing_id } }))[0];
    expect(firm).toContain('(any of its 1 measured office)');
    for (const text of [oneMile, empty, firm]) expect(text).not.toMatch(/\b1 (miles|firms|offices)\b/);
  });

  it('format "json" returns the REST body as text and as structuredContent', async () => {
    const args = { location: 'Chicago, IL', limit: 3 };
    const compact = await client.callTool({ name: 'find_injury_attorneys', arguments: args });
    const full = await client.callTool({ name: 'find_injury_attorneys', arguments: { ...args, format: 'json' } });
    expect(JSON.parse(texts(full)[0] ?? '')).toEqual(full.structuredContent);
    expect(full.structuredContent).toEqual(
      (await request(server.url, '/v1/attorneys?location=Chicago%2C%20IL&limit=3')).body,
    );
    const firmJson = await client.callTool({
      name: 'get_firm',
      arguments: {
        listing_id: (compact.structuredContent as AttorneysResponseT).results[0]?.listing_id,
        format: 'json',
      },
    });
    expect(JSON.parse(texts(firmJson)[0] ?? '')).toEqual(firmJson.structuredContent);
    const coverage = await client.callTool({ name: 'get_coverage', arguments: { format: 'json' } });
    expect(JSON.parse(texts(coverage)[0] ?? '')).toEqual(coverage.structuredContent);
  });

  it('get_firm of the largest firm: at most 10 other offices, nearest to the point given first, and the total', async () => {
    const id = largest;
    const point = { lat: 41.8781, lng: -87.6298 };
    const result = await client.callTool({ name: 'get_firm', arguments: { listing_id: id, ...point } });
    const body = (await request(server.url, `/v1/firms/${id}`)).body as FirmResponseT;
    const total = body.other_offices.length;
    expect(total).toBeGreaterThan(10);
    const [text] = texts(result);
    expect(text).toContain(`Other offices of this firm: ${total} in all; the 10 nearest to the point given first:`);
    const nearest = [...body.other_offices]
      .sort(
        (a, b) =>
          haversineMiles(point.lat, point.lng, a.lat, a.lng) - haversineMiles(point.lat, point.lng, b.lat, b.lng),
      )
      .slice(0, 10);
    const listed = [...text!.matchAll(/^- .* listing_id (l_\w+)$/gm)].map((m) => m[1]);
    expect(listed).toEqual(nearest.map((o) => o.listing_id));
    expect(text).toContain(`(${total - 10} more: format "json" returns every office.)`);
    expect(text!.length).toBeLessThanOrEqual(6000);
    // structuredContent: the same 10, nearest first, with the total, within 8,000 characters.
    const compact = result.structuredContent as {
      other_offices: { listing_id: string }[];
      other_offices_total: number;
    };
    expectCompactFirm(compact, body, 10);
    expect(compact.other_offices.map((o) => o.listing_id)).toEqual(nearest.map((o) => o.listing_id));
    expect(JSON.stringify(compact).length).toBeLessThanOrEqual(8000);
    // format "json" with the point: the REST body of /v1/firms/{id}?lat=&lng=, every office, nearest first.
    const full = await client.callTool({ name: 'get_firm', arguments: { listing_id: id, ...point, format: 'json' } });
    const restNear = await request(server.url, `/v1/firms/${id}?lat=${point.lat}&lng=${point.lng}`);
    expect(restNear.status).toBe(200);
    expect(full.structuredContent).toEqual(restNear.body);
    // Without a point: nearest to the office asked about.
    const plain = texts(await client.callTool({ name: 'get_firm', arguments: { listing_id: id } }))[0];
    expect(plain).toContain('nearest to this office first');
  });

  it.each<[string, string, Json, string]>([
    [
      'a radius out of range',
      'find_injury_attorneys',
      { location: 'Chicago, IL', radius_miles: 51 },
      'invalid_parameter',
    ],
    ['no location', 'find_injury_attorneys', {}, 'location_required'],
    ['an unknown listing', 'get_firm', { listing_id: 'l_aaaaaaaaaaaaaaaa' }, 'not_found'],
    ['a bad format', 'find_injury_attorneys', { location: 'Chicago, IL', format: 'xml' }, 'invalid_parameter'],
    ['lat without lng on get_firm', 'get_firm', { listing_id: 'l_aaaaaaaaaaaaaaaa', lat: 41.9 }, 'invalid_parameter'],
  ])('an error (%s) carries the REST code in its text and in _meta.problem', async (_label, name, args, code) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    const [detail, problemLine] = texts(result);
    const problem = result._meta?.problem as Json;
    expect(problem).toMatchObject({ code, detail });
    expect(problemLine).toMatch(new RegExp(`^problem: \\{.*"code":"${code}"`));
    expect(JSON.parse((problemLine ?? '').replace(/^problem: /, ''))).toMatchObject({ code, status: problem.status });
  });
});
