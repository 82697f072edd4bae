// The staging writer's worker thread (see write.ts): writes and hashes batches of objects with synchronous calls, so
// the main thread keeps computing and serialising while the file system works. Plain JavaScript: a worker thread has
// no TypeScript loader under every runner (tsx, vitest).
import { createHash } from 'node:crypto';
import { constants, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort, threadId, workerData } from 'node:worker_threads';

const root = workerData.root;
/**
 * The folder of the version the site serves now (or null): an object whose bytes equal its file there is cloned from
 * it. Never hard-linked: a link is one file in two versions, so an edit in place of one would change the other (the
 * copy kept for rollback included).
 */
const previous = workerData.previous ?? null;
const made = new Set();
/**
 * Whether this file system makes copy-on-write clones (btrfs, XFS, APFS do; ext4 and tmpfs do not), tried once on a
 * file of its own: otherwise a week in which few objects are unchanged would read back every previous file it writes
 * before the first identical one told it that clones fail.
 */
function clonesHere() {
  const probe = join(root, `.clone-probe-${threadId}`);
  try {
    mkdirSync(root, { recursive: true });
    writeFileSync(probe, '\n');
    copyFileSync(probe, `${probe}.clone`, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
    rmSync(`${probe}.clone`, { force: true });
  }
}

/** False when the file system makes no copy-on-write clones, or refused one: every object is then written. */
let cloning = previous !== null && clonesHere();

/**
 * Clone the previous version's file at `rel` to `path` when that file holds exactly `part`: a copy-on-write clone, a
 * file of its own that shares disk blocks only until either is written (btrfs, XFS, APFS). Compared byte for byte, not
 * by a manifest, so a file damaged on disk is never cloned (the fresh copy is written and restores it).
 */
function cloneSame(rel, part, path) {
  if (!cloning) return false;
  const from = join(previous, rel);
  let old;
  try {
    old = readFileSync(from);
  } catch {
    return false; // not in the previous version (or pruned by another run meanwhile)
  }
  if (!old.equals(part)) return false;
  try {
    copyFileSync(from, path, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    // No clones here (or not across these folders): write every object from now on.
    cloning = false;
    return false;
  }
}

// One message per batch: { id, rels, lens, buf }, the objects' bytes back to back in `buf` (transferred, not copied).
// The reply holds each object's raw sha256 (32 bytes each, in order) and how many were cloned rather than written,
// and hands `buf` back, or says why the batch failed.
parentPort.on('message', (batch) => {
  const bytes = new Uint8Array(batch.buf);
  // Raw sha256 digests, 32 bytes per object in batch order, handed back without a copy.
  const digests = new Uint8Array(32 * batch.rels.length);
  let off = 0;
  let linked = 0;
  try {
    for (let i = 0; i < batch.rels.length; i++) {
      const part = bytes.subarray(off, off + batch.lens[i]);
      off += batch.lens[i];
      const path = join(root, batch.rels[i]);
      const dir = dirname(path);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      if (cloneSame(batch.rels[i], part, path)) linked++;
      else writeFileSync(path, part);
      digests.set(createHash('sha256').update(part).digest(), 32 * i);
    }
    // The batch's buffer goes back too, for the writer to fill again.
    parentPort.postMessage({ id: batch.id, digests: digests.buffer, linked, buf: batch.buf }, [
      digests.buffer,
      batch.buf,
    ]);
  } catch (err) {
    parentPort.postMessage({ id: batch.id, error: { message: err.message, code: err.code, path: err.path } });
  }
});
