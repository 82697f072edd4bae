/**
 * The release records (`var/releases/*.json`) read back: which versions were released to a target, with what inputs,
 * and whether the live version is a rollback. A rollback goes only to a version these records say was released.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** As much of a release record as rollback and the week check read (records of every schema so far). */
const RecordHead = z.object({
  outcome: z.string(),
  version: z.string().nullable(),
  week: z.string().nullable(),
  finished_at: z.string(),
  targets: z.array(z.string()),
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

/** Every released record of `target` in `dir`, oldest first (unreadable files are skipped). */
export async function releasedOn(dir: string, target: string): Promise<Released[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: Released[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const raw = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (raw === null) continue;
    let parsed;
    try {
      parsed = RecordHead.safeParse(JSON.parse(raw));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const r = parsed.data;
    if (r.outcome !== 'released' || r.version === null || !r.targets.some((t) => sameTarget(t, target))) continue;
    out.push({
      version: r.version,
      week: r.week,
      finished_at: r.finished_at,
      corrections_sha256: r.inputs?.corrections_sha256 ?? null,
      rollback: r.rollback !== null && r.rollback !== undefined,
    });
  }
  return out.sort((a, b) => (a.finished_at < b.finished_at ? -1 : a.finished_at > b.finished_at ? 1 : 0));
}
