/**
 * `npm run release`: every gate refuses a bad week and leaves the live version untouched (folder and bucket); --force
 * publishes it with the reason recorded; a good week goes to a loopback bucket and the folder with one pointer each.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { release, type ReleaseRecord } from '../generator/release/release.ts';
import { keys } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { useS3rver } from './helpers/s3rver.ts';

const silent = { log: () => {} };
const WEEK = ['weeks', '2026-W47'];

/** Rewrite places.jsonl of a data copy, record by record. */
async function editPlaces(
  data: string,
  edit: (p: Record<string, unknown>) => Record<string, unknown> | null,
): Promise<void> {
  const file = join(data, ...WEEK, 'places.jsonl');
  const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const out = rows.map((l) => edit(JSON.parse(l) as Record<string, unknown>)).filter((p) => p !== null);
  await writeFile(file, out.map((p) => `${JSON.stringify(p)}\n`).join(''));
}

/** The live state of a site folder: pointer bytes and version folders. */
async function folderState(site: string): Promise<{ pointer: string; versions: string[] }> {
  return {
    pointer: await readFile(join(site, keys.pointer), 'utf8'),
    versions: (await readdir(join(site, 'v'))).sort(),
  };
}

const failedGates = (r: ReleaseRecord): string[] => r.gates.filter((g) => !g.passed).map((g) => g.gate);

let live: string;
let records: string;
let liveVersion: string;

beforeAll(async () => {
  live = join(await tempDir('release-live'), 'site');
  records = await tempDir('release-records');
  const r = await release({ dataDir: await copyFixture(), siteDir: live, recordsDir: records, ...silent });
  expect(r.outcome, r.error ?? '').toBe('released');
  liveVersion = r.version as string;
});
afterAll(removeTempDirs);

