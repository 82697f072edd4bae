/**
 * A `--week` that is not under `<data>/weeks/` (a typo, a week not collected yet) is refused naming the weeks that are
 * there, newest last, so the operator sees what to type instead. A lower-case w (`2026-w47`) is read as `2026-W47`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addFollowingWeek, copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

/** `npm run release` as the operator runs it, on a data copy; its stderr and exit code. */
function releaseCli(data: string, dir: string, week: string): { status: number | null; stderr: string } {
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
  return { status: r.status, stderr: r.stderr };
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

  it('a week not named like one says so and lists the weeks too', async () => {
    const data = await copyFixture();
    const dir = await tempDir('week-misnamed');
    const r = releaseCli(data, dir, '2026-47');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`--week must look like 2026-W47, got "2026-47" (${join(data, 'weeks')}/ has 2026-W47)`);
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
