/**
 * Bundles the Lambda handler (shim/aws/lambda.ts) with esbuild into an ESM entry file (index.mjs) and the chunks it loads on
 * demand (chunks/), offline and without Docker.
 * `npx tsx infra/bundle.ts [--out DIR]` builds and prints the sizes; the CDK app calls bundleLambda() before synth.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Default output folder (gitignored). */
export const DEFAULT_OUT_DIR = join(REPO, 'dist', 'lambda');
/** esbuild target of the bundle: the Lambda runtime's Node (nodejs24.x in infra/api-function.ts). */
export const LAMBDA_NODE_TARGET = 'node24';
/** The bundle's file name; the function's handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';

/**
 * zod re-exports its 60-odd error-message locales from one index; the shim uses only English (zod's default), so the
 * index is replaced by one that exports `en` alone: about 255 KB less code to parse at every cold start.
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/** Sizes of the built bundle, in bytes. */
export interface BundleInfo {
  dir: string;
  /** The entry file, index.mjs: what a cold start reads and compiles. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Every file of the bundle, chunks loaded on demand included. */
  totalBytes: number;
  files: number;
}

/**
 * Bundle one handler, `entry` (a path from the repository root, e.g. shim/aws/lambda.ts), into `outDir` (emptied first)
 * as index.mjs plus on-demand chunks, and report its size: the one esbuild set-up of every Lambda. Rejects on any esbuild error.
 */
export async function bundleEntry(entry: string, outDir: string): Promise<BundleInfo> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, BUNDLE_FILE);
  await build({
    plugins: [zodEnglishOnly],
    entryPoints: { index: join(REPO, entry) },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // Code reached only through a dynamic import (the MCP route and its SDK) goes to its own chunk file, which node
    // reads and compiles on the first /mcp request instead of at every cold start.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    target: LAMBDA_NODE_TARGET,
    format: 'esm',
    // Prefer the ES module builds (the AWS SDK's tree-shake far better than its CommonJS ones).
    mainFields: ['module', 'main'],
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
    // CommonJS dependencies call require() for Node built-ins; an ES module has no require of its own.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const bytes = readFileSync(file);
  const all = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const totalBytes = all.reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
  return {
    dir: outDir,
    file,
    bytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    totalBytes,
    files: all.length,
  };
}

/** Build the API handler (shim/aws/lambda.ts) into `outDir` and report its size. */
export function bundleLambda(outDir: string = DEFAULT_OUT_DIR): Promise<BundleInfo> {
  return bundleEntry('shim/aws/lambda.ts', outDir);
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'Usage: tsx infra/bundle.ts [--out DIR]\nBundles shim/aws/lambda.ts into DIR/index.mjs (default dist/lambda) and prints its size.\n',
    );
    return;
  }
  const i = argv.indexOf('--out');
  const out = i >= 0 && argv[i + 1] !== undefined ? resolve(argv[i + 1] as string) : DEFAULT_OUT_DIR;
  process.stderr.write(`bundling shim/aws/lambda.ts into ${out} ...\n`);
  const info = await bundleLambda(out);
  process.stdout.write(
    `${info.file}: ${info.bytes} bytes, ${info.gzipBytes} bytes gzipped; ${info.files} files, ${info.totalBytes} bytes in all\n`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
