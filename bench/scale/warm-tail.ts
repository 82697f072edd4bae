/**
 * `node --import tsx bench/scale/warm-tail.ts --site DIR --site DIR ... [--runs N] [--cache-mib N]`: the warm tail of
 * several sites side by side (e.g. copies of one site with other cell-tree parameters, bench/cold/tree-variant.ts).
 * The distinct-point queries of bench/scale/scale-query.ts, shim only, the sites taking turns at every radius of every
 * run, each timed query with the CPU time the process spent on it (every thread: a figure the machine's other load
 * does not inflate as it does wall time) and the objects it read, by kind. Each run is a fresh set of site sources, so
 * every run's queries find the same cache state. Prints one JSON line per site and radius on stdout.
 */
import { resolve } from 'node:path';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { kindOf, readsByKind } from '../cold/cold.ts';
import { CountingStore } from '../lib/counting-store.ts';
import { densePoints, JITTER_MILES, jittered, pointArgs, RADII_OPTION } from '../lib/points.ts';
import { quantile, spread, type Spread } from '../lib/stats.ts';

const { values } = cliOrExit({
  name: 'warm-tail',
  usage: 'node bench/scale/warm-tail.ts --site <dir> [--site <dir> ...] [options]',
  description:
    'Warm distinct-point latency of several sites side by side (interleaved), with CPU time and objects read per query; JSON lines on stdout.',
  options: {
    site: { type: 'string', arg: 'dir', multiple: true, required: true, description: 'a generated site' },
    runs: { type: 'integer', min: 1, description: 'repetitions, each on fresh site sources', default: 3 },
    passes: { type: 'integer', min: 1, description: 'timed passes over the points per run', default: 20 },
    radii: RADII_OPTION,
    'cache-mib': { type: 'integer', min: 0, description: 'parsed-object cache, MiB', default: 192 },
  },
});

const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };
const points = densePoints();

/** One site's figures at one radius, each a Spread over the runs. */
interface Cell {
  site: string;
  radiusMiles: number;
  p50Ms: number[];
  p99Ms: number[];
  cpuP99Ms: number[];
  /** Objects read in the run's timed queries, by kind (cell records, cell block, ...), and their bytes. */
  reads: Record<string, { objects: number; bytes: number }>[];
  /** The 99th percentile over the run's queries of the record-chunk bytes one query read. */
  recordBytesP99: number[];
  /** Wall p99 of the run's queries that read no object (all from the cache) and of those that read one or more. */
  cachedP99Ms: number[];
  readingP99Ms: number[];
  /** Queries of the run that read at least one object from the store. */
  reading: number[];
}

const cells = new Map<string, Cell>();
for (let run = 0; run < values.runs; run++) {
  const sites = values.site.map((dir) => {
    const store = new CountingStore(new FolderStore(resolve(dir)));
    const source = createSiteSource(store, { cacheBytes: values['cache-mib'] * 1024 * 1024 });
    return { dir, store, service: createService(source) };
  });
  // The sites take turns in an order rotated every run, so none is always first after another's garbage.
  const order = sites.map((_, j) => sites[(j + run) % sites.length] as (typeof sites)[number]);
  for (const radius of values.radii) {
    for (const s of order) {
      // The warm-up of bench/lib/query.ts: each base point and three scattered points the timed phase never asks.
      for (const [i, p] of points.entries()) {
        await s.service.findAttorneys(pointArgs(p, radius), CTX);
        for (let k = 0; k < 3; k++)
          await s.service.findAttorneys(pointArgs(jittered(p, JITTER_MILES, 900_000_000 + i * 3 + k), radius), CTX);
      }
      s.store.reset();
      const wall: number[] = [];
      const cpu: number[] = [];
      const recordBytes: number[] = [];
      const readAny: boolean[] = [];
      let n = run * 1_000_000;
      for (let pass = 0; pass < values.passes; pass++) {
        for (const p of points) {
          const args = pointArgs(jittered(p, JITTER_MILES, n++), radius);
          const readsBefore = s.store.reads.length;
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await s.service.findAttorneys(args, CTX);
          wall.push(performance.now() - t0);
          const c = process.cpuUsage(c0);
          cpu.push((c.user + c.system) / 1000);
          const read = s.store.reads.slice(readsBefore).filter((r) => kindOf(r.key) === 'cell records');
          recordBytes.push(read.reduce((sum, r) => sum + r.bytes, 0));
          readAny.push(s.store.reads.length > readsBefore);
        }
      }
      const key = `${s.dir}\u0000${radius}`;
      const cell = cells.get(key) ?? {
        site: s.dir,
        radiusMiles: radius,
        p50Ms: [],
        p99Ms: [],
        cpuP99Ms: [],
        reads: [],
        recordBytesP99: [],
        cachedP99Ms: [],
        readingP99Ms: [],
        reading: [],
      };
      cells.set(key, cell);
      cell.p50Ms.push(quantile(wall, 0.5));
      cell.p99Ms.push(quantile(wall, 0.99));
      cell.cpuP99Ms.push(quantile(cpu, 0.99));
      cell.reads.push(readsByKind(s.store.reads));
      cell.recordBytesP99.push(quantile(recordBytes, 0.99));
      const cached = wall.filter((_, i) => readAny[i] !== true);
      const reading = wall.filter((_, i) => readAny[i] === true);
      if (cached.length > 0) cell.cachedP99Ms.push(quantile(cached, 0.99));
      if (reading.length > 0) cell.readingP99Ms.push(quantile(reading, 0.99));
      cell.reading.push(reading.length);
      process.stderr.write(
        `warm-tail run ${run + 1}/${values.runs} r=${radius} mi ${s.dir}: p50 ${quantile(wall, 0.5).toFixed(3)} ms, p99 ${quantile(wall, 0.99).toFixed(2)} ms, CPU p99 ${quantile(cpu, 0.99).toFixed(2)} ms, ${s.store.reads.length} reads by ${reading.length} queries (p99 ${reading.length > 0 ? quantile(reading, 0.99).toFixed(2) : '-'} ms; the others ${cached.length > 0 ? quantile(cached, 0.99).toFixed(2) : '-'} ms)\n`,
      );
    }
  }
}

const summary = (xs: number[]): Spread => spread(xs);
for (const c of cells.values()) {
  process.stdout.write(
    `${JSON.stringify({
      site: c.site,
      radiusMiles: c.radiusMiles,
      queriesPerRun: values.passes * points.length,
      p50Ms: summary(c.p50Ms),
      p99Ms: summary(c.p99Ms),
      cpuP99Ms: summary(c.cpuP99Ms),
      recordBytesP99: summary(c.recordBytesP99),
      ...(c.cachedP99Ms.length > 0 ? { cachedP99Ms: summary(c.cachedP99Ms) } : {}),
      ...(c.readingP99Ms.length > 0 ? { readingP99Ms: summary(c.readingP99Ms) } : {}),
      readingQueries: summary(c.reading),
      readsPerRun: c.reads,
    })}\n`,
  );
}
