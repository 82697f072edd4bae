/**
 * Where a release record goes and how it is written: `<dir>/<started>-<version or week>-<outcome>.json`, whole or not
 * at all (written beside it, then renamed), so a run killed while writing one leaves the previous one readable.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What names a record file. */
export interface RecordName {
  started_at: string;
  version: string | null;
  week: string | null;
  outcome: string;
}

/** The path of the record of `rec` in `dir`, as it is now (the outcome is part of the name). */
export function recordPathOf(dir: string, rec: RecordName): string {
  return join(
    dir,
    `${rec.started_at.replace(/[:.]/g, '-')}-${rec.version ?? rec.week ?? 'unknown'}-${rec.outcome}.json`,
  );
}

/** Write `rec` to `path` atomically (a `.tmp` beside it, renamed over it); `replaces`, another path of it, is removed. */
export async function writeRecord(path: string, rec: unknown, replaces: string | null = null): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `${JSON.stringify(rec, null, 2)}\n`);
  await rename(tmp, path);
  if (replaces !== null && replaces !== path) await rm(replaces, { force: true });
}
