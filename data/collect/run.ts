/** One collection run: the grid's missing (point, query) samples bought with bounded concurrency, then the week written. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MetroT } from '../../generator/inputs/schema.ts';
import { WEEK_FILES } from '../../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../../shim/contract/constants.ts';
import { AnswersLog, answerKey } from './answers-log.ts';
import { RetriesExhaustedError } from './google-places.ts';
import { gridPoints, type GridPoint } from './grid.ts';
import type { OperatorFlags } from './operator-flags.ts';
import { Progress, type ProgressState } from './progress.ts';
import { BudgetExceededError, FatalProviderError, type Provider } from './provider.ts';
import { buildWeek, type WeekFiles } from './week.ts';

/** What a run needs. */
export interface RunOptions {
  outDir: string;
  week: string;
  metros: readonly MetroT[];
  provider: Provider;
  /** Requests bought so far (for the spend shown); the provider's budget does the stopping. */
  spentUsd: () => number;
  resume: boolean;
  /** dataset.json's collected_at; kept from the first run of the week on --resume. */
  collectedAt: string;
  concurrency: number;
  flags: OperatorFlags;
  quiet: boolean;
  /** Hands the progress reporter to the provider, for retry notes. */
  onProgress?: (p: Progress, state: ProgressState) => void;
  /** Called once the log is open, with the requests it already holds (to seed the budget). */
  onLogOpen?: (requestsSoFar: number) => void;
}

/** How a run ended. */
export interface RunResult {
  status: 'complete' | 'budget' | 'errors' | 'fatal' | 'claims';
  message: string;
  done: number;
  total: number;
  boughtThisRun: number;
  errors: number;
  weekDir?: string;
  archive?: string;
  week?: WeekFiles;
}

/** File in `raw/<week>/` listing the offices that still need a claimed status. */
export const CLAIMS_NEEDED = 'claims-needed.jsonl';

/** Writes the week's four files into `<outDir>/weeks/<week>/`, replacing the folder only once all are written. */
export function writeWeek(outDir: string, files: WeekFiles): string {
  const dir = join(outDir, 'weeks', files.dataset.week);
  const tmp = `${dir}.tmp-collect`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const jsonl = (rows: readonly object[]): string => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
  writeFileSync(join(tmp, WEEK_FILES.dataset), `${JSON.stringify(files.dataset, null, 2)}\n`);
  writeFileSync(join(tmp, WEEK_FILES.places), jsonl(files.places));
  writeFileSync(join(tmp, WEEK_FILES.samples), jsonl(files.samples));
  writeFileSync(join(tmp, WEEK_FILES.flags), jsonl(files.flags));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}

/** Runs the collection; never buys a (point, query) the log already holds. */
export async function runCollection(o: RunOptions): Promise<RunResult> {
  const points: GridPoint[] = gridPoints(o.metros);
  const header = {
    kind: 'header' as const,
    schema_version: 1 as const,
    week: o.week,
    provider: o.provider.name,
    collected_at: o.collectedAt,
  };
  const { log, tornBytes } = AnswersLog.open(o.outDir, header, o.resume);
  o.onLogOpen?.(log.requests);
  const todo: { point: GridPoint; query: string }[] = [];
  for (const point of points)
    for (const query of MEASURED_QUERIES)
      if (!log.answers.has(answerKey(point.pointId, query))) todo.push({ point, query });
  const total = points.length * MEASURED_QUERIES.length;
  const state: ProgressState = { done: total - todo.length, total, spentUsd: o.spentUsd(), retries: 0, errors: 0 };
  const progress = new Progress(state, state.done, process.stderr, o.quiet);
  o.onProgress?.(progress, state);
  if (tornBytes > 0)
    progress.note(`collect: dropped a torn last line of ${tornBytes} bytes from ${log.path} (it will be bought again)`);
  if (state.done > 0)
    progress.note(`collect: resuming ${o.week}: ${state.done} of ${total} samples already in ${log.path}`);
  let next = 0;
  let bought = 0;
  let stop: { status: 'budget' | 'fatal'; message: string } | null = null;
  const worker = async (): Promise<void> => {
    while (stop === null) {
      const task = todo[next++];
      if (task === undefined) return;
      try {
        const answer = await o.provider.search(task.query, task.point);
        log.append({
          kind: 'answer',
          metro: task.point.metro,
          point_id: task.point.pointId,
          lat: task.point.lat,
          lng: task.point.lng,
          query: task.query,
          requests: answer.requests,
          places: answer.places,
        });
        bought++;
        state.done++;
      } catch (e) {
        if (e instanceof BudgetExceededError) stop ??= { status: 'budget', message: e.message };
        else if (e instanceof FatalProviderError) stop ??= { status: 'fatal', message: e.message };
        else if (e instanceof RetriesExhaustedError) {
          state.errors++;
          progress.note(`collect: "${task.query}" at ${task.point.pointId}: ${e.message}`);
        } else throw e;
      }
      state.spentUsd = o.spentUsd();
      progress.tick();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  } catch (e) {
    log.close();
    throw e;
  }
  state.spentUsd = o.spentUsd();
  progress.finish();
  const base = { done: state.done, total, boughtThisRun: bought, errors: state.errors };
  const stopped = stop as { status: 'budget' | 'fatal'; message: string } | null;
  if (stopped !== null || state.done < total) {
    log.close();
    const left = total - state.done;
    if (stopped !== null)
      return {
        ...base,
        status: stopped.status,
        message: `${stopped.message}; ${left} of ${total} samples left, the week is not written. Rerun with --resume${stopped.status === 'budget' ? ' and a larger --budget-usd' : ''}.`,
      };
    return {
      ...base,
      status: 'errors',
      message: `${state.errors} samples failed after retries; ${left} of ${total} left, the week is not written. Rerun with --resume.`,
    };
  }
  const week = buildWeek(o.week, log.header.collected_at, points, MEASURED_QUERIES, log.answers, o.flags);
  const needed = join(dirname(log.path), CLAIMS_NEEDED);
  if (week.claimsNeeded.length > 0) {
    log.close();
    writeFileSync(needed, week.claimsNeeded.map((c) => `${JSON.stringify(c)}\n`).join(''));
    return {
      ...base,
      status: 'claims',
      week,
      message: `all samples are in, but ${week.claimsNeeded.length} offices have no claimed status in the operator flags, so the week is not written. Set "claimed" to true or false in ${needed}, append its lines to the flags file and rerun with --resume (it buys nothing).`,
    };
  }
  rmSync(needed, { force: true });
  const weekDir = writeWeek(o.outDir, week);
  const archive = log.archive();
  return { ...base, status: 'complete', message: `wrote ${weekDir}`, weekDir, archive, week };
}
