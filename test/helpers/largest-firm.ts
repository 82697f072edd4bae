/** The sample's largest firm, read from the served version's firm packs (test/global-setup.ts builds the site). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The listing with the most other offices in the served sample, and its firm's office count. */
export function largestFirm(): { id: string; offices: number } {
  const site = process.env.TEST_SITE_DIR as string;
  const version = (JSON.parse(readFileSync(join(site, 'current.json'), 'utf8')) as { version: string }).version;
  const dir = join(site, 'v', version, 'firms');
  let best = { id: '', n: -1 };
  // Packs in name order, documents in listing_id order: the first listing of the largest firm, the same every run.
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.json')) continue;
    const pack = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      documents: { listing_id: string; other_offices: unknown[] }[];
    };
    for (const doc of pack.documents)
      if (doc.other_offices.length > best.n) best = { id: doc.listing_id, n: doc.other_offices.length };
  }
  return { id: best.id, offices: best.n + 1 };
}
