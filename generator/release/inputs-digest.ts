/** The digest of today's corrections file, kept in each release record so a rollback can tell what a version applied. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** sha256 of `<data>/corrections.jsonl` (of no bytes when there is none). */
export async function correctionsDigest(dataDir: string): Promise<string> {
  const bytes = await readFile(join(dataDir, 'corrections.jsonl')).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
  return createHash('sha256').update(bytes).digest('hex');
}
