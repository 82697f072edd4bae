/**
 * A local site folder that behaves like the bucket: versions under `v/<version>/` are immutable folders renamed into
 * place whole, the pointer `current.json` is replaced by renaming a finished file over it, the site folder itself is
 * never renamed away, old versions stay for a grace period longer than any reader's pointer cache (and the last few
 * for rollback), and what a killed run left behind is removed by a later run.
 *
 * Layout: `<site>/current.json`, `<site>/v/<version>/...`, and `<site>/.staging/run-<pid>-<random>/` for a run in
 * progress (its objects, its pointer file, versions on their way to deletion). Readers only ever open the pointer and
 * keys under `v/`, so nothing under `.staging/` is ever read.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { runPool } from './pool.ts';
import { LiveMovedError } from './live-moved.ts';

/** Folder under the site that holds runs in progress (never read by the shim). */
export const STAGING = '.staging';
/** Default grace: a version stops being current at least this long before it is deleted (readers cache the pointer 5 s). */
export const DEFAULT_GRACE_MS = 60_000;
/** Default number of versions kept whatever their age, the current one included (the rest are for rollback). */
export const DEFAULT_KEEP_VERSIONS = 3;

/** One run's private staging folder inside the site folder. */
export interface SiteRun {
  /** The site folder. */
  site: string;
  /** `<site>/.staging/run-<pid>-<random>`. */
  dir: string;
  /** Where the run writes the version's objects before they are renamed to `v/<version>`. */
  objects: string;
}

/** Retention of old versions. */
export interface Retention {
  /** A version is deleted only after it has not been current for this long (default DEFAULT_GRACE_MS). */
  graceMs?: number;
  /** The most recent versions kept whatever their age, the current one included (default DEFAULT_KEEP_VERSIONS, at least 1). */
  keep?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

const RUN_RE = /^run-(\d+)-[0-9a-f]+$/;

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Remove what failed or killed runs left: staging folders of processes that no longer run, and the `<site>.tmp-*`
 * siblings an earlier generator made next to the site. Returns the paths removed.
 */
export async function removeLeftovers(site: string): Promise<string[]> {
  const removed: string[] = [];
  const staging = join(site, STAGING);
  for (const name of await entries(staging)) {
    const pid = RUN_RE.exec(name)?.[1];
    if (pid !== undefined && isAlive(Number(pid))) continue;
    await rm(join(staging, name), { recursive: true, force: true });
    removed.push(join(staging, name));
  }
  const prefix = `${basename(site)}.tmp-`;
  for (const name of await entries(dirname(site))) {
    if (!name.startsWith(prefix)) continue;
    await rm(join(dirname(site), name), { recursive: true, force: true });
    removed.push(join(dirname(site), name));
  }
  return removed;
}

/** Start a run: clear leftovers of dead runs and make this run's staging folder (on the site's own file system). */
export async function beginRun(site: string): Promise<{ run: SiteRun; leftovers: string[] }> {
  const leftovers = await removeLeftovers(site);
  const dir = join(site, STAGING, `run-${process.pid}-${randomBytes(6).toString('hex')}`);
  // Another run ending now removes `.staging` when it looks empty (endRun): made again until this run's folder is in it.
  for (let attempt = 1; ; attempt++) {
    try {
      await mkdir(dir, { recursive: true });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 10) throw err;
    }
  }
  return { run: { site, dir, objects: join(dir, 'objects') }, leftovers };
}

/** Remove the run's staging folder (and `.staging` itself when no other run uses it). */
export async function endRun(run: SiteRun): Promise<void> {
  await rm(run.dir, { recursive: true, force: true });
  await rmdir(join(run.site, STAGING)).catch(() => undefined);
}

async function touch(path: string, ms: number): Promise<void> {
  const t = new Date(ms);
  await utimes(path, t, t).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  });
}

/**
 * Move the run's finished objects to `v/<version>` in one rename. When that version is already there (the same inputs
 * give the same version), each object is renamed over its twin instead: readers of the served copy see whole files
 * only, and an object lost from it is restored. `rels` lists the objects relative to the version root.
 */
