/**
 * `npm run release`: one week from inputs to live (README "Operating it"): generate (nothing written if a gate refuses) -> gates
 * -> verify the new version -> publish (bucket, then the local folder's pointer) -> invalidate -> a release record.
 * A refused or failed release leaves the live version untouched. Release alone moves a pointer, and only by
 * compare-and-swap against the live version it started from (pointer-cas.ts for a bucket, swapPointer for a folder).
 */
import { join, resolve } from 'node:path';
import { normalisePrefix, s3Client, type S3ClientOptions } from '../../shim/store/s3-client.ts';
import { BadInputError, formatBadRow, generate, type GenerateResult } from '../generate.ts';
import { InputError, latestWeek } from '../inputs/read.ts';
import { folderPointer, publishSite, type PublishReport } from '../publish/publish.ts';
import { readPointerBase, type PointerBase } from '../publish/pointer-cas.ts';
import { removedListingsIn } from '../publish/removal-check.ts';
import { LiveMovedError } from '../write/live-moved.ts';
import type { SiteLocation } from '../site/site.ts';
import { beginRun, currentVersion, endRun, pruneVersions, swapPointer, type Retention } from '../write/site-folder.ts';
import { readRemovals } from '../model/removals.ts';
import { checkVersion, type VersionCheck } from './check-version.ts';
import { correctionsDigest, removalsDigest } from './inputs-digest.ts';
import { readLive, removalsMissing } from './live.ts';
import { recordPathOf, writeRecord } from './record-file.ts';
import { bucketsReleasedWith, releasedOn, targetName } from './records.ts';
import { rollbackTarget } from './rollback-target.ts';
import { lastSeenBefore } from './closed-places.ts';
import { evaluateGates, type GateName, type GateResult, type LiveCounts } from './gates.ts';

/** Where and how to release. */
export interface ReleaseOptions {
  dataDir: string;
  /** The local site folder (always written; served by the local server). */
  siteDir: string;
  week?: string;
  /** Publish to this bucket too (the live version is then the bucket's). */
  bucket?: { bucket: string; prefix?: string; distributionId?: string } & S3ClientOptions;
  /** Apply the CloudFront invalidation (needs bucket.distributionId); otherwise the paths are only printed. */
  invalidate?: boolean;
  /** Gates to let through when they fail, each with its reason (kept in the release record); others still refuse. */
  force?: Partial<Record<GateName, string>>;
  /** Leave out bad input rows (each listed in the record) instead of refusing the week. */
  skipBad?: boolean;
  /**
   * Release the week as a new version over the live one even when the inputs reproduce the live version's id: for this
   * generator's output of the live week after a code upgrade, which other bytes under the same id would refuse.
   */
  newVersion?: boolean;
  /**
   * Roll back to this version instead of releasing a week: only to a version the release records say was released to
   * this target, still in the site folder, released with today's corrections and holding no listing under a standing
   * removal; it is verified and made current again (bucket, then folder). Otherwise refused, naming the versions it may
   * go back to.
   */
  rollback?: string;
  /** Release to a bucket target with nothing live, or to the folder alone, though this folder was released with another bucket target. */
  newTarget?: boolean;
  /** Called just before the pointer is written (tests: make another release finish first). */
  beforePointer?: () => Promise<void>;
  /** Answers recomputed by the verify step (default 40) and their seed. */
  verifySample?: number;
  seed?: number;
  retention?: Retention;
  /** Folder of release records (default var/releases). */
  recordsDir?: string;
  log?: (line: string) => void;
}

