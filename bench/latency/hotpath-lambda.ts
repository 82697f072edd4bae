/**
 * Lambda cold start end to end: the bundle infra builds, imported in a fresh node process with a real environment
 * (the sample site published to s3rver on loopback, salt bucket beside it), then its first `/v1/attorneys` answer and a
 * second one, as the first request after a cold start and the next would see them. No AWS account needed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { publishSite } from '../../generator/publish/publish.ts';
import { bundleLambda } from '../../infra/bundle.ts';
import { startS3rver } from '../lib/s3rver.ts';
import { functionUrlEvent } from '../lib/function-url.ts';
import { spread, type Spread } from '../lib/stats.ts';

/** Cold-start figures of the Lambda bundle. */
export interface LambdaColdReport {
  /** index.mjs, and every file of the bundle (chunks loaded on demand included), in bytes. */
  entryBytes: number;
  totalBytes: number;
  files: number;
  /** `await import(index.mjs)` in a fresh process, ms. */
  importMs: Spread;
  /** The first answer (handler called with a Function URL event, S3 and salt reads included), ms after the import. */
  firstAnswerMs: Spread;
  /** Import plus first answer, ms. */
  coldTotalMs: Spread;
  /** The second answer in the same process (same query), ms. */
  secondAnswerMs: Spread;
  /** CPU time (user + system) of the import and of the first answer, ms: what the wall times cost without other processes competing. */
  importCpuMs: Spread;
  firstAnswerCpuMs: Spread;
  query: string;
}

const SECRET = 'bench-origin-secret-0123456789abcdef';
const QUERY = '/v1/attorneys?location=Chicago,%20IL&limit=10';

interface ColdSample {
  importMs: number;
  firstMs: number;
  secondMs: number;
  importCpuMs: number;
  firstCpuMs: number;
}

function coldOnce(file: string, env: Record<string, string>, event: unknown): Promise<ColdSample> {
  const script = [
    'const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };',
    'const c0 = cpu();',
    'const t0 = performance.now();',
    `const m = await import(${JSON.stringify(pathToFileURL(file).href)});`,
    'const t1 = performance.now();',
    'const c1 = cpu();',
    'const event = JSON.parse(process.env.BENCH_EVENT);',
    'const a = await m.handler(event);',
    'const t2 = performance.now();',
    'const c2 = cpu();',
    'const b = await m.handler(event);',
    'const t3 = performance.now();',
    'if (a.statusCode !== 200 || b.statusCode !== 200) throw new Error(`answered ${a.statusCode}: ${a.body.slice(0, 300)}`);',
    'process.stderr.write(`RESULT ${JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, secondMs: t3 - t2, importCpuMs: c1 - c0, firstCpuMs: c2 - c1 })}\\n`);',
  ].join('\n');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...env, BENCH_EVENT: JSON.stringify(event) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('exit', (code) => {
      const line = /^RESULT (.*)$/m.exec(err)?.[1];
      if (code !== 0 || line === undefined) fail(new Error(`cold start failed (${code}): ${err.slice(0, 500)}`));
      else done(JSON.parse(line) as ColdSample);
    });
  });
}

/** Publish `siteDir` to s3rver, build the bundle into `outDir`, and cold-start it `runs` times. */
export async function measureLambdaCold(
  siteDir: string,
  outDir: string,
  runs: number,
  onProgress?: (line: string) => void,
): Promise<LambdaColdReport> {
  const s3 = await startS3rver({ buckets: ['site', 'salt'], conditionalWrites: true });
  try {
    await publishSite({ bucket: 'site', siteDir, ...s3.clientOptions, quiet: true });
    const info = await bundleLambda(outDir);
    onProgress?.(
      `lambda cold start: index.mjs ${info.bytes} bytes, ${info.files} files ${info.totalBytes} bytes in all`,
    );
    const env = {
      SITE_BUCKET: 'site',
      SALT_BUCKET: 'salt',
      ORIGIN_VERIFY_SECRETS: SECRET,
      S3_ENDPOINT: s3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const event = functionUrlEvent({ target: QUERY }, SECRET);
    const samples: ColdSample[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await coldOnce(join(info.dir, 'index.mjs'), env, event);
      samples.push(r);
      onProgress?.(
        `lambda cold start ${i + 1}/${runs}: import ${r.importMs.toFixed(1)} ms (CPU ${r.importCpuMs.toFixed(1)} ms), first answer ${r.firstMs.toFixed(1)} ms (CPU ${r.firstCpuMs.toFixed(1)} ms), second ${r.secondMs.toFixed(1)} ms`,
      );
    }
    return {
      entryBytes: info.bytes,
      totalBytes: info.totalBytes,
      files: info.files,
      importMs: spread(samples.map((s) => s.importMs)),
      firstAnswerMs: spread(samples.map((s) => s.firstMs)),
      coldTotalMs: spread(samples.map((s) => s.importMs + s.firstMs)),
      secondAnswerMs: spread(samples.map((s) => s.secondMs)),
      importCpuMs: spread(samples.map((s) => s.importCpuMs)),
      firstAnswerCpuMs: spread(samples.map((s) => s.firstCpuMs)),
      query: QUERY,
    };
  } finally {
    await s3.stop();
  }
}