describe('gates refuse a bad week and leave the live version untouched', () => {
  const cases: { gate: string; why: string; make: (data: string) => Promise<void> }[] = [
    { gate: 'inputs-present', why: 'empty places.jsonl', make: (d) => writeFile(join(d, ...WEEK, 'places.jsonl'), '') },
    {
      gate: 'inputs-present',
      why: 'empty samples.jsonl',
      make: (d) => writeFile(join(d, ...WEEK, 'samples.jsonl'), ''),
    },
    {
      gate: 'counts-drop',
      why: 'two of ten offices gone',
      make: (d) => editPlaces(d, (p) => (p.place_id === 'p5' || p.place_id === 'p10' ? null : p)),
    },
    {
      gate: 'coordinates',
      why: 'an office at London',
      make: (d) => editPlaces(d, (p) => (p.place_id === 'p7' ? { ...p, lat: 51.5074, lng: -0.1278 } : p)),
    },
    {
      gate: 'coordinates',
      why: 'an office at 0,0',
      make: (d) => editPlaces(d, (p) => (p.place_id === 'p7' ? { ...p, lat: 0, lng: 0 } : p)),
    },
    {
      gate: 'coordinates',
      why: 'an office 80 miles from its ZIP',
      make: (d) => editPlaces(d, (p) => (p.place_id === 'p7' ? { ...p, lat: 43.04, lng: -87.91 } : p)),
    },
    {
      gate: 'metro-coverage',
      why: 'a metro without samples',
      make: async (d) => {
        const file = join(d, ...WEEK, 'samples.jsonl');
        const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '' && !l.includes('"beta"'));
        await writeFile(file, rows.map((l) => `${l}\n`).join(''));
      },
    },
    {
      gate: 'metro-coverage',
      why: 'a metro without offices',
      make: (d) =>
        editPlaces(d, (p) =>
          p.city === 'Milwaukee' ? { ...p, lat: 41.95, lng: -87.7, zip: '60601', city: 'Chicago', state: 'IL' } : p,
        ),
    },
    {
      gate: 'corrections-known',
      why: 'a correction naming an unknown place',
      make: (d) =>
        writeFile(
          join(d, 'corrections.jsonl'),
          `${JSON.stringify({ action: 'remove', place_id: 'p-typo', reason: 'firm asked', date: '2026-11-20' })}\n`,
        ),
    },
  ];

  it('an office without a claimed status is a bad row: refused, nothing written', async () => {
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p3' ? { ...p, claimed: null } : p));
    const before = await folderState(live);
    const r = await release({ dataDir: data, siteDir: live, recordsDir: records, ...silent });
    expect(r.outcome).toBe('refused');
    expect(r.failed_step).toBe('bad input rows');
    expect(r.error).toMatch(/places\.jsonl:3: claimed/);
    expect(await folderState(live)).toEqual(before);
  });

  for (const c of cases) {
    it(`${c.gate}: ${c.why}`, async () => {
      const data = await copyFixture();
      await c.make(data);
      const before = await folderState(live);
      const r = await release({ dataDir: data, siteDir: live, recordsDir: records, ...silent });
      expect(r.outcome).toBe('refused');
      expect(failedGates(r)).toContain(c.gate);
      expect(r.failed_step).toContain(c.gate);
      expect(r.error).toContain('--force');
      expect(await folderState(live)).toEqual(before);
      expect(existsSync(join(live, '.staging'))).toBe(false);
      // The record on disk says the same.
      const onDisk = JSON.parse(await readFile(r.recordPath, 'utf8')) as ReleaseRecord;
      expect(onDisk.outcome).toBe('refused');
      expect(onDisk.gates.find((g) => g.gate === c.gate && !g.passed)?.detail).toBeTruthy();
    });
  }

  it('a missing samples.jsonl is refused too', async () => {
    const data = await copyFixture();
    await rm(join(data, ...WEEK, 'samples.jsonl'));
    const before = await folderState(live);
    const r = await release({ dataDir: data, siteDir: live, recordsDir: records, ...silent });
    expect(r.outcome).toBe('refused');
    expect(r.failed_step).toBe('gate inputs-present');
    expect(await folderState(live)).toEqual(before);
  });

  it('the details name what failed: the London office and its distance, the unknown correction line', async () => {
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p7' ? { ...p, lat: 51.5074, lng: -0.1278 } : p));
    await writeFile(
      join(data, 'corrections.jsonl'),
      `${JSON.stringify({ action: 'update', place_id: 'nope', reason: 'typo', date: '2026-11-20', set: { phone: '(312) 555-0199' } })}\n`,
    );
    const r = await release({ dataDir: data, siteDir: live, recordsDir: records, ...silent });
    const detail = (gate: string): string => r.gates.find((g) => g.gate === gate)?.detail ?? '';
    expect(detail('coordinates')).toMatch(/51\.5074,-0\.1278: outside the US/);
    expect(detail('corrections-known')).toContain('corrections.jsonl:1: update of unknown place "nope"');
  });
});

describe('--force', () => {
  it('publishes a refused week and keeps the reason and the forced gates in the record', async () => {
    const site = join(await tempDir('release-force'), 'site');
    await release({ dataDir: await copyFixture(), siteDir: site, recordsDir: records, ...silent });
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p7' ? { ...p, lat: 43.04, lng: -87.91 } : p));
    const r = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      force: { coordinates: 'office moved to Milwaukee; ZIP fixed next week' },
      ...silent,
    });
    expect(r.outcome).toBe('released');
    expect(r.forced).toEqual([{ gate: 'coordinates', reason: 'office moved to Milwaukee; ZIP fixed next week' }]);
    expect(r.gates.find((g) => g.gate === 'coordinates')).toMatchObject({ passed: false, forced: true });
    expect(r.gates.filter((g) => g.passed).every((g) => !g.forced)).toBe(true);
    expect(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).toMatchObject({ version: r.version });
    expect(r.version).not.toBe(liveVersion);
    expect(r.verify?.problems).toEqual([]);
    expect(r.verify?.queries).toBeGreaterThan(0);
  });
});

