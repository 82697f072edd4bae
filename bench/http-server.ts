/**
 * Child process of the HTTP benchmark: `node --import tsx bench/http-server.ts --site DIR --radii 1,15,50`.
 * Starts the real local server (rate limit off) with a bench-wired `/static?<query>` path that answers the
 * precomputed body and headers of `/v1/attorneys?<query>` (the ceiling), and a second real server whose search is
 * the naive scan. Prints one JSON line {shim, naive, paths} on stdout when ready; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../shim/config.ts';
import { createService } from '../shim/core/service-impl.ts';
import { startServer, type RunningServer } from '../shim/server.ts';
import { createSiteSource } from '../shim/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { NaiveIndex, naiveService } from './naive.ts';
import { densePoints, pointPath } from './points.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const { values } = parseArgs({ options: { site: { type: 'string' }, radii: { type: 'string', default: '1,15,50' }, help: { type: 'boolean' } } });
if (values.help || values.site === undefined) {
  process.stdout.write('Usage: node --import tsx bench/http-server.ts --site DIR [--radii 1,15,50]\n(started by bench/run.ts)\n');
  process.exit(values.help ? 0 : 2);
}
const site = resolve(values.site);
const radii = values.radii.split(',').map(Number);
const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-log-'));
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_HOUR: '0', SITE_DIR: site, LOG_DIR: logDir });

const shim = await startServer(config);
const paths = radii.flatMap((r) => densePoints().map((p) => pointPath(p, r)));

// The ceiling: same process, same node:http server and socket handling, but a precomputed answer of the same bytes.
const statics = new Map<string, { headers: Record<string, string>; body: Buffer }>();
for (const path of paths) {
  const res = await fetch(shim.url + path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  statics.set(path.slice(path.indexOf('?')), { headers, body: Buffer.from(await res.arrayBuffer()) });
}
const real = shim.server.listeners('request')[0] as Listener;
shim.server.removeAllListeners('request');
shim.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
  const url = req.url ?? '';
  if (url.startsWith('/static?')) {
    const hit = statics.get(url.slice('/static'.length));
    req.resume();
    if (hit !== undefined) {
      res.writeHead(200, hit.headers);
      res.end(hit.body);
      return;
    }
  }
  real(req, res);
});

const source = createSiteSource(new FolderStore(site));
const index = await NaiveIndex.load(new FolderStore(site));
const naive: RunningServer = await startServer(config, { service: naiveService(createService(source), index, source) });

process.stdout.write(`${JSON.stringify({ shim: shim.url, naive: naive.url, paths, offices: index.size })}\n`);

const stop = (): void => {
  void Promise.all([shim.close(500), naive.close(500)]).finally(() => {
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
