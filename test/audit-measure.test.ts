/** The published measurement data and `npm run audit -- measure`, which recomputes every share from it. */
import { spawnSync } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measure } from '../generator/audit/measure.ts';
import { generateLive } from './helpers/generate-live.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { keys, MeasurementDoc, Pointer } from '../shim/format/site-format.ts';
import { copyFixture, readJson, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { firmPackKey, readFirmDoc } from './helpers/firm-pack.ts';

const quiet = { quiet: true, log: (): void => {} };
let data: string;
let site: string;
let version: string;

beforeAll(async () => {
  data = await copyFixture();
  site = join(await tempDir('measure'), 'site');
  version = await copyFixtureSite(site);
});
afterAll(removeTempDirs);

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['generator/audit/cli.ts', 'measure', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Rewrite every stored record of one office (its record chunk, and the firm documents holding it, in their packs). */
async function tamper(
  root: string,
  v: string,
  listingId: string,
  edit: (o: { visibility: { top3_share_pct: number } | null }) => void,
): Promise<number> {
  let edited = 0;
  const dir = join(root, keys.root(v));
  for (const rel of await readdir(dir, { recursive: true })) {
    if (!rel.endsWith('.json') || !(rel.startsWith('cells/records/') || rel.startsWith('firms/'))) continue;
    const text = await readFile(join(dir, rel), 'utf8');
    if (!text.includes(listingId)) continue;
    type Office = { listing_id: string };
    const doc = JSON.parse(text) as {
      offices?: Office[];
      documents?: { office: Office; other_offices: Office[] }[];
    };
    const inDocs = (doc.documents ?? []).flatMap((d) => [d.office, ...d.other_offices]);
    for (const o of [...(doc.offices ?? []), ...inDocs]) {
      if (o.listing_id !== listingId) continue;
      edit(o as unknown as { visibility: { top3_share_pct: number } | null });
      edited++;
    }
    await writeFile(join(dir, rel), `${JSON.stringify(doc)}\n`);
  }
  return edited;
}

describe('published measurement data', () => {
  it('holds every sample line as ranked listing ids, with null for places that are not listings, and nothing else', async () => {
    const lines = (await readFile(join(data, 'weeks/2026-W47/samples.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            metro: string;
            point_id: string;
            lat: number;
            lng: number;
            query: string;
            ranked: string[];
          },
      );
    const places = new Set(
      (await readFile(join(data, 'weeks/2026-W47/places.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { place_id: string }).place_id),
    );
    for (const metro of ['alpha', 'beta']) {
      const doc = MeasurementDoc.parse(await readJson(site, keys.measurement(version, metro)));
      const mine = lines.filter((l) => l.metro === metro);
      expect(doc.queries).toEqual([...new Set(mine.map((l) => l.query))].sort());
      expect(doc.points.map((p) => p.point_id)).toEqual([...new Set(mine.map((l) => l.point_id))].sort());
      for (const l of mine) {
        const point = doc.points.find((p) => p.point_id === l.point_id);
        expect(point).toMatchObject({ lat: l.lat, lng: l.lng });
        expect(Object.keys(point ?? {}).sort()).toEqual(['lat', 'lng', 'point_id', 'ranked']);
        expect(point?.ranked[l.query]).toEqual(l.ranked.map((id) => (places.has(id) ? listingIdOf(id) : null)));
      }
      // No id of the map service leaves the operator: only listing ids of this version.
      expect(JSON.stringify(doc)).not.toMatch(/"(p\d+|x\d+)"/);
    }
  });

  it('is byte-identical for the same input', async () => {
    const again = join(await tempDir('measure-again'), 'site');
    await generateLive({ dataDir: data, outDir: again, ...quiet });
    for (const metro of ['alpha', 'beta']) {
      expect(await readFile(join(again, keys.measurement(version, metro)))).toEqual(
        await readFile(join(site, keys.measurement(version, metro))),
      );
    }
  });
});

describe('npm run audit -- measure', () => {
  it('passes on the generated sample site', async () => {
    const sample = process.env.TEST_SITE_DIR as string;
    const r = await measure({ site: { kind: 'folder', dir: sample } });
    expect(r.mismatches).toEqual([]);
    expect(r.problems).toEqual([]);
    expect(r.offices).toBeGreaterThan(9000);
    expect(r.firm_documents).toBe(r.offices);
    expect(r.grid_samples).toBeGreaterThan(10000);
  }, 120_000);

  it('passes on the fixture, whose shares agree with a hand count', async () => {
    const r = cli('--site', site, '--quiet');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('OK: every published share equals its recomputation');
    // p1 in alpha: 2 points x 5 queries = 10 samples; ranked in 6 of them, in the top three in 5.
    const firm = readFirmDoc(site, version, listingIdOf('p1'));
    expect(firm?.office.metro).toBe('alpha');
    expect(firm?.office.visibility).toEqual({ top3_share_pct: 50, appears_share_pct: 60 });
  });

  it('fails naming the office when a published share is tampered with', async () => {
    const copy = join(await tempDir('measure-tampered'), 'site');
    // A copy of the site generated once for the file (generation is deterministic: see 'is byte-identical').
    await cp(site, copy, { recursive: true });
    const id = listingIdOf('p1');
    expect(
      await tamper(copy, version, id, (o) => void ((o.visibility as { top3_share_pct: number }).top3_share_pct = 70)),
    ).toBeGreaterThan(0);
    const r = cli('--site', copy, '--quiet', '--no-firms');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      `MISMATCH cells/records: office ${id} (Alpha Injury Law, Chicago IL): map_visibility.top3_share_pct expected 50, got 70`,
    );
    expect(r.stdout).toMatch(/FAILED: 1 mismatch/);
    const withFirms = cli('--site', copy, '--quiet');
    expect(withFirms.status).toBe(1);
    const pack = firmPackKey(copy, version, id).slice(keys.root(version).length);
    expect(withFirms.stdout).toContain(`MISMATCH ${pack}: office ${id}`);
  });

  it('fails when the measurement itself is changed after the shares were computed', async () => {
    const copy = join(await tempDir('measure-moved'), 'site');
    await cp(site, copy, { recursive: true });
    const key = keys.measurement(version, 'beta');
    const doc = MeasurementDoc.parse(await readJson(copy, key));
    const point = doc.points[0];
    if (point === undefined) throw new Error('fixture: beta has a point');
    point.ranked['slip and fall lawyer'] = [];
    await writeFile(join(copy, key), `${JSON.stringify(doc)}\n`);
    const r = cli('--site', copy, '--quiet', '--no-firms');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`office ${listingIdOf('p9')}`);
  });

  it('answers --help, and a usage error with 2', () => {
    const help = cli('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: npm run audit -- measure');
    expect(cli().status).toBe(2);
    const missing = cli('--site', '/nonexistent-site-folder');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('current.json');
  });

  it('checks the version the pointer names unless told another', async () => {
    const pointer = Pointer.parse(await readJson(site, keys.pointer));
    const r = await measure({ site: { kind: 'folder', dir: site }, version: pointer.version, firms: false });
    expect(r.version).toBe(version);
    expect(r.firm_documents).toBe(0);
  });
});
