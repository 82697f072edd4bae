/**
 * GET /v1/firms/{listing_id} with the person's point, as MCP get_firm takes it: every office's distance from the point
 * (checked against an independent haversine), the other offices nearest first; lat and lng read with the search's
 * rules and errors; any other parameter refused as /v1/attorneys refuses one. openapi.json describes the parameters,
 * and its info.description says the firms are fictional exactly while the served dataset is synthetic.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTHETIC_NOTE } from '../shim/answer/disclosure.ts';
import { readFile } from 'node:fs/promises';
import { buildOpenApi } from '../generator/openapi/openapi.ts';
import { collectExamples } from '../generator/openapi/openapi-examples.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { request, type Reply } from './helpers/http.ts';
import { ResponseSchemas } from './helpers/openapi.ts';
import { largestFirm } from './helpers/largest-firm.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

type Json = Record<string, unknown>;
interface Office {
  listing_id: string;
  lat: number;
  lng: number;
  distance_miles?: number;
}
interface Firm {
  office: Office;
  other_offices: Office[];
}

let server: TestServer;
let schemas: ResponseSchemas;
let id = '';
beforeAll(async () => {
  id = largestFirm().id;
  server = await startTestServer();
  schemas = new ResponseSchemas((await request(server.url, '/openapi.json')).body as never);
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string): Promise<Reply> => request(server.url, path, {}, schemas);

/** Great-circle miles on a sphere of 3,958.8 mi, written here apart from shim/search/geo.ts. */
function miles(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 3958.8 * Math.asin(Math.sqrt(h));
}

