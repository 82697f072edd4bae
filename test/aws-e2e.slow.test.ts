/**
 * The AWS path end to end, without AWS: the generated test site is published to a real S3-protocol server (s3rver) on
 * loopback, the real Lambda bundle (dist format, as deployed) is imported with an environment pointing at it, and
 * Function URL events get the same answers as the local server gives for the same requests. Also: the daily salt is
 * created in the salt bucket only, and the request lines carry its hash of the viewer address, never the address.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSite } from '../generator/publish/publish.ts';
import { bundleLambda } from '../infra/bundle.ts';
import type { FunctionUrlHandler } from '../shim/aws/handler.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { hashAddress } from '../shim/http/request-log.ts';
import { functionUrlEvent, resultText, VIEWER_IPV6, type EventSpec } from '../bench/lib/function-url.ts';
import { S3RVER_ENV } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const BASE = 'https://directory.example';
const SECRET = 'e2eSecretValueThatIsLongEnough0123456789abcdef';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

let local: TestServer;
let work: string;
let bundleUrl: string;
let handler: FunctionUrlHandler;
const saved: Record<string, string | undefined> = {};
const stdoutLines: string[] = [];
let restoreStdout: (() => void) | null = null;

function setEnv(values: Record<string, string>): void {
  for (const [k, v] of Object.entries(values)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
}

/** A fresh instance of the bundle, as a new Lambda execution environment would load it (own caches, own clients). */
async function coldHandler(tag: string): Promise<FunctionUrlHandler> {
  const mod = (await import(`${bundleUrl}?instance=${tag}`)) as { handler: FunctionUrlHandler };
  return mod.handler;
}

const s3 = useS3rver({ buckets: ['site', 'salt'], conditionalWrites: true });
beforeAll(async () => {
  const report = await publishSite({
    bucket: 'site',
    siteDir: process.env.TEST_SITE_DIR as string,
    ...s3.clientOptions,
    quiet: true,
  });
  expect(report.manifestWritten).toBe(true);
  local = await startTestServer({ PUBLIC_BASE_URL: BASE, RATE_LIMIT_PER_HOUR: '600' });
  work = mkdtempSync(join(tmpdir(), 'iad-e2e-'));
  bundleUrl = pathToFileURL((await bundleLambda(work)).file).href;
  setEnv({
    SITE_BUCKET: 'site',
    SALT_BUCKET: 'salt',
    ORIGIN_VERIFY_SECRETS: SECRET,
    PUBLIC_BASE_URL: BASE,
    S3_ENDPOINT: s3.endpoint,
    ...S3RVER_ENV,
  });
  // The bundle's request lines go to stdout, as on Lambda; keep them for the privacy checks.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('{"type":"request"')) {
      stdoutLines.push(...text.split('\n').filter((l) => l !== ''));
      return true;
    }
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  restoreStdout = () => {
    process.stdout.write = write;
  };
  handler = await coldHandler('main');
});

