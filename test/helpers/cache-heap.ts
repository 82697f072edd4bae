/**
 * Run with `node --expose-gc`: searches a site over a grid of points with a parsed-object cache of `<mib>` MiB, and
 * prints how much memory the process holds after a full collection (heap plus array buffers, where the typed-array
 * search columns live) compared with before, and what the cache says it holds.
 * Usage: node --expose-gc test/helpers/cache-heap.ts <site> <mib>
 */
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';

const [site = '', mib = '2'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const held = (): number => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const source = createSiteSource(new FolderStore(site), { cacheBytes: Number(mib) * 1024 * 1024 });
const service = createService(source);
await service.currentVersion();
const before = held();
let answered = 0;
for (let lat = 25; lat <= 49; lat += 0.5) {
  for (let lng = -124; lng <= -67; lng += 0.5) {
    try {
      await service.findAttorneys(
        { lat: String(lat), lng: String(lng), radius_miles: '50', limit: '25' },
        { publicBaseUrl: 'https://x.example' },
      );
      answered++;
    } catch {
      // outside coverage or a bad point: only the cache matters here
    }
  }
}
const after = held();
process.stdout.write(
  `${JSON.stringify({ grownBytes: after - before, chargedBytes: source.stats().cachedBytes, answered })}\n`,
);
