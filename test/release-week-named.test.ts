/**
 * A `--week` that is not under `<data>/weeks/` (a typo, a week not collected yet) is refused naming the weeks that are
 * there, newest last, so the operator sees what to type instead. A lower-case w (`2026-w47`) is read as `2026-W47`; a
 * week not written like one (`2026-47`, `2026-W60`) is a usage error before the release starts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addFollowingWeek, copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

/** `npm run release` as the operator runs it, on a data copy; its stderr and exit code. */
function releaseCli(
  data: string,
  dir: string,
  week: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [
      'generator/release/cli.ts',
      '--data',
      data,
      '--site',
      join(dir, 'site'),
      '--records',
      join(dir, 'records'),
      '--week',
      week,
    ],
    { encoding: 'utf8' },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('--week names a week that is not there', () => {
  it('the refusal lists the weeks under data/weeks/, newest last', async () => {
    const data = await copyFixture();
    await addFollowingWeek(data);
    const dir = await tempDir('week-named');
    const r = releaseCli(data, dir, '2026-W49');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--week 2026-W49 is not under ${join(data, 'weeks')}/ (it has 2026-W47, 2026-W48)`);
  });

  it('a week not written like one is a usage error (exit 2) naming the form, before any work', async () => {
    const data = await copyFixture();
    const dir = await tempDir('week-misnamed');
    for (const [week, why] of [
      ['2026-47', ''],
      ['2026-W60', ': 2026 has ISO weeks W01 to W53'],
    ] as const) {
      const r = releaseCli(data, dir, week);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `release: --week must be an ISO week YYYY-Www, e.g. 2026-W47, got ${JSON.stringify(week)}${why}\n`,
      );
      expect(r.stderr).toContain('Usage: npm run release -- [options]');
      expect(r.stdout).toBe('');
    }
    // Nothing generated, published or recorded, and no progress: the release never started.
    expect(existsSync(join(dir, 'site'))).toBe(false);
    expect(existsSync(join(dir, 'records'))).toBe(false);
  });

  it('--help documents --week and the form it takes', () => {
    const r = spawnSync(process.execPath, ['generator/release/cli.ts', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ {2}--week <YYYY-Www> +week, e\.g\. 2026-W47 \(2026-w47 is read as 2026-W47/);
  });

  it('with many weeks, the newest five and how many there are', async () => {
    const data = await copyFixture();
    for (const w of ['2026-W40', '2026-W41', '2026-W42', '2026-W43', '2026-W44', '2026-W45'])
      await cp(join(data, 'weeks', '2026-W47'), join(data, 'weeks', w), { recursive: true });
    const dir = await tempDir('week-many');
    const r = releaseCli(data, dir, '2026-W50');
    expect(r.stderr).toContain(
      `--week 2026-W50 is not under ${join(data, 'weeks')}/ (it has 7 weeks, the newest 2026-W42, 2026-W43, 2026-W44, 2026-W45, 2026-W47)`,
    );
  });

  it('a lower-case w (2026-w47) is the week 2026-W47, for release and generate alike', async () => {
    const data = await copyFixture();
    const dir = await tempDir('week-lower');
    const r = releaseCli(data, dir, '2026-w47');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('2026-w47');
    expect(JSON.parse(readFileSync(join(dir, 'site', 'current.json'), 'utf8'))).toMatchObject({ week: '2026-W47' });
    const g = spawnSync(
      process.execPath,
      ['generator/cli.ts', '--data', data, '--out', join(dir, 'gen'), '--week', '2026-w47', '--quiet'],
      { encoding: 'utf8' },
    );
    expect(g.status, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout)).toMatchObject({ week: '2026-W47' });
  }, 120_000);
});
