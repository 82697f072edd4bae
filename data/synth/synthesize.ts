/** Seeded synthesiser of the sample inputs: per ISO week a folder of dataset.json, places.jsonl, samples.jsonl and flags.jsonl. */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DatasetFileT, MetrosFile, WEEK_FILES } from '../../generator/inputs/schema.ts';
import { mondayOfIsoWeek } from '../../generator/inputs/week.ts';
import { advanceWeek } from './churn.ts';
import { loadZips } from './gazetteer.ts';
import { generatePopulation, type Population } from './offices.ts';
import { firmKey, flagRecord, placeLine } from './place-record.ts';
import { makeRng } from './rng.ts';
import { gridPoints, rankSamples, type GridPoint } from './samples.ts';
import { LineWriter } from './writer.ts';
import { buildWorld, type World } from './world.ts';

/** Options of one synthesis run. */
export interface SynthOptions {
  /** Folder that receives one sub-folder per week (created if missing). */
  outDir: string;
  /** PRNG seed; the same seed gives byte-identical files. */
  seed?: number;
  /** Consecutive ISO weeks ("2026-W46"); churn is applied from each to the next. Default two weeks, one when nationwide. */
  weeks?: string[];
  /** Offices in the first week. */
  offices?: number;
  /** Spread offices over every US ZIP (weighted toward dense areas) instead of only the 27 metros. */
  nationwide?: boolean;
  /** No progress on stderr. */
  quiet?: boolean;
}

/** Defaults: the seed-scale sample of the design (about 6,645 firms and 9,080 offices in two weeks). */
export const SYNTH_DEFAULTS = { seed: 1, weeks: ['2026-W46', '2026-W47'], offices: 9080 } as const;

const METROS_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'metros.json');

/** Fixed collection time inside the week: its Wednesday, 14:00 UTC. */
export function collectedAt(week: string): string {
  const monday = new Date(`${mondayOfIsoWeek(week)}T14:00:00Z`);
  return new Date(monday.getTime() + 2 * 86_400_000).toISOString().replace('.000Z', 'Z');
}

interface WeekStats {
  offices: number;
  firms: number;
  samples: number;
  bytes: number;
}

function writeWeek(
  dir: string,
  week: string,
  pop: Population,
  world: World,
  points: GridPoint[],
  seed: number,
  weekNo: number,
): WeekStats {
  mkdirSync(dir, { recursive: true });
  const dataset: DatasetFileT = {
    schema_version: 1,
    name: 'Synthetic sample',
    synthetic: true,
    week,
    collected_at: collectedAt(week),
  };
  const datasetText = `${JSON.stringify(dataset, null, 2)}\n`;
  writeFileSync(join(dir, WEEK_FILES.dataset), datasetText);

  const places = new LineWriter(join(dir, WEEK_FILES.places));
  const flags = new LineWriter(join(dir, WEEK_FILES.flags));
  const seen = new Set<string>();
  for (const office of pop.offices) {
    const firm = pop.firms[office.firm]!;
    places.line(placeLine(office, firm, firm.opened > 1, world));
    const key = firmKey(firm, office);
    if (!seen.has(key)) {
      seen.add(key);
      flags.json(flagRecord(key, firm));
    }
  }
  places.close();
  flags.close();

  const samples = new LineWriter(join(dir, WEEK_FILES.samples));
  rankSamples(points, pop.offices, world, seed, weekNo, (r) => samples.json(r));
  samples.close();
  return {
    offices: places.lines,
    firms: flags.lines,
    samples: samples.lines,
    bytes: datasetText.length + places.bytes + flags.bytes + samples.bytes,
  };
}

/** Writes the synthetic weeks under `opts.outDir`, each week folder replaced atomically (built aside, then renamed). */
export async function synthesize(opts: SynthOptions): Promise<void> {
  const seed = (opts.seed ?? SYNTH_DEFAULTS.seed) >>> 0;
  // The nationwide benchmark scale writes one week unless told otherwise (churn adds nothing to a benchmark).
  const weeks = opts.weeks ?? (opts.nationwide ? [SYNTH_DEFAULTS.weeks[0]] : [...SYNTH_DEFAULTS.weeks]);
  const target = opts.offices ?? SYNTH_DEFAULTS.offices;
  if (weeks.length === 0) throw new Error('synthesize: no weeks given');
  for (const week of weeks) mondayOfIsoWeek(week);
  if (!Number.isInteger(target) || target < 1)
    throw new Error(`synthesize: offices must be a positive integer, got ${target}`);
  const log = opts.quiet ? () => undefined : (msg: string) => process.stderr.write(`synth: ${msg}\n`);
  const started = performance.now();
  const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(1)} s`;

  const metros = MetrosFile.parse(JSON.parse(readFileSync(METROS_PATH, 'utf8'))).metros;
  const world = buildWorld(loadZips(), metros, opts.nationwide ?? false);
  const points = gridPoints(world);
  log(`${world.zips.length} ZIPs, ${world.regions.length} regions, ${points.length} grid points (${elapsed()})`);
  const pop = generatePopulation(makeRng(seed, 'population'), world, target);
  log(`${pop.offices.length} offices in ${pop.firms.length} firms (${elapsed()})`);

  // A fresh output folder is built aside and renamed into place, so a reader never sees half a dataset.
  const fresh = !existsSync(opts.outDir);
  const buildDir = fresh ? `${opts.outDir}.tmp-${process.pid}` : opts.outDir;
  if (fresh) rmSync(buildDir, { recursive: true, force: true });
  const churn = makeRng(seed, 'churn');
  for (const [n, week] of weeks.entries()) {
    if (n > 0) advanceWeek(churn, pop, world);
    const dir = fresh ? join(buildDir, week) : join(buildDir, `.${week}.tmp-${process.pid}`);
    const stats = writeWeek(dir, week, pop, world, points, seed, n);
    if (!fresh) {
      rmSync(join(buildDir, week), { recursive: true, force: true });
      renameSync(dir, join(buildDir, week));
    }
    log(
      `${week}: ${stats.offices} offices, ${stats.firms} firms, ${stats.samples} samples, ${(stats.bytes / 1e6).toFixed(1)} MB (${elapsed()})`,
    );
  }
  if (fresh) {
    mkdirSync(dirname(opts.outDir), { recursive: true });
    renameSync(buildDir, opts.outDir);
  }
  log(`done: ${weeks.join(', ')} in ${opts.outDir} (${elapsed()})`);
}
