/**
 * Builds the sample inputs (if missing) and one generated site for the whole test run, at var/test-site.
 * Tests read TEST_SITE_DIR from the environment set here.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const TEST_SITE_DIR = resolve('var/test-site');

export default async function setup(): Promise<void> {
  const { synthesize } = await import('../data/synth/synthesize.ts');
  const { generate } = await import('../generator/generate.ts');
  if (!existsSync(resolve('data/weeks'))) await synthesize({ outDir: resolve('data/weeks'), quiet: true });
  await generate({ dataDir: resolve('data'), outDir: TEST_SITE_DIR, quiet: true });
  process.env.TEST_SITE_DIR = TEST_SITE_DIR;
}
