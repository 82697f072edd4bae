/**
 * One writer of what is live, on a site folder: `generate` never moves the pointer; a rollback goes only to a released
 * version that holds today's corrections and no removed listing; after a rollback a plain release asks for --week; two
 * releases at once cannot both move the pointer (the second is refused and the chain of changes documents never forks);
 * a removal added while a release runs is read again before its pointer moves.
 */
import { spawnSync } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { release, type ReleaseOptions } from '../generator/release/release.ts';
import { ChangesDoc, keys } from '../shim/format/site-format.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { liveOf, setPhone } from './helpers/release-data.ts';

afterAll(removeTempDirs);

const silent = { log: () => {} };

const changesOf = async (site: string, version: string) =>
  ChangesDoc.parse(JSON.parse(await readFile(join(site, keys.changes(version)), 'utf8')));

/** A folder deployment: a data copy, a site, a records folder, and release with those. */
async function deployment(tag: string) {
  const data = await copyFixture();
  const site = join(await tempDir(tag), 'site');
  const records = await tempDir(`${tag}-records`);
  const run = (extra: Partial<ReleaseOptions> = {}) =>
    release({ dataDir: data, siteDir: site, recordsDir: records, verifySample: 5, ...silent, ...extra });
  return { data, site, records, run };
}

