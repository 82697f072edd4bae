/**
 * `npm start` never publishes: over a published site it serves that version even when the inputs changed (a week the
 * release refused included), and says which command publishes them; with no site it releases the first one through the
 * gates, and serves nothing when they refuse it. Over a live version this release cannot read, it says so and what to
 * release before serving it.
 */
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release } from '../generator/release/release.ts';
import { keys } from '../shim/format/site-format.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

/** Start `start.ts` and resolve once it serves (its URL) or exits (its status), with what it printed. */
function start(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string | null; status: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.stdout?.on('data', (b: Buffer) => {
      stdout += b.toString('utf8');
      const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url !== undefined) resolve({ child, url, status: null, stderr });
    });
    child.on('exit', (status) => resolve({ child, url: null, status, stderr }));
  });
}

/** Rewrite places.jsonl of the fixture copy. */
async function editPlaces(
  data: string,
  edit: (p: Record<string, unknown>) => Record<string, unknown> | null,
): Promise<void> {
  const file = join(data, 'weeks', '2026-W47', 'places.jsonl');
  const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  await writeFile(
    file,
    rows
      .map((l) => edit(JSON.parse(l) as Record<string, unknown>))
      .filter((p) => p !== null)
      .map((p) => `${JSON.stringify(p)}\n`)
      .join(''),
  );
}

describe('npm start never publishes', () => {
  it('serves the published version when a refused week and a new removal are in the inputs, and names the release command', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('start-site'), 'site');
    const logs = await tempDir('start-logs');
    const released = await release({ dataDir: data, siteDir: site, recordsDir: join(logs, 'releases'), log: () => {} });
    expect(released.outcome).toBe('released');
    const pointer = await readFile(join(site, keys.pointer), 'utf8');
    // Half the offices gone: the release refuses this week.
    await editPlaces(data, (p) => (['p1', 'p4', 'p6', 'p8', 'p9'].includes(p.place_id as string) ? null : p));
    const refused = await release({ dataDir: data, siteDir: site, recordsDir: join(logs, 'releases'), log: () => {} });
    expect(refused.outcome).toBe('refused');
    await writeFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ place_id: 'p7', date: '2026-11-21', reason: 'asked' })}\n`,
    );
    const run = await start({ SITE_DIR: site, DATA_DIR: data, LOG_DIR: join(logs, 'log') });
    try {
      expect(run.url, run.stderr).not.toBeNull();
      expect(run.stderr).toContain('serving the published version as it is');
      expect(run.stderr).toContain('npm run release');
      expect(await readFile(join(site, keys.pointer), 'utf8')).toBe(pointer);
      const coverage = await fetch(`${run.url ?? ''}/v1/coverage`);
      expect(coverage.headers.get('directory-version')).toBe(released.version);
      expect(((await coverage.json()) as { totals: { offices: number } }).totals.offices).toBe(10);
    } finally {
      run.child.kill('SIGTERM');
    }
  }, 120_000);

  it('with no site, releases the first one through the gates, and serves nothing when a gate refuses it', async () => {
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p7' ? { ...p, lat: 51.5074, lng: -0.1278 } : p));
    const site = join(await tempDir('start-none'), 'site');
    const logs = await tempDir('start-logs2');
    const run = await start({ SITE_DIR: site, DATA_DIR: data, LOG_DIR: join(logs, 'log') });
    run.child.kill('SIGTERM');
    expect(run.url).toBeNull();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/first release of .* was refused at gate coordinates/);
    await expect(readFile(join(site, keys.pointer))).rejects.toThrow(/ENOENT/);
  }, 120_000);

  it('over a live version of a schema this release does not read, says so and names the release before serving', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('start-old'), 'site');
    const logs = await tempDir('start-logs3');
    const released = await release({ dataDir: data, siteDir: site, recordsDir: join(logs, 'releases'), log: () => {} });
    expect(released.outcome).toBe('released');
    // As an older checkout left it: the live week's cell index of the retired cell schema 6.
    const indexPath = join(site, keys.cellIndex(released.version ?? ''));
    const index = JSON.parse(await readFile(indexPath, 'utf8')) as { schema_version: number };
    await writeFile(indexPath, JSON.stringify({ ...index, schema_version: 6 }));
    // Whose meta.json carried no cell index, named by the pointer with its hash.
    const metaPath = join(site, keys.meta(released.version ?? ''));
    const { cell_index: _carried, ...meta } = JSON.parse(await readFile(metaPath, 'utf8')) as Record<string, unknown>;
    const metaText = `${JSON.stringify(meta)}\n`;
    await writeFile(metaPath, metaText);
    const pointer = JSON.parse(await readFile(join(site, keys.pointer), 'utf8')) as Record<string, unknown>;
    const metaSha256 = createHash('sha256').update(metaText).digest('hex');
    await writeFile(join(site, keys.pointer), `${JSON.stringify({ ...pointer, meta_sha256: metaSha256 })}\n`);
    const run = await start({ SITE_DIR: site, DATA_DIR: data, LOG_DIR: join(logs, 'log') });
    try {
      expect(run.url, run.stderr).not.toBeNull();
      expect(run.stderr).toContain(`${released.version ?? ''} is cells schema 6, which this release does not serve`);
      expect(run.stderr).toContain(`npm run release -- --data ${data} --site ${site}`);
      const answer = await fetch(`${run.url ?? ''}/v1/attorneys?lat=41.88&lng=-87.63&radius_miles=5`);
      expect(answer.status).toBe(503);
    } finally {
      run.child.kill('SIGTERM');
    }
  }, 120_000);
});
