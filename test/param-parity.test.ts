/**
 * The REST parameter parser and the MCP input schema hold every search parameter to the same rules: for generated
 * values of each parameter, a GET /v1/attorneys query carrying the value (as a caller writes it in a query string) is
 * accepted by the REST parser exactly when the find_injury_attorneys input schema a real MCP client is given
 * (tools/list, validated with Ajv as a client would) accepts the same value as JSON.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT, RADIUS_MILES, SRC_MAX_LENGTH } from '../shim/contract/constants.ts';
import { parseAttorneysArgs } from '../shim/answer/params.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { parseQuery } from '../shim/http/query.ts';
import { createMcpRoute } from '../shim/mcp/route.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { parseFirmPoint } from '../shim/answer/firm-params.ts';
import { problemOf } from '../shim/http/problem.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

type Json = Record<string, unknown>;
let validate: (args: Json) => boolean;
let validateFirm: (args: Json) => boolean;
/** One get_firm call through the MCP route: its problem when it is an error, else null. */
let firmProblem: (args: Json) => Promise<Json | null>;
let post: (message: Json, headers?: Record<string, string>) => Promise<Json>;
let server: TestServer;

beforeAll(async () => {
  const dir = process.env.TEST_SITE_DIR;
  if (dir === undefined) throw new Error('TEST_SITE_DIR is not set: run through vitest (test/global-setup.ts)');
  const route = createMcpRoute(createService(createSiteSource(new FolderStore(dir))), {
    publicBaseUrl: 'http://127.0.0.1:8787',
    allowedOrigins: [],
  });
  server = await startTestServer();
  post = async (message: Json, headers: Record<string, string> = {}): Promise<Json> => {
    const response = await route(
      new Request('http://127.0.0.1:8787/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(message),
      }),
      { clientAddress: '192.0.2.7' },
    );
    return (await response.json()) as Json;
  };
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'parity', version: '1' } },
  });
  const listed = await post(
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { 'mcp-protocol-version': '2025-06-18' },
  );
  const tools = (listed.result as { tools: { name: string; inputSchema: Json }[] }).tools;
  const schema = tools.find((t) => t.name === 'find_injury_attorneys')?.inputSchema;
  if (schema === undefined)
    throw new Error(`no find_injury_attorneys in tools/list: ${JSON.stringify(listed).slice(0, 300)}`);
  const ajv = String(schema.$schema ?? '').includes('2020-12')
    ? new Ajv2020({ strict: false })
    : new Ajv({ strict: false });
  const check = ajv.compile(schema);
  validate = (args) => check(args) === true;
  const firmSchema = tools.find((t) => t.name === 'get_firm')?.inputSchema;
  if (firmSchema === undefined) throw new Error('no get_firm in tools/list');
  const checkFirm = ajv.compile(firmSchema);
  validateFirm = (args) => checkFirm(args) === true;
  let id = 3;
  firmProblem = async (args) => {
    const answer = await post(
      { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'get_firm', arguments: args } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const result = answer.result as { isError?: boolean; _meta?: { problem?: Json } };
    return result.isError === true ? (result._meta?.problem ?? {}) : null;
  };
});
afterAll(async () => {
  await server?.close();
});

/** The problem REST /v1/firms/{id} gives for this query string (read before the store), or null when it accepts it. */
function restFirmProblem(search: string): Json | null {
  try {
    parseFirmPoint(parseQuery(search));
    return null;
  } catch (error) {
    return problemOf(error, 'test').problem as unknown as Json;
  }
}

/** Whether the REST parser accepts this query string (the search alone; no store is read). */
function restAccepts(search: string): boolean {
  try {
    parseAttorneysArgs(parseQuery(search));
    return true;
  } catch {
    return false;
  }
}

const q = (params: [string, string][]): string =>
  params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** Plain decimal text as a caller writes it ("-12.5", "7", "0.25"), with its JSON number. */
const decimalText = (maxInt: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('', '-', '+'),
      fc.integer({ min: 0, max: maxInt }),
      fc.option(fc.stringMatching(/^\d{1,6}$/), { nil: undefined }),
    )
    .map(([sign, int, frac]) => `${sign}${int}${frac === undefined ? '' : `.${frac}`}`);

