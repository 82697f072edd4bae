/**
 * A bucket that does not exist (a typo in --bucket, the wrong account or region) is named in the refusal of release,
 * publish and prune, with the endpoint or region and the key asked for, and what to check, instead of S3's bare "The
 * specified bucket does not exist" (the S3 client says it, so every command that reads the bucket does).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { S3RVER_ENV } from '../bench/lib/s3rver.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { useS3rver } from './helpers/s3rver.ts';

const s3 = useS3rver();
afterAll(removeTempDirs);

function cli(script: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { encoding: 'utf8', env: { ...process.env, ...S3RVER_ENV, DEBUG: '' } },
      (err, _stdout, stderr) =>
        resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr }),
    );
  });
}

/** What the refusal must say: the bucket, where it was looked for, the key or prefix asked for, and what to check. */
function expectNamed(stderr: string, asked: string): void {
  expect(stderr).toContain(
    `bucket "no-such-bucket" does not exist at ${s3.endpoint} (${asked}): check --bucket (the bucket's name, not the site's domain; the stack's SiteBucketName output), --endpoint or --region, and the AWS account of the credentials`,
  );
  expect(stderr).not.toContain('    at ');
}

describe('a bucket that does not exist', () => {
  it('publish names it, with the endpoint and prefix, and what to check (exit 1)', async () => {
    const site = join(await tempDir('nobucket-pub'), 'site');
    await copyFixtureSite(site);
    const r = await cli('generator/publish/publish-cli.ts', [
      '--bucket',
      'no-such-bucket',
      '--prefix',
      'p/',
      '--endpoint',
      s3.endpoint,
      '--site',
      site,
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(1);
    expectNamed(r.stderr, 'asked for key "p/current.json"');
  }, 60_000);

  it('prune names it (exit 1)', async () => {
    const r = await cli('generator/publish/prune-cli.ts', [
      '--bucket',
      'no-such-bucket',
      '--keep',
      '3',
      '--endpoint',
      s3.endpoint,
    ]);
    expect(r.status, r.stderr).toBe(1);
    expectNamed(r.stderr, 'listing prefix "v/"');
  }, 60_000);

  it('release names it (exit 1), nothing live moved', async () => {
    const data = await copyFixture();
    const dir = await tempDir('nobucket-rel');
    const r = await cli('generator/release/cli.ts', [
      '--data',
      data,
      '--site',
      join(dir, 'site'),
      '--records',
      join(dir, 'records'),
      '--bucket',
      'no-such-bucket',
      '--endpoint',
      s3.endpoint,
    ]);
    expect(r.status, r.stderr).toBe(1);
    expectNamed(r.stderr, 'asked for key "current.json"');
    expect(r.stderr).toContain('the live version is untouched');
  }, 120_000);
});
