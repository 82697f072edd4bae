/** GET /v1/attorneys and the other routes over real HTTP: every 400 of docs/CONTRACT.md, 404s, covered:false, bodies per openapi.json. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseSchemas } from './helpers/openapi.ts';
import { request, type Reply } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let schemas: ResponseSchemas;

const get = (path: string, init: RequestInit = {}): Promise<Reply> => request(server.url, path, init, schemas);

type Problem = { status: number; code: string; detail: string; parameter?: string; type: string; title: string };

async function problem(path: string, status: number, code: string): Promise<Problem> {
  const reply = await get(path);
  expect(reply.status, path).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = reply.body as Problem;
  expect(body.code, `${path}: ${body.detail}`).toBe(code);
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeGreaterThan(10);
  return body;
}

beforeAll(async () => {
  server = await startTestServer();
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as ConstructorParameters<
    typeof ResponseSchemas
  >[0];
  schemas = new ResponseSchemas(doc);
});
afterAll(async () => {
  await server.close();
});

describe('GET /v1/attorneys: 400s', () => {
  it('needs exactly one location form', async () => {
    await problem('/v1/attorneys', 400, 'location_required');
    await problem('/v1/attorneys?limit=3', 400, 'location_required');
    const two = await problem('/v1/attorneys?location=Chicago,%20IL&zip=60601', 400, 'invalid_parameter');
    expect(two.detail).toMatch(/exactly one/i);
    await problem('/v1/attorneys?zip=60601&lat=41.9&lng=-87.6', 400, 'invalid_parameter');
    await problem('/v1/attorneys?lat=41.9', 400, 'invalid_parameter');
  });

  it('names an unknown parameter such as radius= and lists the accepted ones', async () => {
    const p = await problem('/v1/attorneys?zip=60601&radius=10', 400, 'unknown_parameter');
    expect(p.parameter).toBe('radius');
    expect(p.detail).toContain('radius_miles');
    expect((await problem('/v1/attorneys?zip=60601&foo=bar', 400, 'unknown_parameter')).parameter).toBe('foo');
  });

  it('rejects radius_miles out of range or not a number, naming the bound', async () => {
    for (const value of ['0', '0.5', '51', '1000', '-5']) {
      const p = await problem(`/v1/attorneys?zip=60601&radius_miles=${value}`, 400, 'invalid_parameter');
      expect(p.parameter).toBe('radius_miles');
      expect(p.detail).toMatch(/\b1\b.*\b50\b/);
    }
    for (const value of ['abc', '', '1e1', '0x10', 'NaN', 'Infinity', '10mi']) {
      expect((await problem(`/v1/attorneys?zip=60601&radius_miles=${value}`, 400, 'invalid_parameter')).parameter).toBe(
        'radius_miles',
      );
    }
  });

  it('rejects limit out of range, fractional or not a number, naming the bound', async () => {
    for (const value of ['0', '26', '100', '-1']) {
      const p = await problem(`/v1/attorneys?zip=60601&limit=${value}`, 400, 'invalid_parameter');
      expect(p.parameter).toBe('limit');
      expect(p.detail).toMatch(/\b1\b.*\b25\b/);
    }
    for (const value of ['2.5', 'ten', '']) {
      expect((await problem(`/v1/attorneys?zip=60601&limit=${value}`, 400, 'invalid_parameter')).parameter).toBe(
        'limit',
      );
    }
  });

  it('rejects a repeated parameter', async () => {
    expect((await problem('/v1/attorneys?zip=60601&limit=3&limit=4', 400, 'invalid_parameter')).parameter).toBe(
      'limit',
    );
  });

  it('does not understand unknown ZIPs and cities', async () => {
    await problem('/v1/attorneys?zip=00000', 400, 'location_not_understood');
    await problem('/v1/attorneys?location=00000', 400, 'location_not_understood');
    await problem('/v1/attorneys?location=Qwxyzville,%20TX', 400, 'location_not_understood');
    await problem('/v1/attorneys?location=Springfield,%20ZZ', 400, 'location_not_understood');
  });

  it('rejects a malformed zip and out-of-range coordinates', async () => {
    expect((await problem('/v1/attorneys?zip=6060', 400, 'invalid_parameter')).parameter).toBe('zip');
    expect((await problem('/v1/attorneys?lat=91&lng=0', 400, 'invalid_parameter')).parameter).toBe('lat');
    expect((await problem('/v1/attorneys?lat=40&lng=-181', 400, 'invalid_parameter')).parameter).toBe('lng');
    expect((await problem('/v1/attorneys?lat=abc&lng=0', 400, 'invalid_parameter')).parameter).toBe('lat');
    await problem('/v1/attorneys?location=91,0', 400, 'invalid_parameter');
    await problem('/v1/attorneys?location=45,200', 400, 'invalid_parameter');
  });

  it('supports only personal_injury as practice area', async () => {
    const p = await problem(
      '/v1/attorneys?zip=60601&practice_area=medical_malpractice',
      400,
      'practice_area_unsupported',
    );
    expect(p.detail).toContain('personal_injury');
    const ok = await get('/v1/attorneys?zip=60601&practice_area=personal_injury&limit=1');
    expect(ok.status).toBe(200);
  });

  it('says a kind of case is no filter, not that the directory has no lawyers for it', async () => {
    // "car_accident is not supported" was retold as "this service has no car accident lawyers".
    for (const sent of ['car_accident', 'slip and fall', 'Personal Injury']) {
      const p = await problem(
        `/v1/attorneys?zip=60601&practice_area=${encodeURIComponent(sent)}`,
        400,
        'practice_area_unsupported',
      );
      expect(p.detail, sent).toContain('lists personal injury law offices only');
      expect(p.detail, sent).toContain('does not narrow them by the kind of case');
      expect(p.detail, sent).toMatch(/leave practice_area out/i);
      expect(p.detail, sent).not.toMatch(/is not supported/);
    }
  });

  it('limits src to 100 printable characters', async () => {
    await problem(`/v1/attorneys?zip=60601&src=${'a'.repeat(101)}`, 400, 'invalid_parameter');
    await problem('/v1/attorneys?zip=60601&src=', 400, 'invalid_parameter');
    expect((await get(`/v1/attorneys?zip=60601&limit=1&src=${'a'.repeat(100)}`)).status).toBe(200);
  });

  it('refuses an over-long path naming the path, not the query, and what is accepted', async () => {
    for (const path of [
      `/v1/${'a'.repeat(9000)}`,
      `/v1/firms/l_${'a'.repeat(3000)}`,
      `/${'b'.repeat(2100)}?zip=60601`,
    ]) {
      const long = await problem(path, 400, 'invalid_parameter');
      expect(long.parameter, path.slice(0, 20)).toBe('path');
      expect(long.detail).toMatch(
        /^The request path is \d+ bytes long; at most 2048 bytes of path and query together are accepted\./,
      );
      expect(long.detail).toMatch(/\/openapi\.json/);
    }
  });

  it('refuses an oversized or binary query string', async () => {
    const long = await problem(`/v1/attorneys?zip=60601&src=${'x'.repeat(2100)}`, 400, 'invalid_parameter');
    expect(long.detail).toMatch(/2048/);
    expect(long.parameter).toBe('query');
    await problem(`/v1/attorneys?location=${'%41'.repeat(700)}`, 400, 'invalid_parameter');
    await problem('/v1/attorneys?location=%FF%FE%00', 400, 'invalid_parameter');
    await problem('/v1/attorneys?location=%C3%28', 400, 'invalid_parameter');
    await problem('/v1/attorneys?location=60601%00', 400, 'invalid_parameter');
    await problem('/v1/attorneys?location=%ZZ', 400, 'invalid_parameter');
    await problem('/v1/attorneys?%80=1', 400, 'invalid_parameter');
  });
});

describe('GET /v1/attorneys: answers', () => {
  it('answers a covered ZIP with results ordered by distance', async () => {
    const reply = await get('/v1/attorneys?location=Chicago,%20IL&limit=5');
    expect(reply.status).toBe(200);
    const body = reply.body as {
      covered: boolean;
      results: { distance_miles: number; website: string | null }[];
      location: { input: string };
    };
    expect(body.covered).toBe(true);
    expect(body.location.input).toBe('Chicago, IL');
    expect(body.results.length).toBe(5);
    const d = body.results.map((r) => r.distance_miles);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
    for (const r of body.results) if (r.website !== null) expect(r.website.startsWith(`${server.url}/r/`)).toBe(true);
  });

  it('accepts the other location forms', async () => {
    for (const path of [
      '/v1/attorneys?zip=60601',
      '/v1/attorneys?location=60601-1234',
      '/v1/attorneys?location=41.88,-87.63',
      '/v1/attorneys?lat=41.88&lng=-87.63',
      '/v1/attorneys?location=chicago,+il',
    ]) {
      const reply = await get(`${path}&limit=2`);
      expect(reply.status, path).toBe(200);
      expect((reply.body as { covered: boolean }).covered, path).toBe(true);
    }
  });

  it('is covered:false with no results outside every measured metro (Billings, MT; South Dakota)', async () => {
    for (const path of [
      '/v1/attorneys?zip=59101',
      '/v1/attorneys?location=59101',
      '/v1/attorneys?location=Billings,%20MT',
      '/v1/attorneys?lat=44.3683&lng=-100.351',
      '/v1/attorneys?location=43.55,-96.73&radius_miles=50',
    ]) {
      const reply = await get(path);
      expect(reply.status, path).toBe(200);
      const body = reply.body as {
        covered: boolean;
        results: unknown[];
        firms_within_radius: number;
        disclosure: string;
      };
      expect(body.covered, path).toBe(false);
      expect(body.results).toEqual([]);
      expect(body.firms_within_radius).toBe(0);
      expect(body.disclosure.length).toBeGreaterThan(0);
    }
  });
});

describe('404s', () => {
  it('answers an unknown but well-formed listing id with 404 not_found on the firm and redirect routes', async () => {
    await problem('/v1/firms/l_aaaaaaaaaaaaaaaa', 404, 'not_found');
    await problem('/r/l_aaaaaaaaaaaaaaaa', 404, 'not_found');
    await problem('/v1/firms/not-a-listing', 404, 'not_found');
    await problem('/v1/firms/L_AAAAAAAAAAAAAAAA', 404, 'not_found');
  });

  it('says what is wrong with an id that is not a listing_id as written, and the one to send when it can tell', async () => {
    const search = (await get('/v1/attorneys?location=Chicago,%20IL&limit=1')).body as {
      results: { listing_id: string }[];
    };
    const id = search.results[0]?.listing_id ?? '';
    const firm = (await get(`/v1/firms/${id}`)).body as { firm: { firm_id: string } };
    // A firm_id (from a firm answer) was answered "No listing with id", which a model may retell as "no longer listed".
    const byFirm = await problem(`/v1/firms/${firm.firm.firm_id}`, 404, 'not_found');
    expect(byFirm.detail).toContain(`${JSON.stringify(firm.firm.firm_id)} is a firm_id, not a listing_id`);
    // Upper case, or a space or full stop copied with it: the id meant is named.
    for (const sent of [id.toUpperCase(), `${id}%20`, `${id}.`]) {
      const p = await problem(`/v1/firms/${sent}`, 404, 'not_found');
      expect(p.detail, sent).toContain(`Did you mean ${JSON.stringify(id)}?`);
    }
    // Anything else says what a listing_id looks like; a well-formed unknown one keeps the plain answer.
    expect((await problem('/v1/firms/12345', 404, 'not_found')).detail).toMatch(/"l_" and 16 /);
    expect((await problem('/v1/firms/l_aaaaaaaaaaaaaaaa', 404, 'not_found')).detail).toMatch(/^No listing with id /);
  });

  it('answers unknown paths with a 404 problem', async () => {
    for (const path of [
      '/nope',
      '/v1',
      '/v1/',
      '/v1/attorneys/',
      '/v2/attorneys',
      '/v1/firms',
      '/v1/firms/',
      '/r/',
      '/mcp/x',
      '/openapi.yaml',
      // The pointer is public (/current.json, the public audit); nothing else at the root of the store is.
      '/current.json/x',
      '/meta.json',
      '/v/x/meta.json',
    ]) {
      await problem(path, 404, 'not_found');
    }
  });

  it('answers path traversal attempts with 404 and never a file', async () => {
    for (const path of [
      '/v1/firms/..%2F..%2Fetc%2Fpasswd',
      '/v1/firms/..%2Fcurrent.json',
      '/v1/firms/%2e%2e%2f%2e%2e%2fcurrent.json',
      '/v1/firms/%2e%2e/%2e%2e/v/x/meta.json',
      '/v1/firms/..%5C..%5Ccurrent.json',
      '/r/..%2F..%2Fcurrent.json',
      '/v1/firms/l_aaaaaaaaaaaaaaaa%2F..%2F..%2Fcurrent',
      '/v1/firms/%00',
      '/v1/firms/%E0%A4%A',
    ]) {
      const p = await problem(path, 404, 'not_found');
      expect(JSON.stringify(p)).not.toMatch(/schema_version|root:/);
    }
  });
});
