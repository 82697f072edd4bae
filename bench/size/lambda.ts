/** Lambda bundle: size (raw and gzipped, built with infra's own bundleLambda) and the time a fresh node process takes to import it. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { bundleLambda } from '../../infra/bundle.ts';
import { spread, type Spread } from '../lib/stats.ts';

/** Bundle size and cold-start import time. */
export interface LambdaReport {
  bytes: number;
  gzipBytes: number;
  /** Time of `await import(bundle)` inside a fresh process (module load and init, including env parsing), ms. */
  importMs: Spread;
  /** Spawn to exit of that process, ms (includes node's own start-up). */
  processMs: Spread;
  buildMs: number;
  command: string;
}

// Placeholder settings: init parses them but makes no network call, so no AWS access is needed.
const ENV = {
  SITE_BUCKET: 'bench-site-bucket',
  SALT_BUCKET: 'bench-salt-bucket',
  ORIGIN_VERIFY_SECRETS: 'bench-origin-secret-0123456789abcdef',
  AWS_REGION: 'us-east-1',
};

function importOnce(file: string): Promise<{ importMs: number; processMs: number }> {
  const script = `const t0 = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t0));`;
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('exit', (code) => {
      const processMs = performance.now() - t0;
      const importMs = Number(out);
      if (code !== 0 || !Number.isFinite(importMs))
        fail(new Error(`importing the bundle failed (${code}): ${err.slice(0, 500)}`));
      else done({ importMs, processMs });
    });
  });
}

const STATIC_IMPORT = /(?:^|[;}\s])import\s*(?:[^'"();]*?from\s*)?["'](\.\/[^"']+)["']/g;

/**
 * What a cold start reads: index.mjs and every chunk it imports statically, transitively (esbuild's splitting moves code
 * shared with the on-demand MCP chunk into chunks of its own, so index.mjs alone understates it), with their gzipped size.
 */
function loadedAtStart(dir: string): { files: number; bytes: number; gzipBytes: number } {
  const seen = new Set<string>();
  const queue = [join(dir, 'index.mjs')];
  const parts: Buffer[] = [];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const bytes = readFileSync(file);
    parts.push(bytes);
    for (const m of bytes.toString('utf8').matchAll(STATIC_IMPORT)) queue.push(join(dirname(file), m[1] as string));
  }
  const all = Buffer.concat(parts);
  return { files: seen.size, bytes: all.length, gzipBytes: gzipSync(all, { level: 9 }).length };
}

/** Build the bundle into `outDir` and import it `runs` times in fresh processes. */
export async function measureLambda(
  outDir: string,
  runs: number,
  onProgress?: (line: string) => void,
): Promise<LambdaReport> {
  const t0 = performance.now();
  const info = await bundleLambda(outDir);
  const buildMs = performance.now() - t0;
  const startup = loadedAtStart(info.dir);
  onProgress?.(
    `lambda bundle: ${startup.files} files, ${startup.bytes} bytes loaded at start, ${startup.gzipBytes} gzipped (built in ${buildMs.toFixed(0)} ms)`,
  );
  const imports: number[] = [];
  const processes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await importOnce(join(info.dir, 'index.mjs'));
    imports.push(r.importMs);
    processes.push(r.processMs);
    onProgress?.(
      `lambda import ${i + 1}/${runs}: ${r.importMs.toFixed(1)} ms in a process of ${r.processMs.toFixed(0)} ms`,
    );
  }
  return {
    bytes: startup.bytes,
    gzipBytes: startup.gzipBytes,
    importMs: spread(imports),
    processMs: spread(processes),
    buildMs,
    command: `node --input-type=module -e "await import('<bundle>/index.mjs')" with placeholder SITE_BUCKET, SALT_BUCKET and ORIGIN_VERIFY_SECRETS (init parses them; no AWS call)`,
  };
}
