/**
 * `npm run release`: one week from inputs to live (README "Operating it"): generate (nothing written if a gate refuses) -> gates
 * -> verify the new version -> publish (bucket, then the local folder's pointer) -> invalidate -> a release record.
 * A refused or failed release leaves the live version untouched.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Pointer, keys } from '../../shim/core/site-format.ts';
import { AnyMeta, type AnyMetaT } from '../site/published-meta.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import type { Store } from '../../shim/store/types.ts';
import type { S3ClientOptions } from '../../shim/aws/s3-client.ts';
import { BadInputError, formatBadRow, generate, type GenerateResult } from '../generate.ts';
import { InputError } from '../inputs/read.ts';
import { folderPointer, publishSite, type PublishReport } from '../publish/publish.ts';
import { beginRun, endRun, flipPointer, pruneVersions, type Retention } from '../write/site-folder.ts';
import { readRemovals } from '../model/removals.ts';
import { checkVersion, type VersionCheck } from './check-version.ts';
import { rollbackTarget } from './rollback-target.ts';
import { lastSeenBefore } from './closed-places.ts';
import { evaluateGates, liveCountsOf, type GateName, type GateResult, type LiveCounts } from './gates.ts';

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
   * Roll back to this version of the site folder instead of releasing a week: verified and made current again (folder,
   * and bucket when given), or, when it holds a listing under a standing removal, its week released again with the
   * removals applied (a new version, through the gates). Refused with the reason when neither is possible.
   */
  rollback?: string;
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
  outcome: 'released' | 'refused' | 'failed';
  /** The version a rollback asked for (null for a weekly release), and how it went: pointer moved, or week regenerated. */
  rollback: { to: string; how: 'pointer' | 'regenerated' } | null;
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

/** The live version's meta, read only as far as every schema agrees (a release may replace an older schema's version). */
async function liveMeta(store: Store): Promise<AnyMetaT | null> {
  const p = await store.get(keys.pointer);
  if (p === null) return null;
  const { version } = Pointer.parse(JSON.parse(Buffer.from(p).toString('utf8')));
  const m = await store.get(keys.meta(version));
  return m === null ? null : AnyMeta.parse(JSON.parse(Buffer.from(m).toString('utf8')));
}

function withoutDistribution<T extends { distributionId?: string }>(b: T): Omit<T, 'distributionId'> {
  const { distributionId: _d, ...rest } = b;
  return rest;
}

/** Run a release; always resolves with its record (also written to recordsDir). */
export async function release(opts: ReleaseOptions): Promise<ReleaseRecord & { recordPath: string }> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const say = (msg: string): void => log(`release [${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
  const { bucket } = opts;
  const liveStore: Store = bucket
    ? new S3Store({ ...bucket, ...(bucket.prefix !== undefined ? { prefix: bucket.prefix } : {}) })
    : new FolderStore(opts.siteDir);
  const targets = [...(bucket ? [`s3://${bucket.bucket}/${bucket.prefix ?? ''}`] : []), `folder ${opts.siteDir}`];
  const rec: ReleaseRecord = {
    schema_version: 1,
    generated: 'by npm run release; do not edit',
    outcome: 'failed',
    rollback: null,
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
  let step = 'live version';
  try {
    const meta = await liveMeta(liveStore);
    rec.live_before = meta === null ? null : liveCountsOf(meta);
    rec.previous_version = meta?.version ?? null;
    say(
      meta === null
        ? `nothing live yet on ${targets[0]}`
        : `live on ${targets[0]}: ${meta.version} (${meta.totals.offices} offices, ${meta.totals.firms} firms)`,
    );

    let week = opts.week;
    let generated: Pick<GenerateResult, 'version' | 'week' | 'objects' | 'skipped'> | null = null;
    if (opts.rollback !== undefined) {
      step = 'rollback target';
      const target = await rollbackTarget(opts.siteDir, opts.dataDir, opts.rollback, await readRemovals(opts.dataDir));
      if (target.kind === 'refused') throw new ReleaseRefused(step, `rollback refused: ${target.message}`);
      rec.rollback = { to: target.version, how: target.kind === 'pointer' ? 'pointer' : 'regenerated' };
      if (target.kind === 'pointer') {
        generated = { version: target.version, week: target.week, objects: 0, skipped: [] };
        say(
          `rollback to ${target.version}: it holds no listing under a standing removal; verify, then point at it again`,
        );
      } else {
        week = target.week;
        say(
          `rollback to ${target.version}: it holds ${target.held.length} listing(s) under a standing removal (${target.held.slice(0, 3).join('; ')}); releasing its week ${week} again with the removals applied, as a new version`,
        );
      }
    }

    step = 'generate';
    try {
      generated ??= await generate({
        dataDir: opts.dataDir,
        outDir: opts.siteDir,
        ...(week !== undefined ? { week } : {}),
        // The changes document compares with what is live: the bucket's version when publishing to one.
        ...(bucket ? { previous: { ...withoutDistribution(bucket), kind: 's3' as const } } : {}),
        activate: false,
        ...(opts.skipBad === true ? { skipBad: true } : {}),
        log: (line) => log(`  ${line}`),
        gate: async (facts) => {
          rec.week = facts.week;
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

    if (bucket) {
      step = 'publish';
      const report = await publishSite({
        ...bucket,
        removals: await readRemovals(opts.dataDir),
        siteDir: opts.siteDir,
        version: generated.version,
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
    }
    step = 'activate';
    const { run } = await beginRun(opts.siteDir);
    try {
      const before = await flipPointer(run, await folderPointer(opts.siteDir, generated.version));
      if (!bucket) rec.previous_version = before;
      const pruned = await pruneVersions(run, opts.retention);
      say(
        `folder ${opts.siteDir}: current.json -> ${generated.version}${pruned.length > 0 ? `; removed old ${pruned.join(', ')}` : ''}`,
      );
    } finally {
      await endRun(run);
    }
    if (rec.invalidation.paths.length > 0 && !rec.invalidation.applied)
      say(`invalidate by hand (or --invalidate): ${rec.invalidation.paths.join(' ')}`);
    rec.outcome = 'released';
  } catch (err) {
    rec.outcome = err instanceof ReleaseRefused ? 'refused' : 'failed';
    rec.failed_step = err instanceof ReleaseRefused ? err.step : step;
    rec.error = (err as Error).message;
    say(`${rec.outcome.toUpperCase()} at ${rec.failed_step}: ${rec.error}; the live version is untouched`);
  }
  rec.finished_at = new Date().toISOString();
  const dir = opts.recordsDir ?? join('var', 'releases');
  await mkdir(dir, { recursive: true });
  const recordPath = join(
    dir,
    `${rec.started_at.replace(/[:.]/g, '-')}-${rec.version ?? rec.week ?? 'unknown'}-${rec.outcome}.json`,
  );
  await writeFile(recordPath, `${JSON.stringify(rec, null, 2)}\n`);
  say(`record ${recordPath}`);
  return { ...rec, recordPath };
}
