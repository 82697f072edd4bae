/**
 * The Lambda handler against the local server: realistic Function URL events (as CloudFront relays them) give the
 * same status and body as the same request to the local server over loopback, for REST, redirects and MCP; requests
 * without the origin secret are refused; a bad environment fails the cold start of the real bundle with a clear message.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleLambda, type BundleInfo } from '../infra/bundle.ts';
import { LambdaEnvError, loadLambdaEnv } from '../shim/edge/env.ts';
import { answerToResult, eventToPlain, FUNCTION_URL_PAYLOAD_MAX_BYTES, viewerAddress } from '../shim/aws/event.ts';
import { createHandler, originVerified, type FunctionUrlHandler } from '../shim/aws/handler.ts';
import { StdoutJsonSink } from '../shim/aws/log-sink.ts';
import type { RequestLogEntry, SaltProvider } from '../shim/edge/edge-types.ts';
import { hashAddress } from '../shim/http/request-log.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { functionUrlEvent, resultJson, VIEWER_IPV6, type EventSpec } from '../bench/lib/function-url.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const BASE = 'https://directory.example';
const SECRET = 'k7Qm2Xv9Lp4Rt8Wz3Nc6Hb1Jd5Fg0Sa7Ye2Ui4Oo9';
const OLD_SECRET = 'Zx8Cv7Bn6Mm5Aa4Ss3Dd2Ff1Gg0Hh9Jj8Kk7Ll6Qq';
const SALT = new Uint8Array(32).fill(7);
const fixedSalt: SaltProvider = { saltFor: async () => SALT };

let local: TestServer;
let handler: FunctionUrlHandler;
const lines: RequestLogEntry[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SITE_BUCKET: 'directory-site',
    SALT_BUCKET: 'directory-salt',
    ORIGIN_VERIFY_SECRETS: SECRET,
    PUBLIC_BASE_URL: BASE,
    ...extra,
  };
}

beforeAll(async () => {
  const siteDir = process.env.TEST_SITE_DIR as string;
  local = await startTestServer({ PUBLIC_BASE_URL: BASE, RATE_LIMIT_PER_HOUR: '600' });
  handler = createHandler(loadLambdaEnv(env()), {
    store: new FolderStore(siteDir),
    salt: fixedSalt,
    log: { write: (e) => lines.push(e) },
  });
});
afterAll(async () => {
  await local?.close();
});

async function viaLocal(spec: EventSpec): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${local.url}${spec.target}`, {
    method: spec.method ?? 'GET',
    // Like the events below (no Accept-Encoding unless a test sets one): fetch would otherwise ask for gzip and br.
    headers: { 'accept-encoding': 'identity', ...spec.headers },
    redirect: 'manual',
    ...(spec.body !== undefined ? { body: spec.body } : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The JSON body without the per-request query id (a fresh UUIDv7 on every call). */
function withoutQueryId(text: string): unknown {
  if (text === '') return '';
  return JSON.parse(text, (key, value: unknown) => (key === 'query_id' ? undefined : value));
}

async function expectSameAnswer(spec: EventSpec): Promise<Record<string, unknown>> {
  const [lambda, expected] = await Promise.all([handler(functionUrlEvent(spec, SECRET)), viaLocal(spec)]);
  expect(lambda.statusCode).toBe(expected.status);
  expect(lambda.isBase64Encoded).toBe(false);
  expect(withoutQueryId(lambda.body)).toEqual(withoutQueryId(expected.text));
  for (const name of [
    'content-type',
    'cache-control',
    'etag',
    'location',
    'access-control-allow-origin',
    'ratelimit-policy',
  ]) {
    expect(lambda.headers[name], name).toBe(expected.headers.get(name) ?? undefined);
  }
  return lambda.body === '' ? {} : resultJson(lambda);
}

