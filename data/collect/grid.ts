/** The weekly grid: H3 cells at GRID_RESOLUTION over the populated part of each metro's measured area. */
import { cellToLatLng, latLngToCell } from 'h3-js';
import type { MetroT } from '../../generator/inputs/schema.ts';
import { zctaPoints } from '../../generator/model/coverage.ts';
import { haversineMiles } from '../../shim/search/geo.ts';

/**
 * Resolution 6 (about 14 sq mi per cell, 2.3 mi edge): about 3,170 points over the 27 metros, near the sample's scale.
 * Changing it changes every point id and makes shares incomparable with earlier weeks.
 */
export const GRID_RESOLUTION = 6;

/** One grid point: the centre of an H3 cell, searched from with every measured query. */
export interface GridPoint {
  metro: string;
  /** `<metro slug>-<H3 cell>`: the same cell gives the same id every week. */
  pointId: string;
  cell: string;
  lat: number;
  lng: number;
}

const round5 = (x: number): number => Math.round(x * 1e5) / 1e5;

/**
 * Grid points of `metros`, in metro order then by cell: every resolution-6 cell that holds a Census ZCTA internal point
 * within the metro's radius and whose centre is within that radius. Those cells are populated land inside the metro's
 * measured area (whose resolution-5 parent holds the same ZIP centroid), so the grid only depends on the ZIP gazetteer
 * and metros.json and is stable week to week.
 */
export function gridPoints(metros: readonly MetroT[], points: readonly [number, number][] = zctaPoints()): GridPoint[] {
  const out: GridPoint[] = [];
  for (const m of metros) {
    const cells = new Set<string>();
    for (const [lat, lng] of points) {
      if (haversineMiles(m.center.lat, m.center.lng, lat, lng) <= m.radius_miles)
        cells.add(latLngToCell(lat, lng, GRID_RESOLUTION));
    }
    for (const cell of [...cells].sort()) {
      const [lat, lng] = cellToLatLng(cell);
      if (haversineMiles(m.center.lat, m.center.lng, lat, lng) > m.radius_miles) continue;
      out.push({ metro: m.slug, pointId: `${m.slug}-${cell}`, cell, lat: round5(lat), lng: round5(lng) });
    }
  }
  return out;
}
