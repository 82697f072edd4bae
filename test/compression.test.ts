/**
 * Compression as a caller sees it: raw bytes over real HTTP from the local server (node:http, no transparent decoding)
 * and Function URL results from the Lambda handler. Every JSON answer is gzip or brotli when accepted, decodes to the
 * identity body, and says Vary: Accept-Encoding; without Accept-Encoding nothing is encoded.
 */
import { get as httpGet } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLambdaEnv } from '../shim/edge/env.ts';
import { createHandler, type FunctionUrlHandler } from '../shim/aws/handler.ts';
import { chooseEncoding } from '../shim/http/compress.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { functionUrlEvent } from '../bench/lib/function-url.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

let server: TestServer;
let handler: FunctionUrlHandler;
let listingId: string;
const SECRET = 'k7Qm2Xv9Lp4Rt8Wz3Nc6Hb1Jd5Fg0Sa7Ye2Ui4Oo9';

function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${server.url}${path}`, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

function decode(r: Raw): string {
  const encoding = r.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(r.bytes).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(r.bytes).toString('utf8');
  expect(encoding).toBeUndefined();
  return r.bytes.toString('utf8');
}

/** Every JSON endpoint, with a success and the error answers. */
const paths = (): string[] => [
  '/',
  '/v1/attorneys?location=60601&limit=10',
  '/v1/attorneys?location=60601&radius=5',
  `/v1/firms/${listingId}`,
  '/v1/firms/l_aaaaaaaaaaaaaaaa',
  '/v1/coverage',
  '/openapi.json',
  '/no/such/path',
];

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_BASE_URL: 'https://directory.example' });
  const search = JSON.parse((await raw('/v1/attorneys?location=60601&limit=1')).bytes.toString('utf8')) as {
    results: { listing_id: string }[];
  };
  listingId = search.results[0]?.listing_id ?? '';
  const env = loadLambdaEnv({
    SITE_BUCKET: 'directory-site',
    SALT_BUCKET: 'directory-salt',
    ORIGIN_VERIFY_SECRETS: SECRET,
    PUBLIC_BASE_URL: 'https://directory.example',
  });
  handler = createHandler(env, {
    store: new FolderStore(process.env.TEST_SITE_DIR as string),
    salt: { saltFor: async () => new Uint8Array(32) },
    log: { write: () => {} },
  });
});
afterAll(async () => {
  await server?.close();
});

describe('local server', () => {
  it('gzip and br on every JSON answer, decoding to the identity body, with Vary: Accept-Encoding', async () => {
    for (const path of paths()) {
      const plain = await raw(path);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary, path).toMatch(/Accept-Encoding/);
      const plainText = decode(plain).replace(/"query_id":"[^"]+"/, '');
      for (const [accept, want] of [
        ['gzip', 'gzip'],
        ['br', 'br'],
        ['gzip, deflate, br', 'br'],
        ['br;q=0.5, gzip', 'gzip'],
      ] as const) {
        const r = await raw(path, { 'accept-encoding': accept });
        expect(r.status, path).toBe(plain.status);
        expect(r.headers['content-encoding'], `${path} ${accept}`).toBe(want);
        expect(r.headers.vary, path).toMatch(/Accept-Encoding/);
        expect(Number(r.headers['content-length']), path).toBe(r.bytes.byteLength);
        expect(decode(r).replace(/"query_id":"[^"]+"/, ''), path).toBe(plainText);
      }
    }
  });

  it('HEAD sends the header fields GET sends, Content-Encoding and its Content-Length included (RFC 9110 9.3.2)', async () => {
    // Per request: the date, and the caller's remaining count.
    const same = (h: Raw['headers']): Raw['headers'] => {
      const { date: _d, ratelimit: _r, ...rest } = h;
      return rest;
    };
    for (const path of paths()) {
      for (const accept of [undefined, 'gzip', 'br', 'gzip, deflate, br']) {
        const headers: Record<string, string> = accept === undefined ? {} : { 'accept-encoding': accept };
        // Twice: the second GET of a search is the one the answer cache stores; a HEAD after it reads that.
        for (let round = 0; round < 2; round++) {
          const get = await raw(path, headers);
          const head = await raw(path, headers, 'HEAD');
          expect(head.status, path).toBe(get.status);
          expect(head.bytes.byteLength, path).toBe(0);
          expect(same(head.headers), `HEAD ${path} (${accept ?? 'no Accept-Encoding'})`).toEqual(same(get.headers));
        }
      }
    }
  });

  it('identity, q=0 or an unknown coding leaves the body as is', async () => {
    for (const accept of ['identity', 'gzip;q=0, br;q=0', 'deflate', 'compress']) {
      const r = await raw('/v1/coverage', { 'accept-encoding': accept });
      expect(r.headers['content-encoding'], accept).toBeUndefined();
      expect(JSON.parse(r.bytes.toString('utf8'))).toHaveProperty('metros');
    }
  });

  it('a compressed document has a weak ETag that revalidates like the strong one', async () => {
    const strong = (await raw('/v1/coverage')).headers.etag as string;
    expect(strong).toMatch(/^"/);
    const zipped = await raw('/v1/coverage', { 'accept-encoding': 'gzip' });
    expect(zipped.headers.etag).toBe(`W/${strong}`);
    for (const tag of [strong, `W/${strong}`]) {
      const again = await raw('/v1/coverage', { 'accept-encoding': 'gzip', 'if-none-match': tag });
      expect(again.status, tag).toBe(304);
      expect(again.bytes.byteLength).toBe(0);
      expect(again.headers.vary).toMatch(/Accept-Encoding/);
    }
  });

  it('ten results are several times smaller compressed (sizes printed for docs/DEPLOY.md)', async () => {
    const sizes: Record<string, number[]> = {};
    for (const path of [
      '/v1/attorneys?location=60601&limit=10',
      '/v1/attorneys?location=60601&limit=25',
      '/openapi.json',
      `/v1/firms/${listingId}`,
      '/v1/coverage',
    ]) {
      const row: number[] = [];
      for (const accept of ['identity', 'gzip', 'br'])
        row.push((await raw(path, { 'accept-encoding': accept })).bytes.byteLength);
      sizes[path] = row;
      const [plain = 0, gz = 0, br = 0] = row;
      // Search answers and the OpenAPI document repeat their keys and texts; a single firm document is small.
      expect(gz, path).toBeLessThan(path.startsWith('/v1/firms/') ? plain : plain / 3);
      expect(br, path).toBeLessThanOrEqual(gz);
    }
    console.info(`bytes identity/gzip/br: ${JSON.stringify(sizes)}`);
  });
});

describe('Lambda handler', () => {
  it('encodes for the Function URL as base64 and the bytes decode to the identity body', async () => {
    const target = '/v1/attorneys?location=60601&limit=10';
    const plain = await handler(functionUrlEvent({ target }, SECRET));
    expect(plain.isBase64Encoded).toBe(false);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['gzip', 'br'] as const) {
      const result = await handler(functionUrlEvent({ target, headers: { 'accept-encoding': encoding } }, SECRET));
      expect(result.statusCode).toBe(200);
      expect(result.isBase64Encoded).toBe(true);
      expect(result.headers['content-encoding']).toBe(encoding);
      expect(result.headers.vary).toMatch(/Accept-Encoding/);
      const bytes = Buffer.from(result.body, 'base64');
      const text = (encoding === 'gzip' ? gunzipSync(bytes) : brotliDecompressSync(bytes)).toString('utf8');
      const strip = (t: string) => t.replace(/"query_id":"[^"]+"/, '');
      expect(strip(text)).toBe(strip(plain.body));
    }
  });
});

describe('negotiation', () => {
  it('follows q-values, prefers br among equals, and knows only gzip and br', () => {
    expect([null, '', 'identity', 'deflate', 'gzip;q=0', '*;q=0'].map(chooseEncoding)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(['gzip', 'br', '*', 'gzip, br', 'br;q=0.1, gzip;q=0.9', 'br;q=0, *', 'GZIP'].map(chooseEncoding)).toEqual([
      'gzip',
      'br',
      'br',
      'br',
      'gzip',
      'gzip',
      'gzip',
    ]);
  });
});
