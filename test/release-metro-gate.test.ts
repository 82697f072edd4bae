/**
 * The per-metro gate: a metro whose samples, grid points or offices fall by more than half against the live version
 * is refused even when the totals hold (the other metro grew), unless forced with a recorded reason.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release } from '../generator/release/release.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

const silent = { log: () => {} };
const SAMPLES = ['weeks', '2026-W47', 'samples.jsonl'];

/** The week's samples with `metro` sampled at `points` grid points (copies of its first point's five lines, moved). */
async function samplePoints(data: string, counts: Record<string, number>): Promise<void> {
  const file = join(data, ...SAMPLES);
  const rows = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { metro: string; point_id: string; lat: number; lng: number });
  const out: unknown[] = [];
  for (const [metro, points] of Object.entries(counts)) {
    const first = rows.filter((r) => r.metro === metro && r.point_id === rows.find((x) => x.metro === metro)?.point_id);
    for (let i = 0; i < points; i++)
      for (const r of first) out.push({ ...r, point_id: `${metro}-${i}`, lat: r.lat + 0.005 * i, lng: r.lng });
  }
  await writeFile(file, out.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

describe('metro-drop', () => {
  it('refuses a metro down from 10 grid points to 1 while the totals hold; --force lets it through, recorded', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('metro-drop'), 'site');
    const records = await tempDir('metro-drop-records');
    const run = (force?: Record<string, string>) =>
      release({
        dataDir: data,
        siteDir: site,
        recordsDir: records,
        verifySample: 5,
        ...(force ? { force } : {}),
        ...silent,
      });
    await samplePoints(data, { alpha: 2, beta: 10 });
    const live = await run();
    expect(live.outcome, live.error ?? '').toBe('released');
    const pointer = await readFile(join(site, keys.pointer));

    // 60 sample lines before and after: the total drop gate passes, beta alone collapsed.
    await samplePoints(data, { alpha: 11, beta: 1 });
    const refused = await run();
    expect(refused.outcome).toBe('refused');
    expect(refused.gates.filter((g) => !g.passed).map((g) => g.gate)).toEqual(['metro-drop']);
    expect(refused.failed_step).toBe('gate metro-drop');
    expect(refused.gates.find((g) => g.gate === 'metro-drop')?.detail).toMatch(
      /beta: grid_samples 50 -> 5, grid_points 10 -> 1/,
    );
    expect((await readFile(join(site, keys.pointer))).equals(pointer)).toBe(true);

    const forced = await run({ 'metro-drop': 'beta sampler outage, checked by hand' });
    expect(forced.outcome, forced.error ?? '').toBe('released');
    expect(forced.forced).toEqual([{ gate: 'metro-drop', reason: 'beta sampler outage, checked by hand' }]);
    expect(Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).version).toBe(forced.version);
  });
});