describe('generate never moves a pointer', () => {
  it('npm run generate writes a new version beside the live one and leaves current.json as it was', async () => {
    const d = await deployment('gen-pointer');
    const first = await d.run();
    expect(first.outcome, first.error ?? '').toBe('released');
    const pointer = await readFile(join(d.site, keys.pointer));
    await setPhone(d.data, '(312) 555-0177');
    const cli = spawnSync(process.execPath, ['generator/cli.ts', '--data', d.data, '--out', d.site, '--quiet'], {
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(0);
    const { version } = JSON.parse(cli.stdout) as { version: string };
    expect(version).not.toBe(first.version);
    expect(await readFile(join(d.site, keys.manifest(version)), 'utf8')).toContain(version);
    expect((await readFile(join(d.site, keys.pointer))).equals(pointer)).toBe(true);
  });
});

describe('rollback goes only to a released version, through the checks', () => {
  it('refuses a version never released, goes back to a released one, then asks for --week', async () => {
    const d = await deployment('rollback');
    const v1 = await d.run();
    await setPhone(d.data, '(312) 555-0171');
    const v2 = await d.run();
    expect([v1.outcome, v2.outcome]).toEqual(['released', 'released']);
    // A version generate wrote but no release made live (it never passed the gates).
    await setPhone(d.data, '(312) 555-0172');
    const unreleased = await generate({ dataDir: d.data, outDir: d.site, quiet: true, log: () => {} });
    const refused = await d.run({ rollback: unreleased.version });
    expect(refused.outcome).toBe('refused');
    expect(refused.failed_step).toBe('rollback target');
    expect(refused.error).toContain(`${unreleased.version} was never released`);
    expect(refused.error).toContain(`it may go back to ${v1.version as string}`);
    expect(await liveOf(d.site)).toBe(v2.version);

    const back = await d.run({ rollback: v1.version as string });
    expect(back.outcome, back.error ?? '').toBe('released');
    expect(back.rollback).toEqual({ to: v1.version, how: 'pointer' });
    expect(await liveOf(d.site)).toBe(v1.version);

    // The newest week is the one rolled back from: a plain release names it and asks for --week.
    const plain = await d.run();
    expect(plain.outcome).toBe('refused');
    expect(plain.failed_step).toBe('week');
    expect(plain.error).toMatch(/a plain release would release 2026-W47 .*--week 2026-W47/);
    expect(await liveOf(d.site)).toBe(v1.version);
    const named = await d.run({ week: '2026-W47' });
    expect(named.outcome, named.error ?? '').toBe('released');
    expect(named.previous_version).toBe(v1.version);
  });

  it("refuses a version released before today's corrections or holding a removed listing", async () => {
    const d = await deployment('rollback-checks');
    const v1 = await d.run();
    await setPhone(d.data, '(312) 555-0173');
    const v2 = await d.run();
    expect(v2.outcome, v2.error ?? '').toBe('released');
    // A same-day correction: going back to v1 would undo it.
    await appendFile(
      join(d.data, 'corrections.jsonl'),
      `${JSON.stringify({ date: '2026-11-20', place_id: 'p2', action: 'update', set: { phone: '(312) 555-0199' }, reason: 'asked by phone' })}\n`,
    );
    const corrected = await d.run();
    expect(corrected.outcome, corrected.error ?? '').toBe('released');
    const r1 = await d.run({ rollback: v1.version as string });
    expect(r1.outcome).toBe('refused');
    expect(r1.error).toContain("released with other corrections than today's corrections.jsonl");
    expect(r1.error).toContain('no released version passes these checks');
    expect(await liveOf(d.site)).toBe(corrected.version);

    // A standing removal of p3: every released version before it holds the listing.
    await appendFile(
      join(d.data, 'removals.jsonl'),
      `${JSON.stringify({ date: '2026-11-21', listing_id: listingIdOf('p3'), reason: 'asked to be removed' })}\n`,
    );
    const removed = await d.run();
    expect(removed.outcome, removed.error ?? '').toBe('released');
    const r2 = await d.run({ rollback: corrected.version as string });
    expect(r2.outcome).toBe('refused');
    expect(r2.error).toContain('under a standing removal');
    expect(r2.error).toContain(listingIdOf('p3'));
    expect(await liveOf(d.site)).toBe(removed.version);
  });
});

describe('one release at a time', () => {
  it('a release whose base moved is refused; run again, it compares with what is live (no fork)', async () => {
    const d = await deployment('race');
    const v0 = await d.run();
    expect(v0.outcome, v0.error ?? '').toBe('released');
    const other = await copyFixture();
    await appendFile(
      join(other, 'removals.jsonl'),
      `${JSON.stringify({ date: '2026-11-21', listing_id: listingIdOf('p3'), reason: 'asked to be removed' })}\n`,
    );
    await setPhone(d.data, '(312) 555-0174');
    let removal: Awaited<ReturnType<typeof release>> | undefined;
    // The weekly release uploads; a removal release finishes first, just before the weekly one would move the pointer.
    const weekly = await d.run({
      beforePointer: async () => {
        removal = await release({ dataDir: other, siteDir: d.site, recordsDir: d.records, verifySample: 5, ...silent });
      },
    });
    expect(removal?.outcome, removal?.error ?? '').toBe('released');
    expect(removal?.previous_version).toBe(v0.version);
    expect(weekly.outcome).toBe('refused');
    expect(weekly.failed_step).toBe('live moved');
    expect(weekly.error).toMatch(/moved from .* to .*run the release again/);
    // The removal holds: the weekly release did not overwrite it.
    expect(await liveOf(d.site)).toBe(removal?.version);
    // The changes document of the weekly version names the version live when it began: it is never served.
    expect((await changesOf(d.site, weekly.version as string)).previous?.version).toBe(v0.version);

    // Run again, with the removal in its inputs: its changes document compares with the removal's version.
    await writeFile(join(d.data, 'removals.jsonl'), await readFile(join(other, 'removals.jsonl')));
    const again = await d.run();
    expect(again.outcome, again.error ?? '').toBe('released');
    expect(again.previous_version).toBe(removal?.version);
    expect((await changesOf(d.site, again.version as string)).previous?.version).toBe(removal?.version);
  });

  it('a removal added while a release runs is read again before the pointer moves', async () => {
    const d = await deployment('late-removal');
    const v0 = await d.run();
    await setPhone(d.data, '(312) 555-0175');
    const r = await d.run({
      beforePointer: () =>
        appendFile(
          join(d.data, 'removals.jsonl'),
          `${JSON.stringify({ date: '2026-11-21', listing_id: listingIdOf('p4'), reason: 'asked to be removed' })}\n`,
        ),
    });
    expect(r.outcome).toBe('refused');
    expect(r.failed_step).toBe('removals');
    expect(r.error).toContain(listingIdOf('p4'));
    expect(await liveOf(d.site)).toBe(v0.version);
  });
});