afterAll(async () => {
  restoreStdout?.();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await local?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function normalise(text: string): unknown {
  if (text === '') return '';
  // query_id is fresh per call; MCP's text block repeats it inside a string.
  return JSON.parse(text, (key, value: unknown) => (key === 'query_id' || key === 'text' ? undefined : value));
}

async function compare(spec: EventSpec): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${local.url}${spec.target}`, {
    method: spec.method ?? 'GET',
    // Like the events (no Accept-Encoding unless a test sets one): fetch would otherwise ask for gzip and br.
    headers: { 'accept-encoding': 'identity', ...spec.headers },
    redirect: 'manual',
    ...(spec.body !== undefined ? { body: spec.body } : {}),
  });
  const expectedText = await response.text();
  const result = await handler(functionUrlEvent(spec, SECRET));
  expect(result.statusCode, spec.target).toBe(response.status);
  expect(normalise(resultText(result)), spec.target).toEqual(normalise(expectedText));
  expect(result.headers.location, spec.target).toBe(response.headers.get('location') ?? undefined);
  expect(result.headers.etag, spec.target).toBe(response.headers.get('etag') ?? undefined);
  return { status: result.statusCode, body: normalise(resultText(result)) };
}

describe('Lambda over S3 answers as the local server does', () => {
  let listingId = '';

  it.each([
    '/v1/coverage',
    '/openapi.json',
    '/v1/attorneys?location=60601&limit=10',
    '/v1/attorneys?location=Los%20Angeles,%20CA&radius_miles=10&limit=25',
    '/v1/attorneys?lat=40.7128&lng=-74.0060&radius_miles=3',
    '/v1/attorneys?zip=99501',
    '/v1/attorneys?location=00000',
    '/v1/attorneys?location=60601&radius_miles=80',
    '/v1/firms/l_zzzzzzzzzzzzzzzz',
    '/r/l_zzzzzzzzzzzzzzzz',
  ])('GET %s', async (target) => {
    const { status, body } = await compare({ target });
    if (target.includes('60601&limit=10')) {
      expect(status).toBe(200);
      listingId = ((body as { results: Array<{ listing_id: string }> }).results[0]?.listing_id ?? '') as string;
    }
    if (target.includes('99501')) expect(body).toMatchObject({ covered: false, results: [] });
    if (target.includes('l_zzzz')) expect(status).toBe(404);
  });

  it('GET /v1/firms/<id> and /r/<id> of a listing from the search', async () => {
    expect(listingId).toMatch(/^l_/);
    expect((await compare({ target: `/v1/firms/${listingId}` })).status).toBe(200);
    expect([302, 404]).toContain((await compare({ target: `/r/${listingId}` })).status);
  });

  it('POST /mcp find_injury_attorneys and get_coverage', async () => {
    for (const [id, name, args] of [
      [1, 'find_injury_attorneys', { location: 'Chicago, IL', limit: 5 }],
      [2, 'get_coverage', {}],
    ] as const) {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
      const { status, body: answer } = await compare({ method: 'POST', target: '/mcp', headers: MCP_HEADERS, body });
      expect(status).toBe(200);
      expect((answer as { result: { isError?: boolean } }).result.isError ?? false).toBe(false);
    }
  });
});

describe('daily salt and request lines', () => {
  it('the salt is created in the salt bucket under private/salt/<today> and nowhere in the site bucket', async () => {
    const client = s3Client(s3.clientOptions);
    const day = new Date().toISOString().slice(0, 10);
    const salt = await client.send(new GetObjectCommand({ Bucket: 'salt', Key: `private/salt/${day}` }));
    const bytes = await salt.Body?.transformToByteArray();
    expect(bytes?.byteLength).toBe(32);
    const inSite = await client.send(new ListObjectsV2Command({ Bucket: 'site', Prefix: 'private/' }));
    expect(inSite.KeyCount ?? 0).toBe(0);

    expect(stdoutLines.length).toBeGreaterThan(10);
    const expected = hashAddress(bytes as Uint8Array, VIEWER_IPV6);
    for (const line of stdoutLines) {
      const entry = JSON.parse(line) as { type: string; address_hash: string };
      expect(entry.type).toBe('request');
      expect(entry.address_hash).toBe(expected);
      expect(line).not.toContain('2406:2d40');
    }
  });

  it('a second cold instance reads the same salt instead of making its own', async () => {
    const before = stdoutLines.length;
    const other = await coldHandler('second');
    expect((await other(functionUrlEvent({ target: '/v1/coverage' }, SECRET))).statusCode).toBe(200);
    const line = JSON.parse(stdoutLines[before] as string) as { address_hash: string };
    expect(line.address_hash).toBe((JSON.parse(stdoutLines[0] as string) as { address_hash: string }).address_hash);
  });
});

describe('cold path', () => {
  it('S3 reads of one cold /v1/attorneys query (recorded for the cost model in docs/DEPLOY.md)', async () => {
    const cold = await coldHandler('measure');
    const gets = (): number => s3.requests.GET ?? 0;
    const g0 = gets();
    const first = await cold(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=10' }, SECRET));
    expect(first.statusCode).toBe(200);
    const coldGets = gets() - g0;
    const g1 = gets();
    await cold(functionUrlEvent({ target: '/v1/attorneys?location=60601&limit=10' }, SECRET));
    const warmGets = gets() - g1;
    process.stderr.write(
      `[aws-e2e] S3 GETs: cold query ${coldGets} (site objects + today's salt), same query warm ${warmGets}\n`,
    );
    // Pointer, meta, gazetteer, coverage cells, cell index, groups, blocks, records and the salt: bounded, and the warm repeat reads nothing.
    expect(coldGets).toBeGreaterThan(2);
    expect(coldGets).toBeLessThanOrEqual(30);
    expect(warmGets).toBe(0);
  });
});
