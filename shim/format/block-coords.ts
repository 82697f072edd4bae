/**
 * The unit and coordinate columns of a cell block (cell schema 6, docs/SITE-FORMAT.md), as steps from the previous
 * office of the block (the first from 0): a block's offices are ordered by res-9 cell, so neighbours lie close and
 * units (numbered in office order) are near each other, and a step takes a few digits where a value took up to ten.
 * Coordinates step in integer counts of 10^-digits degrees. Exact: `digits` is the fewest decimals (0 to
 * MAX_COORD_DIGITS) at which every coordinate of the block is count / 10^digits as a double; a coordinate that is not,
 * at MAX_COORD_DIGITS, is listed in `exact` as stored.
 */

/** Most decimals a block's coordinate steps count in (1e-9 degree is about 0.1 mm). */
export const MAX_COORD_DIGITS = 9;

/** A block's stored coordinate columns. */
export interface StoredCoords {
  coord_digits: number;
  dlat: number[];
  dlng: number[];
  /** Flat [position, lat, lng, ...] of the offices whose coordinates are not a count of 10^-digits degrees. */
  exact: number[];
}

/** A block's coordinates decoded, degrees by position. */
export interface Coords {
  lat: Float64Array;
  lng: Float64Array;
}

const fits = (x: number, scale: number): boolean => Math.round(x * scale) / scale === x;

/** The stored columns of `lat` and `lng` (degrees, position order). */
export function encodeCoords(lat: ArrayLike<number>, lng: ArrayLike<number>): StoredCoords {
  const n = lat.length;
  let digits = 0;
  for (let p = 0; p < n && digits < MAX_COORD_DIGITS; p++) {
    while (digits < MAX_COORD_DIGITS && !(fits(lat[p] ?? 0, 10 ** digits) && fits(lng[p] ?? 0, 10 ** digits))) digits++;
  }
  const scale = 10 ** digits;
  const out: StoredCoords = { coord_digits: digits, dlat: [], dlng: [], exact: [] };
  let a = 0;
  let b = 0;
  for (let p = 0; p < n; p++) {
    const x = lat[p] ?? 0;
    const y = lng[p] ?? 0;
    const qa = Math.round(x * scale);
    const qb = Math.round(y * scale);
    // + 0 turns a -0 step (from Math.round of a small negative) into 0, so the JSON is the same either way.
    out.dlat.push(qa - a + 0);
    out.dlng.push(qb - b + 0);
    if (qa / scale !== x || qb / scale !== y) out.exact.push(p, x, y);
    a = qa;
    b = qb;
  }
  return out;
}

/** Decoded coordinates (degrees), or what is wrong with the stored columns for `n` offices. */
export function decodeCoords(c: StoredCoords, n: number): Coords | string {
  const { coord_digits: digits, dlat, dlng, exact } = c;
  if (!Number.isInteger(digits) || digits < 0 || digits > MAX_COORD_DIGITS)
    return `coord_digits ${digits} is not 0 to ${MAX_COORD_DIGITS}`;
  if (dlat.length !== n || dlng.length !== n)
    return `coordinate steps for ${dlat.length} and ${dlng.length} offices, not ${n}`;
  if (exact.length % 3 !== 0) return 'exact is not [position, lat, lng] triples';
  const scale = 10 ** digits;
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  let a = 0;
  let b = 0;
  for (let p = 0; p < n; p++) {
    a += dlat[p] ?? 0;
    b += dlng[p] ?? 0;
    lat[p] = a / scale;
    lng[p] = b / scale;
  }
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return 'coordinate steps overflow';
  for (let k = 0, last = -1; k + 2 < exact.length; k += 3) {
    const p = exact[k] ?? -1;
    if (!Number.isInteger(p) || p <= last || p >= n) return `exact names position ${p} out of order or range`;
    last = p;
    lat[p] = exact[k + 1] ?? 0;
    lng[p] = exact[k + 2] ?? 0;
  }
  return { lat, lng };
}

/** `values` (integers) as steps from the previous value, the first from 0. */
export function encodeSteps(values: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let p = 0, prev = 0; p < values.length; p++) {
    const v = values[p] ?? 0;
    out.push(v - prev);
    prev = v;
  }
  return out;
}

/** The non-negative integers below 2^31 whose steps are `steps`, or what is wrong with them. */
export function decodeSteps(steps: readonly number[]): Int32Array | string {
  const out = new Int32Array(steps.length);
  let v = 0;
  for (let p = 0; p < steps.length; p++) {
    v += steps[p] ?? 0;
    if (!(v >= 0 && v < 2 ** 31)) return `steps reach ${v} at position ${p}`;
    out[p] = v;
  }
  return out;
}
