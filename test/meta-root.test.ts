/**
 * The root of integrity: current.json records the sha256 of the version's meta.json (the object that records every
 * other hash). A meta.json altered into other valid JSON is a 503 with Retry-After, never a 200 built on it, and once
 * it is restored the same server answers again without a restart; on a site folder and on a loopback bucket. A
 * pointer written before the field existed is still read.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLive } from './helpers/generate-live.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { copyFixture, removeTempDirs } from './fixtures/generator/helpers.ts';
import { request } from './helpers/http.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { startTestServer } from './helpers/server.ts';

type Json = Record<string, unknown>;
const PUBLIC_BASE_URL = 'https://directory.example';
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const s3 = useS3rver({ credentialsInEnv: true });
let copyDir: string;
let version: string;
beforeAll(async () => {
  // The small hand-made site (two metros), so the bucket publish is quick.
  copyDir = mkdtempSync(join(tmpdir(), 'iad-meta-root-'));
  await generateLive({ dataDir: await copyFixture(), outDir: copyDir, quiet: true });
  version = (JSON.parse(readFileSync(join(copyDir, 'current.json'), 'utf8')) as { version: string }).version;
  await publishSite({ bucket: 'site', prefix: 'root/', siteDir: copyDir, quiet: true, ...s3.clientOptions });
});
afterAll(async () => {
  await removeTempDirs();
  if (copyDir !== undefined) rmSync(copyDir, { recursive: true, force: true });
});

/** Where the site is, how to read and write one of its objects, and the server settings that serve it. */
interface Target {
  env: () => Record<string, string>;
  read: (key: string) => Promise<Buffer>;
  write: (key: string, bytes: Uint8Array) => Promise<void>;
}

const folder: Target = {
  env: () => ({ SITE_DIR: copyDir }),
  read: async (key) => readFileSync(join(copyDir, key)),
  write: async (key, bytes) => writeFileSync(join(copyDir, key), bytes),
};
const bucket: Target = {
  env: () => ({ SITE_BUCKET: 'site', SITE_PREFIX: 'root/', SITE_S3_ENDPOINT: s3.endpoint }),
  read: async (key) => {
    const out = await s3Client(s3.clientOptions).send(new GetObjectCommand({ Bucket: 'site', Key: `root/${key}` }));
    const bytes = Buffer.from((await out.Body?.transformToByteArray()) ?? []);
    return out.ContentEncoding?.includes('gzip') ? (await import('node:zlib')).gunzipSync(bytes) : bytes;
  },
  write: async (key, bytes) => {
    await s3Client(s3.clientOptions).send(
      new PutObjectCommand({ Bucket: 'site', Key: `root/${key}`, Body: bytes, ContentType: 'application/json' }),
    );
  },
};

describe('current.json records the sha256 of meta.json, and the shim checks it', () => {
  for (const [name, target] of [
    ['folder', folder],
    ['bucket', bucket],
  ] as const) {
    it(`${name}: an altered meta.json is 503 with Retry-After, and served again once restored, without a restart`, async () => {
      const metaKey = `v/${version}/meta.json`;
      const original = await target.read(metaKey);
      const pointer = JSON.parse((await target.read('current.json')).toString('utf8')) as Json;
      expect(pointer.meta_sha256).toBe(sha256(original));

      const server = await startTestServer({ ...target.env(), PUBLIC_BASE_URL });
      try {
        // Other valid JSON, as the generator writes it: the served totals would change.
        const meta = JSON.parse(original.toString('utf8')) as Json & { totals: Json; dataset: Json };
        await target.write(
          metaKey,
          Buffer.from(`${JSON.stringify({ ...meta, dataset: { ...meta.dataset, name: 'Altered dataset' } })}\n`),
        );
        for (const path of ['/v1/coverage', '/v1/attorneys?lat=41.88&lng=-87.63&radius_miles=50']) {
          for (let i = 0; i < 2; i++) {
            const reply = await request(server.url, path);
            expect(reply.status, `${path}: ${reply.text.slice(0, 200)}`).toBe(503);
            expect((reply.body as Json).code).toBe('service_unavailable');
            expect(Number(reply.headers.get('retry-after')), 'Retry-After seconds').toBeGreaterThan(0);
            expect(reply.text).not.toContain('Altered dataset');
          }
        }
        await target.write(metaKey, original);
        const coverage = await request(server.url, '/v1/coverage');
        expect(coverage.status).toBe(200);
        expect((coverage.body as Json).version).toBe(version);
        expect((await request(server.url, '/v1/attorneys?lat=41.88&lng=-87.63&radius_miles=50')).status).toBe(200);
      } finally {
        await target.write(metaKey, original);
        await server.close();
      }
    });
  }

  it('a pointer without meta_sha256 (written before it existed) is still read', async () => {
    const before = readFileSync(join(copyDir, 'current.json'));
    const { meta_sha256: _dropped, ...old } = JSON.parse(before.toString('utf8')) as Json;
    writeFileSync(join(copyDir, 'current.json'), `${JSON.stringify(old)}\n`);
    const server = await startTestServer({ SITE_DIR: copyDir, PUBLIC_BASE_URL });
    try {
      const reply = await request(server.url, '/v1/coverage');
      expect(reply.status).toBe(200);
      expect((reply.body as Json).version).toBe(version);
    } finally {
      writeFileSync(join(copyDir, 'current.json'), before);
      await server.close();
    }
  });
});
