/**
 * Counting units of the cell tree (shim/format/cell-format.ts): a firm's offices split where they lie far apart. Two
 * offices of one firm share a unit when a chain of that firm's offices links them with steps of at most `miles`
 * (single linkage). Any two offices within R of one point are at most 2R apart, so for 2R < miles a query circle holds
 * offices of at most one unit per firm, and counting distinct units within it counts distinct firms.
 */
import { EARTH_RADIUS_MILES } from '../../shim/contract/constants.ts';
import { haversineMiles } from '../../shim/search/geo.ts';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const RAD = Math.PI / 180;

/**
 * The unit number of each office (offices given by firm_id, lat and lng, in tree order) and the number of units.
 * Units are numbered in the order of their first office, so the units of one area get nearby numbers and the
 * differences in a shared list stay small. `miles` null: whole firms numbered by the rank of their firm_id (schema 2).
 */
export function unitsOf(
  firmAt: readonly string[],
  latAt: Float64Array,
  lngAt: Float64Array,
  miles: number | null,
): { unitAt: Int32Array; units: number } {
  const count = firmAt.length;
  const firmIds = [...new Set(firmAt)].sort(cmp);
  const firmNo = new Map(firmIds.map((id, i) => [id, i]));
  const firmOf = Int32Array.from(firmAt, (id) => firmNo.get(id) ?? 0);
  if (miles === null) return { unitAt: firmOf, units: firmIds.length };

  // Each firm's positions, ascending, as one array sliced by firm.
  const firstOf = new Int32Array(firmIds.length + 1);
  for (let p = 0; p < count; p++)
    firstOf[(firmOf[p] as number) + 1] = (firstOf[(firmOf[p] as number) + 1] as number) + 1;
  for (let f = 0; f < firmIds.length; f++) firstOf[f + 1] = (firstOf[f + 1] as number) + (firstOf[f] as number);
  const positions = new Int32Array(count);
  const fill = firstOf.slice(0, firmIds.length);
  for (let p = 0; p < count; p++) {
    const f = firmOf[p] as number;
    positions[fill[f] as number] = p;
    fill[f] = (fill[f] as number) + 1;
  }

  // Union-find over positions; each root ends as the unit's first position.
  const root = Int32Array.from({ length: count }, (_, p) => p);
  const find = (p: number): number => {
    while (root[p] !== p) {
      const up = root[root[p] as number] as number;
      root[p] = up;
      p = up;
    }
    return p;
  };
  const join = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra < rb) root[rb] = ra;
    else if (rb < ra) root[ra] = rb;
  };
  // Offices more than `miles` apart in latitude alone are more than `miles` apart: the sweep below stops there (with a
  // margin, so rounding of this bound never drops a pair the haversine test would link).
  const latSpan = (miles / (EARTH_RADIUS_MILES * RAD)) * (1 + 1e-9);
  for (let f = 0; f < firmIds.length; f++) {
    const from = firstOf[f] as number;
    const to = firstOf[f + 1] as number;
    if (to - from < 2) continue;
    const byLat = Array.from(positions.subarray(from, to)).sort((a, b) => (latAt[a] as number) - (latAt[b] as number));
    for (let i = 0; i < byLat.length; i++) {
      const a = byLat[i] as number;
      for (let j = i + 1; j < byLat.length; j++) {
        const b = byLat[j] as number;
        if ((latAt[b] as number) - (latAt[a] as number) > latSpan) break;
        if (haversineMiles(latAt[a] as number, lngAt[a] as number, latAt[b] as number, lngAt[b] as number) <= miles)
          join(a, b);
      }
    }
  }

  const unitAt = new Int32Array(count);
  const number = new Int32Array(count).fill(-1);
  let units = 0;
  for (let p = 0; p < count; p++) {
    const r = find(p);
    if ((number[r] as number) < 0) number[r] = units++;
    unitAt[p] = number[r] as number;
  }
  return { unitAt, units };
}
