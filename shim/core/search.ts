/**
 * Radius search over the published shards: plan H3 cells, read them, then the distance scan (scan.ts): exact distance,
 * nearest office per firm, ordered by distance then listing_id. Pure apart from the reader.
 */
import { readRequired, type SiteReader } from './reader.ts';
import { firmNumbers, nearestFirms, type FirmHit } from './scan.ts';
import { planShardsCached } from './shards.ts';
import { keys, Shard, ShardIndex, type ShardT } from './site-format.ts';
import { StoreError } from './errors.ts';

/** A resolved point in degrees with the measured metro containing it (resolve.ts), or null when outside every metro. */
export interface SearchPoint {
  lat: number;
  lng: number;
  metro: string | null;
}

/** What a search found. When not covered, hits is empty and firmsWithinRadius is 0. */
export interface SearchOutcome {
  covered: boolean;
  firmsWithinRadius: number;
  /** At most `limit` firms, nearest first. */
  hits: FirmHit[];
}

/** The planned shards for a circle, read through `reader`. Throws StoreError when an indexed shard is missing. */
async function shardsFor(reader: SiteReader, lat: number, lng: number, radiusMiles: number): Promise<ShardT[]> {
  const v = reader.version;
  const index = await readRequired(reader, keys.shardIndex(v), ShardIndex);
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


/**
 * Firms with an office within `radiusMiles` of the point, by nearest office, at most `limit`.
 * A point outside every measured metro is not covered: no results, even if offices lie within the radius.
 * A covered point gets every office within the radius, including offices just outside its metro's coverage.
 */
export async function search(reader: SiteReader, point: SearchPoint, radiusMiles: number, limit: number): Promise<SearchOutcome> {
  const { lat, lng, metro } = point;
  if (metro === null) return { covered: false, firmsWithinRadius: 0, hits: [] };
  const shards = await shardsFor(reader, lat, lng, radiusMiles);
  const found = nearestFirms(shards, firmNumbers(reader.version), lat, lng, radiusMiles, limit);
  return { covered: true, firmsWithinRadius: found.firms, hits: found.hits };
}