describe('corrections for places that closed, and gates forced one at a time', () => {
  it('a correction naming a place an earlier week had is reported and skipped, listed in the record', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('release-closed'), 'site');
    expect((await release({ dataDir: data, siteDir: site, recordsDir: records, ...silent })).outcome).toBe('released');
    // Week 48: p2 closed. The correction written for it while it was open still stands in corrections.jsonl.
    await cp(join(data, ...WEEK), join(data, 'weeks', '2026-W48'), { recursive: true });
    const ds = join(data, 'weeks', '2026-W48', 'dataset.json');
    await writeFile(
      ds,
      (await readFile(ds, 'utf8')).replace('2026-W47', '2026-W48').replace('2026-11-18', '2026-11-25'),
    );
    const w48 = join(data, 'weeks', '2026-W48', 'places.jsonl');
    await writeFile(
      w48,
      (await readFile(w48, 'utf8'))
        .split('\n')
        .filter((l) => !l.includes('"p2"'))
        .join('\n'),
    );
    await writeFile(
      join(data, 'corrections.jsonl'),
      `${JSON.stringify({ action: 'update', place_id: 'p2', reason: 'firm called', date: '2026-11-20', set: { phone: '(312) 555-0142' } })}\n`,
    );
    const r = await release({ dataDir: data, siteDir: site, recordsDir: records, ...silent });
    expect(r.outcome, r.error ?? '').toBe('released');
    expect(r.week).toBe('2026-W48');
    expect(r.gates.find((g) => g.gate === 'corrections-known')?.passed).toBe(true);
    expect(r.skipped_corrections).toEqual([{ line: 1, place_id: 'p2', action: 'update', last_seen_week: '2026-W47' }]);
    const onDisk = JSON.parse(await readFile(r.recordPath, 'utf8')) as ReleaseRecord;
    expect(onDisk.skipped_corrections).toEqual(r.skipped_corrections);
  });

  it('forcing one gate lets only that gate through; the others still refuse', async () => {
    const data = await copyFixture();
    await editPlaces(data, (p) =>
      p.place_id === 'p7'
        ? { ...p, lat: 51.5074, lng: -0.1278 }
        : p.place_id === 'p5' || p.place_id === 'p10'
          ? null
          : p,
    );
    const before = await folderState(live);
    const r = await release({
      dataDir: data,
      siteDir: live,
      recordsDir: records,
      force: { coordinates: 'office moved abroad' },
      ...silent,
    });
    expect(r.outcome).toBe('refused');
    expect(r.failed_step).toBe('gate counts-drop');
    expect(r.error).toContain('--force counts-drop="<reason>"');
    expect(r.gates.find((g) => g.gate === 'coordinates')).toMatchObject({ passed: false, forced: true });
    expect(r.gates.find((g) => g.gate === 'counts-drop')).toMatchObject({ passed: false, forced: false });
    expect(await folderState(live)).toEqual(before);
  });
});

describe('release to a loopback bucket', () => {
  const s3 = useS3rver();

  it('publishes to the bucket and the folder; a refused week moves neither', async () => {
    const site = join(await tempDir('release-bucket'), 'site');
    const bucket = { bucket: 'site', ...s3.clientOptions };
    const store = new S3Store({ ...bucket });
    const r = await release({ dataDir: await copyFixture(), siteDir: site, recordsDir: records, bucket, ...silent });
    expect(r.outcome, r.error ?? '').toBe('released');
    const pointer = await readFile(join(site, keys.pointer));
    expect(Buffer.from((await store.get(keys.pointer)) as Uint8Array).equals(pointer)).toBe(true);
    expect(r.publish?.pointerWritten).toBe(true);
    expect(r.invalidation.paths).toEqual(['/*']);
    expect(r.invalidation.applied).toBe(false);

    const data = await copyFixture();
    await writeFile(join(data, ...WEEK, 'places.jsonl'), '');
    const refused = await release({ dataDir: data, siteDir: site, recordsDir: records, bucket, ...silent });
    expect(refused.outcome).toBe('refused');
    expect(refused.live_before?.version).toBe(r.version);
    expect(Buffer.from((await store.get(keys.pointer)) as Uint8Array).equals(pointer)).toBe(true);
    expect((await readFile(join(site, keys.pointer))).equals(pointer)).toBe(true);
  });
});