/** Text values: any code points (no lone surrogates, which neither protocol carries), blanks, controls, lengths at the edges. */
const text = (edge: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: edge + 5 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom(
      '',
      ' ',
      '\t',
      '\u00a0',
      '\u3000 ',
      ' x ',
      '\u0085',
      '\u009f',
      '\u200b',
      '\u{1F600}',
      '\ue000',
      '\u{10FFFD}',
      'a\u0000b',
    ),
    fc
      .integer({ min: edge - 2, max: edge + 2 })
      .chain((n) => fc.constantFrom('a'.repeat(n), '\u{1F600}'.repeat(n), `${'é'.repeat(n)}`)),
  );

/** One parameter's generated cases: the REST query and the MCP arguments carrying the same value. */
interface Case {
  rest: string;
  mcp: Json;
}

const cases: Record<string, fc.Arbitrary<Case>> = {
  location: text(200).map((v) => ({ rest: q([['location', v]]), mcp: { location: v } })),
  zip: fc
    .oneof(fc.stringMatching(/^\d{3,7}$/), text(5), fc.constantFrom('60601', '６０６０１', '6060a', '60601-1234'))
    .map((v) => ({ rest: q([['zip', v]]), mcp: { zip: v } })),
  lat: decimalText(120).map((v) => ({
    rest: q([
      ['lat', v],
      ['lng', '-87.63'],
    ]),
    mcp: { lat: Number(v), lng: -87.63 },
  })),
  lng: decimalText(200).map((v) => ({
    rest: q([
      ['lat', '41.88'],
      ['lng', v],
    ]),
    mcp: { lat: 41.88, lng: Number(v) },
  })),
  radius_miles: decimalText(RADIUS_MILES.max + 10).map((v) => ({
    rest: q([
      ['zip', '60601'],
      ['radius_miles', v],
    ]),
    mcp: { zip: '60601', radius_miles: Number(v) },
  })),
  limit: decimalText(LIMIT.max + 10).map((v) => ({
    rest: q([
      ['zip', '60601'],
      ['limit', v],
    ]),
    mcp: { zip: '60601', limit: Number(v) },
  })),
  practice_area: fc
    .oneof(text(20), fc.constantFrom('personal_injury', 'Personal_Injury', 'personal_injury ', 'family_law'))
    .map((v) => ({
      rest: q([
        ['zip', '60601'],
        ['practice_area', v],
      ]),
      mcp: { zip: '60601', practice_area: v },
    })),
  // "Printable" beyond the control characters (no format, private-use or unassigned code points) needs Unicode property
  // escapes, which a pattern read without the `u` flag (Spectral, many clients) cannot carry: the schema says it in
  // words, and the REST refusal of such values is checked below instead.
  src: text(SRC_MAX_LENGTH)
    .filter((v) => !/[\p{Cf}\p{Co}\p{Cn}]/u.test(v))
    .map((v) => ({
      rest: q([
        ['zip', '60601'],
        ['src', v],
      ]),
      mcp: { zip: '60601', src: v },
    })),
};

describe('REST parser and MCP input schema agree', () => {
  for (const [name, arbitrary] of Object.entries(cases)) {
    it(`accept and refuse the same values of ${name}`, () => {
      fc.assert(
        fc.property(arbitrary, (c) => {
          expect({ value: c.mcp, rest: restAccepts(c.rest) }).toEqual({ value: c.mcp, rest: validate(c.mcp) });
        }),
        { numRuns: 400 },
      );
    });
  }

  it('REST refuses a src with format, private-use or unassigned code points (the schema says "printable")', () => {
    for (const src of ['zero\u200bwidth', '\ufeffbom', 'private\ue000', 'plane16\u{10FFFD}', 'unassigned\u0378']) {
      expect(
        restAccepts(
          q([
            ['zip', '60601'],
            ['src', src],
          ]),
        ),
      ).toBe(false);
    }
  });

  it('both refuse a parameter neither knows, and both need a location', () => {
    expect(restAccepts('zip=60601&radius=5')).toBe(false);
    expect(validate({ zip: '60601', radius: 5 })).toBe(false);
    expect(restAccepts('limit=5')).toBe(false);
  });
});

