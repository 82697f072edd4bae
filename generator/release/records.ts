/**
 * The release records (`var/releases/*.json`) read back: which versions were released to a target, with what inputs,
 * and whether the live version is a rollback. A rollback goes only to a version these records say was released.
 * A version counts as released to a target when its record says "released", or when its pointer there is known to have
 * moved: the record lists the target in `pointers_moved`, or (a run killed while "publishing") the target's pointer
 * names the version now, or a later release to the target started from it (docs/DEPLOY.md, "A release that stopped
 * part way").
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** As much of a release record as rollback and the week check read (records of every schema so far). */
const RecordHead = z.object({
  outcome: z.string(),
  version: z.string().nullable(),
  week: z.string().nullable(),
  started_at: z.string().optional(),
  finished_at: z.string(),
  targets: z.array(z.string()),
  previous_version: z.string().nullable().optional(),
  pointers_moved: z.array(z.string()).optional(),
  rollback: z.object({ to: z.string(), how: z.string() }).nullable().optional(),
  inputs: z.object({ corrections_sha256: z.string() }).nullable().optional(),
});

/** One released version on a target, from its latest record. */
export interface Released {
  version: string;
  week: string | null;
  finished_at: string;
  /** sha256 of corrections.jsonl as released (null: a record from before it was kept). */
  corrections_sha256: string | null;
  /** This record moved the pointer back to the version. */
  rollback: boolean;
}

/** `s3://bucket/prefix` or `folder <absolute path>`: what a release record's targets name. */
export function targetName(t: { bucket: string; prefix?: string } | { folder: string }): string {
  return 'bucket' in t ? `s3://${t.bucket}/${t.prefix ?? ''}` : `folder ${resolve(t.folder)}`;
}

const sameTarget = (recorded: string, target: string): boolean =>
  recorded.startsWith('folder ')
    ? `folder ${resolve(recorded.slice('folder '.length))}` === target
    : recorded === target;

type Head = z.infer<typeof RecordHead>;

/** Every readable record in `dir` that names `target` among its targets (unreadable files are skipped). */
async function readHeads(dir: string, target: string): Promise<Head[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const heads: Head[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const raw = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (raw === null) continue;
    let parsed;
    try {
      parsed = RecordHead.safeParse(JSON.parse(raw));
    } catch {
      continue;
    }
    if (parsed.success && parsed.data.targets.some((t) => sameTarget(t, target))) heads.push(parsed.data);
  }
  return heads;
}

/**
 * The buckets other than `primary` that versions were released to together with the site folder `folder` (a target
 * name), each with its latest such version, newest first: where this checkout publishes when `primary` is a typo.
 */
export async function bucketsReleasedWith(
  dir: string,
  folder: string,
  primary: string,
): Promise<{ target: string; version: string; finished_at: string }[]> {
  const latest = new Map<string, { target: string; version: string; finished_at: string }>();
  for (const r of await readHeads(dir, folder)) {
    if (r.version === null || (r.outcome !== 'released' && (r.pointers_moved ?? []).length === 0)) continue;
    for (const t of r.targets) {
      const seen = latest.get(t);
      if (!t.startsWith('s3://') || t === primary || (seen !== undefined && seen.finished_at >= at(r))) continue;
      latest.set(t, { target: t, version: r.version, finished_at: at(r) });
    }
  }
  return [...latest.values()].sort((a, b) => (a.finished_at < b.finished_at ? 1 : -1));
}

/** When a record's run ended, or (a run that stopped while publishing) began: the order of the records. */
const at = (r: Head): string => (r.finished_at !== '' ? r.finished_at : (r.started_at ?? ''));

/** Whether `r` moved the pointer of `target` to its version (see the file's comment); `heads` are all its records. */
function movedOn(r: Head, target: string, live: string | null, heads: readonly Head[]): boolean {
  if (r.version === null) return false;
  if (r.outcome === 'released' || (r.pointers_moved ?? []).some((t) => sameTarget(t, target))) return true;
  if (r.outcome !== 'publishing') return false;
  if (r.version === live) return true;
  return heads.some(
    (later) =>
      later !== r &&
      later.previous_version === r.version &&
      later.targets[0] !== undefined &&
      sameTarget(later.targets[0], target) &&
      (later.started_at ?? '') > (r.started_at ?? ''),
  );
}

/**
 * Every record of `target` in `dir` that made its version live there, oldest first (unreadable files are skipped);
 * `live` is the version the target's pointer names now.
 */
export async function releasedOn(dir: string, target: string, live: string | null = null): Promise<Released[]> {
  const heads = await readHeads(dir, target);
  const out = heads
    .filter((r) => movedOn(r, target, live, heads))
    .map((r) => ({
      version: r.version as string,
      week: r.week,
      finished_at: at(r),
      corrections_sha256: r.inputs?.corrections_sha256 ?? null,
      rollback: r.rollback !== null && r.rollback !== undefined,
    }));
  return out.sort((a, b) => (a.finished_at < b.finished_at ? -1 : a.finished_at > b.finished_at ? 1 : 0));
}
