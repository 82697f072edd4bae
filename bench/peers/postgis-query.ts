/**
 * Child process of the PostGIS peer: `node --import tsx bench/peers/postgis-query.ts --socket DIR --site LABEL=DIR:TABLE ...`.
 * For each site: the shim (warm cache) and the PostGIS service over the loaded table. First checks that both give the
 * same answers on a sample of points, then times both interleaved in every run (bench/query.ts, distinct points as in
 * the scale section). Prints { check, latency } as one JSON line on stdout; progress on stderr.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createService } from '../../shim/core/service-impl.ts';
import { createSiteSource } from '../../shim/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { densePoints, jittered, pointArgs, RADII } from '../lib/points.ts';
import { postgisService } from './postgis-service.ts';
import { answerDifference } from './postgis-sql.ts';
import { measureLatency, type LatencyTarget } from '../latency/query.ts';
import { JITTER_MILES } from '../lib/report.ts';

const HELP = `Usage: node --import tsx bench/peers/postgis-query.ts --socket DIR [--port N] [--user U] --site LABEL=SITE_DIR:TABLE [--site ...]
  [--runs N] [--passes N] [--max-ms MS] [--cache-mib N] [--check-per-point N]`;

const { values } = parseArgs({
  options: {
    socket: { type: 'string' },
    port: { type: 'string', default: '5432' },
    user: { type: 'string', default: 'bench' },
    site: { type: 'string', multiple: true },
    runs: { type: 'string', default: '3' },
    passes: { type: 'string', default: '20' },
    'max-ms': { type: 'string', default: '3000' },
    'cache-mib': { type: 'string', default: '64' },
    'check-per-point': { type: 'string', default: '3' },
    help: { type: 'boolean' },
  },
});
if (values.help || values.socket === undefined || values.site === undefined) {
  process.stdout.write(`${HELP}\n`);
  process.exit(values.help ? 0 : 2);
}
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** One mismatch between the shim and PostGIS. */
interface Mismatch {
  site: string;
  radiusMiles: number;
  lat: number;
  lng: number;
  difference: string;
}

const client = new pg.Client({ host: values.socket, port: Number(values.port), user: values.user, database: 'postgres' });
await client.connect();
const cacheBytes = Number(values['cache-mib']) * 1024 * 1024;
const targets: LatencyTarget[] = [];
const check = { queries: 0, mismatches: [] as Mismatch[] };
try {
  for (const spec of values.site) {
    const m = /^([^=]+)=(.+):([a-z0-9_]+)$/.exec(spec);
    if (m === null) throw new Error(`--site takes LABEL=SITE_DIR:TABLE, got ${JSON.stringify(spec)}`);
    const [, label = '', dir = '', table = ''] = m;
    const source = createSiteSource(new FolderStore(resolve(dir)), { cacheBytes });
    const shim = createService(source);
    const peerSource = createSiteSource(new FolderStore(resolve(dir)));
    const peer = postgisService(createService(peerSource), client, table, peerSource);
    // The check: the 15 dense points and a few scattered points around each, at every radius.
    for (const radius of RADII) {
      for (const [i, p] of densePoints().entries()) {
        const asked = [p, ...Array.from({ length: Number(values['check-per-point']) }, (_, k) => jittered(p, JITTER_MILES, 800_000_000 + i * 10 + k))];
        for (const q of asked) {
          const args = pointArgs(q, radius);
          const [a, b] = [await shim.findAttorneys(args, CTX), await peer.findAttorneys(args, CTX)];
          check.queries++;
          const difference = a.covered !== b.covered ? `covered: shim ${a.covered}, postgis ${b.covered}` : answerDifference(a, b);
          if (difference !== null) check.mismatches.push({ site: label, radiusMiles: radius, lat: q.lat, lng: q.lng, difference });
        }
      }
      say(`check ${label} ${radius} mi: ${check.queries} queries so far, ${check.mismatches.length} mismatches`);
    }
    targets.push(
      { name: `shim ${label}`, service: shim, storeReads: () => source.stats().storeReads, jitterMiles: JITTER_MILES },
      { name: `postgis ${label}`, service: peer, jitterMiles: JITTER_MILES },
    );
  }
  const latency = await measureLatency(targets, {
    points: densePoints(),
    radii: RADII,
    runs: Number(values.runs),
    passes: Number(values.passes),
    maxMsPerCell: Number(values['max-ms']),
    onProgress: say,
  });
  process.stdout.write(`${JSON.stringify({ check, latency })}\n`);
} finally {
  await client.end();
}
