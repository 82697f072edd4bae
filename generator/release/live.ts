/** What a release reads of the live version it starts from: its counts for the gates, its metros for the per-metro gate. */
import { z } from 'zod';
import { keys, RemovalsDoc } from '../../shim/format/site-format.ts';
import { openStoredVersion, type SiteLocation } from '../site/site.ts';
import { liveCountsOf, type LiveCounts, type LiveMetro } from './gates.ts';

/** As much of a live coverage document as the per-metro gate reads. */
const LiveCoverage = z.object({
  metros: z.array(
    z.object({
      slug: z.string(),
      offices: z.number().int(),
      grid_points: z.number().int(),
      grid_samples: z.number().int(),
    }),
  ),
});

/** The live `version` of `site` as the gates compare against it (null when nothing is live). */
export async function liveCounts(site: SiteLocation, version: string | null): Promise<LiveCounts> {
  if (version === null) return null;
  const stored = await openStoredVersion(site, version);
  const coverage = await stored.json(keys.coverage(version), LiveCoverage).catch(() => null);
  const metros: Record<string, LiveMetro> | null =
    coverage === null
      ? null
      : Object.fromEntries(
          coverage.metros.map((m) => [
            m.slug,
            { offices: m.offices, grid_points: m.grid_points, grid_samples: m.grid_samples },
          ]),
        );
  return liveCountsOf(stored.meta, metros);
}

/**
 * How many of the standing removals the live `version` of `site` was built with (its removals.json) `local` (the
 * hashed targets of this checkout's removals.jsonl, ActiveRemovals.keys) lacks: 0 when nothing is live or the version
 * was written before removals.json.
 */
export async function removalsMissing(
  site: SiteLocation,
  version: string | null,
  local: readonly string[],
): Promise<number> {
  if (version === null) return 0;
  const stored = await openStoredVersion(site, version);
  const live = await stored.json(keys.removals(version), RemovalsDoc);
  const have = new Set(local);
  return (live?.removals ?? []).filter((key) => !have.has(key)).length;
}
