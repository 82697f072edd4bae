/**
 * The distance scan over loaded shards: per-shard KD-trees and typed arrays, exact distance, nearest office per firm,
 * the `limit` nearest firms. Pure; state is a per-shard memo and reusable scratch arrays.
 */
import KDBush from 'kdbush';
import { boundingBox, haversineMiles } from './geo.ts';
import type { ShardT, StoredOfficeT } from './site-format.ts';

/** One firm, by its nearest office within the radius. distanceMiles is exact (not rounded). */
export interface FirmHit {
  office: StoredOfficeT;
  distanceMiles: number;
  officesWithinRadius: number;
}

/**
 * A shard's offices in columns for the scan: a KD-tree over (lng, lat) for the circle's bounding box, the coordinates
 * in degrees, and each office's firm as a number from its version's FirmNumbers. Built once per parsed shard;
 * positions are those of shard.offices, so the scan touches an office record only when it becomes a firm's nearest.
 */
interface Columns {
  numbers: FirmNumbers;
  tree: KDBush;
  lat: Float64Array;
  lng: Float64Array;
  firm: Int32Array;
}

/** firm_id -> a small integer, per site version, so grouping by firm is array indexing. */
export type FirmNumbers = Map<string, number>;

// The firm numbering of the few most recent versions (a version's shards share one numbering).
const numbering = new Map<string, FirmNumbers>();
const columnsOf = new WeakMap<ShardT, Columns>();

/** The firm numbering of site version `version` (kept for the four most recent versions). */
export function firmNumbers(version: string): FirmNumbers {
  let numbers = numbering.get(version);
  if (numbers === undefined) {
    numbering.set(version, (numbers = new Map()));
    for (const v of numbering.keys()) {
      if (numbering.size <= 4) break;
      numbering.delete(v);
    }
  }
  return numbers;
}

function columns(shard: ShardT, numbers: FirmNumbers): Columns {
  const known = columnsOf.get(shard);
  // A numbering dropped and recreated since (more than four versions seen) means these columns are stale.
  if (known !== undefined && known.numbers === numbers) return known;
  const n = shard.offices.length;
  const c: Columns = { numbers, tree: new KDBush(n), lat: new Float64Array(n), lng: new Float64Array(n), firm: new Int32Array(n) };
  for (const [i, o] of shard.offices.entries()) {
    c.tree.add(o.lng, o.lat);
    c.lat[i] = o.lat;
    c.lng[i] = o.lng;
    let f = numbers.get(o.firm_id);
    if (f === undefined) numbers.set(o.firm_id, (f = numbers.size));
    c.firm[i] = f;
  }
  c.tree.finish();
  columnsOf.set(shard, c);
  return c;
}

// the generation that last touched the firm, its office count, and its nearest office (miles, shard, position).
let stamp = new Int32Array(0);
let count = new Int32Array(0);
let bestMiles = new Float64Array(0);
let bestShard = new Int32Array(0);
let bestAt = new Int32Array(0);
let generation = 0;

function ensureScratch(firms: number): void {
  if (stamp.length >= firms) return;
  const size = Math.max(firms, stamp.length * 2, 1024);
  const grow = <T extends Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
    const next = make(size);
    next.set(old);
    return next;
  };
  stamp = grow(stamp, (n) => new Int32Array(n));
  count = grow(count, (n) => new Int32Array(n));
  bestMiles = grow(bestMiles, (n) => new Float64Array(n));
  bestShard = grow(bestShard, (n) => new Int32Array(n));
  bestAt = grow(bestAt, (n) => new Int32Array(n));
}

/**
 * Firms with an office within `radiusMiles` (miles) of (lat, lng) in `shards`, each by its nearest office (ties by
 * listing_id), nearest first, at most `limit`; with the number of such firms. Distances are haversineMiles exactly.
 */
export function nearestFirms(shards: readonly ShardT[], numbers: FirmNumbers, lat: number, lng: number, radiusMiles: number, limit: number): { firms: number; hits: FirmHit[] } {
  const cols = shards.map((s) => columns(s, numbers));
  ensureScratch(numbers.size);
  if (++generation === 0x7fffffff) {
    stamp.fill(0);
    generation = 1;
  }
  const gen = generation;
  const officeAt = (s: number, i: number): StoredOfficeT | undefined => shards[s]?.offices[i];
  const idOf = (s: number, i: number): string => officeAt(s, i)?.listing_id ?? '';
  const [minLng, minLat, maxLng, maxLat] = boundingBox(lat, lng, radiusMiles);
  const touched: number[] = [];
  for (const [s, c] of cols.entries()) {
    for (const i of c.tree.range(minLng, minLat, maxLng, maxLat)) {
      const d = haversineMiles(lat, lng, c.lat[i] ?? 0, c.lng[i] ?? 0);
      if (d > radiusMiles) continue;
      const f = c.firm[i] ?? 0;
      if (stamp[f] !== gen) {
        stamp[f] = gen;
        count[f] = 1;
        touched.push(f);
      } else {
        count[f] = (count[f] ?? 0) + 1;
        const prev = bestMiles[f] ?? 0;
        if (d > prev || (d === prev && idOf(s, i) >= idOf(bestShard[f] ?? 0, bestAt[f] ?? 0))) continue;
      }
      bestMiles[f] = d;
      bestShard[f] = s;
      bestAt[f] = i;
    }
  }
  // True when firm a's nearest office orders before firm b's: exact distance, then listing_id (code-unit = byte order).
  const before = (a: number, b: number): boolean => {
    const da = bestMiles[a] ?? 0;
    const db = bestMiles[b] ?? 0;
    if (da !== db) return da < db;
    return idOf(bestShard[a] ?? 0, bestAt[a] ?? 0) < idOf(bestShard[b] ?? 0, bestAt[b] ?? 0);
  };
  // The `limit` nearest firms by insertion into a short sorted list (limit <= 25), not a sort of every firm.
  const top: number[] = [];
  for (const f of touched) {
    if (top.length === limit && !before(f, top[top.length - 1] ?? 0)) continue;
    let at = top.length;
    while (at > 0 && before(f, top[at - 1] ?? 0)) at--;
    top.splice(at, 0, f);
    if (top.length > limit) top.pop();
  }
  const hits: FirmHit[] = [];
  for (const f of top) {
    const office = officeAt(bestShard[f] ?? 0, bestAt[f] ?? 0);
    if (office !== undefined) hits.push({ office, distanceMiles: bestMiles[f] ?? 0, officesWithinRadius: count[f] ?? 0 });
  }
  return { firms: touched.length, hits };
}
