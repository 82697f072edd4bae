/**
 * Every operator CLI refuses a single-value option given twice (`--week A --week B`, `--bucket x --bucket y`), and a
 * flag given twice (`--quiet --quiet`), as a usage error naming the option, at once and before anything is read or
 * written: before, the last value silently won and a repeated flag passed unnoticed.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (script: string, args: string[]): Promise<{ status: number; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      { env: { ...process.env, DEBUG: '', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' } },
      (err, _stdout, stderr) =>
        resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr }),
    );
  });

const CASES: { name: string; script: string; args: string[]; flag: string; values: [string, string] }[] = [
  {
    name: 'generate --week',
    script: 'generator/cli.ts',
    args: ['--week', '2026-W46', '--week', '2026-W47', '--data', '/nonexistent'],
    flag: 'week',
    values: ['2026-W46', '2026-W47'],
  },
  {
    name: 'release --bucket',
    script: 'generator/release/cli.ts',
    args: ['--bucket', 'x', '--data', '/nonexistent', '--bucket', 'y'],
    flag: 'bucket',
    values: ['x', 'y'],
  },
  {
    name: 'release --week',
    script: 'generator/release/cli.ts',
    args: ['--week', '2026-W46', '--week', '2026-W47', '--data', '/nonexistent'],
    flag: 'week',
    values: ['2026-W46', '2026-W47'],
  },
  {
    name: 'publish --bucket',
    script: 'generator/publish/publish-cli.ts',
    args: ['--bucket', 'x', '--bucket', 'y', '--site', '/nonexistent'],
    flag: 'bucket',
    values: ['x', 'y'],
  },
  {
    name: 'prune --prefix',
    script: 'generator/publish/prune-cli.ts',
    args: ['--bucket', 'x', '--prefix', 'a/', '--prefix', 'b/'],
    flag: 'prefix',
    values: ['a/', 'b/'],
  },
  {
    name: 'audit verify --site',
    script: 'generator/audit/cli.ts',
    args: ['verify', '--site', '/nonexistent-a', '--site', '/nonexistent-b'],
    flag: 'site',
    values: ['/nonexistent-a', '/nonexistent-b'],
  },
];

describe('a single-value option given twice', () => {
  for (const c of CASES)
    it(`${c.name}: usage error naming the option (exit 2)`, async () => {
      const r = await run(c.script, c.args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `--${c.flag} given twice (${c.values.map((v) => JSON.stringify(v)).join(', ')}); it takes one value: give it once`,
      );
      expect(r.stderr).toContain('Usage: ');
    }, 60_000);
});

describe('a flag given twice', () => {
  for (const [script, args, flag] of [
    ['generator/cli.ts', ['--quiet', '--data', '/nonexistent', '--quiet'], 'quiet'],
    ['generator/release/cli.ts', ['--skip-bad', '--data', '/nonexistent', '--skip-bad'], 'skip-bad'],
    ['data/synth/cli.ts', ['--quiet', '--quiet', '--out', '/nonexistent'], 'quiet'],
  ] as const)
    it(`${script} --${flag} --${flag}: usage error naming the flag (exit 2)`, async () => {
      const r = await run(script, [...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--${flag} given twice; it is a flag (on when given): give it once`);
      expect(r.stderr).toContain('Usage: ');
      // The line naming the mistake, the synopsis and a pointer to --help: not every option after it.
      expect(r.stderr).toContain('(--help for every option)');
      expect(r.stderr).not.toContain('Options:');
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(4);
    }, 60_000);
});