/** The release record: what was published, counts, gates (passed, or forced and why). */
export interface ReleaseRecord {
  schema_version: 1;
  generated: 'by npm run release; do not edit';
  /**
   * "publishing": written just before the first pointer moves and rewritten as each one moves, then replaced by the
   * final record; one left on disk is a run that stopped (killed) part way, and `pointers_moved` says how far it got.
   */
  outcome: 'released' | 'refused' | 'failed' | 'publishing';
  /** The targets whose pointer this release moved to `version`, in the order they moved. */
  pointers_moved: string[];
  /** The version a rollback went back to (null for a weekly release); only the pointer moves. */
  rollback: { to: string; how: 'pointer' } | null;
  /**
   * What the release applied besides the week: the sha256 of the corrections.jsonl bytes generate read and applied (a
   * rollback: of today's file, which it checks the version's against); null when it stopped before reading them.
   */
  inputs: { corrections_sha256: string } | null;
  /** The step that refused or failed, e.g. "gate claimed-status" or "verify". */
  failed_step: string | null;
  started_at: string;
  finished_at: string;
  week: string | null;
  version: string | null;
  previous_version: string | null;
  targets: string[];
  counts: { offices: number; firms: number; samples: number; places: number } | null;
  live_before: LiveCounts;
  gates: (GateResult & { forced: boolean })[];
  /** Each failed gate let through, with the operator's reason. */
  forced: { gate: GateName; reason: string }[];
  /** Corrections naming a place this week lacks but an earlier week had (it closed): reported and skipped. */
  skipped_corrections: { line: number; place_id: string; action: string; last_seen_week: string }[];
  /** Bad input rows left out under skipBad, as `file:line: reason`. */
  skipped_rows: string[];
  verify: VersionCheck | null;
  publish: Omit<PublishReport, 'invalidationPaths'> | null;
  invalidation: { paths: string[]; applied: boolean; id: string | null; error: string | null };
  error: string | null;
}

/** A refused week: the gates that failed. */
export class ReleaseRefused extends Error {
  readonly step: string;
  constructor(step: string, message: string) {
    super(message);
    this.step = step;
    this.name = 'ReleaseRefused';
  }
}

/** The S3 client settings of a release's bucket (the same memoised client publish makes for them). */
function clientOptions(b: S3ClientOptions & { bucket: string }): S3ClientOptions {
  const {
    bucket: _b,
    prefix: _p,
    distributionId: _d,
    ...rest
  } = b as S3ClientOptions & {
    bucket: string;
    prefix?: string;
    distributionId?: string;
  };
  return rest;
}

function withoutDistribution<T extends { distributionId?: string }>(b: T): Omit<T, 'distributionId'> {
  const { distributionId: _d, ...rest } = b;
  return rest;
}

/**
 * What a command suggested in a refusal must add to act where this release did: the bucket (its prefix and endpoint), the
 * distribution to invalidate, and the inputs, site folder and records when they are not the defaults.
 */
function suggestedFlags(opts: ReleaseOptions, recordsDir: string): string {
  const b = opts.bucket;
  const pairs: [string, string | undefined][] = [
    ['--bucket', b?.bucket],
    ['--prefix', b?.prefix],
    ['--endpoint', b?.endpoint],
    ['--distribution', b?.distributionId],
  ];
  const words = pairs.flatMap(([flag, value]) => (value === undefined ? [] : [flag, value]));
  if (b?.distributionId !== undefined && opts.invalidate === true) words.push('--invalidate');
  const where: [string, string, string][] = [
    ['--data', opts.dataDir, 'data'],
    ['--site', opts.siteDir, 'site'],
    ['--records', recordsDir, join('var', 'releases')],
  ];
  for (const [flag, value, fallback] of where) if (resolve(value) !== resolve(fallback)) words.push(flag, value);
  return words.map((w) => ` ${w}`).join('');
}

/** `--bucket` of an `s3://bucket/prefix` target name. */
const bucketOf = (target: string): string => target.slice('s3://'.length).split('/')[0] ?? '';

/** ` --prefix <p>` of an `s3://bucket/prefix` target name, or nothing for the bucket's root. */
function prefixOf(target: string): string {
  const prefix = target.slice(`s3://${bucketOf(target)}/`.length);
  return prefix === '' ? '' : ` --prefix ${prefix}`;
}

