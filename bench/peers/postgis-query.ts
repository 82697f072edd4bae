/**
 * Child process of the PostGIS peer: `node --import tsx bench/peers/postgis-query.ts --socket DIR --site LABEL=DIR:TABLE ...`.
 * For each site: the shim (warm cache) and the PostGIS service over the loaded table. First checks that both give the
 * same answers on a sample of points, then times both interleaved in every run (bench/lib/query.ts, distinct points as in
 * the scale section). Prints { check, latency } as one JSON line on stdout; progress on stderr.
 */
import { resolve } from 'node:path';
import pg from 'pg';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { densePoints, jittered, JITTER_MILES, pointArgs, RADII } from '../lib/points.ts';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { postgisService } from './postgis-service.ts';
import { answerDifference } from './postgis-sql.ts';
import { measureLatency, type LatencyTarget } from '../lib/query.ts';

const { values } = cliOrExit({
  name: 'postgis-query',
  usage: 'node bench/peers/postgis-query.ts --socket <dir> --site LABEL=SITE_DIR:TABLE [--site ...] [options]',
  description:
    'Child process of the PostGIS peer (started by bench/peers/postgis.ts): answers checked against the shim, warm latency of both, JSON on stdout.',
  options: {
    socket: { type: 'string', arg: 'dir', required: true, description: "the cluster's unix socket folder" },
    port: { type: 'integer', min: 1, max: 65535, description: 'port of the socket file', default: 5432 },
    user: { type: 'string', arg: 'u', description: 'database user', default: 'bench' },
    site: {
      type: 'string',
      arg: 'LABEL=SITE_DIR:TABLE',
      multiple: true,
      required: true,
      description: 'a site and the table holding its offices',
    },
    runs: { type: 'integer', min: 1, description: 'repetitions', default: 3 },
    passes: { type: 'integer', min: 1, description: 'passes over the points per run', default: 20 },
    'max-ms': { type: 'integer', min: 1, arg: 'ms', description: 'time limit per cell', default: 3000 },
    'cache-mib': { type: 'integer', min: 0, description: 'parsed-object cache, MiB', default: 64 },
    'check-per-point': {
      type: 'integer',
      min: 0,
      description: 'jittered points checked against the shim per dense point',
      default: 3,
    },
  },
});
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

const client = new pg.Client({ host: values.socket, port: values.port, user: values.user, database: 'postgres' });
await client.connect();
const cacheBytes = values['cache-mib'] * 1024 * 1024;
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
    const peer = postgisService(client, table, peerSource);
    // The check: the 15 dense points and a few scattered points around each, at every radius.
    for (const radius of RADII) {
      for (const [i, p] of densePoints().entries()) {
        const asked = [
          p,
          ...Array.from({ length: values['check-per-point'] }, (_, k) =>
            jittered(p, JITTER_MILES, 800_000_000 + i * 10 + k),
          ),
        ];
        for (const q of asked) {
          const args = pointArgs(q, radius);
          const [a, b] = [await shim.findAttorneys(args, CTX), await peer.findAttorneys(args, CTX)];
          check.queries++;
          const difference =
            a.covered !== b.covered ? `covered: shim ${a.covered}, postgis ${b.covered}` : answerDifference(a, b);
          if (difference !== null)
            check.mismatches.push({ site: label, radiusMiles: radius, lat: q.lat, lng: q.lng, difference });
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
    runs: values.runs,
    passes: values.passes,
    maxMsPerCell: values['max-ms'],
    onProgress: say,
  });
  process.stdout.write(`${JSON.stringify({ check, latency })}\n`);
} finally {
  await client.end();
}
