/**
 * The local server serving straight from a bucket (SITE_BUCKET + SITE_S3_ENDPOINT): the AWS read path end to end on a
 * loopback S3, answering exactly what the same version answers from the folder, and following a release's pointer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSite } from '../generator/publish/publish.ts';
import { release } from '../generator/release/release.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The server reads credentials the usual way (environment): s3rver's fixed ones.
const s3 = useS3rver({ credentialsInEnv: true });
let fromBucket: TestServer;
let fromFolder: TestServer;

beforeAll(async () => {
  await publishSite({ bucket: 'site', ...s3.clientOptions, siteDir: process.env.TEST_SITE_DIR as string, quiet: true });
  const base = { PUBLIC_BASE_URL: 'https://directory.example' };
  fromBucket = await startTestServer({ ...base, SITE_BUCKET: 'site', SITE_S3_ENDPOINT: s3.endpoint });
  fromFolder = await startTestServer(base);
});
afterAll(async () => {
  await fromBucket.close();
  await fromFolder.close();
  await removeTempDirs();
});

const strip = (body: unknown): unknown =>
  JSON.parse(JSON.stringify(body).replace(/"query_id":"[^"]+"/g, '"query_id":"-"'));

describe('SITE_BUCKET', () => {
  it('answers searches, firms and coverage exactly as the folder does', async () => {
    for (const path of [
      '/v1/attorneys?location=Chicago,%20IL&limit=5',
      '/v1/attorneys?zip=78701',
      '/v1/coverage',
      '/v1/attorneys?zip=99999',
    ]) {
      const [a, b] = await Promise.all([fetch(fromBucket.url + path), fetch(fromFolder.url + path)]);
      expect(a.status, path).toBe(b.status);
      expect(a.headers.get('directory-version')).toBe(b.headers.get('directory-version'));
      const [ja, jb] = [await a.json(), await b.json()];
      expect(strip(ja), path).toEqual(strip(jb));
    }
    const search = (await (await fetch(`${fromBucket.url}/v1/attorneys?location=Chicago,%20IL&limit=1`)).json()) as {
      results: { listing_id: string }[];
    };
    const id = search.results[0]?.listing_id as string;
    const [fa, fb] = await Promise.all([
      fetch(`${fromBucket.url}/v1/firms/${id}`),
      fetch(`${fromFolder.url}/v1/firms/${id}`),
    ]);
    expect(fa.status).toBe(200);
    expect(await fa.json()).toEqual(await fb.json());
  });

  it('follows the pointer a release moves (after the 5 s pointer cache)', async () => {
    const r = await release({
      dataDir: await copyFixture(),
      siteDir: join(await tempDir('serve-bucket'), 'site'),
      recordsDir: await tempDir('serve-rec'),
      bucket: { bucket: 'site', ...s3.clientOptions },
      force: { 'counts-drop': 'test: a tiny fixture replaces the sample' },
      log: () => {},
    });
    expect(r.outcome, r.error ?? '').toBe('released');
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const res = await fetch(`${fromBucket.url}/v1/coverage`);
    expect(res.headers.get('directory-version')).toBe(r.version);
  });
});
