/** Great-circle distance and H3 covers. Pure; units are miles and decimal degrees. */
import { cellToBoundary, cellToLatLng, getHexagonEdgeLengthAvg, gridDisk, latLngToCell, UNITS } from 'h3-js';
import { EARTH_RADIUS_MILES } from '../contract/constants.ts';

const RAD = Math.PI / 180;

/** Haversine distance between two points, in miles (Earth radius 3958.8 mi). */
export function haversineMiles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Point at `distance` miles from (lat, lng) on initial bearing `bearing` radians. */
export function destination(lat: number, lng: number, distance: number, bearing: number): [number, number] {
  const d = distance / EARTH_RADIUS_MILES;
  const p1 = lat * RAD;
  const l1 = lng * RAD;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(bearing));
  const l2 = l1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  return [p2 / RAD, ((l2 / RAD + 540) % 360) - 180];
}

// Average hexagon edge per resolution, in miles; sampled cells' centre-to-vertex distance never exceeds 1.10x it.
const EDGE_MILES = new Map<number, number>();
/** Average H3 hexagon edge length at `res`, in miles. */
export function edgeMiles(res: number): number {
  let e = EDGE_MILES.get(res);
  if (e === undefined) EDGE_MILES.set(res, (e = getHexagonEdgeLengthAvg(res, UNITS.km) / 1.609344));
  return e;
}

/** Largest distance from the cell's centre (lat, lng) to one of its vertices, in miles. */
export function circumradiusMiles(cell: string, lat: number, lng: number): number {
  let r = 0;
  for (const [vLat, vLng] of cellToBoundary(cell)) r = Math.max(r, haversineMiles(lat, lng, vLat, vLng));
  return r;
}

/**
 * Every H3 cell at `res` that may overlap the circle of `radiusMiles` around (lat, lng): a superset of the exact
 * overlap, never missing a cell that touches the circle; callers filter offices by exact distance anyway.
 * A cell is kept when its centre lies within the radius, or within radius + its own circumradius (a circle around the
 * cell containing it). Candidates come from a grid disk wide enough for any cell within radius + 1.25 edges (the
 * largest circumradius is 1.10 edges) at centre spacing of at least 0.75 edge (half the smallest hexagon's spacing).
 */
export function cellsCoveringCircle(lat: number, lng: number, radiusMiles: number, res: number): string[] {
  const edge = edgeMiles(res);
  const reach = radiusMiles + 1.25 * edge;
  const k = Math.ceil(reach / (0.75 * edge)) + 1;
  const out: string[] = [];
  for (const cell of gridDisk(latLngToCell(lat, lng, res), k)) {
    const [cLat, cLng] = cellToLatLng(cell);
    const d = haversineMiles(lat, lng, cLat, cLng);
    if (d <= radiusMiles || (d <= reach && d - circumradiusMiles(cell, cLat, cLng) <= radiusMiles)) out.push(cell);
  }
  return out.sort();
}

/**
 * A box in degrees [minLng, minLat, maxLng, maxLat] holding every point within `radiusMiles` of (lat, lng) on the
 * sphere, with a small margin: |dLat| <= d/R and |dLng| <= asin(sin(d/R) / cos(lat)). Every longitude when the circle
 * reaches a pole or crosses the antimeridian.
 */
export function boundingBox(lat: number, lng: number, radiusMiles: number): [number, number, number, number] {
  const angle = radiusMiles / EARTH_RADIUS_MILES;
  const margin = 1e-7;
  const dLat = angle / RAD + margin;
  const s = Math.sin(angle) / Math.cos(lat * RAD);
  const dLng = s >= 1 ? 180 : Math.asin(s) / RAD + margin;
  const box: [number, number, number, number] = [lng - dLng, lat - dLat, lng + dLng, lat + dLat];
  if (box[0] < -180 || box[2] > 180) [box[0], box[2]] = [-180, 180];
  return box;
}