export async function installVersion(
  run: SiteRun,
  version: string,
  rels: Iterable<string>,
  now = Date.now,
): Promise<'new' | 'refreshed'> {
  const target = join(run.site, keys.root(version));
  await mkdir(dirname(target), { recursive: true });
  let how: 'new' | 'refreshed' = 'new';
  try {
    await rename(run.objects, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    how = 'refreshed';
    const made = new Map<string, Promise<unknown>>();
    await runPool([...rels], 32, async (rel) => {
      const to = join(target, rel);
      let dir = made.get(dirname(to));
      if (dir === undefined) made.set(dirname(to), (dir = mkdir(dirname(to), { recursive: true })));
      await dir;
      await rename(join(run.objects, rel), to);
    });
  }
  await touch(target, now());
  return how;
}

/** The version `<site>/current.json` names, or null when there is none (or it is unreadable). */
export async function currentVersion(site: string): Promise<string | null> {
  try {
    const parsed = Pointer.safeParse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8')));
    return parsed.success ? parsed.data.version : null;
  } catch {
    return null;
  }
}

/**
 * Point the site at a new version: write the pointer in the run's folder, then rename it over `current.json` (a reader
 * sees the old pointer or the new one, never neither). The version it replaces is stamped with the time it stopped
 * being current, which starts its grace period.
 */
export async function flipPointer(run: SiteRun, pointer: Uint8Array, now = Date.now): Promise<string | null> {
  const previous = await currentVersion(run.site);
  const file = join(run.dir, keys.pointer);
  await writeFile(file, pointer);
  await rename(file, join(run.site, keys.pointer));
  const t = now();
  if (previous !== null) await touch(join(run.site, keys.root(previous)), t);
  const next = await currentVersion(run.site);
  if (next !== null) await touch(join(run.site, keys.root(next)), t);
  return previous;
}

/** The lock file held while a release compares and swaps the pointer (readers never open it). */
export const POINTER_LOCK = '.pointer.lock';
/** How long a release waits for another release's pointer swap (held for milliseconds) before giving up. */
const LOCK_WAIT_MS = 30_000;

/** Take `<site>/.pointer.lock` exclusively (O_EXCL); a lock left by a process that no longer runs is taken over. */
async function lockPointer(site: string): Promise<() => Promise<void>> {
  const path = join(site, POINTER_LOCK);
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fh = await open(path, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() > until)
      throw new Error(
        `${path} is held by process ${holder} for more than ${LOCK_WAIT_MS / 1000}s; is a release stuck?`,
      );
    await sleep(50);
  }
}

/**
 * Compare-and-swap of the site's pointer: under an exclusive lock, check that `current.json` still names `expected`
 * (the version live when the release began; undefined: do not compare, the folder follows a bucket), run `check` (the
 * standing removals read again), then flip it. Throws LiveMovedError, with nothing changed, when another release moved it.
 */
export async function swapPointer(
  run: SiteRun,
  pointer: Uint8Array,
  expected: string | null | undefined,
  check?: () => Promise<void>,
): Promise<string | null> {
  const unlock = await lockPointer(run.site);
  try {
    const found = await currentVersion(run.site);
    if (expected !== undefined && found !== expected) throw new LiveMovedError(`folder ${run.site}`, expected, found);
    await check?.();
    return await flipPointer(run, pointer);
  } finally {
    await unlock();
  }
}

/**
 * Delete old versions: never the current one, never one of the `keep` most recently current, never one that stopped
 * being current less than `graceMs` ago. A version is renamed into the run's folder before it is deleted, so a kill
 * in the middle leaves no half-deleted version under `v/` (the remains go with the run's folder); `spare` (a version
 * just written, not yet live) is never deleted. Returns the versions deleted.
 */
export async function pruneVersions(
  run: SiteRun,
  retention: Retention = {},
  spare: readonly string[] = [],
): Promise<string[]> {
  const grace = retention.graceMs ?? DEFAULT_GRACE_MS;
  const keep = Math.max(1, retention.keep ?? DEFAULT_KEEP_VERSIONS);
  const now = (retention.now ?? Date.now)();
  const current = await currentVersion(run.site);
  const vdir = join(run.site, 'v');
  const versions: { name: string; at: number }[] = [];
  for (const name of await entries(vdir)) {
    if (name.startsWith('.') || name === current || spare.includes(name)) continue;
    const s = await stat(join(vdir, name)).catch(() => null);
    if (s?.isDirectory()) versions.push({ name, at: s.mtimeMs });
  }
  versions.sort((a, b) => b.at - a.at || (a.name < b.name ? -1 : 1));
  const removed: string[] = [];
  const trash = join(run.dir, 'trash');
  for (const v of versions.slice(keep - 1)) {
    if (now - v.at < grace) continue;
    await mkdir(trash, { recursive: true });
    try {
      await rename(join(vdir, v.name), join(trash, v.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another run took it
      throw err;
    }
    await rm(join(trash, v.name), { recursive: true, force: true });
    removed.push(v.name);
  }
  return removed;
}
