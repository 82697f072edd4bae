/**
 * The server child of the loopback benchmarks (sections 2, 10 and 12):
 * `node bench/latency/servers.ts --site DIR --with shim,bare,... [--radii 1,15,50] [--path P ...] [--search-timing]`.
 * In one process, the servers asked for with --with:
 *   shim      the real local server (`npm start`) with its default answer cache, rate limit off;
 *   uncached  the same with ANSWER_CACHE_MIB=0 (every request through the app and a search);
 *   static    the same server code whose service answers each dense-point query with its stored answer (no search);
 *   naive     the same server code over the naive full-scan search (bench/lib/naive.ts);
 *   bare      node:http answering each path with the exact body bytes the shim sends for it (content-type and length
 *             only); any other /v1/attorneys query with the first /v1/attorneys path's bytes; /__cpu with this process's
 *             CPU time, which the parent reads before and after each timed run (every server lives here);
 *   hono      a Hono app on @hono/node-server answering each path name with the bytes of its first path (the
 *             framework's own cost: for a search at one point and /v1/coverage, exactly what bare sends).
 * The paths are the dense points at each radius (bench/lib/points.ts) and every --path. With --search-timing, the
 * search alone (service.findAttorneys, warm, in-process) is timed per radius. Prints one JSON line ServersReady on
 * stdout when ready; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../shim/edge/env.ts';
import type { AttorneysResponseT } from '../../shim/contract/schemas.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import type { Service } from '../../shim/answer/service.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { parseQuery } from '../../shim/http/query.ts';
import { isSearchRequest, parseSearch, type SearchRequest } from '../../shim/answer/search-request.ts';
import { startServer, type RunningServer } from '../../shim/server.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { NaiveIndex, naiveService } from '../lib/naive.ts';
import { densePoints, pointPath } from '../lib/points.ts';
import { CPU_PATH, SERVER_NAMES, type ServerName, type ServersReady } from './turns.ts';
import { benchServerEnv } from '../lib/server-env.ts';

const { values } = cliOrExit({
  name: 'bench servers',
  usage: 'node bench/latency/servers.ts --site <dir> --with <list> [options]',
  description: 'Server child of the loopback benchmarks (started by bench/latency/http.ts, hotpath.ts, pipeline.ts).',
  options: {
    site: { type: 'string', arg: 'dir', required: true, description: 'generated site to serve' },
    with: {
      type: 'enum',
      values: SERVER_NAMES,
      split: ',',
      arg: 'list',
      description: `servers to start, comma-separated: ${SERVER_NAMES.join(',')}`,
    },
    radii: {
      type: 'number',
      min: 0,
      split: ',',
      arg: 'list',
      description: 'radii of the dense-point paths in miles, comma-separated (none: no dense-point paths)',
      default: [],
    },
    path: { type: 'string', multiple: true, arg: 'path', description: 'a further path to prime (repeatable)' },
    'search-timing': { type: 'boolean', description: 'time the search alone per radius' },
  },
});
const site = resolve(values.site);
const wanted = new Set<ServerName>(values.with);
const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-servers-'));
const env = benchServerEnv(site, logDir);
const config = loadConfig(env);
const dense = values.radii.flatMap((r) => densePoints().map((p) => pointPath(p, r)));
const paths = [...dense, ...values.path];
const running: RunningServer[] = [];
const closers: (() => Promise<void>)[] = [];
const urls: Partial<Record<ServerName, string>> = {};

// The real server: measured when asked for, and always the source of the bytes the other servers send.
const shim = await startServer(config);
running.push(shim);
if (wanted.has('shim')) urls.shim = shim.url;
const bodies = new Map<string, Buffer>();
for (const path of paths) {
  const res = await fetch(shim.url + path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  bodies.set(path, Buffer.from(await res.arrayBuffer()));
}

if (wanted.has('uncached')) {
  const uncached = await startServer(loadConfig({ ...env, ANSWER_CACHE_MIB: '0' }));
  running.push(uncached);
  urls.uncached = uncached.url;
}

if (wanted.has('static')) {
  // The ceiling: the same server code (routing, rate-limit headers, CORS, request log, serialisation, node:http)
  // whose service answers each query with the parsed body of that query's real answer: a static document of the same
  // size, with no search. The ratio is therefore the cost of the search itself.
  const statics = new Map<string, AttorneysResponseT>();
  for (const path of dense)
    statics.set(
      canonical(parseQuery(path.slice(path.indexOf('?') + 1))),
      JSON.parse((bodies.get(path) as Buffer).toString('utf8')) as AttorneysResponseT,
    );
  const real = createService(createSiteSource(new FolderStore(site)));
  const staticService: Service = {
    ...real,
    async findAttorneys(args) {
      const hit = statics.get(canonical(args));
      if (hit === undefined) throw new Error(`no static answer for ${canonical(args)}`);
      return hit;
    },
  };
  const fixed = await startServer(config, { service: staticService });
  running.push(fixed);
  urls.static = fixed.url;
}

let offices: number | null = null;
if (wanted.has('naive')) {
  const index = await NaiveIndex.load(new FolderStore(site));
  offices = index.size;
  const naive = await startServer(config, { service: naiveService(index, createSiteSource(new FolderStore(site))) });
  running.push(naive);
  urls.naive = naive.url;
}

/** The normalised query of the arguments the service gets (the parsed request, or raw arguments). */
function canonical(q: SearchRequest | Record<string, unknown>): string {
  const parsed = isSearchRequest(q) ? q : parseSearch(q);
  return parsed.ok ? parsed.key : JSON.stringify(parsed.sent);
}

