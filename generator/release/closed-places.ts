/**
 * Which places a correction names that the week lacks but an earlier week had: a place that closed since. Such a
 * correction is reported and skipped (the file applies to every week); one naming a place no week ever had is a typo,
 * and the corrections-known gate refuses it.
 */
import { createReadStream } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const WEEK_RE = /^\d{4}-W\d{2}$/;

/** Place id -> the latest week before `week` whose places.jsonl holds it, for those of `placeIds` any earlier week has. */
export async function lastSeenBefore(
  dataDir: string,
  week: string,
  placeIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const wanted = new Set(placeIds);
  if (wanted.size === 0) return found;
  const names = await readdir(join(dataDir, 'weeks')).catch(() => [] as string[]);
  // Newest first: a place that closed is usually in the week before, and the scan stops once every id is found.
  const earlier = names
    .filter((n) => WEEK_RE.test(n) && n < week)
    .sort()
    .reverse();
  for (const w of earlier) {
    const file = join(dataDir, 'weeks', w, 'places.jsonl');
    if (
      !(await access(file).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        if (!line.includes('place_id')) continue;
        for (const id of wanted) {
          if (found.has(id) || !line.includes(JSON.stringify(id).slice(1, -1))) continue;
          let row: unknown;
          try {
            row = JSON.parse(line);
          } catch {
            continue;
          }
          if ((row as { place_id?: unknown }).place_id === id) found.set(id, w);
        }
        if (found.size === wanted.size) return found;
      }
    } catch {
      // a week without a readable places.jsonl says nothing about the ids
    } finally {
      lines.close();
    }
  }
  return found;
}
