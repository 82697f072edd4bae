/**
 * Builds the sample inputs (if missing) and one generated site for the whole test run, at var/test-site.
 * Tests read TEST_SITE_DIR from the environment set here; suites that need a site of their own link or copy this one
 * (test/helpers/site-copy.ts) rather than generating another.
 *
 * The site is rebuilt only when what it is made from changed: the sample inputs (data/), the generator and the shim
 * code it imports, and the installed packages (package-lock.json). Their content hash is kept beside the site, with a
 * stamp of the site's files, so a second run, or a run of one file, skips the generation (about a minute on a loaded
 * 2-core machine), and a site a test changed or a half-written one is rebuilt. TEST_SITE_REBUILD=1 forces a rebuild.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const TEST_SITE_DIR = resolve('var/test-site');
const KEY_FILE = resolve('var/test-site.key');
/** What the site is generated from. */
const INPUTS = ['data', 'generator', 'shim', 'package-lock.json', 'test/global-setup.ts'];

/** sha256 over every file under `INPUTS` (paths and bytes, in a stable order). */
function inputsKey(): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'raw') add(child);
      } else if (entry.isFile()) {
        hash.update(`${child}\0`).update(readFileSync(child)).update('\0');
      }
    }
  };
  for (const input of INPUTS) {
    const path = resolve(input);
    if (!existsSync(path)) continue;
    if (input.includes('.')) hash.update(`${input}\0`).update(readFileSync(path)).update('\0');
    else add(path);
  }
  hash.update(process.version.split('.')[0] ?? '');
  return hash.digest('hex');
}

/** sha256 over the site's file list (path, size, mtime): a test that changed the shared site makes the next run rebuild it. */
function siteStamp(): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) add(child);
      else {
        const stat = statSync(child);
        hash.update(`${child}\0${stat.size}\0${stat.mtimeMs}\0`);
      }
    }
  };
  add(TEST_SITE_DIR);
  return hash.digest('hex');
}

export default async function setup(): Promise<void> {
  const { synthesize } = await import('../data/synth/synthesize.ts');
  const { generate } = await import('../generator/generate.ts');
  if (!existsSync(resolve('data/weeks'))) await synthesize({ outDir: resolve('data/weeks'), quiet: true });
  const inputs = inputsKey();
  const built = existsSync(KEY_FILE) && existsSync(join(TEST_SITE_DIR, 'current.json')) ? readFileSync(KEY_FILE, 'utf8') : '';
  if (built !== `${inputs}\n${siteStamp()}` || process.env.TEST_SITE_REBUILD === '1') {
    rmSync(KEY_FILE, { force: true });
    await generate({ dataDir: resolve('data'), outDir: TEST_SITE_DIR, quiet: true });
    writeFileSync(KEY_FILE, `${inputs}\n${siteStamp()}`);
  }
  process.env.TEST_SITE_DIR = TEST_SITE_DIR;
}
