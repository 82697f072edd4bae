/**
 * Bundles the salt rotator (shim/aws/salt-rotator.ts) into one ESM file with the API handler's esbuild set-up
 * (bundleEntry in infra/bundle.ts). `npx tsx infra/rotator-bundle.ts [--out DIR]` builds and prints the size.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, bundleEntry } from './bundle.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Default output folder (gitignored). */
export const DEFAULT_ROTATOR_OUT_DIR = join(REPO, 'dist', 'salt-rotator');

/** Build the rotator into `outDir` (emptied first); resolves to the folder and the bundle's size in bytes. */
export async function bundleSaltRotator(
  outDir: string = DEFAULT_ROTATOR_OUT_DIR,
): Promise<{ dir: string; bytes: number }> {
  const { dir, bytes } = await bundleEntry('shim/aws/salt-rotator.ts', outDir);
  return { dir, bytes };
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'Usage: tsx infra/rotator-bundle.ts [--out DIR]\nBundles shim/aws/salt-rotator.ts into DIR/index.mjs (default dist/salt-rotator) and prints its size.\n',
    );
    return;
  }
  const i = argv.indexOf('--out');
  const out = i >= 0 && argv[i + 1] !== undefined ? resolve(argv[i + 1] as string) : DEFAULT_ROTATOR_OUT_DIR;
  process.stderr.write(`bundling shim/aws/salt-rotator.ts into ${out} ...\n`);
  const info = await bundleSaltRotator(out);
  process.stdout.write(`${join(info.dir, BUNDLE_FILE)}: ${info.bytes} bytes\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
