/**
 * `npm run publish` is a step of release: it uploads a version to the bucket and never moves what is live. Only
 * release (and release --rollback) writes the bucket's pointer.
 */
import { execFile } from 'node:child_process';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { generateLive } from './helpers/generate-live.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { S3RVER_ENV } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';

const s3 = useS3rver();
afterAll(removeTempDirs);

async function bucketText(key: string): Promise<string | null> {
  try {
    const out = await s3Client(s3.clientOptions).send(new GetObjectCommand({ Bucket: 'site', Key: key }));
    return (await out.Body?.transformToString()) ?? null;
  } catch {
    return null;
  }
}

/** The CLI in a child process (asynchronously: s3rver runs in this one). */
function publishCli(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const env = { ...process.env, ...S3RVER_ENV };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['generator/publish/publish-cli.ts', '--bucket', 'site', '--endpoint', s3.endpoint, '--quiet', ...args],
      { encoding: 'utf8', env },
      (err, _stdout, stderr) => {
        resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr });
      },
    );
  });
}

describe('npm run publish never moves the pointer', () => {
  it('uploads a version without a pointer, and leaves a live pointer as it was, with or without --version', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('publish-step'), 'site');
    const v1 = (await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} })).version;

    // Nothing live yet: the version goes up, and still nothing is live.
    const first = await publishCli(['--site', site, '--data', data, '--prefix', 'a/']);
    expect(first.status, first.stderr).toBe(0);
    expect(await bucketText(`a/v/${v1}/meta.json`)).not.toBeNull();
    expect(await bucketText('a/current.json')).toBeNull();

    // v1 live (as release would leave it), then a correction generates v2: publishing v2 leaves v1 live.
    await publishSite({ bucket: 'site', prefix: 'b/', siteDir: site, quiet: true, ...s3.clientOptions });
    const live = await bucketText('b/current.json');
    expect(JSON.parse(live ?? '{}')).toMatchObject({ version: v1 });
    await appendFile(
      join(data, 'corrections.jsonl'),
      `${JSON.stringify({ action: 'update', place_id: 'p4', reason: 'firm called', date: '2026-11-20', set: { phone: '(312) 555-0199' } })}\n`,
    );
    const v2 = (await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} })).version;
    expect(v2).not.toBe(v1);
    for (const args of [[], ['--version', v2]]) {
      const r = await publishCli(['--site', site, '--data', data, '--prefix', 'b/', ...args]);
      expect(r.status, r.stderr).toBe(0);
      expect(await bucketText('b/current.json')).toBe(live);
    }
    expect(await bucketText(`b/v/${v2}/meta.json`)).not.toBeNull();
    // It no longer takes a distribution to invalidate: nothing it does changes an answer.
    expect((await publishCli(['--site', site, '--prefix', 'b/', '--distribution', 'E123'])).status).toBe(2);
    expect(await readFile(join(site, 'current.json'), 'utf8')).toContain(v2);
  }, 240_000);
});
