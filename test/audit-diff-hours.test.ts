/** `audit diff` prints an office's hours change as old -> new, the way the API shows hours. */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import { diffSites, formatDiff } from '../generator/audit/diff.ts';
import { generateLive } from './helpers/generate-live.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { hoursText } from '../shim/answer/hours.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';

afterAll(removeTempDirs);

it('prints old -> new hours of a corrected office', async () => {
  const quiet = { quiet: true, log: () => {} };
  const data = await copyFixture();
  const before = join(await tempDir('hours-old'), 'site');
  await copyFixtureSite(before);
  const periods = [1, 2, 3, 4, 5].map((day) => ({ open: { day, time: '0800' }, close: { day, time: '1800' } }));
  await writeFile(
    join(data, 'corrections.jsonl'),
    `${JSON.stringify({ action: 'update', place_id: 'p1', reason: 'new hours from the firm', date: '2026-11-20', set: { opening_hours: { periods } } })}\n`,
  );
  const after = join(await tempDir('hours-new'), 'site');
  await generateLive({ dataDir: data, outDir: after, ...quiet });
  const d = await diffSites({ kind: 'folder', dir: before }, { kind: 'folder', dir: after });
  const change = d.changed.find((c) => c.listing_id === listingIdOf('p1'));
  const hours = change?.fields.find((f) => f.field === 'hours');
  expect(hours).toBeDefined();
  const oldText = hoursText((hours?.old as { weekly: Parameters<typeof hoursText>[0] }).weekly).join(', ');
  const newText = hoursText((hours?.new as { weekly: Parameters<typeof hoursText>[0] }).weekly).join(', ');
  expect(oldText).not.toBe(newText);
  expect(formatDiff(d)).toContain(`hours ${oldText} -> ${newText}`);
  expect(newText).toMatch(/8/);
});
