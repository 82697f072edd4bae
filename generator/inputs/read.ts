/** Reads and validates one week of inputs plus metros.json and corrections.jsonl; cross-row checks make more bad rows. */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import { MEASURED_QUERIES } from '../../shim/contract/constants.ts';
import { normaliseFlagKey } from './ids.ts';
import { isValidTimeZone, STATE_TIMEZONES } from './timezones.ts';
import { isoWeeksInYear } from '../../shim/lib/iso-week.ts';
import { checkFlag, checkPlace } from './fast-check.ts';
import { flagInterner, placeInterner } from './intern.ts';
import { describeIssues, readJsonl } from './jsonl.ts';
import type { BadRow, Row } from './jsonl.ts';
import {
  CorrectionRecord,
  DatasetFile,
  FlagRecord,
  MetrosFile,
  PlaceRecord,
  RemovalRecord,
  SampleRecord,
  WEEK_FILES,
} from './schema.ts';
import type {
  CorrectionRecordT,
  DatasetFileT,
  FlagRecordT,
  MetroT,
  PlaceRecordT,
  RemovalRecordT,
  SampleRecordT,
} from './schema.ts';

/** An input problem that no --skip-bad can get around (missing file, bad metros.json or dataset.json). */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** Everything the generator reads for one week, validated; `bad` lists rows left out. */
export interface Inputs {
  week: string;
  metros: MetroT[];
  dataset: DatasetFileT;
  places: Row<PlaceRecordT>[];
  samples: Row<SampleRecordT>[];
  flags: Row<FlagRecordT>[];
  corrections: Row<CorrectionRecordT>[];
  /** sha256 of the corrections.jsonl bytes these corrections were parsed from (of no bytes when there is none). */
  correctionsSha256: string;
  /** Standing removals (data/removals.jsonl), lifted ones included. */
  removals: Row<RemovalRecordT>[];
  bad: BadRow[];
  /** Facts worth telling the operator that are not errors. */
  notes: string[];
}

const WEEK_RE = /^\d{4}-W\d{2}$/;

const NO_WEEKS =
  'run `npm run synth` to make a synthetic week of inputs (or `npm start`, which builds and serves the sample site)';

/**
 * The latest week folder under `<dataDir>/weeks/` (ISO week names sort lexically). A folder whose name is not a week
 * (`2026-48` for `2026-W48`) is refused rather than skipped: skipping it would quietly pick, and release, an older week.
 */
export async function latestWeek(dataDir: string): Promise<string> {
  const dir = join(dataDir, 'weeks');
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    throw new InputError(`no week folders: ${dir} does not exist; ${NO_WEEKS}`);
  }
  const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
  const misnamed = folders.filter((n) => !WEEK_RE.test(n));
  const unfinished = misnamed.filter((n) => /^\d{4}-W\d{2}\.tmp-/.test(n));
  if (unfinished.length > 0) {
    throw new InputError(
      `${unfinished.map((n) => join(dir, n)).join(', ')}: a week still being written, or left by a run that stopped (npm run collect); finish it or remove it, or name the week with --week`,
    );
  }
  if (misnamed.length > 0) {
    throw new InputError(
      `${misnamed.map((n) => join(dir, n)).join(', ')}: not named like a week folder (YYYY-Www, e.g. 2026-W48); rename it, move it out of ${dir}, or name the week with --week`,
    );
  }
  const last = folders.sort()[folders.length - 1];
  if (last === undefined) throw new InputError(`no week folders (YYYY-Www) in ${dir}; ${NO_WEEKS}`);
  return last;
}

/** The week folders (YYYY-Www) under `<dataDir>/weeks/`, oldest first; none when it is missing. */
async function weekFolders(dataDir: string): Promise<string[]> {
  const entries = await readdir(join(dataDir, 'weeks'), { withFileTypes: true }).catch(() => [] as Dirent[]);
  return entries
    .filter((e) => e.isDirectory() && WEEK_RE.test(e.name))
    .map((e) => e.name)
    .sort();
}

