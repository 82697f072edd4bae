/** Great-circle distance and H3 covers. Pure; units are miles and decimal degrees. */
import { polygonToCellsExperimental, POLYGON_TO_CELLS_FLAGS } from 'h3-js';
import { EARTH_RADIUS_MILES } from './constants.ts';

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
  return [p2 / RAD, (((l2 / RAD + 540) % 360) - 180)];
}

const SIDES = 32;

/**
 * Every H3 cell at `res` that overlaps the circle of `radiusMiles` around (lat, lng).
 * Uses a circumscribed 32-gon (vertices pushed out by 1/cos(pi/32), plus 0.5% for spherical error)
 * and overlapping containment, so no cell touching the circle is missed; callers still filter by exact distance.
 */
export function cellsCoveringCircle(lat: number, lng: number, radiusMiles: number, res: number): string[] {
  const r = (radiusMiles / Math.cos(Math.PI / SIDES)) * 1.005;
  const ring: number[][] = [];
  for (let i = 0; i < SIDES; i++) ring.push(destination(lat, lng, r, (2 * Math.PI * i) / SIDES));
  return polygonToCellsExperimental(ring, res, POLYGON_TO_CELLS_FLAGS.containmentOverlapping).sort();
}