describe('the CLI', () => {
  it('has --help and exits 1 naming the failing gate', async () => {
    const help = spawnSync(process.execPath, ['generator/release/cli.ts', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--force <gate>=<reason>/);
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p7' ? { ...p, lat: 51.5074, lng: -0.1278 } : p));
    const cli = spawnSync(
      process.execPath,
      ['generator/release/cli.ts', '--data', data, '--site', live, '--records', records],
      { encoding: 'utf8' },
    );
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/release: refused at gate coordinates/);
    expect(JSON.parse(cli.stdout)).toMatchObject({ outcome: 'refused', gates_failed: ['coordinates'] });
  });

  it('--force takes one gate and its reason; a bare reason is a usage error naming the gates', async () => {
    const cli = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'generator/release/cli.ts', '--site', live, '--force', 'just a reason'],
      { encoding: 'utf8' },
    );
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/--force takes <gate>=<reason>.*counts-drop/);
  });

  it('a bad row refusal says --skip-bad, and release accepts it: the row is left out and listed in the record', async () => {
    const data = await copyFixture();
    await editPlaces(data, (p) => (p.place_id === 'p3' ? { ...p, claimed: null } : p));
    const site = join(await tempDir('release-skip'), 'site');
    const args = ['--import', 'tsx', 'generator/release/cli.ts', '--data', data, '--site', site, '--records', records];
    const refused = spawnSync(process.execPath, args, { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--skip-bad');
    const skipped = spawnSync(process.execPath, [...args, '--skip-bad'], { encoding: 'utf8' });
    expect(skipped.status, skipped.stderr).toBe(0);
    const summary = JSON.parse(skipped.stdout) as { record: string };
    const rec = JSON.parse(await readFile(summary.record, 'utf8')) as ReleaseRecord;
    expect(rec.skipped_rows).toEqual([expect.stringMatching(/places\.jsonl:3: claimed/)]);
  });
});

describe('week-order: a week older than the live one is refused, and goes through only by name', () => {
  it('refuses 2026-W46 over a live 2026-W47 with nothing moved, names --rollback; --force week-order releases it', async () => {
    // The fixture's week copied as the week before: the same inputs, only older.
    const data = await copyFixture();
    await cp(join(data, ...WEEK), join(data, 'weeks', '2026-W46'), { recursive: true });
    const dataset = join(data, 'weeks', '2026-W46', 'dataset.json');
    await writeFile(dataset, (await readFile(dataset, 'utf8')).replace('"2026-W47"', '"2026-W46"'));
    const site = join(await tempDir('release-week-order'), 'site');
    const first = await release({ dataDir: data, siteDir: site, recordsDir: records, ...silent });
    expect(first.outcome, first.error ?? '').toBe('released');
    expect(first.version).toMatch(/^2026-W47-/);

    const before = await folderState(site);
    const older = await release({ dataDir: data, siteDir: site, recordsDir: records, week: '2026-W46', ...silent });
    expect(older.outcome).toBe('refused');
    expect(failedGates(older), older.error ?? '').toEqual(['week-order']);
    expect(older.failed_step).toBe('gate week-order');
    expect(older.error).toContain(
      `2026-W46 is older than the live version's week 2026-W47 (${first.version as string})`,
    );
    expect(older.error).toContain('--rollback');
    expect(await folderState(site)).toEqual(before);

    // The same week again (a same-day correction) passes the gate.
    const again = await release({ dataDir: data, siteDir: site, recordsDir: records, week: '2026-W47', ...silent });
    expect(again.outcome, again.error ?? '').toBe('released');
    expect(again.gates.find((g) => g.gate === 'week-order')).toMatchObject({ passed: true, forced: false });

    const forced = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      week: '2026-W46',
      force: { 'week-order': 'the W47 samples were bought twice; W46 is the last good week' },
      ...silent,
    });
    expect(forced.outcome, forced.error ?? '').toBe('released');
    expect(forced.version).toMatch(/^2026-W46-/);
    expect(forced.forced).toEqual([
      { gate: 'week-order', reason: 'the W47 samples were bought twice; W46 is the last good week' },
    ]);
    expect(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).toMatchObject({ week: '2026-W46' });
  });
});
