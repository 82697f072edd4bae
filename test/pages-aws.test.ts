/**
 * The pages on the AWS path: the pointer, meta, the pages' hashes/ document and every page object put (gzip-compressed, as publish stores large
 * objects) on a real S3-protocol server (s3rver on loopback) and read by the Lambda handler, as CloudFront relays a
 * viewer's request; the same bytes and security headers as the local server. (test/aws-e2e.slow.test.ts covers publishing.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../shim/store/s3-client.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { loadLambdaEnv } from '../shim/edge/env.ts';
import { createHandler, type FunctionUrlHandler } from '../shim/aws/handler.ts';
import type { SaltProvider } from '../shim/edge/edge-types.ts';
import { S3Store } from '../shim/store/s3.ts';
import { ANSWER_ORIGIN_HEADERS } from '../infra/answer-cache.ts';
import { functionUrlEvent } from '../bench/lib/function-url.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const BASE = 'https://directory.example';
const SECRET = 'pagesSecretValueThatIsLongEnough0123456789ab';
const fixedSalt: SaltProvider = { saltFor: async () => new Uint8Array(32).fill(3) };

const s3 = useS3rver({ buckets: ['site'] });
let local: TestServer;
let handler: FunctionUrlHandler;

beforeAll(async () => {
  const siteDir = process.env.TEST_SITE_DIR as string;
  const { version } = Pointer.parse(JSON.parse(readFileSync(join(siteDir, keys.pointer), 'utf8')));
  const pagesDir = join(siteDir, keys.root(version), 'pages');
  const pageFiles = (readdirSync(pagesDir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(pagesDir, f));
  const client = s3Client(s3.clientOptions);
  // meta.json records the hash of the hashes/ document that records the pages' hashes.
  const pageHashes = join(siteDir, keys.hashes(version, 'pages'));
  for (const file of [join(siteDir, keys.pointer), join(siteDir, keys.meta(version)), pageHashes, ...pageFiles]) {
    const bytes = readFileSync(file);
    const gz = bytes.length > 1024;
    await client.send(
      new PutObjectCommand({
        Bucket: 'site',
        Key: relative(siteDir, file),
        Body: gz ? gzipSync(bytes) : bytes,
        ContentType: 'application/json',
        ...(gz ? { ContentEncoding: 'gzip' } : {}),
      }),
    );
  }
  local = await startTestServer({ PUBLIC_BASE_URL: BASE });
  const env = loadLambdaEnv({
    SITE_BUCKET: 'site',
    SALT_BUCKET: 'salt',
    ORIGIN_VERIFY_SECRETS: SECRET,
    PUBLIC_BASE_URL: BASE,
  });
  handler = createHandler(env, {
    store: new S3Store({ bucket: 'site', ...s3.clientOptions }),
    salt: fixedSalt,
    log: { write: () => undefined },
  });
});
afterAll(async () => {
  await local?.close();
});

describe('pages through the Lambda handler from S3', () => {
  it.each([
    ['/', 'text/html'],
    ['/metros/chicago', 'text/html'],
    ['/docs', 'text/html'],
    ['/corrections', 'text/html'],
    ['/assets/search.js', '*/*'],
    ['/assets/metro-chicago-map.svg', 'image/*'],
  ])('%s: same body and headers as the local server', async (target, accept) => {
    // Uncompressed on both sides (compression has its own tests), so bodies and entity tags compare byte for byte.
    const result = await handler(
      functionUrlEvent({ target, headers: { accept, 'accept-encoding': 'identity' } }, SECRET),
    );
    const expected = await fetch(local.url + target, { headers: { accept, 'accept-encoding': 'identity' } });
    expect(result.statusCode).toBe(200);
    const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
    expect(body.equals(Buffer.from(await expected.arrayBuffer())), target).toBe(true);
    for (const name of [
      'content-type',
      'etag',
      'cache-control',
      'content-security-policy',
      'x-frame-options',
      'referrer-policy',
      'permissions-policy',
      'vary',
    ]) {
      expect(result.headers[name], `${target} ${name}`).toBe(expected.headers.get(name) ?? undefined);
    }
  });
});

describe('a problem on a cached path, through the headers CloudFront forwards there', () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
  const forwarded = new Set(ANSWER_ORIGIN_HEADERS.map((h) => h.toLowerCase()));
  /** The viewer's headers as the documents' and answers' origin request policy lets them reach the function. */
  const throughCloudFront = (headers: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => forwarded.has(name)));

  it.each(['/metros/atlantis', '/problems/no_such_code'])(
    '%s: a browser gets the 404 page as from the local server, never shared-cached; JSON callers the problem',
    async (target) => {
      const viewer = { accept: BROWSER, 'user-agent': 'Mozilla/5.0', 'accept-language': 'en-US' };
      const page = await handler(functionUrlEvent({ target, headers: throughCloudFront(viewer) }, SECRET));
      const expected = await fetch(local.url + target, { headers: viewer });
      expect(page.statusCode).toBe(404);
      expect(expected.status).toBe(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-type']).toBe(expected.headers.get('content-type'));
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers.vary).toMatch(/\bAccept\b/);
      const json = await handler(
        functionUrlEvent({ target, headers: throughCloudFront({ accept: 'application/json' }) }, SECRET),
      );
      expect(json.statusCode).toBe(404);
      expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
    },
  );
});
