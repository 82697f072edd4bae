/** The fixed query points of the benchmarks: metro centres from data/metros.json plus offsets around them. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MetrosFile, type MetroT } from '../../generator/inputs/schema.ts';
import { destination } from '../../shim/search/geo.ts';

/** A named query point (decimal degrees). */
export interface QueryPoint {
  label: string;
  metro: string;
  lat: number;
  lng: number;
}

/** How far from the base points the distinct-point queries are scattered, in miles. */
export const JITTER_MILES = 2;
/** The radii every query measurement uses, in miles. */
export const RADII = [1, 15, 50] as const;
/** The `--radii` option of the query benchmarks' CLIs (RADII unless told). */
export const RADII_OPTION = {
  type: 'number',
  min: 0,
  split: ',',
  arg: 'list',
  description: 'search radii in miles, comma-separated',
  default: RADII,
} as const;
/** Metros of the warm-latency and throughput measurements (the densest). */
export const DENSE_METROS = ['new-york', 'los-angeles', 'chicago'] as const;

const METROS_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'metros.json');

/** The 27 measured metros. */
export function loadMetros(): MetroT[] {
  return MetrosFile.parse(JSON.parse(readFileSync(METROS_PATH, 'utf8'))).metros;
}

/** Centre of each metro plus four points `offsetMiles` north, east, south and west of it. */
export function metroPoints(metros: readonly MetroT[], offsetMiles: number): QueryPoint[] {
  const out: QueryPoint[] = [];
  for (const m of metros) {
    out.push({ label: `${m.slug} centre`, metro: m.slug, lat: m.center.lat, lng: m.center.lng });
    ['N', 'E', 'S', 'W'].forEach((dir, i) => {
      const [lat, lng] = destination(m.center.lat, m.center.lng, offsetMiles, (i * Math.PI) / 2);
      out.push({
        label: `${m.slug} ${offsetMiles} mi ${dir}`,
        metro: m.slug,
        lat: Number(lat.toFixed(5)),
        lng: Number(lng.toFixed(5)),
      });
    });
  }
  return out;
}

/** Points of the dense metros (New York, Los Angeles, Chicago): centre and four 5-mile offsets each. */
export function densePoints(): QueryPoint[] {
  const wanted = new Set<string>(DENSE_METROS);
  return metroPoints(
    loadMetros().filter((m) => wanted.has(m.slug)),
    5,
  );
}

/** Points of every metro: centre and four 10-mile offsets each (the cold-path query set). */
export function allMetroPoints(): QueryPoint[] {
  return metroPoints(loadMetros(), 10);
}

/** Raw REST/MCP arguments of a point query. */
export function pointArgs(p: { lat: number; lng: number }, radiusMiles: number, limit = 10): Record<string, string> {
  return { lat: String(p.lat), lng: String(p.lng), radius_miles: String(radiusMiles), limit: String(limit) };
}

/** The /v1/attorneys path of a point query. */
export function pointPath(p: { lat: number; lng: number }, radiusMiles: number, limit = 10): string {
  return `/v1/attorneys?${new URLSearchParams(pointArgs(p, radiusMiles, limit)).toString()}`;
}

/**
 * The n-th point of a deterministic scatter within `radiusMiles` of `p` (golden-ratio sequence), so every query of a
 * "distinct points" measurement asks about a point not asked before, and two targets given the same n get the same point.
 */
export function jittered(
  p: { lat: number; lng: number },
  radiusMiles: number,
  n: number,
): { lat: number; lng: number } {
  const frac = (x: number): number => x - Math.floor(x);
  const distance = radiusMiles * Math.sqrt(frac((n + 1) * 0.7548776662466927));
  const bearing = 2 * Math.PI * frac((n + 1) * 0.5698402909980532);
  const [lat, lng] = destination(p.lat, p.lng, distance, bearing);
  return { lat: Number(lat.toFixed(6)), lng: Number(lng.toFixed(6)) };
}