describe('GET /v1/firms/{listing_id}?lat=&lng=', () => {
  it('gives every office its distance from the point and lists the other offices nearest first', async () => {
    const point = { lat: 38.9072, lng: -77.0369 };
    const plain = (await get(`/v1/firms/${id}`)).body as Firm;
    const near = await get(`/v1/firms/${id}?lat=${point.lat}&lng=${point.lng}`);
    expect(near.status).toBe(200);
    const body = near.body as Firm;
    expect(body.other_offices.length).toBeGreaterThan(10);
    // The same offices as without the point, reordered.
    expect(body.other_offices.map((o) => o.listing_id).sort()).toEqual(
      plain.other_offices.map((o) => o.listing_id).sort(),
    );
    for (const o of [body.office, ...body.other_offices])
      expect(o.distance_miles, o.listing_id).toBeCloseTo(miles(point, o), 1);
    const distances = body.other_offices.map((o) => miles(point, o));
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    // Without the point the document is unchanged: no distances, by listing_id.
    expect(plain.office.distance_miles).toBeUndefined();
    const ids = plain.other_offices.map((o) => o.listing_id);
    expect(ids).toEqual([...ids].sort());
  });

  it.each([
    ['radius=5', 'radius'],
    ['lat=38.9&lng=-77&limit=3', 'limit'],
    ['format=json', 'format'],
  ])(
    'refuses an unknown parameter (%s) as /v1/attorneys does, naming it and the accepted ones',
    async (query, name) => {
      const reply = await get(`/v1/firms/${id}?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(reply.body).toMatchObject({ code: 'unknown_parameter', parameter: name, accepted: ['lat', 'lng'] });
      expect((reply.body as Json).detail).toMatch(
        new RegExp(`Unknown parameter "${name}".*Accepted parameters: lat, lng`),
      );
    },
  );

  it.each([
    ['lat=91&lng=0'],
    ['lat=abc&lng=-77'],
    ['lat=38.9&lng=1e2'],
    ['lat=38.9&lng=-181'],
    ['lat=38.9&lat=39&lng=-77'],
    ['lat=&lng=-77'],
  ])('refuses a bad point (%s) with the detail the search gives for it', async (query) => {
    const firm = await get(`/v1/firms/${id}?${query}`);
    const search = await get(`/v1/attorneys?${query}`);
    expect(search.status).toBe(400);
    expect(firm.status).toBe(400);
    expect(firm.body).toEqual(search.body);
  });

  it('refuses lat without lng (and lng without lat) naming the missing one', async () => {
    for (const [query, missing] of [
      ['lat=38.9', 'lng'],
      ['lng=-77', 'lat'],
    ] as const) {
      const reply = await get(`/v1/firms/${id}?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'invalid_parameter', parameter: missing });
      expect((reply.body as Json).detail).toMatch(new RegExp(`${missing} is missing`));
    }
  });

  it.each([
    ['lat=51.5&lng=-0.12', /"51\.5,-0\.12" is a point in United Kingdom, outside the United States/],
    ['lat=0&lng=0', /"0,0" is a point outside the United States/],
  ])('refuses a point outside the US (%s) as the search does, over REST and MCP get_firm', async (query, where) => {
    const firm = await get(`/v1/firms/${id}?${query}`);
    const search = await get(`/v1/attorneys?${query}`);
    expect(search.status).toBe(400);
    expect(firm.status).toBe(400);
    const problem = firm.body as Json;
    expect(problem).toMatchObject({ code: 'location_not_understood', parameter: 'lat', accepted: ['lat,lng'] });
    expect(problem.code).toBe((search.body as Json).code);
    expect(problem.detail).toMatch(where);
    expect(problem.detail).toMatch(/^lat,lng ".*the 50 states, DC and Puerto Rico\..*leave lat and lng out/);
    // An unknown id with such a point: the point is the mistake named first, as for any bad parameter.
    expect((await get(`/v1/firms/l_aaaaaaaaaaaaaaaa?${query}`)).body).toMatchObject({ code: problem.code });

    const client = new Client({ name: 'firm-point', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const params = new URLSearchParams(query);
      const args = { listing_id: id, lat: Number(params.get('lat')), lng: Number(params.get('lng')) };
      const result = await client.callTool({ name: 'get_firm', arguments: args });
      expect(result.isError).toBe(true);
      const { type: _t1, ...rest } = problem;
      const { type: _t2, accepted: mcpAccepted, ...mcp } = result._meta?.problem as Json;
      const { accepted: restAccepted, ...restOnly } = rest;
      expect(mcp).toEqual(restOnly);
      expect(mcpAccepted).toEqual(restAccepted);
    } finally {
      await client.close();
    }
  });

  it('reads the query before the store: a bad parameter is 400 whatever the id; a good point keeps 404', async () => {
    expect((await get('/v1/firms/l_aaaaaaaaaaaaaaaa?radius=5')).status).toBe(400);
    expect((await get('/v1/firms/l_aaaaaaaaaaaaaaaa?lat=38.9&lng=-77')).status).toBe(404);
  });
});

describe('openapi.json', () => {
  it('describes lat and lng on /v1/firms/{listing_id} and its 400', async () => {
    const doc = (await get('/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string; in: string }[]; responses: Json } }>;
    };
    const op = doc.paths['/v1/firms/{listing_id}']?.get;
    expect(op?.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(['lat', 'lng']);
    expect(op?.responses['400']).toBeDefined();
  });

  it('info.description says the firms are fictional exactly while the served dataset is synthetic', async () => {
    const coverage = (await get('/v1/coverage')).body as { dataset: { synthetic: boolean } };
    const served = (await get('/openapi.json')).body as { info: { description: string } };
    expect(coverage.dataset.synthetic).toBe(true);
    expect(served.info.description).toContain(SYNTHETIC_NOTE);
    const metros = JSON.parse(await readFile('data/metros.json', 'utf8')) as {
      metros: { principal_cities: string[] }[];
    };
    const cities = metros.metros.map((m) => m.principal_cities[0] as string);
    const examples = await collectExamples(new FolderStore(process.env.TEST_SITE_DIR as string), cities);
    const real = buildOpenApi(examples, { synthetic: false }) as { info: { description: string } };
    expect(real.info.description).not.toMatch(/fictional|sample data/i);
    const twice = [buildOpenApi(examples, { synthetic: true }), buildOpenApi(examples, { synthetic: true })];
    expect(JSON.stringify(twice[0])).toBe(JSON.stringify(twice[1]));
  });
});
