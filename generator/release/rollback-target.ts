/**
 * Whether a rollback may go to `version`: only to a version the release records say was released to this target, still
 * whole in the site folder, of the meta and cell schemas this release serves, released with today's corrections, and
 * holding no listing under a standing removal.
 * Otherwise it is refused, naming the versions it may go back to (and the week to release again instead).
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { keys } from '../../shim/format/site-format.ts';
import type { ActiveRemovals } from '../model/removals.ts';
import { removedListingsIn } from '../publish/removal-check.ts';
import type { Released } from './records.ts';
import { unservableBecause } from './servable.ts';

/** The plan of a rollback, or why there is none. */
export type RollbackTarget = { kind: 'pointer'; version: string; week: string } | { kind: 'refused'; message: string };

/** What a rollback is checked against. */
export interface RollbackContext {
  siteDir: string;
  /** The target as the records name it (`s3://...` or `folder ...`). */
  target: string;
  /** The versions released to the target, oldest first (records.ts). */
  released: readonly Released[];
  removals: ActiveRemovals;
  /** sha256 of today's corrections.jsonl. */
  corrections: string;
  /** The live version (not offered as a place to go back to). */
  live: string | null;
  /** What to add to a suggested command for this target, e.g. ` --bucket site`. */
  flags: string;
}

const VERSION_RE = /^(\d{4}-W\d{2})-[0-9a-f]{10}$/;
const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Why `version` may not be gone back to, or null when it may. */
async function whyNot(ctx: RollbackContext, version: string): Promise<string | null> {
  const records = ctx.released.filter((r) => r.version === version);
  const last = records.at(-1);
  if (last === undefined) return `${version} was never released to ${ctx.target} (the release records say which were)`;
  if (!(await exists(join(ctx.siteDir, keys.manifest(version)))))
    return `${version} is no longer kept in ${join(ctx.siteDir, 'v')}`;
  const unservable = await unservableBecause(ctx.siteDir, version);
  if (unservable !== null) return unservable;
  if (last.corrections_sha256 === null)
    return `the release record of ${version} does not say which corrections it applied, so today's cannot be checked`;
  if (last.corrections_sha256 !== ctx.corrections)
    return `${version} was released with other corrections than today's corrections.jsonl (going back would undo them)`;
  const held = await removedListingsIn(ctx.siteDir, version, ctx.removals);
  if (held.length > 0)
    return `${version} holds ${held.length} listing(s) under a standing removal (${held.slice(0, 3).join('; ')})`;
  return null;
}

/** Decide whether the rollback to `version` goes ahead. */
export async function rollbackTarget(ctx: RollbackContext, version: string): Promise<RollbackTarget> {
  const week = VERSION_RE.exec(version)?.[1];
  if (week === undefined)
    return {
      kind: 'refused',
      message: `"${version}" is not a version id (<YYYY-Www>-<10 hex>, as current.json and the release records name them)`,
    };
  const why = await whyNot(ctx, version);
  if (why === null) return { kind: 'pointer', version, week };
  const candidates: string[] = [];
  for (const v of [...new Set(ctx.released.map((r) => r.version))].reverse())
    if (v !== ctx.live && v !== version && (await whyNot(ctx, v)) === null) candidates.push(v);
  const options =
    candidates.length === 0
      ? 'no released version passes these checks'
      : `it may go back to ${candidates.join(', ')} (npm run release -- --rollback <version>${ctx.flags})`;
  // Going back to an older week than the live one is let through the week-order gate by name, with a reason.
  const liveWeek = ctx.live === null ? undefined : VERSION_RE.exec(ctx.live)?.[1];
  const force = liveWeek !== undefined && week < liveWeek ? ` --force week-order="<reason>"` : '';
  return {
    kind: 'refused',
    message: `${why}; ${options}; or release a week again with today's removals and corrections applied, through the gates: npm run release -- --week ${week}${force}${ctx.flags}`,
  };
}
