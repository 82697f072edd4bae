/** Which measured metro a point is in (docs/CONTRACT.md, Coverage): the point's H3 cell at the coverage resolution, looked up. Pure. */
import { latLngToCell } from 'h3-js';
import type { CoverageCellsT } from '../format/site-format.ts';

/** Slug of the first (nearest-centre) metro measuring the point's cell, or null when no metro covers it. Degrees in. */
export function metroForPoint(cells: CoverageCellsT, lat: number, lng: number): string | null {
  return cells.cells[latLngToCell(lat, lng, cells.res)]?.[0] ?? null;
}
