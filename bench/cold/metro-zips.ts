/** The ZIP of each measured metro nearest its centre, from a site's own gazetteer: the cold path's ZIP queries. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { haversineMiles } from '../../shim/search/geo.ts';
import { loadMetros } from '../lib/points.ts';

/** For each metro in metros.json order, the ZIP (a Census ZCTA, not a PO box) whose point is nearest its centre; none for a site without ZIP documents. */
export function metroZips(siteDir: string): { metro: string; zip: string }[] {
  const pointer = JSON.parse(readFileSync(join(siteDir, 'current.json'), 'utf8')) as { version: string };
  const dir = join(siteDir, 'v', pointer.version, 'gazetteer', 'zip');
  if (!existsSync(dir)) return [];
  const zips: [string, number, number][] = [];
  for (const name of readdirSync(dir).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
      zips: Record<string, [number, number, string, string, string]>;
    };
    for (const [zip, [lat, lng, , , source]] of Object.entries(doc.zips))
      if (source !== 'geonames_postal') zips.push([zip, lat, lng]);
  }
  return loadMetros().map((m) => {
    let best: [string, number] = ['', Infinity];
    for (const [zip, lat, lng] of zips) {
      const d = haversineMiles(m.center.lat, m.center.lng, lat, lng);
      if (d < best[1]) best = [zip, d];
    }
    return { metro: m.slug, zip: best[0] };
  });
}