/** Run a release; always resolves with its record (also written to recordsDir). */
export async function release(opts: ReleaseOptions): Promise<ReleaseRecord & { recordPath: string }> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const say = (msg: string): void => log(`release [${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
  const { bucket } = opts;
  const primary = bucket
    ? targetName({ bucket: bucket.bucket, prefix: normalisePrefix(bucket.prefix) })
    : targetName({ folder: opts.siteDir });
  const targets = [...(bucket ? [primary] : []), targetName({ folder: opts.siteDir })];
  const recordsDir = opts.recordsDir ?? join('var', 'releases');
  const flags = suggestedFlags(opts, recordsDir);
  const rec: ReleaseRecord = {
    schema_version: 1,
    generated: 'by npm run release; do not edit',
    outcome: 'failed',
    pointers_moved: [],
    rollback: null,
    inputs: null,
    failed_step: null,
    started_at: new Date().toISOString(),
    finished_at: '',
    week: opts.week ?? null,
    version: null,
    previous_version: null,
    targets,
    counts: null,
    live_before: null,
    gates: [],
    forced: [],
    skipped_corrections: [],
    skipped_rows: [],
    verify: null,
    publish: null,
    invalidation: { paths: [], applied: false, id: null, error: null },
    error: null,
  };
  // The record on disk while pointers move (null until the first is about to): a killed run leaves it.
  let interim: string | null = null;
  const checkpoint = async (): Promise<void> => {
    rec.outcome = 'publishing';
    const path = recordPathOf(recordsDir, rec);
    await writeRecord(path, rec, interim);
    if (interim === null) say(`record ${path}: publishing (rewritten when the release ends)`);
    interim = path;
  };
  const moved = async (target: string): Promise<void> => {
    rec.pointers_moved.push(target);
    await checkpoint();
  };
  let step = 'live version';
  try {
    // The base: the live version this release starts from. Its pointer is written only if that is still live then.
    const bucketLoc: SiteLocation | null = bucket ? { ...withoutDistribution(bucket), kind: 's3' as const } : null;
    const bucketBase: PointerBase | null = bucket
      ? await readPointerBase(s3Client(clientOptions(bucket)), bucket.bucket, normalisePrefix(bucket.prefix))
      : null;
    const folderBase = await currentVersion(opts.siteDir);
    const base = bucketBase !== null ? bucketBase.version : folderBase;
    const live = await readLive(bucketLoc ?? { kind: 'folder', dir: opts.siteDir }, base);
    rec.live_before = live?.counts ?? null;
    rec.previous_version = base;
    const removalsAtStart = await removalsDigest(opts.dataDir);
    // A removal released from another checkout: releasing without it would bring its listings back.
    step = 'removals';
    const missing = removalsMissing(live?.removals ?? [], (await readRemovals(opts.dataDir)).keys);
    const file = join(opts.dataDir, 'removals.jsonl');
    if (missing > 0)
      throw new ReleaseRefused(
        step,
        `the live version ${base} was built with ${missing} standing removal(s) that ${file} does not have: another operator released them from a checkout this one lacks, and releasing from here would bring their listings back. Bring ${file} up to date (a removal is lifted by setting "lifted", never by deleting its line), then run the release again`,
      );
    step = 'live version';
    say(
      rec.live_before === null
        ? `nothing live yet on ${primary}`
        : `live on ${primary}: ${rec.live_before.version} (${rec.live_before.offices} offices, ${rec.live_before.firms} firms)`,
    );
    if (!opts.newTarget && (bucket === undefined || base === null)) {
      // A mistyped or forgotten --bucket/--prefix: nothing to compare with there, so the gates would pass and the
      // release would report "released" while what is served never moved.
      step = 'target';
      const elsewhere = await bucketsReleasedWith(recordsDir, targetName({ folder: opts.siteDir }), primary);
      const last = elsewhere[0];
      if (last !== undefined)
        throw new ReleaseRefused(
          step,
          `${bucket === undefined ? `no --bucket given, so only ${primary} would move` : `nothing is live on ${primary}`}, but ${recordsDir} shows this site folder released with ${elsewhere.map((e) => `${e.target} (last ${e.version}, ${e.finished_at})`).join(', ')}: check --bucket and --prefix and run again (${last.target} is --bucket ${bucketOf(last.target)}${prefixOf(last.target)}); to release to ${primary} on purpose, add --new-target`,
        );
    }
    const released = await releasedOn(recordsDir, primary, base);

    const week = opts.week;
    let generated: Pick<GenerateResult, 'version' | 'week' | 'objects' | 'skipped'> | null = null;
    if (opts.rollback !== undefined) {
      step = 'rollback target';
      // Read once: a rollback applies no corrections, it checks the version's against these.
      rec.inputs = { corrections_sha256: await correctionsDigest(opts.dataDir) };
      const target = await rollbackTarget(
        {
          siteDir: opts.siteDir,
          target: primary,
          released,
          removals: await readRemovals(opts.dataDir),
          corrections: rec.inputs.corrections_sha256,
          live: base,
          flags,
        },
        opts.rollback,
      );
      if (target.kind === 'refused') throw new ReleaseRefused(step, `rollback refused: ${target.message}`);
      rec.rollback = { to: target.version, how: 'pointer' };
      generated = { version: target.version, week: target.week, objects: 0, skipped: [] };
      say(
        `rollback to ${target.version}: released to ${primary}, with today's corrections, holding no listing under a standing removal; verify, then point at it again`,
      );
    } else if (week === undefined) {
      // After a rollback, the newest week is the one rolled back from: never roll forward past it without being asked.
      const last = released.at(-1);
      if (last !== undefined && last.rollback && last.version === base) {
        step = 'week';
        const newest = await latestWeek(opts.dataDir);
        throw new ReleaseRefused(
          step,
          `the live version ${base} was made live by a rollback; a plain release would release ${newest} (the newest week under ${join(opts.dataDir, 'weeks')}), rolling forward past the rollback: say which week with --week (--week ${newest} to roll forward, --week ${last.week ?? '<the live week>'} to release the live week again with today's corrections and removals)`,
        );
      }
    }

    step = 'generate';
    try {
      generated ??= await generate({
        dataDir: opts.dataDir,
        outDir: opts.siteDir,
        ...(week !== undefined ? { week } : {}),
        // The changes document compares with the version live when the release began: the bucket's when publishing to one.
        ...(bucketLoc !== null ? { previous: bucketLoc } : {}),
        base,
        ...(opts.skipBad === true ? { skipBad: true } : {}),
        ...(opts.newVersion === true ? { newVersion: true } : {}),
        log: (line) => log(`  ${line}`),
        gate: async (facts) => {
          rec.week = facts.week;
          // The digest of the bytes generate parsed and applied (one read): an edit made while this runs is not recorded.
          rec.inputs = { corrections_sha256: facts.correctionsSha256 };
          rec.counts = {
            offices: facts.offices.length,
            firms: facts.firms,
            samples: facts.samples,
            places: facts.places,
          };
          // A correction for a place that closed since is skipped, not refused: the file applies to every week.
          const closed = await lastSeenBefore(
            opts.dataDir,
            facts.week,
            facts.unknownCorrections.map((c) => c.place_id),
          );
          rec.skipped_corrections = facts.unknownCorrections.flatMap((c) => {
            const w = closed.get(c.place_id);
            return w === undefined ? [] : [{ line: c.line, place_id: c.place_id, action: c.action, last_seen_week: w }];
          });
          for (const c of rec.skipped_corrections)
            say(
              `corrections.jsonl:${c.line}: place_id "${c.place_id}" is not in ${facts.week} (last in ${c.last_seen_week}, closed since): ${c.action} skipped`,
            );
          const results = evaluateGates(
            { ...facts, unknownCorrections: facts.unknownCorrections.filter((c) => !closed.has(c.place_id)) },
            rec.live_before,
          );
          const forced = (g: GateResult): boolean => !g.passed && opts.force?.[g.gate] !== undefined;
          rec.gates = results.map((g) => ({ ...g, forced: forced(g) }));
          for (const g of results)
            say(`gate ${g.gate}: ${g.passed ? 'passed' : forced(g) ? 'FAILED, forced' : 'FAILED'}: ${g.detail}`);
          const refused = results.filter((g) => !g.passed && !forced(g));
          if (refused.length > 0) {
            step = `gate ${refused.map((g) => g.gate).join(', ')}`;
            throw new ReleaseRefused(
              step,
              `refused by ${refused.length} gate(s): ${refused.map((g) => `${g.gate} (${g.detail})`).join('; ')}; fix the inputs, or let one gate through with --force ${refused[0]?.gate ?? '<gate>'}="<reason>"`,
            );
          }
          rec.forced = results.filter(forced).map((g) => ({ gate: g.gate, reason: opts.force?.[g.gate] as string }));
        },
      });
    } catch (err) {
      if (err instanceof BadInputError) {
        step = 'bad input rows';
        throw new ReleaseRefused(
          step,
          `refused: ${err.message}: ${err.rows.slice(0, 5).map(formatBadRow).join('; ')}${err.rows.length > 5 ? `; and ${err.rows.length - 5} more` : ''}`,
        );
      }
      if (err instanceof InputError) {
        step = 'gate inputs-present';
        rec.gates = [{ gate: 'inputs-present', passed: false, forced: false, detail: err.message }];
        throw new ReleaseRefused(step, `refused: ${err.message}`);
      }
      throw err;
    }
    rec.version = generated.version;
    rec.week = generated.week;
    rec.skipped_rows = generated.skipped.map(formatBadRow);
    if (rec.rollback?.how !== 'pointer')
      say(`generated ${generated.version} (${generated.objects} objects), not yet current`);

    step = 'verify';
    rec.verify = await checkVersion(opts.siteDir, generated.version, opts.verifySample ?? 40, opts.seed ?? 1, say);
    if (rec.verify.problems.length > 0)
      throw new ReleaseRefused(
        step,
        `verify found ${rec.verify.problems.length} problem(s): ${rec.verify.problems.slice(0, 5).join('; ')}`,
      );

    // Just before a pointer moves: the standing removals read again (one may have been added while this release ran).
    const version = generated.version;
    const recheck = async (): Promise<void> => {
      // Unchanged since the release began: the version was generated (or, for a rollback, checked) with them.
      if ((await removalsDigest(opts.dataDir)) === removalsAtStart) return;
      const held = await removedListingsIn(opts.siteDir, version, await readRemovals(opts.dataDir));
      if (held.length > 0)
        throw new ReleaseRefused(
          'removals',
          `${version} holds ${held.length} listing(s) under a standing removal added while this release ran (${held.slice(0, 3).join('; ')}): run the release again`,
        );
    };
    if (bucket && bucketBase !== null) {
      step = 'publish';
      const report = await publishSite({
        ...bucket,
        removals: await readRemovals(opts.dataDir),
        siteDir: opts.siteDir,
        version,
        base: bucketBase,
        beforePointer: async () => {
          await opts.beforePointer?.();
          await recheck();
          await checkpoint();
        },
        afterPointer: () => moved(primary),
        ...(opts.invalidate && bucket.distributionId !== undefined ? { distributionId: bucket.distributionId } : {}),
        log: (line) => log(`  ${line}`),
      });
      const { invalidationPaths, ...rest } = report;
      rec.publish = rest;
      rec.invalidation = {
        paths: invalidationPaths,
        applied: report.invalidationId !== null,
        id: report.invalidationId,
        error: report.invalidationError,
      };
    } else await opts.beforePointer?.();
    step = 'activate';
    const { run } = await beginRun(opts.siteDir);
    try {
      // A folder release compares with its base; with a bucket, the folder follows the bucket (already swapped).
      const folderCheck = async (): Promise<void> => {
        await recheck();
        await checkpoint();
      };
      const was = await swapPointer(
        run,
        await folderPointer(opts.siteDir, version),
        bucket ? undefined : folderBase,
        bucket ? (interim === null ? checkpoint : undefined) : folderCheck,
      );
      if (was !== version) await moved(targetName({ folder: opts.siteDir }));
      const pruned = await pruneVersions(run, opts.retention);
      say(
        `folder ${opts.siteDir}: current.json -> ${version}${pruned.length > 0 ? `; removed old ${pruned.join(', ')}` : ''}`,
      );
    } finally {
      await endRun(run);
    }
    if (rec.invalidation.paths.length > 0 && !rec.invalidation.applied)
      say(`invalidate by hand (or --invalidate): ${rec.invalidation.paths.join(' ')}`);
    rec.outcome = 'released';
  } catch (err) {
    const refused = err instanceof ReleaseRefused || err instanceof LiveMovedError;
    rec.outcome = refused ? 'refused' : 'failed';
    rec.failed_step = err instanceof ReleaseRefused ? err.step : err instanceof LiveMovedError ? 'live moved' : step;
    rec.error = (err as Error).message;
    const where =
      rec.pointers_moved.length === 0
        ? 'the live version is untouched'
        : `${rec.pointers_moved.join(' and ')} already point${rec.pointers_moved.length === 1 ? 's' : ''} at ${rec.version}`;
    say(`${rec.outcome.toUpperCase()} at ${rec.failed_step}: ${rec.error}; ${where}`);
  }
  rec.finished_at = new Date().toISOString();
  const recordPath = recordPathOf(recordsDir, rec);
  await writeRecord(recordPath, rec, interim);
  say(`record ${recordPath}`);
  return { ...rec, recordPath };
}
