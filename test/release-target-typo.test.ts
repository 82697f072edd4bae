/**
 * A mistyped --prefix or --bucket that names an empty target: with nothing live there, every comparison gate passes
 * ("nothing is live yet") and the release would publish a first version there, move the site folder's pointer and
 * report "released" while the served site is untouched. When this checkout's records show releases to another target
 * of a bucket, such a release is refused naming them; --new-target starts a new target on purpose.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release } from '../generator/release/release.ts';
import { keys } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { liveOf } from './helpers/release-data.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

const s3 = useS3rver({ buckets: ['site'] });
afterAll(removeTempDirs);

describe('a release to an empty target after releases to another', () => {
  it('is refused, naming the targets released to; --new-target releases there on purpose', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('typo'), 'site');
    const recordsDir = await tempDir('typo-rec');
    const run = (prefix: string, newTarget = false) =>
      release({
        dataDir: data,
        siteDir: site,
        recordsDir,
        bucket: { bucket: 'site', prefix, ...s3.clientOptions },
        ...(newTarget ? { newTarget } : {}),
        log: () => {},
      });
    const first = await run('prod/');
    expect(first.outcome, first.error ?? '').toBe('released');

    const typo = await run('prdo/');
    expect(typo.outcome).toBe('refused');
    expect(typo.failed_step).toBe('target');
    expect(typo.error).toContain('s3://site/prdo/');
    expect(typo.error).toContain(`s3://site/prod/ (last ${first.version}`);
    expect(typo.error).toContain('--new-target');
    // Nothing written there, and the site folder still names what the bucket serves.
    expect(await new S3Store({ bucket: 'site', prefix: 'prdo/', ...s3.clientOptions }).get(keys.pointer)).toBeNull();
    expect(await liveOf(site)).toBe(first.version);

    // A forgotten --bucket would move the site folder alone.
    const folderOnly = await release({ dataDir: data, siteDir: site, recordsDir, log: () => {} });
    expect(folderOnly.failed_step).toBe('target');
    expect(folderOnly.error).toContain('no --bucket given');
    expect(await liveOf(site)).toBe(first.version);

    const staging = await run('staging/', true);
    expect(staging.outcome, staging.error ?? '').toBe('released');
  }, 240_000);
});