const anyAttorneys = paths.find((p) => p.startsWith('/v1/attorneys?'));
/** What bare and hono answer a path with: its primed bytes, else the first search's bytes for any search; else null. */
function bytesFor(url: string): Buffer | null {
  const known = bodies.get(url);
  if (known !== undefined) return known;
  return url.startsWith('/v1/attorneys?') && anyAttorneys !== undefined ? (bodies.get(anyAttorneys) ?? null) : null;
}
const JSON_TYPE = 'application/json; charset=utf-8';

if (wanted.has('bare')) {
  const bare = createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    const body = url === CPU_PATH ? Buffer.from(JSON.stringify(process.cpuUsage())) : bytesFor(url);
    if (body === null) {
      res.writeHead(404, { 'content-length': '0' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': String(body.byteLength) });
    res.end(body);
  });
  await new Promise<void>((done) => bare.listen(0, '127.0.0.1', () => done()));
  urls.bare = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((done) => {
        bare.close(() => done());
        bare.closeAllConnections();
      }),
  );
}

if (wanted.has('hono')) {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const hono = new Hono();
  // One route per path name, answering the bytes of its first primed path: no lookup beyond the framework's own.
  for (const pathname of new Set(paths.map((p) => p.split('?')[0] ?? p))) {
    const first = paths.find((p) => (p.split('?')[0] ?? p) === pathname) ?? pathname;
    const body = new Uint8Array(bodies.get(first) as Buffer);
    hono.get(pathname, (c) => c.body(body, 200, { 'content-type': JSON_TYPE }));
  }
  const server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
  });
  urls.hono = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((done) => server.close(() => done())));
}

// The search alone, warm, in this process: the dense-point queries through service.findAttorneys.
const searchUs: Record<string, number> = {};
if (values['search-timing'] === true) {
  const service = createService(createSiteSource(new FolderStore(site)));
  const args = dense.map((p) => parseQuery(p.slice(p.indexOf('?') + 1)));
  const ctx = { publicBaseUrl: 'http://127.0.0.1' };
  for (const a of args) await service.findAttorneys(a, ctx);
  for (const radius of values.radii) {
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
}

const ready: ServersReady = { urls, paths, searchUs, offices };
process.stdout.write(`${JSON.stringify(ready)}\n`);

const stop = (): void => {
  const stats = shim.answers?.stats();
  if (stats !== undefined && wanted.has('shim'))
    process.stderr.write(
      `answer cache: ${stats.hits} hits, ${stats.misses} misses, ${stats.entries} entries, ${stats.bytes} bytes, ${stats.evictions} evictions\n`,
    );
  void Promise.all([...running.map((s) => s.close(500)), ...closers.map((c) => c())]).finally(() => {
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
