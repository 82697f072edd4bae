/**
 * Radius search over the published shards: plan H3 cells, read them, exact distance, nearest office per firm,
 * order by distance then listing_id. Pure apart from the reader.
 */
import { metroForPoint } from './coverage.ts';
import { haversineMiles } from './geo.ts';
import type { SiteReader } from './reader.ts';
import { planShardsCached } from './shards.ts';
import { CoverageCells, keys, Shard, ShardIndex, type StoredOfficeT } from './site-format.ts';
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

/** Orders by exact distance, then listing_id (code-unit order, which is byte order for the ASCII ids). */
export function compareHits(a: { distanceMiles: number; office: { listing_id: string } }, b: { distanceMiles: number; office: { listing_id: string } }): number {
  if (a.distanceMiles !== b.distanceMiles) return a.distanceMiles - b.distanceMiles;
  return a.office.listing_id < b.office.listing_id ? -1 : a.office.listing_id > b.office.listing_id ? 1 : 0;
}

/** Every office within `radiusMiles` of (lat, lng), from the shards that cover the circle. Throws StoreError when an indexed shard is missing. */
export async function officesWithin(reader: SiteReader, lat: number, lng: number, radiusMiles: number): Promise<{ office: StoredOfficeT; distanceMiles: number }[]> {
  const v = reader.version;
  const index = await reader.json(keys.shardIndex(v), ShardIndex);
  if (index === null) throw new StoreError(`version ${v} has no shard index`, keys.shardIndex(v));
  const plan = planShardsCached(index, lat, lng, radiusMiles);
  const present = index.cells[String(plan.res)] ?? {};
  const wanted = plan.cells.filter((cell) => present[cell] !== undefined);
  const shards = await Promise.all(
    wanted.map(async (cell) => {
      const key = keys.shard(v, plan.res, cell);
      const shard = await reader.json(key, Shard);
      // A shard the index lists must exist: a partial answer must never pass for a complete one.
      if (shard === null) throw new StoreError(`shard ${key} is listed in the index but missing`, key);
      if (shard.res !== plan.res || shard.cell !== cell) throw new StoreError(`shard ${key} holds cell ${shard.cell} at res ${shard.res}`, key);
      return shard;
    }),
  );
  const found: { office: StoredOfficeT; distanceMiles: number }[] = [];
  for (const shard of shards) {
    for (const office of shard.offices) {
      const d = haversineMiles(lat, lng, office.lat, office.lng);
      if (d <= radiusMiles) found.push({ office, distanceMiles: d });
    }
  }
  return found;
}

/** Nearest office per firm (ties by listing_id), with the firm's office count within the radius, nearest firm first. */
export function nearestPerFirm(offices: { office: StoredOfficeT; distanceMiles: number }[]): FirmHit[] {
  const byFirm = new Map<string, FirmHit>();
  for (const o of offices) {
    const prev = byFirm.get(o.office.firm_id);
    if (prev === undefined) {
      byFirm.set(o.office.firm_id, { office: o.office, distanceMiles: o.distanceMiles, officesWithinRadius: 1 });
    } else {
      prev.officesWithinRadius++;
      if (compareHits(o, prev) < 0) {
        prev.office = o.office;
        prev.distanceMiles = o.distanceMiles;
      }
    }
  }
  return [...byFirm.values()].sort(compareHits);
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
  const firms = nearestPerFirm(await officesWithin(reader, lat, lng, radiusMiles));
  return { covered: true, metro, firmsWithinRadius: firms.length, hits: firms.slice(0, limit) };
}