/** What `<dataDir>/weeks/` has, newest last (the newest five of more), for a message about a week not there. */
async function weeksThere(dataDir: string): Promise<string> {
  const weeks = await weekFolders(dataDir);
  if (weeks.length === 0) return 'no week folders';
  const newest = weeks.slice(-5).join(', ');
  return weeks.length > 5 ? `${weeks.length} weeks, the newest ${newest}` : newest;
}

/** Refuse a week that is not named like one or has no folder under `<dataDir>/weeks/`, naming the weeks there. */
async function checkWeekThere(dataDir: string, week: string): Promise<void> {
  const dir = `${join(dataDir, 'weeks')}/`;
  if (!WEEK_RE.test(week))
    throw new InputError(`--week must look like 2026-W47, got "${week}" (${dir} has ${await weeksThere(dataDir)})`);
  const folder = await stat(join(dataDir, 'weeks', week)).catch(() => null);
  if (folder?.isDirectory() !== true)
    throw new InputError(`--week ${week} is not under ${dir} (it has ${await weeksThere(dataDir)})`);
}

async function readJsonFile<T>(path: string, schema: ZodType<T>): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new InputError(`${path}: missing or unreadable`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new InputError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new InputError(`${path}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

async function requiredJsonl<T>(
  path: string,
  schema: ZodType<T>,
  prepare?: (value: T) => T,
  fast?: (json: unknown) => T | undefined,
): Promise<{ rows: Row<T>[]; bad: BadRow[] }> {
  const r = await readJsonl(path, schema, prepare, fast);
  if (r === null) throw new InputError(`${path}: missing`);
  return r;
}

/** Read metros.json, the week's files and corrections.jsonl. Throws InputError for fatal problems; bad rows are returned. */
export async function readInputs(dataDir: string, week: string): Promise<Inputs> {
  await checkWeekThere(dataDir, week);
  const weekDir = join(dataDir, 'weeks', week);
  const metrosFile = await readJsonFile(join(dataDir, 'metros.json'), MetrosFile);
  const slugs = new Set<string>();
  for (const m of metrosFile.metros) {
    if (slugs.has(m.slug)) throw new InputError(`${join(dataDir, 'metros.json')}: duplicate metro slug ${m.slug}`);
    slugs.add(m.slug);
  }
  const datasetPath = join(weekDir, WEEK_FILES.dataset);
  const dataset = await readJsonFile(datasetPath, DatasetFile);
  if (dataset.week !== week) throw new InputError(`${datasetPath}: week is ${dataset.week} but the folder is ${week}`);
  if (Number(week.slice(6)) < 1 || Number(week.slice(6)) > isoWeeksInYear(Number(week.slice(0, 4)))) {
    throw new InputError(`${datasetPath}: ${week} is not a week of its year`);
  }

  const placesPath = join(weekDir, WEEK_FILES.places);
  const samplesPath = join(weekDir, WEEK_FILES.samples);
  const flagsPath = join(weekDir, WEEK_FILES.flags);
  const correctionsPath = join(dataDir, 'corrections.jsonl');
  const removalsPath = join(dataDir, 'removals.jsonl');
  const correctionsHash = createHash('sha256');
  const [placesR, samplesR, flagsR, correctionsR, removalsR] = await Promise.all([
    requiredJsonl(placesPath, PlaceRecord, placeInterner(), checkPlace),
    requiredJsonl(samplesPath, SampleRecord),
    readJsonl(flagsPath, FlagRecord, flagInterner(), checkFlag),
    readJsonl(correctionsPath, CorrectionRecord, undefined, undefined, correctionsHash),
    readJsonl(removalsPath, RemovalRecord),
  ]);
  const notes: string[] = [];
  if (flagsR === null) notes.push(`${flagsPath} is missing: every firm is standard and not sponsored`);
  const bad: BadRow[] = [
    ...placesR.bad,
    ...samplesR.bad,
    ...(flagsR?.bad ?? []),
    ...(correctionsR?.bad ?? []),
    ...(removalsR?.bad ?? []),
  ];

  const places = checkPlaces(placesR.rows, placesPath, bad);
  const samples = checkSamples(samplesR.rows, samplesPath, slugs, bad);
  const flags = checkFlags(flagsR?.rows ?? [], flagsPath, bad);
  const corrections = checkCorrections(correctionsR?.rows ?? [], correctionsPath, bad);
  bad.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return {
    week,
    metros: metrosFile.metros,
    dataset,
    places,
    samples,
    flags,
    corrections,
    correctionsSha256: correctionsHash.digest('hex'),
    removals: removalsR?.rows ?? [],
    bad,
    notes,
  };
}

function checkPlaces(rows: Row<PlaceRecordT>[], file: string, bad: BadRow[]): Row<PlaceRecordT>[] {
  const firstLine = new Map<string, number>();
  return rows.filter(({ line, value }) => {
    const first = firstLine.get(value.place_id);
    if (first !== undefined) {
      bad.push({ file, line, reason: `duplicate place_id "${value.place_id}" (first at line ${first})` });
      return false;
    }
    if (value.timezone === undefined && STATE_TIMEZONES[value.state] === undefined) {
      bad.push({
        file,
        line,
        reason: `state: "${value.state}" is not a USPS state code, and the record has no timezone`,
      });
      return false;
    }
    if (value.timezone !== undefined && !isValidTimeZone(value.timezone)) {
      bad.push({ file, line, reason: `timezone: unknown IANA time zone "${value.timezone}"` });
      return false;
    }
    firstLine.set(value.place_id, line);
    return true;
  });
}

const QUERIES = new Set<string>(MEASURED_QUERIES);

function checkSamples(
  rows: Row<SampleRecordT>[],
  file: string,
  slugs: Set<string>,
  bad: BadRow[],
): Row<SampleRecordT>[] {
  const seen = new Map<string, number>();
  const points = new Map<string, { lat: number; lng: number; line: number }>();
  return rows.filter(({ line, value: s }) => {
    const fail = (reason: string): false => {
      bad.push({ file, line, reason });
      return false;
    };
    if (!slugs.has(s.metro)) return fail(`metro: unknown metro "${s.metro}" (not in metros.json)`);
    if (!QUERIES.has(s.query))
      return fail(`query: "${s.query}" is not one of the measured queries (${MEASURED_QUERIES.join(', ')})`);
    if (new Set(s.ranked).size !== s.ranked.length) return fail('ranked: a place id appears more than once');
    const key = `${s.metro}\u0000${s.point_id}\u0000${s.query}`;
    const first = seen.get(key);
    if (first !== undefined)
      return fail(
        `duplicate sample for metro "${s.metro}", point "${s.point_id}", query "${s.query}" (first at line ${first})`,
      );
    const pointKey = `${s.metro}\u0000${s.point_id}`;
    const p = points.get(pointKey);
    if (p !== undefined && (p.lat !== s.lat || p.lng !== s.lng)) {
      return fail(
        `grid point "${s.point_id}" of "${s.metro}" is at ${s.lat},${s.lng} but at ${p.lat},${p.lng} on line ${p.line}`,
      );
    }
    if (p === undefined) points.set(pointKey, { lat: s.lat, lng: s.lng, line });
    seen.set(key, line);
    return true;
  });
}

function checkFlags(rows: Row<FlagRecordT>[], file: string, bad: BadRow[]): Row<FlagRecordT>[] {
  const seen = new Map<string, number>();
  return rows.filter(({ line, value }) => {
    const key = normaliseFlagKey(value.firm);
    const first = seen.get(key);
    if (first !== undefined) {
      bad.push({ file, line, reason: `duplicate flags for firm "${key}" (first at line ${first})` });
      return false;
    }
    seen.set(key, line);
    return true;
  });
}

function checkCorrections(rows: Row<CorrectionRecordT>[], file: string, bad: BadRow[]): Row<CorrectionRecordT>[] {
  return rows.filter(({ line, value }) => {
    if (value.action === 'update') {
      const tz = value.set.timezone;
      if (tz !== undefined && !isValidTimeZone(tz)) {
        bad.push({ file, line, reason: `set.timezone: unknown IANA time zone "${tz}"` });
        return false;
      }
      if (Object.keys(value.set).length === 0) {
        bad.push({ file, line, reason: 'set: an update must set at least one field' });
        return false;
      }
    }
    return true;
  });
}
