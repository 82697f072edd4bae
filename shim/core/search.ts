/**
 * Radius search over the published shards: plan H3 cells, read them, exact distance, nearest office per firm,
 * order by distance then listing_id. Pure apart from the reader.
 */
import { EARTH_RADIUS_MILES } from './constants.ts';
import { metroForPoint } from './coverage.ts';
import { haversineMiles } from './geo.ts';
import type { SiteReader } from './reader.ts';
import { planShardsCached } from './shards.ts';
import { CoverageCells, keys, Shard, ShardIndex, type ShardT, type StoredOfficeT } from './site-format.ts';
import { StoreError } from '../store/types.ts';

/** One firm, by its nearest office within the radius. distanceMiles is exact (not rounded). */
export interface FirmHit {
  office: StoredOfficeT;
  distanceMiles: number;
  officesWithinRadius: number;
}

/** What a search found. When not covered, hits is empty and firmsWithinRadius is 0. */
export interface SearchOutcome {
  covered: boolean;
  /** Slug of the measured metro containing the point, or null. */
  metro: string | null;
  firmsWithinRadius: number;
  /** At most `limit` firms, nearest first. */
  hits: FirmHit[];
}

const RAD = Math.PI / 180;

/**
 * A shard's offices in columns for the scan: latitude in degrees, latitude and longitude in radians, cos(latitude),
 * and each office's firm as a number from its version's FirmNumbers. Built once per parsed shard.
 */
interface Columns {
  numbers: FirmNumbers;
  latDeg: Float64Array;
  latRad: Float64Array;
  lngRad: Float64Array;
  cosLat: Float64Array;
  firm: Int32Array;
}

/** firm_id -> a small integer, per site version, so grouping by firm is array indexing. */
type FirmNumbers = Map<string, number>;

// The firm numbering of the few most recent versions (a version's shards share one numbering).
const numbering = new Map<string, FirmNumbers>();
const columnsOf = new WeakMap<ShardT, Columns>();

function firmNumbers(version: string): FirmNumbers {
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
  const c: Columns = {
    numbers,
    latDeg: new Float64Array(n),
    latRad: new Float64Array(n),
    lngRad: new Float64Array(n),
    cosLat: new Float64Array(n),
    firm: new Int32Array(n),
  };
  for (const [i, o] of shard.offices.entries()) {
    c.latDeg[i] = o.lat;
    c.latRad[i] = o.lat * RAD;
    c.lngRad[i] = o.lng * RAD;
    c.cosLat[i] = Math.cos(o.lat * RAD);
    let f = numbers.get(o.firm_id);
    if (f === undefined) numbers.set(o.firm_id, (f = numbers.size));
    c.firm[i] = f;
  }
  columnsOf.set(shard, c);
  return c;
}

/** The planned shards for a circle, read through `reader`. Throws StoreError when an indexed shard is missing. */
async function shardsFor(reader: SiteReader, lat: number, lng: number, radiusMiles: number): Promise<ShardT[]> {
  const v = reader.version;
  const index = await reader.json(keys.shardIndex(v), ShardIndex);
  if (index === null) throw new StoreError(`version ${v} has no shard index`, keys.shardIndex(v));
  const plan = planShardsCached(index, lat, lng, radiusMiles);
  return Promise.all(
    plan.cells.map(async (cell) => {
      const key = keys.shard(v, plan.res, cell);
      const shard = await reader.json(key, Shard);
      // A shard the index lists must exist: a partial answer must never pass for a complete one.
      if (shard === null) throw new StoreError(`shard ${key} is listed in the index but missing`, key);
      if (shard.res !== plan.res || shard.cell !== cell) throw new StoreError(`shard ${key} holds cell ${shard.cell} at res ${shard.res}`, key);
      return shard;
    }),
  );
}

// Per-firm scratch, indexed by firm number and reused by every search (the scan is synchronous, so never shared).
let stamp = new Int32Array(0);
let count = new Int32Array(0);
let bestMiles = new Float64Array(0);
const bestOffice: (StoredOfficeT | undefined)[] = [];
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
}

