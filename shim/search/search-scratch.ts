/**
 * The arithmetic and scratch state of one cell search (cell-search.ts), in typed arrays so a query over tens of
 * thousands of offices and shared firms allocates no object per office or firm. Distances are miles on the sphere of
 * EARTH_RADIUS_MILES; every decision that could differ from haversineMiles by rounding falls back to it, so answers
 * are exactly those of a brute-force haversine scan.
 */
import { EARTH_RADIUS_MILES } from '../contract/constants.ts';
import { haversineMiles } from './geo.ts';

const RAD = Math.PI / 180;
// Rounding of the chord form against haversineMiles' own: far below these margins (relative, and absolute for tiny
// distances, where the chord's cancellation dominates); inside the margins the exact haversine decides.
const REL = 1e-9;
const ABS = 1e-15;

/** Writes the unit vector of (lat, lng) in degrees to out[at..at + 2]. */
export function unitVector(lat: number, lng: number, out: Float64Array, at: number): void {
  const c = Math.cos(lat * RAD);
  out[at] = c * Math.cos(lng * RAD);
  out[at + 1] = c * Math.sin(lng * RAD);
  out[at + 2] = Math.sin(lat * RAD);
}

/** sin² of half the central angle between unit vector p and the vector at xyz[q * 3]: haversine's term, from the chord. */
export function chordHav(p: Float64Array, xyz: Float64Array, q: number): number {
  const dx = (p[0] ?? 0) - (xyz[q * 3] ?? 0);
  const dy = (p[1] ?? 0) - (xyz[q * 3 + 1] ?? 0);
  const dz = (p[2] ?? 0) - (xyz[q * 3 + 2] ?? 0);
  return (dx * dx + dy * dy + dz * dz) / 4;
}

/**
 * Miles from haversine's term h (the inverse of havOfMiles): haversineMiles' last step. For cells, whose reach carries
 * a margin of its own; offices are compared with haversineMiles itself wherever rounding could matter.
 */
export function chordMiles(h: number): number {
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Haversine's term for a distance in miles (the inverse of haversineMiles' last step). */
export function havOfMiles(miles: number): number {
  const s = Math.sin(Math.min(Math.PI / 2, miles / (2 * EARTH_RADIUS_MILES)));
  return s * s;
}

/**
 * Bounds on haversine's term for `radiusMiles`: an office with chordHav below the first is within the radius, above
 * the second outside; between them haversineMiles(...) <= radiusMiles decides, as a brute-force scan would.
 */
export function havBounds(radiusMiles: number): [number, number] {
  const H = havOfMiles(radiusMiles);
  return [H * (1 - REL) - ABS, H * (1 + REL) + ABS];
}

/**
 * A set of unit numbers 0 .. capacity - 1 as a bitset: a million units take 125 KiB, which stays in the CPU cache
 * while a search marks tens of thousands of them. Pooled, because searches interleave at their awaits.
 */
export class UnitBits {
  private static pool: UnitBits[] = [];
  private readonly bits: Uint32Array;
  /** Units in the set. */
  size = 0;

  private constructor(capacity: number) {
    this.bits = new Uint32Array(Math.ceil(capacity / 32));
  }

  /** An empty set for unit numbers 0 .. units - 1; give it back with release(). */
  static acquire(units: number): UnitBits {
    let b = UnitBits.pool.pop();
    if (b === undefined || b.bits.length * 32 < units) b = new UnitBits(units);
    else b.bits.fill(0);
    b.size = 0;
    return b;
  }

  /** Returns the set to the pool (a few are kept). */
  release(): void {
    if (UnitBits.pool.length < 8) UnitBits.pool.push(this);
  }

  /** Adds a unit; true when it was not in the set. */
  add(unit: number): boolean {
    const w = unit >>> 5;
    const m = 1 << (unit & 31);
    const word = this.bits[w] ?? 0;
    if ((word & m) !== 0) return false;
    this.bits[w] = word | m;
    this.size++;
    return true;
  }

  /** Adds units[from .. to - 1] (one tight loop: the dense metros' shared lists run to tens of thousands). */
  addAll(units: Int32Array, from: number, to: number): void {
    const bits = this.bits;
    let size = this.size;
    for (let k = from; k < to; k++) {
      const f = units[k] as number;
      const w = f >>> 5;
      const word = bits[w] as number;
      const m = 1 << (f & 31);
      if ((word & m) === 0) {
        bits[w] = word | m;
        size++;
      }
    }
    this.size = size;
  }

  /** Empties the set and adds `units` (a few): cheaper than a second set when only these are asked about next. */
  reset(units: Iterable<number>): void {
    this.bits.fill(0);
    this.size = 0;
    for (const f of units) this.add(f);
  }

  /** Whether the unit is in the set. */
  has(unit: number): boolean {
    return ((this.bits[unit >>> 5] ?? 0) & (1 << (unit & 31))) !== 0;
  }
}

/**
 * A kept firm, known by its unit number (a circle within the query bounds holds one unit per firm): its nearest office
 * so far (exact distance, listing number) and where that office's columns are.
 */
export interface Kept<R> {
  unit: number;
  d: number;
  listing: number;
  ref: R;
  pos: number;
}

/**
 * The `limit` nearest firms seen so far, each by its nearest office, ordered by (distance, listing number). Offices
 * that cannot beat the last kept firm are dropped on the chord test before any trigonometry.
 */
export class Nearest<R> {
  private readonly kept: Kept<R>[] = [];
  private kthHav = Number.POSITIVE_INFINITY;

  private readonly limit: number;
  private readonly lat: number;
  private readonly lng: number;
  constructor(limit: number, lat: number, lng: number) {
    this.limit = limit;
    this.lat = lat;
    this.lng = lng;
  }

  /** Distance of the last kept firm when `limit` are kept, else infinity: no unseen office beyond it can enter. */
  kth(): number {
    return this.kept.length === this.limit ? (this.kept[this.limit - 1] as Kept<R>).d : Number.POSITIVE_INFINITY;
  }

  /** Offers an office (h: its chordHav from the point) of the firm whose unit is `unit`. */
  consider(h: number, ref: R, pos: number, unit: number, listing: number, oLat: number, oLng: number): void {
    if (h > this.kthHav) return;
    const d = haversineMiles(this.lat, this.lng, oLat, oLng);
    const kept = this.kept;
    const last = kept[kept.length - 1];
    if (kept.length === this.limit && last !== undefined && !(d < last.d || (d === last.d && listing < last.listing)))
      return;
    const j = kept.findIndex((k) => k.unit === unit);
    if (j >= 0) {
      const k = kept[j] as Kept<R>;
      if (!(d < k.d || (d === k.d && listing < k.listing))) return;
      kept.splice(j, 1);
    }
    let at = kept.length;
    while (at > 0) {
      const k = kept[at - 1] as Kept<R>;
      if (!(d < k.d || (d === k.d && listing < k.listing))) break;
      at--;
    }
    kept.splice(at, 0, { unit, d, listing, ref, pos });
    if (kept.length > this.limit) kept.pop();
    if (kept.length === this.limit) this.kthHav = havOfMiles((kept[this.limit - 1] as Kept<R>).d) * (1 + REL) + ABS;
  }

  /** The kept firms, nearest first. */
  list(): readonly Kept<R>[] {
    return this.kept;
  }
}
