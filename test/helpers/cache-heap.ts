/**
 * Run with `node --expose-gc`: searches a site over a grid of points with a parsed-object cache of `<mib>` MiB, and
 * prints how much memory the process holds after a full collection (heap plus array buffers, where the typed-array
 * search columns live) compared with before, and what the cache says it holds.
 * Usage: node --expose-gc test/helpers/cache-heap.ts <site> <mib>
 */
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { heldAfterGc } from './heap-held.ts';

const [site = '', mib = '2'] = process.argv.slice(2);
const held = heldAfterGc;
/** Search the grid with a fresh service whose cache holds `bytes`; returns its source and how many points it answered. */
async function searchGrid(bytes: number): Promise<{ source: ReturnType<typeof createSiteSource>; answered: number }> {
  const source = createSiteSource(new FolderStore(site), { cacheBytes: bytes });
  const service = createService(source);
  await service.currentVersion();
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
  return { source, answered };
}

// A first pass with a 1 MiB cache, then dropped, compiles and optimises every code path before the baseline: without
// it the baseline's compiled code and feedback varied by +-2 MB between runs, a quarter of what the cache holds.
await searchGrid(1024 * 1024);
const before = held();
const { source, answered } = await searchGrid(Number(mib) * 1024 * 1024);
const after = held();
process.stdout.write(
  `${JSON.stringify({ grownBytes: after - before, chargedBytes: source.stats().cachedBytes, answered })}\n`,
);
