/**
 * Child process of the HTTP benchmark: `node --import tsx bench/latency/http-server.ts --site DIR --radii 1,15,50`.
 * Starts the real local server (rate limit off), a second instance of the same server whose service returns the stored
 * answer of each query without searching (the static-document ceiling), and a third whose search is the naive scan. Prints one JSON line {shim, naive, paths} on stdout when ready; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../shim/config.ts';
import type { AttorneysResponseT } from '../../shim/core/schemas.ts';
import { createService } from '../../shim/core/service-impl.ts';
import type { Service } from '../../shim/core/service.ts';
import { isSearchRequest, parseSearch, type SearchRequest } from '../../shim/core/search-request.ts';
import { parseQuery } from '../../shim/http/query.ts';
import { startServer, type RunningServer } from '../../shim/server.ts';
import { createSiteSource } from '../../shim/core/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { NaiveIndex, naiveService } from '../peers/naive.ts';
import { densePoints, pointPath } from '../lib/points.ts';
import { cliOrExit } from '../../shim/cli-run.ts';

const { values } = cliOrExit({
  name: 'http-server',
  usage: 'node bench/latency/http-server.ts --site <dir> [--radii 1,15,50]',
  description: 'Child process of the HTTP benchmark (started by bench/latency/http.ts).',
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
const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-log-'));
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_HOUR: '0', SITE_DIR: site, LOG_DIR: logDir });

const shim = await startServer(config);
const paths = radii.flatMap((r) => densePoints().map((p) => pointPath(p, r)));

// The ceiling: the same server code (routing, rate-limit headers, CORS, request log, serialisation, node:http) in a
// second instance whose service answers each query with the stored body of that query's real answer: a static
// document of the same size, with no search. The ratio is therefore the cost of the search itself.
const statics = new Map<string, AttorneysResponseT>();
for (const path of paths) {
  const res = await fetch(shim.url + path);
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  statics.set(canonical(parseQuery(path.slice(path.indexOf('?') + 1))), (await res.json()) as AttorneysResponseT);
}
/** The normalised query of the arguments the service gets (the parsed request, or raw arguments). */
function canonical(q: SearchRequest | Record<string, unknown>): string {
  const parsed = isSearchRequest(q) ? q : parseSearch(q);
  return parsed.ok ? parsed.key : JSON.stringify(parsed.sent);
}
const realService = createService(createSiteSource(new FolderStore(site)));
const staticService: Service = {
  ...realService,
  async findAttorneys(args) {
    const hit = statics.get(canonical(args));
    if (hit === undefined) throw new Error(`no static answer for ${canonical(args)}`);
    return hit;
  },
};
const fixed: RunningServer = await startServer(config, { service: staticService });

const source = createSiteSource(new FolderStore(site));
const index = await NaiveIndex.load(new FolderStore(site));
const naive: RunningServer = await startServer(config, { service: naiveService(index, source) });

process.stdout.write(
  `${JSON.stringify({ shim: shim.url, naive: naive.url, static: fixed.url, paths, offices: index.size })}\n`,
);

const stop = (): void => {
  void Promise.all([shim.close(500), naive.close(500), fixed.close(500)]).finally(() => {
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