describe('REST /v1/firms/{listing_id} and MCP get_firm read the point alike', () => {
  const ID = 'l_aaaaaaaaaaaaaaaa';
  const pairs = fc.tuple(
    fc.oneof(decimalText(120), fc.constant(undefined)),
    fc.oneof(decimalText(200), fc.constant(undefined)),
  );

  it('accept and refuse the same values of lat and lng (REST parser, advertised get_firm schema)', () => {
    fc.assert(
      fc.property(pairs, ([lat, lng]) => {
        const rest: [string, string][] = [];
        const mcp: Json = { listing_id: ID };
        if (lat !== undefined) {
          rest.push(['lat', lat]);
          mcp.lat = Number(lat);
        }
        if (lng !== undefined) {
          rest.push(['lng', lng]);
          mcp.lng = Number(lng);
        }
        // The schema cannot say "both or neither"; the tool then answers as REST does (checked below).
        if ((lat === undefined) !== (lng === undefined)) return;
        expect({ mcp, rest: restFirmProblem(q(rest)) === null }).toEqual({ mcp, rest: validateFirm(mcp) });
      }),
      { numRuns: 400 },
    );
  });

  it('the tool gives the REST problem for the same point, unknown name or missing half', async () => {
    const cases: [string, Json][] = [
      ['lat=91&lng=0', { lat: 91, lng: 0 }],
      ['lat=38.9&lng=-181', { lat: 38.9, lng: -181 }],
      ['lat=38.9', { lat: 38.9 }],
      ['lng=-77', { lng: -77 }],
      ['radius=5', { radius: 5 }],
    ];
    for (const [query, args] of cases) {
      const rest = restFirmProblem(query);
      expect(rest, query).not.toBeNull();
      const mcp = await firmProblem({ listing_id: ID, ...args });
      // Same code, parameter and detail; MCP names its own extra arguments among the accepted ones.
      const { accepted: restAccepted, type: _t1, ...restRest } = rest as Json;
      const { accepted: mcpAccepted, type: _t2, ...mcpRest } = mcp as Json;
      if (restRest.code === 'unknown_parameter') {
        expect(mcpAccepted).toEqual(['listing_id', 'lat', 'lng', 'format']);
        expect(restAccepted).toEqual(['lat', 'lng']);
        expect(mcpRest.parameter).toBe(restRest.parameter);
      } else expect(mcpRest, query).toEqual(restRest);
    }
  });

  it('a good point is accepted by both', async () => {
    expect(restFirmProblem('lat=38.9&lng=-77')).toBeNull();
    // An unknown id after a good point: not_found, not a parameter problem.
    expect(await firmProblem({ listing_id: ID, lat: 38.9, lng: -77 })).toMatchObject({ code: 'not_found' });
  });
});

describe('REST and MCP read the same text the same way', () => {
  const texts = [
    'Buckhead, Atlanta, GA',
    'Harlem, New York, NY',
    'I-10 near Baytown, TX',
    '350 5th Ave, New York, NY',
    'Lake in the Hills, IL',
    'Toronto',
    'Toronto, Canada',
    'Mexico City',
    'Pheonix',
    'Hueston, TX',
    'St Pete, FL',
    'Urbna, IL',
    'near me',
    '42.3149,-83.0364',
    '31.7619,-106.485',
  ];
  it('gives the same location, or the same refusal, over REST and MCP (format "json")', async () => {
    let id = 10;
    for (const location of texts) {
      const rest = await fetch(`${server.url}/v1/attorneys?location=${encodeURIComponent(location)}&limit=1`);
      const body = (await rest.json()) as Json;
      const called = await post(
        {
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name: 'find_injury_attorneys', arguments: { location, limit: 1, format: 'json' } },
        },
        { 'mcp-protocol-version': '2025-06-18' },
      );
      const result = called.result as { isError?: boolean; content: { text: string }[]; structuredContent?: Json };
      const text = result.content[0]?.text ?? '';
      if (rest.status === 200) {
        expect(result.isError ?? false, location).toBe(false);
        expect((JSON.parse(text) as Json).location, location).toEqual(body.location);
      } else {
        expect(rest.status, location).toBe(400);
        expect(result.isError, location).toBe(true);
        expect(text, location).toContain(body.detail as string);
        // The problem travels as structuredContent too, where the host forwards that block.
        if (result.structuredContent !== undefined)
          expect(result.structuredContent.code, location).toBe(body.code as string);
      }
    }
  });
});
