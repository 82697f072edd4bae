/**
 * Digests of the operator's files: today's corrections (kept in each release record, so a rollback can tell what a
 * version applied) and the standing removals (read again just before a pointer moves).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** sha256 of `<data>/<name>` (of no bytes when there is none). */
async function fileDigest(dataDir: string, name: string): Promise<string> {
  const bytes = await readFile(join(dataDir, name)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
  return createHash('sha256').update(bytes).digest('hex');
}

/** sha256 of `<data>/corrections.jsonl` (of no bytes when there is none). */
export const correctionsDigest = (dataDir: string): Promise<string> => fileDigest(dataDir, 'corrections.jsonl');

/** sha256 of `<data>/removals.jsonl`: unchanged since the version was generated means nothing to check again. */
export const removalsDigest = (dataDir: string): Promise<string> => fileDigest(dataDir, 'removals.jsonl');
