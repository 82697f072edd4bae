/**
 * What a same-day release invalidates on CloudFront: a corrected listing's and a removed listing's cached
 * `/v1/firms/<id>` copies must be among the paths (docs/DEPLOY.md: "a removed listing leaves the edge with the pointer
 * move"), and a release run again after one killed between its pointer write and its invalidation still names the
 * cached answers. The release runs against a loopback s3rver with the real generator's site, firm packs included.
 */
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { release } from '../generator/release/release.ts';
import { S3RVER_ENV } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

const s3 = useS3rver({ buckets: ['inval', 'killed'], conditionalWrites: true });
afterAll(removeTempDirs);

/** True when a CloudFront invalidation path covers `path` (equal, or a prefix ending in `*`). */
function covers(paths: string[], path: string): boolean {
  return paths.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : p === path));
}

describe('a correction and a removal released to a bucket', () => {
  it('invalidate the corrected and the removed listing, and no path of another listing prefix', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('inval'), 'site');
    const records = await tempDir('inval-records');
    const run = () =>
      release({
        dataDir: data,
        siteDir: site,
        recordsDir: records,
        bucket: { bucket: 'inval', ...s3.clientOptions },
        verifySample: 5,
        log: () => {},
      });
    const first = await run();
    expect(first.outcome, first.error ?? '').toBe('released');

    const corrected = listingIdOf('p1');
    const removed = listingIdOf('p3');
    await appendFile(
      join(data, 'corrections.jsonl'),
      `${JSON.stringify({ action: 'update', place_id: 'p1', reason: 'phone', date: '2026-11-28', set: { phone: '(312) 555-0111' } })}\n`,
    );
    await appendFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ listing_id: removed, date: '2026-11-28', reason: 'asked to be removed' })}\n`,
    );
    const second = await run();
    expect(second.outcome, second.error ?? '').toBe('released');
    const paths = second.invalidation.paths;
    for (const id of [corrected, removed]) {
      expect(covers(paths, `/v1/firms/${id}`), `${id} in ${paths.join(' ')}`).toBe(true);
      expect(covers(paths, `/v1/firms/${id}?lat=41.9&lng=-87.6`), `${id} with a point`).toBe(true);
      expect(covers(paths, `/r/${id}`), `/r/${id} in ${paths.join(' ')}`).toBe(true);
    }
    // Not everything: a listing whose id shares no prefix with the two keeps its cached copy.
    expect(covers(paths, '/v1/firms/l_zzzzzzzzzzzzzzzz')).toBe(false);
  }, 120_000);
});

/** Run the release CLI and kill it (SIGKILL) once its stderr shows `line`; resolves with that stderr. */
function killAt(args: string[], line: RegExp): Promise<string> {
  const child = spawn(process.execPath, ['--require', './tools/preflight.cjs', 'generator/release/cli.ts', ...args], {
    env: { ...process.env, ...S3RVER_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      if (line.test(err)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', () => resolve(err));
  });
}

describe('a removal release killed after its pointer moved, before it invalidated', () => {
  it('run again, it names the cached searches and the removed listing to invalidate', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('killed'), 'site');
    const records = await tempDir('killed-records');
    const run = () =>
      release({
        dataDir: data,
        siteDir: site,
        recordsDir: records,
        bucket: { bucket: 'killed', ...s3.clientOptions },
        verifySample: 5,
        log: () => {},
      });
    const first = await run();
    expect(first.outcome, first.error ?? '').toBe('released');
    const removed = listingIdOf('p3');
    await appendFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ listing_id: removed, date: '2026-11-28', reason: 'asked to be removed' })}\n`,
    );
    const cli = ['--data', data, '--site', site, '--records', records, '--verify-sample', '5'];
    const bucket = ['--bucket', 'killed', '--endpoint', s3.endpoint, '--distribution', 'EKILLED', '--invalidate'];
    const stderr = await killAt([...cli, ...bucket], /waiting [\d.]+s for function instances/);
    expect(stderr).toMatch(/pointer current\.json -> /);
    expect(stderr).not.toMatch(/CloudFront invalidation/);

    // The same command again (without --invalidate here: the paths are then printed and kept in the record).
    const again = await run();
    expect(again.outcome, again.error ?? '').toBe('released');
    const paths = again.invalidation.paths;
    expect(covers(paths, '/v1/attorneys?zip=60601&limit=10'), paths.join(' ')).toBe(true);
    expect(covers(paths, `/v1/firms/${removed}`), paths.join(' ')).toBe(true);
  }, 120_000);
});