describe('the same answers as the local server', () => {
  it('GET /v1/coverage', async () => {
    const body = await expectSameAnswer({ target: '/v1/coverage' });
    expect((body.totals as { metros: number }).metros).toBeGreaterThan(0);
  });

  it('GET /v1/attorneys by ZIP, by city and by point, and a bad parameter', async () => {
    const found = await expectSameAnswer({ target: '/v1/attorneys?location=60601&limit=5' });
    expect(found.covered).toBe(true);
    expect((found.results as unknown[]).length).toBe(5);
    await expectSameAnswer({ target: '/v1/attorneys?location=Houston,%20TX&radius_miles=5' });
    await expectSameAnswer({ target: '/v1/attorneys?lat=47.6062&lng=-122.3321&limit=25' });
    await expectSameAnswer({ target: '/v1/attorneys?location=60601&radius=5' });
  });

  it('GET /r/<id> redirects to the same place; an unknown id is the same 404', async () => {
    const search = resultJson(
      await handler(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=25' }, SECRET)),
    );
    const withSite = (search.results as Array<{ listing_id: string; website: string | null }>).find(
      (r) => r.website !== null,
    );
    expect(withSite?.website).toBe(`${BASE}/r/${withSite?.listing_id}`);
    await expectSameAnswer({ target: `/r/${withSite?.listing_id}` });
    await expectSameAnswer({ target: '/r/l_zzzzzzzzzzzzzzzz' });
  });

  it('GET /v1/firms/<id> and /openapi.json', async () => {
    const search = resultJson(
      await handler(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=1' }, SECRET)),
    );
    const id = (search.results as Array<{ listing_id: string }>)[0]?.listing_id;
    await expectSameAnswer({ target: `/v1/firms/${id}` });
    await expectSameAnswer({ target: '/openapi.json' });
  });

  it('POST /mcp tools/call (base64 body, as the Function URL delivers it) gives the same tool result', async () => {
    const spec: EventSpec = {
      method: 'POST',
      target: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'find_injury_attorneys', arguments: { location: '60601', limit: 3 } },
      }),
    };
    const event = functionUrlEvent(spec, SECRET);
    expect(event.isBase64Encoded).toBe(true);
    const [lambda, expected] = await Promise.all([handler(event), viaLocal(spec)]);
    expect(lambda.statusCode).toBe(200);
    expect(lambda.statusCode).toBe(expected.status);
    const got = resultJson(lambda) as { result: { structuredContent: { results: unknown[]; covered: boolean } } };
    expect(got.result.structuredContent.covered).toBe(true);
    expect(got.result.structuredContent.results).toHaveLength(3);
    // The text block repeats the query id, so compare the parsed message without it.
    const strip = (text: string): unknown =>
      withoutQueryId(JSON.stringify(JSON.parse(text, (k, v: unknown) => (k === 'text' ? undefined : v))));
    expect(strip(JSON.stringify(got))).toEqual(strip(expected.text));
  });

  it('unknown paths and methods are the same problems', async () => {
    await expectSameAnswer({ target: '/v2/nothing' });
    await expectSameAnswer({ target: '/mcp' });
    await expectSameAnswer({ method: 'DELETE', target: '/v1/coverage' });
  });
});

