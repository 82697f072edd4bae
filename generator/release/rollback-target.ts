/**
 * What a rollback to `version` does: point at it again when it is whole in the site folder and holds no listing under
 * a standing removal; regenerate its week (standing removals and today's corrections applied, through the gates) when
 * it holds one; refuse, saying why, when the version is not in the folder or its week's inputs are gone.
 */
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { keys } from '../../shim/core/site-format.ts';
import type { ActiveRemovals } from '../model/removals.ts';
import { removedListingsIn } from '../publish/removal-check.ts';

/** The plan of a rollback, or why there is none. */
export type RollbackTarget =
  | { kind: 'pointer'; version: string; week: string }
  | { kind: 'regenerate'; version: string; week: string; held: string[] }
  | { kind: 'refused'; message: string };

const VERSION_RE = /^(\d{4}-W\d{2})-[0-9a-f]{10}$/;
const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Decide how to roll the site folder back to `version` under the standing `removals`. */
export async function rollbackTarget(
  siteDir: string,
  dataDir: string,
  version: string,
  removals: ActiveRemovals,
): Promise<RollbackTarget> {
  const week = VERSION_RE.exec(version)?.[1];
  if (week === undefined)
    return {
      kind: 'refused',
      message: `"${version}" is not a version id (<YYYY-Www>-<10 hex>, as current.json and the release records name them)`,
    };
  if (!(await exists(join(siteDir, keys.manifest(version))))) {
    const kept = (await readdir(join(siteDir, 'v')).catch(() => [] as string[]))
      .filter((v) => VERSION_RE.test(v))
      .sort();
    const weekInputs = await exists(join(dataDir, 'weeks', week));
    return {
      kind: 'refused',
      message:
        `version ${version} is not in ${join(siteDir, 'v')} (it keeps ${kept.length === 0 ? 'no version' : kept.join(', ')}), so there is nothing to roll back to` +
        (weekInputs
          ? `; release its week again instead: npm run release -- --week ${week}`
          : `, and ${join(dataDir, 'weeks', week)} is gone too`),
    };
  }
  const held = await removedListingsIn(siteDir, version, removals);
  if (held.length === 0) return { kind: 'pointer', version, week };
  if (!(await exists(join(dataDir, 'weeks', week)))) {
    return {
      kind: 'refused',
      message: `version ${version} holds ${held.length} listing(s) under a standing removal (${held.slice(0, 3).join('; ')}), and its week's inputs ${join(dataDir, 'weeks', week)} are gone, so it cannot be rebuilt without them: roll back to another version`,
    };
  }
  return { kind: 'regenerate', version, week, held };
}
