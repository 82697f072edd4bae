/**
 * Builds the sample inputs (if missing) and one generated site for the whole test run, at var/test-site, and the site of
 * the generator suites' hand-made fixture, at var/test-fixture-site. Tests read TEST_SITE_DIR and TEST_FIXTURE_SITE_DIR
 * from the environment set here; suites that need a site of their own link or copy one of these
 * (test/helpers/site-copy.ts, test/helpers/fixture-site.ts) rather than generating another.
 *
 * A site is rebuilt only when what it is made from changed: its inputs (data/, or the fixture), the generator and the
 * shim code it imports, and the installed packages (package-lock.json). Their content hash is kept beside the site, with a
 * stamp of the site's files, so a second run, or a run of one file, skips the generation (about a minute on a loaded
 * 2-core machine), and a site a test changed or a half-written one is rebuilt. TEST_SITE_REBUILD=1 forces a rebuild.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const TEST_SITE_DIR = resolve('var/test-site');
/** The site of the generator suites' hand-made fixture (test/fixtures/generator/basic), which they copy. */
export const TEST_FIXTURE_SITE_DIR = resolve('var/test-fixture-site');
const FIXTURE_DATA = resolve('test/fixtures/generator/basic');
/** What the sites are generated from (the code, the packages, and each site's own inputs). */
const CODE = ['generator', 'shim', 'package-lock.json', 'test/global-setup.ts'];

/** sha256 over every file under `inputs` (paths and bytes, in a stable order). */
function inputsKey(inputs: string[]): string {
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
  for (const input of inputs) {
    const path = resolve(input);
    if (!existsSync(path)) continue;
    if (input.includes('.')) hash.update(`${input}\0`).update(readFileSync(path)).update('\0');
    else add(path);
  }
  hash.update(process.version.split('.')[0] ?? '');
  return hash.digest('hex');
}

/** sha256 over a site's file list (path, size, mtime): a test that changed a shared site makes the next run rebuild it. */
function siteStamp(site: string): string {
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
  add(site);
  return hash.digest('hex');
}

/** Generate `dataDir` into `site` unless the key beside it says the same inputs built the site as it is now. */
async function ensureSite(dataDir: string, site: string, inputs: string[]): Promise<void> {
  const { generateLive } = await import('./helpers/generate-live.ts');
  const keyFile = `${site}.key`;
  const key = inputsKey(inputs);
  const built = existsSync(keyFile) && existsSync(join(site, 'current.json')) ? readFileSync(keyFile, 'utf8') : '';
  if (built !== '' && built === `${key}\n${siteStamp(site)}` && process.env.TEST_SITE_REBUILD !== '1') return;
  rmSync(keyFile, { force: true });
  // From an empty folder (other inputs, e.g. a generator change, make another version, and the suites expect one),
  // moved into place at the end so a suite already reading the old site loses it only for that instant.
  const building = `${site}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await generateLive({ dataDir, outDir: building, quiet: true, log: () => {} });
  rmSync(site, { recursive: true, force: true });
  renameSync(building, site);
  writeFileSync(keyFile, `${key}\n${siteStamp(site)}`);
}

export default async function setup(): Promise<void> {
  const { synthesize } = await import('../data/synth/synthesize.ts');
  if (!existsSync(resolve('data/weeks'))) await synthesize({ outDir: resolve('data/weeks'), quiet: true });
  await ensureSite(resolve('data'), TEST_SITE_DIR, ['data', ...CODE]);
  // The generator reads its data folder only, but a copy keeps the checked-in fixture safe from any write.
  const data = join(mkdtempSync(join(tmpdir(), 'iad-fixture-data-')), 'data');
  try {
    cpSync(FIXTURE_DATA, data, { recursive: true });
    await ensureSite(data, TEST_FIXTURE_SITE_DIR, ['test/fixtures/generator/basic', ...CODE]);
  } finally {
    rmSync(dirname(data), { recursive: true, force: true });
  }
  process.env.TEST_SITE_DIR = TEST_SITE_DIR;
  process.env.TEST_FIXTURE_SITE_DIR = TEST_FIXTURE_SITE_DIR;
}
