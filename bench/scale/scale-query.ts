/**
 * Child process of the scale benchmark: `node --import tsx bench/scale/scale-query.ts --of shim|naive --small DIR --large DIR [--runs N]`.
 * Warm in-process latency of the shim, or of the naive baseline, over both sites, interleaved in one run so the
 * ratios large/small are paired. One of the two per process: the naive baseline holds every office of both sites in
 * its heap (gigabytes at 1,000,000 offices), and a shim sharing that heap paid its collections (at 50 mi a p99 of
 * 6.1 to 21.8 ms where it alone took 2.3 to 3.8 ms). Prints the LatencyResult[] as one JSON line on stdout.
 */
import { resolve } from 'node:path';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { RereadStore } from '../lib/counting-store.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { NaiveIndex, naiveService } from '../lib/naive.ts';
import { densePoints, JITTER_MILES, RADII_OPTION } from '../lib/points.ts';
import { measureLatency, type LatencyTarget } from '../lib/query.ts';

const { values } = cliOrExit({
  name: 'scale-query',
  usage: 'node bench/scale/scale-query.ts --small <dir> --large <dir> [options]',
  description:
    'Child process of the scale benchmark (started by bench/scale/scale.ts): warm latency of the shim and the naive baseline on two sites, JSON on stdout.',
  options: {
    of: { type: 'enum', values: ['shim', 'naive'], required: true, description: 'what this process measures' },
    small: { type: 'string', arg: 'dir', required: true, description: 'the sample site' },
    large: { type: 'string', arg: 'dir', required: true, description: 'the scale site' },
    runs: { type: 'integer', min: 1, description: 'repetitions', default: 3 },
    passes: { type: 'integer', min: 1, description: 'passes over the points per run', default: 20 },
    'max-ms': { type: 'integer', min: 1, arg: 'ms', description: 'time limit per cell', default: 3000 },
    radii: RADII_OPTION,
    'cache-mib': { type: 'integer', min: 0, description: 'parsed-object cache, MiB', default: 64 },
  },
});
const say = (line: string): void => void process.stderr.write(`${line}\n`);

async function targets(label: string, dir: string): Promise<LatencyTarget[]> {
  const site = resolve(dir);
  const cacheBytes = values['cache-mib'] * 1024 * 1024;
  if (values.of === 'shim') {
    const store = new RereadStore(new FolderStore(site));
    const source = createSiteSource(store, { cacheBytes });
    return [
      {
        name: `shim ${label}`,
        service: createService(source),
        storeReads: () => source.stats().storeReads,
        storeRereads: () => store.rereads,
        jitterMiles: JITTER_MILES,
      },
    ];
  }
  const naiveSource = createSiteSource(new FolderStore(site), { cacheBytes });
  const t0 = performance.now();
  const index = await NaiveIndex.load(new FolderStore(site), (done, total) =>
    say(`naive ${label}: loaded ${done}/${total} offices`),
  );
  say(`naive ${label}: ${index.size} offices loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return [{ name: `naive ${label}`, service: naiveService(index, naiveSource), jitterMiles: JITTER_MILES }];
}

const small = await targets('small', values.small);
const large = await targets('large', values.large);
const results = await measureLatency([...small, ...large], {
  points: densePoints(),
  radii: values.radii,
  runs: values.runs,
  passes: values.passes,
  maxMsPerCell: values['max-ms'],
  onProgress: say,
});
process.stdout.write(`${JSON.stringify(results)}\n`);
