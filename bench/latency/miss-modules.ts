/**
 * How many project modules one cache miss passes: `node bench/latency/miss-modules.ts --site DIR`. The real local
 * server (`npm start`'s startServer, answer cache on) runs in this process under V8's precise coverage with call
 * counts; after a warm-up of 50 misses the counters are reset, one more miss (a new point, 15 mi, limit 10) is
 * answered over loopback, its log line written, and every file of this repository (not node_modules, not this script)
 * with a function called since the reset is counted. Prints one JSON line: { modules: [paths], status }.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfig } from '../../shim/edge/env.ts';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { startServer } from '../../shim/server.ts';
import { benchServerEnv } from '../lib/server-env.ts';

const { values } = cliOrExit({
  name: 'bench miss-modules',
  usage: 'node bench/latency/miss-modules.ts --site <dir>',
  description: 'Counts the project modules one /v1/attorneys cache miss passes (started by bench/latency/pipeline.ts).',
  options: { site: { type: 'string', arg: 'dir', required: true, description: 'generated site to serve' } },
});

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const self = fileURLToPath(import.meta.url);

/** GET `path` from `base`, reading the whole answer; its status. */
function get(base: string, path: string): Promise<number> {
  return new Promise((done, fail) => {
    request(`${base}${path}`, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    })
      .on('error', fail)
      .end();
  });
}

const miss = (i: number): string =>
  `/v1/attorneys?lat=${(40.7128 + i * 1e-4).toFixed(5)}&lng=-74.00600&radius_miles=15&limit=10`;

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-modules-'));
const server = await startServer(loadConfig(benchServerEnv(values.site, logDir)));
try {
  for (let i = 1; i <= 50; i++) await get(server.url, miss(i));
  await server.log.flush();
  await session.post('Profiler.takePreciseCoverage');
  const status = await get(server.url, miss(51));
  await server.log.flush();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const prefix = pathToFileURL(root).href + '/';
  const modules = result
    .filter((script) => script.url.startsWith(prefix) && !script.url.includes('/node_modules/'))
    .filter((script) => fileURLToPath(script.url) !== self)
    .filter((script) => script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0))
    .map((script) => relative(root, fileURLToPath(script.url)))
    .sort();
  process.stdout.write(`${JSON.stringify({ modules, status })}\n`);
} finally {
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  await server.close(1000);
  rmSync(logDir, { recursive: true, force: true });
}