describe('origin secret', () => {
  it.each([
    ['missing', null],
    ['empty', ''],
    ['wrong, same length', SECRET.replace(/^./, 'x')],
    ['wrong, shorter', SECRET.slice(0, 10)],
  ])('%s secret: 403 problem, nothing served', async (_name, secret) => {
    const result = await handler(functionUrlEvent({ target: '/v1/coverage' }, secret));
    expect(result.statusCode).toBe(403);
    expect(result.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = resultJson(result);
    expect(body).toMatchObject({ status: 403, code: 'origin_not_allowed' });
    expect(JSON.stringify(body)).not.toContain('week_of');
  });

  it('a direct call to the Function URL (no CloudFront headers at all) is refused', async () => {
    expect(
      (await handler(functionUrlEvent({ target: '/v1/attorneys?location=60601', bare: true }, null))).statusCode,
    ).toBe(403);
  });

  it('during a rotation both the new and the old secret are accepted', async () => {
    const rotating = createHandler(loadLambdaEnv(env({ ORIGIN_VERIFY_SECRETS: `${SECRET},${OLD_SECRET}` })), {
      store: new FolderStore(process.env.TEST_SITE_DIR as string),
      salt: fixedSalt,
      log: { write: () => undefined },
    });
    for (const s of [SECRET, OLD_SECRET])
      expect((await rotating(functionUrlEvent({ target: '/v1/coverage' }, s))).statusCode).toBe(200);
    expect((await rotating(functionUrlEvent({ target: '/v1/coverage' }, `${SECRET},${OLD_SECRET}`))).statusCode).toBe(
      403,
    );
  });

  it('originVerified compares whole values only', () => {
    expect(originVerified(SECRET, [SECRET])).toBe(true);
    expect(originVerified(`${SECRET}x`, [SECRET])).toBe(false);
    expect(originVerified(undefined, [SECRET])).toBe(false);
    expect(originVerified('', [''])).toBe(false);
  });
});

describe('client address and privacy', () => {
  it.each([
    ['198.51.100.10:46532', '198.51.100.10'],
    ['2406:2d40:728d:fa10::c4a:42838', '2406:2d40:728d:fa10::c4a'],
    ['2001:db8::1:443', '2001:db8::1'],
    ['[2001:db8::5]:443', '2001:db8::5'],
    ['::ffff:203.0.113.9:1234', '203.0.113.9'],
    ['203.0.113.9', '203.0.113.9'],
    ['not-an-address:80', null],
    ['', null],
  ])('CloudFront-Viewer-Address %j is the client %j', (header, expected) => {
    expect(viewerAddress(header)).toBe(expected);
  });

  it('the request line holds the salted hash of the viewer address, never the address', async () => {
    lines.length = 0;
    await handler(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=2&src=lambda-test' }, SECRET));
    expect(lines).toHaveLength(1);
    const line = lines[0] as RequestLogEntry;
    expect(line).toMatchObject({
      endpoint: '/v1/attorneys',
      location: '60601',
      src: 'lambda-test',
      covered: true,
      result_count: 2,
      status: 200,
    });
    expect(line.address_hash).toBe(hashAddress(SALT, VIEWER_IPV6));
    const text = JSON.stringify(line);
    expect(text).not.toContain('2406:2d40');
    expect(text).not.toContain('130.176.0.10');
  });

  it('the stdout sink writes one log-safe JSON line per entry with a type field', () => {
    const out: string[] = [];
    const entry = { ...(lines[0] as RequestLogEntry), location: 'line\nbreak' };
    new StdoutJsonSink({ write: (s: string) => out.push(s) }).write(entry);
    expect(out).toHaveLength(1);
    expect(out[0]?.endsWith('\n')).toBe(true);
    expect(out[0]?.slice(0, -1)).not.toContain('\n');
    // The line break is neutralised by the one log-safe writer, not only escaped.
    expect(JSON.parse(out[0] as string)).toEqual({ type: 'request', ...entry, location: 'line\ufffdbreak' });
  });
});

describe('advertised rate limit', () => {
  it("with WAF's window the function advertises and counts the policy WAF enforces (100 per 600 s)", async () => {
    const waf = createHandler(loadLambdaEnv(env({ RATE_LIMIT_WINDOW_SECONDS: '600' })), {
      store: new FolderStore(process.env.TEST_SITE_DIR as string),
      salt: fixedSalt,
      log: { write: () => {} },
    });
    const first = await waf(functionUrlEvent({ target: '/v1/coverage' }, SECRET));
    expect(first.headers['ratelimit-policy']).toBe('"600s";q=100;w=600');
    expect(first.headers.ratelimit).toMatch(/^"600s";r=99;t=\d+$/);
    for (let i = 1; i < 100; i++) await waf(functionUrlEvent({ target: '/v1/coverage' }, SECRET));
    const over = await waf(functionUrlEvent({ target: '/v1/coverage' }, SECRET));
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(600);
  });

  it('a window that does not divide an hour fails the cold start', () => {
    expect(() => loadLambdaEnv(env({ RATE_LIMIT_WINDOW_SECONDS: '700' }))).toThrow(
      /RATE_LIMIT_WINDOW_SECONDS.*divide 3600/,
    );
  });
});

describe('public base URL', () => {
  it('without PUBLIC_BASE_URL the links name the host the viewer used (from the CloudFront Function header)', async () => {
    const env2 = loadLambdaEnv({ ...env(), PUBLIC_BASE_URL: '' });
    const h = createHandler(env2, {
      store: new FolderStore(process.env.TEST_SITE_DIR as string),
      salt: fixedSalt,
      log: { write: () => undefined },
    });
    const event = functionUrlEvent(
      { target: '/v1/attorneys?location=60601&limit=3' },
      SECRET,
      'd1234abcd.cloudfront.net',
    );
    const body = resultJson(await h(event)) as { results: Array<{ website: string | null; listing_id: string }> };
    const linked = body.results.filter((r) => r.website !== null);
    expect(linked.length).toBeGreaterThan(0);
    for (const r of linked) expect(r.website).toBe(`https://d1234abcd.cloudfront.net/r/${r.listing_id}`);
    // A malformed viewer host falls back to the Function URL's own name rather than reaching a link.
    const odd = resultJson(
      await h(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=1' }, SECRET, 'evil.example/x?')),
    ) as typeof body;
    expect(odd.results[0]?.website ?? '').not.toContain('evil.example');
  });
});

describe('event adapter', () => {
  it('keeps a path that looks like a host as a path, joins cookies, decodes a base64 body, drops named headers', () => {
    const event = functionUrlEvent({ method: 'POST', target: '//other.example/x?a=1&a=2', body: '{"k":"v"}' }, SECRET);
    event.cookies = ['a=1', 'b=2'];
    const request = eventToPlain(event, { clientAddress: '192.0.2.1', dropHeaders: ['x-origin-verify'] });
    expect(request.method).toBe('POST');
    expect(request.path).toBe('//other.example/x');
    expect(request.query).toBe('a=1&a=2');
    expect(request.headers.cookie).toBe('a=1; b=2');
    expect(request.headers['x-origin-verify']).toBeUndefined();
    expect(Buffer.from(request.body ?? []).toString('utf8')).toBe('{"k":"v"}');
  });

  it('reads a target as the URL parser would: dot segments resolved, an apostrophe escaped', () => {
    const event = functionUrlEvent({ target: "/a/../v1/attorneys?location=O'Fallon,%20IL" }, SECRET);
    const request = eventToPlain(event, { clientAddress: '192.0.2.1' });
    expect(request.path).toBe('/v1/attorneys');
    expect(request.query).toBe('location=O%27Fallon,%20IL');
    expect(request.body).toBeNull();
  });

  it('binary and compressed bodies go back base64, uncompressed JSON as text', () => {
    const bin = answerToResult({
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0, 255, 1]),
    });
    expect(bin).toMatchObject({ isBase64Encoded: true, body: Buffer.from([0, 255, 1]).toString('base64') });
    const gz = answerToResult({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array([31, 139]),
    });
    expect(gz).toMatchObject({ isBase64Encoded: true, body: Buffer.from([31, 139]).toString('base64') });
    const json = answerToResult({
      status: 201,
      headers: { 'content-type': 'application/problem+json' },
      body: Buffer.from('{"a":1}'),
    });
    expect(json).toMatchObject({ statusCode: 201, isBase64Encoded: false, body: '{"a":1}' });
    expect(answerToResult({ status: 304, headers: {}, body: null })).toMatchObject({
      body: '',
      isBase64Encoded: false,
    });
  });
});

describe('answers over the Function URL payload limit', () => {
  it("a manifest of over 6 MiB goes out gzipped to a caller who accepts it, and asks the others to (never AWS's 502)", async () => {
    const siteDir = process.env.TEST_SITE_DIR as string;
    const folder = new FolderStore(siteDir);
    const { version } = JSON.parse(readFileSync(join(siteDir, 'current.json'), 'utf8')) as { version: string };
    const key = `v/${version}/manifest.json`;
    // The version's manifest grown to a million-office version's size: 60,000 more listed objects (7.5 MB as JSON).
    const manifest = JSON.parse(readFileSync(join(siteDir, key), 'utf8')) as {
      objects: Record<string, { sha256: string; bytes: number }>;
    };
    for (let i = 0; i < 60_000; i++)
      manifest.objects[`v/${version}/firms/x${String(i).padStart(6, '0')}.json`] = { sha256: 'f'.repeat(64), bytes: i };
    const big = Buffer.from(`${JSON.stringify(manifest)}\n`);
    expect(big.byteLength).toBeGreaterThan(FUNCTION_URL_PAYLOAD_MAX_BYTES);
    const h = createHandler(loadLambdaEnv(env()), {
      store: { kind: 'folder', get: async (k, o) => (k === key ? big : folder.get(k, o)) },
      salt: fixedSalt,
      log: { write: () => undefined },
    });
    const target = `/v/${version}/manifest.json`;
    const plain = await h(functionUrlEvent({ target }, SECRET));
    expect(plain.statusCode).toBe(400);
    expect(resultJson(plain)).toMatchObject({
      code: 'bad_request',
      parameter: 'Accept-Encoding',
      accepted: ['gzip', 'br'],
    });
    const zipped = await h(functionUrlEvent({ target, headers: { 'accept-encoding': 'gzip' } }, SECRET));
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(Buffer.byteLength(JSON.stringify(zipped))).toBeLessThanOrEqual(FUNCTION_URL_PAYLOAD_MAX_BYTES);
    expect(gunzipSync(Buffer.from(zipped.body, 'base64')).equals(big)).toBe(true);
  });
});

describe('environment at cold start', () => {
  it('names every bad variable and never echoes a secret', () => {
    let error: unknown;
    try {
      loadLambdaEnv({
        SALT_BUCKET: 'Bad_Bucket',
        ORIGIN_VERIFY_SECRETS: 'short-secret-value',
        PUBLIC_BASE_URL: 'ftp://x',
        RATE_LIMIT_PER_HOUR: 'many',
        CACHE_MIB: 'lots',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LambdaEnvError);
    const message = (error as Error).message;
    for (const name of [
      'SITE_BUCKET (unset)',
      'SALT_BUCKET',
      'ORIGIN_VERIFY_SECRETS (<hidden>)',
      'PUBLIC_BASE_URL',
      'RATE_LIMIT_PER_HOUR',
      'CACHE_MIB',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('short-secret-value');
  });

  describe('the real bundle', () => {
    let dir: string;
    let bundle: BundleInfo;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'iad-bundle-'));
      bundle = await bundleLambda(dir);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    function coldStart(environment: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
      const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle.file).href)}); console.log(typeof m.handler);`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH ?? '', ...environment },
        encoding: 'utf8',
        timeout: 30_000,
      });
      return { status: run.status, stderr: run.stderr, stdout: run.stdout };
    }

    it('fails to start with the bad variables named', () => {
      const run = coldStart({ SALT_BUCKET: 'salt-bucket', ORIGIN_VERIFY_SECRETS: 'tiny' });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('cold_start_error');
      expect(run.stderr).toContain('SITE_BUCKET (unset)');
      expect(run.stderr).toContain('ORIGIN_VERIFY_SECRETS (<hidden>)');
      expect(run.stderr).not.toContain('tiny');
    });

    it('starts with a good environment and exports the handler', () => {
      const run = coldStart(env());
      expect(run.stderr).not.toMatch(/error/i);
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe('function');
    });
  });
});
