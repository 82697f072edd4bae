/**
 * Child process of the scale benchmark: `node --import tsx bench/scale/scale-query.ts --small DIR --large DIR [--runs N]`.
 * Warm in-process latency of the shim and of the naive baseline over both sites, interleaved in one run so the
 * ratios large/small are paired. Prints the LatencyResult[] as one JSON line on stdout.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createService } from '../../shim/core/service-impl.ts';
import { RereadStore } from '../cold/counting-store.ts';
import { createSiteSource } from '../../shim/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { NaiveIndex, naiveService } from '../peers/naive.ts';
import { densePoints, RADII } from '../lib/points.ts';
import { measureLatency, type LatencyTarget } from '../latency/query.ts';
import { JITTER_MILES } from '../lib/report.ts';

const { values } = parseArgs({
  options: {
    small: { type: 'string' },
    large: { type: 'string' },
    runs: { type: 'string', default: '3' },
    passes: { type: 'string', default: '20' },
    'max-ms': { type: 'string', default: '3000' },
    radii: { type: 'string', default: RADII.join(',') },
    'cache-mib': { type: 'string', default: '64' },
    help: { type: 'boolean' },
  },
});
if (values.help || values.small === undefined || values.large === undefined) {
  process.stdout.write('Usage: node --import tsx bench/scale/scale-query.ts --small DIR --large DIR [--runs N] [--passes N] [--max-ms MS] [--radii 1,15,50] [--cache-mib N]\n');
  process.exit(values.help ? 0 : 2);
}
const say = (line: string): void => void process.stderr.write(`${line}\n`);

async function targets(label: string, dir: string): Promise<LatencyTarget[]> {
  const site = resolve(dir);
  const cacheBytes = Number(values['cache-mib']) * 1024 * 1024;
  const store = new RereadStore(new FolderStore(site));
  const source = createSiteSource(store, { cacheBytes });
  const naiveSource = createSiteSource(new FolderStore(site), { cacheBytes });
  const t0 = performance.now();
  const index = await NaiveIndex.load(new FolderStore(site), (done, total) => say(`naive ${label}: loaded ${done}/${total} offices`));
  say(`naive ${label}: ${index.size} offices loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return [
    { name: `shim ${label}`, service: createService(source), storeReads: () => source.stats().storeReads, storeRereads: () => store.rereads, jitterMiles: JITTER_MILES },
    { name: `naive ${label}`, service: naiveService(createService(naiveSource), index, naiveSource), jitterMiles: JITTER_MILES },
  ];
}

const small = await targets('small', values.small);
const large = await targets('large', values.large);
const results = await measureLatency([...small, ...large], {
  points: densePoints(),
  radii: values.radii.split(',').map(Number),
  runs: Number(values.runs),
  passes: Number(values.passes),
  maxMsPerCell: Number(values['max-ms']),
  onProgress: say,
});
process.stdout.write(`${JSON.stringify(results)}\n`);
