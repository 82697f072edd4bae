/**
 * Child process of the hot-path benchmark: `node --import tsx bench/latency/hotpath-server.ts --site DIR --radii 1,15,50`.
 * Starts the real local server with its answer cache (the default), the same server with ANSWER_CACHE_MIB=0 (every
 * request through the app and a search), and a bare node:http server answering each query path with the very bytes the
 * shim sends for it (identity), then times the search alone in-process. Prints one JSON line {cached, uncached, bare,
 * paths, searchUs} on stdout when ready; the bare server's /__cpu answers this process's CPU time; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../shim/config.ts';
import { createService } from '../../shim/core/service-impl.ts';
import { parseQuery } from '../../shim/http/query.ts';
import { startServer } from '../../shim/server.ts';
import { createSiteSource } from '../../shim/core/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { densePoints, pointPath } from '../lib/points.ts';
import { cliOrExit } from '../../shim/cli-run.ts';

const { values } = cliOrExit({
  name: 'hotpath-server',
  usage: 'node bench/latency/hotpath-server.ts --site <dir> [--radii 1,15,50]',
  description: 'Child process of the hot-path benchmark (started by bench/latency/hotpath.ts).',
  options: {
    site: { type: 'string', arg: 'dir', required: true, description: 'generated site to serve' },
    radii: {
      type: 'number',
      min: 0,
      split: ',',
      arg: 'list',
      description: 'search radii in miles, comma-separated',
      default: [1, 15, 50],
    },
  },
});
const site = resolve(values.site);
const radii = values.radii;
const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-hotpath-'));
const env = { PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_HOUR: '0', SITE_DIR: site, LOG_DIR: logDir };
const cached = await startServer(loadConfig(env));
const uncached = await startServer(loadConfig({ ...env, ANSWER_CACHE_MIB: '0' }));
const paths = radii.flatMap((r) => densePoints().map((p) => pointPath(p, r)));

// The bare server's answers: the exact body bytes the shim sends for each path.
const bodies = new Map<string, Buffer>();
/** Path on the bare server answering this process's CPU usage (user and system µs). */
const CPU_PATH = '/__cpu';
for (const path of paths) {
  const res = await fetch(uncached.url + path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  bodies.set(path, Buffer.from(await res.arrayBuffer()));
}
const bare = createServer((req, res) => {
  req.resume();
  if (req.url === CPU_PATH) {
    // This process's CPU time so far (every server lives here), read before and after each timed run.
    const cpu = JSON.stringify(process.cpuUsage());
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(cpu)) });
    res.end(cpu);
    return;
  }
  const body = bodies.get(req.url ?? '');
  if (body === undefined) {
    res.writeHead(404, { 'content-length': '0' });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.byteLength) });
  res.end(body);
});
await new Promise<void>((done) => bare.listen(0, '127.0.0.1', () => done()));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

// The search alone, warm, in this process: the same queries through service.findAttorneys.
const service = createService(createSiteSource(new FolderStore(site)));
const args = paths.map((p) => parseQuery(p.slice(p.indexOf('?') + 1)));
const ctx = { publicBaseUrl: 'http://127.0.0.1' };
for (const a of args) await service.findAttorneys(a, ctx);
const searchUs: Record<string, number> = {};
for (const radius of radii) {
  const mine = args.filter((a) => a.radius_miles === String(radius));
  let calls = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    for (const a of mine) {
      await service.findAttorneys(a, ctx);
      calls++;
    }
  }
  searchUs[String(radius)] = ((performance.now() - t0) * 1000) / calls;
}

process.stdout.write(
  `${JSON.stringify({ cached: cached.url, uncached: uncached.url, bare: bareUrl, paths, searchUs })}\n`,
);

const stop = (): void => {
  const stats = cached.answers?.stats();
  if (stats !== undefined)
    process.stderr.write(
      `answer cache: ${stats.hits} hits, ${stats.misses} misses, ${stats.entries} entries, ${stats.bytes} bytes, ${stats.evictions} evictions\n`,
    );
  void Promise.all([
    cached.close(500),
    uncached.close(500),
    new Promise<void>((done) => {
      bare.close(() => done());
      bare.closeAllConnections();
    }),
  ]).finally(() => {
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
