/** Copies of the hand-made generator fixture's site, generated once per run by test/global-setup.ts. */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Copy the site generated from test/fixtures/generator/basic (unchanged, over no earlier version) to `outDir`, which
 * must not exist yet; returns its version. The same bytes `generate({ dataDir: <copy of the fixture>, outDir })` writes
 * (generation is deterministic), without generating again.
 */
export async function copyFixtureSite(outDir: string): Promise<string> {
  const src = process.env.TEST_FIXTURE_SITE_DIR;
  if (src === undefined)
    throw new Error(
      'TEST_FIXTURE_SITE_DIR is not set: run the tests through vitest (test/global-setup.ts builds the site).',
    );
  await cp(src, outDir, { recursive: true });
  return (JSON.parse(await readFile(join(outDir, 'current.json'), 'utf8')) as { version: string }).version;
}
