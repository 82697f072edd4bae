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

/**
 * The live `version` of `site` as a release starts from it, read once (null when nothing is live): its counts for the
 * gates, and the standing removals it was built with (removals.json: each target hashed; none for a version written
 * before it).
 */
export async function readLive(
  site: SiteLocation,
  version: string | null,
): Promise<{ counts: NonNullable<LiveCounts>; removals: readonly string[] } | null> {
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
  const removals = (await stored.json(keys.removals(version), RemovalsDoc))?.removals ?? [];
  return { counts: liveCountsOf(stored.meta, metros), removals };
}

/** How many of the live version's standing removals `local` (this checkout's, ActiveRemovals.keys) lacks. */
export function removalsMissing(live: readonly string[], local: readonly string[]): number {
  const have = new Set(local);
  return live.filter((key) => !have.has(key)).length;
}
