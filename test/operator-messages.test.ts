/**
 * What an operator reads when a command refuses: a misnamed week folder is named (never skipped for an older week),
 * a fresh clone without weeks is told how to make them, a gate names the place_id of places.jsonl, and an expected
 * refusal is one line without a stack trace.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFailure } from '../generator/failure.ts';
import { generateLive } from './helpers/generate-live.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { placeIdsOf } from '../generator/inputs/place-ids.ts';
import { release } from '../generator/release/release.ts';
import { RemovedListingError } from '../generator/publish/publish.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { unusedPort } from '../bench/lib/s3rver.ts';

afterAll(removeTempDirs);

const run = (script: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      { env: { ...process.env, DEBUG: '', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' } },
      (err, stdout, stderr) =>
        resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
/** stderr without Node's own warnings (the SDK's Node version notice). */
const ours = (stderr: string): string[] =>
  stderr.split('\n').filter((l) => l.startsWith('generate:') || l.startsWith('publish:'));

describe('week folders', () => {
  it('a misnamed folder (2026-48) stops generate and release with the expected pattern; the older week is not released', async () => {
    const data = await copyFixture();
    // Next week's inputs, misnamed: taking the latest well-named folder would release 2026-W47 again.
    await cp(join(data, 'weeks', '2026-W47'), join(data, 'weeks', '2026-48'), { recursive: true });
    const out = join(await tempDir('misnamed'), 'site');
    const cli = await run('generator/cli.ts', ['--data', data, '--out', out, '--quiet']);
    expect(cli.status).toBe(1);
    expect(ours(cli.stderr)).toEqual([
      `generate: ${join(data, 'weeks', '2026-48')}: not named like a week folder (YYYY-Www, e.g. 2026-W48); rename it, move it out of ${join(data, 'weeks')}, or name the week with --week; nothing was written`,
    ]);
    expect(existsSync(join(out, 'current.json'))).toBe(false);
    const r = await release({ dataDir: data, siteDir: out, recordsDir: await tempDir('misnamed-rec'), log: () => {} });
    expect(r.outcome).toBe('refused');
    expect(r.error).toMatch(/2026-48: not named like a week folder \(YYYY-Www/);
    expect(existsSync(join(out, 'current.json'))).toBe(false);
    // Naming the week explicitly is still possible.
    const named = await generateLive({ dataDir: data, outDir: out, week: '2026-W47', quiet: true, log: () => {} });
    expect(named.week).toBe('2026-W47');
    // A week a stopped collect left half-written is named as such (renaming it would publish half a week).
    await rm(join(data, 'weeks', '2026-48'), { recursive: true });
    await mkdir(join(data, 'weeks', '2026-W48.tmp-collect'));
    const half = await generateLive({ dataDir: data, outDir: out, quiet: true, log: () => {} }).catch(
      (e: unknown) => e,
    );
    expect((half as Error).message).toMatch(
      /2026-W48\.tmp-collect: a week still being written, or left by a run that stopped/,
    );
  });

  it('without week folders (a fresh clone), generate says to run npm run synth or npm start', async () => {
    const data = join(await tempDir('fresh'), 'data');
    await mkdir(data);
    await cp(join(await copyFixture(), 'metros.json'), join(data, 'metros.json'));
    const cli = await run('generator/cli.ts', ['--data', data, '--out', join(data, '..', 'site'), '--quiet']);
    expect(cli.status).toBe(1);
    const [line, ...rest] = ours(cli.stderr);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^generate: no week folders: .*weeks does not exist; run `npm run synth` .*`npm start`/);
    await mkdir(join(data, 'weeks'));
    const empty = await run('generator/cli.ts', ['--data', data, '--out', join(data, '..', 'site'), '--quiet']);
    expect(ours(empty.stderr).join('\n')).toMatch(/no week folders \(YYYY-Www\) in .*; run `npm run synth`/);
  });
});

describe('gate messages', () => {
  it('the coordinates gate names the place_id of places.jsonl, with the listing id the site uses', async () => {
    const data = await copyFixture();
    const file = join(data, 'weeks', '2026-W47', 'places.jsonl');
    const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    await writeFile(
      file,
      rows
        .map((l) =>
          l.includes('"place_id": "p7"')
            ? l.replace(/"lat": [-\d.]+, "lng": [-\d.]+/, '"lat": 51.5074, "lng": -0.1278')
            : l,
        )
        .join('\n'),
    );
    const r = await release({
      dataDir: data,
      siteDir: join(await tempDir('gate-msg'), 'site'),
      recordsDir: await tempDir('gate-msg-rec'),
      log: () => {},
    });
    expect(r.outcome).toBe('refused');
    const detail = r.gates.find((g) => g.gate === 'coordinates')?.detail ?? '';
    expect(detail).toContain(`place "p7" (listing ${listingIdOf('p7')})`);
    expect(detail).toMatch(/51\.5074,-0\.1278: outside the US/);
  });

  it('place ids are found again from listing ids, across read chunks and with escapes', async () => {
    const file = join(await tempDir('place-ids'), 'places.jsonl');
    const ids = Array.from({ length: 20_000 }, (_, i) => `ChIJ-\u00e9-${i}-${'x'.repeat(40)}`);
    ids.push('quote"and\\backslash');
    await writeFile(file, `${ids.map((id) => JSON.stringify({ place_id: id, name: 'n' })).join('\n')}`);
    const want = [ids[0], ids[12_345], ids[20_000]] as string[];
    const found = placeIdsOf(file, want.map(listingIdOf));
    expect([...found.values()].sort()).toEqual([...want].sort());
    expect(placeIdsOf(join(file, 'missing'), [listingIdOf('x')]).size).toBe(0);
  });
});

describe('expected refusals', () => {
  it('publish refusing a version that holds a removed listing prints one line, no stack, exit 1', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('refusal'), 'site');
    await copyFixtureSite(site);
    await writeFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ domain: 'alphalaw.example', date: '2026-11-20', reason: 'the firm asked to be removed' })}\n`,
    );
    // Nothing listens on the endpoint: the refusal comes before the bucket is read.
    const cli = await run('generator/publish/publish-cli.ts', [
      '--bucket',
      'site',
      '--endpoint',
      `http://127.0.0.1:${await unusedPort()}`,
      '--site',
      site,
      '--data',
      data,
      '--quiet',
    ]);
    expect(cli.status).toBe(1);
    const lines = cli.stderr
      .split('\n')
      .filter(
        (l) =>
          l.trim() !== '' &&
          !/NodeVersionSupportWarning|versions published|require node|To continue|security updates|More information|trace-warnings/.test(
            l,
          ),
      );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^publish: failed; the bucket's pointer was not moved, the previous version still serves: version \S+ contains \d+ listing\(s\) under a standing removal, refused/,
    );
    expect(cli.stderr).not.toMatch(/\n\s+at /);
    await rm(site, { recursive: true, force: true });
  });

  it('a programming error keeps its stack; DEBUG shows every stack', () => {
    expect(describeFailure(new RemovedListingError('refused'), {})).toBe('refused');
    expect(describeFailure(new Error('store did not answer\nmore'), {})).toBe('store did not answer');
    expect(describeFailure(new TypeError('x is undefined'), {})).toMatch(/^TypeError: x is undefined\n\s+at /);
    expect(describeFailure(new RemovedListingError('refused'), { DEBUG: '1' })).toMatch(/\n\s+at /);
  });
});