/** True when firm a's nearest office orders before firm b's: by exact distance, then listing_id (code-unit = byte order). */
function before(a: number, b: number): boolean {
  const da = bestMiles[a] ?? 0;
  const db = bestMiles[b] ?? 0;
  if (da !== db) return da < db;
  return (bestOffice[a]?.listing_id ?? '') < (bestOffice[b]?.listing_id ?? '');
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
  const latRad = lat * RAD;
  const lngRad = lng * RAD;
  const cosLat = Math.cos(latRad);
  const bandDeg = radiusMiles / ((EARTH_RADIUS_MILES * Math.PI) / 180);
  // sin²(d / 2R) of the radius, with a margin: the fast test only rejects; haversineMiles decides who is within.
  const maxA = Math.sin(Math.min(Math.PI / 2, radiusMiles / (2 * EARTH_RADIUS_MILES))) ** 2 * (1 + 1e-9) + 1e-15;
  const touched: number[] = [];
  for (const [s, shard] of shards.entries()) {
    const c = cols[s];
    if (c === undefined) continue;
    const offices = shard.offices;
    for (let i = 0; i < offices.length; i++) {
      const oLat = c.latDeg[i] ?? 0;
      if (oLat > lat + bandDeg || oLat < lat - bandDeg) continue;
      const sLat = Math.sin(((c.latRad[i] ?? 0) - latRad) / 2);
      const sLng = Math.sin(((c.lngRad[i] ?? 0) - lngRad) / 2);
      if (sLat * sLat + cosLat * (c.cosLat[i] ?? 0) * sLng * sLng > maxA) continue;
      const office = offices[i];
      if (office === undefined) continue;
      const d = haversineMiles(lat, lng, office.lat, office.lng);
      if (d > radiusMiles) continue;
      const f = c.firm[i] ?? 0;
      if (stamp[f] !== gen) {
        stamp[f] = gen;
        count[f] = 1;
        bestMiles[f] = d;
        bestOffice[f] = office;
        touched.push(f);
      } else {
        count[f] = (count[f] ?? 0) + 1;
        const prev = bestMiles[f] ?? 0;
        if (d < prev || (d === prev && office.listing_id < (bestOffice[f]?.listing_id ?? ''))) {
          bestMiles[f] = d;
          bestOffice[f] = office;
        }
      }
    }
  }
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
    const office = bestOffice[f];
    if (office !== undefined) hits.push({ office, distanceMiles: bestMiles[f] ?? 0, officesWithinRadius: count[f] ?? 0 });
  }
  // Drop references to this query's offices so the scratch does not keep evicted shards alive.
  for (const f of touched) bestOffice[f] = undefined;
  return { firms: touched.length, hits };
}

/** The measured metro containing (lat, lng), or null when the point is outside every metro's coverage. */
export async function metroAt(reader: SiteReader, lat: number, lng: number): Promise<string | null> {
  const key = keys.coverageCells(reader.version);
  const cells = await reader.json(key, CoverageCells);
  if (cells === null) throw new StoreError(`version ${reader.version} has no coverage cells`, key);
  return metroForPoint(cells, lat, lng);
}

/**
 * Firms with an office within `radiusMiles` of (lat, lng), by nearest office, at most `limit`.
 * A point outside every measured metro is not covered: no results, even if offices lie within the radius.
 * A covered point gets every office within the radius, including offices just outside its metro's coverage.
 */
export async function search(reader: SiteReader, lat: number, lng: number, radiusMiles: number, limit: number): Promise<SearchOutcome> {
  const metro = await metroAt(reader, lat, lng);
  if (metro === null) return { covered: false, metro: null, firmsWithinRadius: 0, hits: [] };
  const shards = await shardsFor(reader, lat, lng, radiusMiles);
  const found = nearestFirms(shards, firmNumbers(reader.version), lat, lng, radiusMiles, limit);
  return { covered: true, metro, firmsWithinRadius: found.firms, hits: found.hits };
}
