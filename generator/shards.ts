/** Offices bucketed into H3 cells at every shard resolution. */
import { latLngToCell } from 'h3-js';
import { MAX_SHARDS_PER_QUERY, SCHEMA_VERSION, SHARD_RESOLUTIONS } from '../shim/core/constants.ts';
import type { ShardIndexT, ShardT, StoredOfficeT } from '../shim/core/site-format.ts';

const byListing = (a: StoredOfficeT, b: StoredOfficeT): number => (a.listing_id < b.listing_id ? -1 : a.listing_id > b.listing_id ? 1 : 0);

/** Every non-empty shard at each resolution, cells sorted, offices in each sorted by listing_id. */
export function buildShards(offices: readonly StoredOfficeT[], resolutions: readonly number[] = SHARD_RESOLUTIONS): ShardT[] {
  const out: ShardT[] = [];
  for (const res of resolutions) {
    const cells = new Map<string, StoredOfficeT[]>();
    for (const o of offices) {
      const cell = latLngToCell(o.lat, o.lng, res);
      const list = cells.get(cell);
      if (list) list.push(o);
      else cells.set(cell, [o]);
    }
    for (const cell of [...cells.keys()].sort()) {
      out.push({ schema_version: SCHEMA_VERSION, res, cell, offices: (cells.get(cell) ?? []).sort(byListing) });
    }
  }
  return out;
}

/** The shard index from the shards and their written sizes (bytes, by position in `shards`). */
export function buildShardIndex(shards: readonly ShardT[], bytes: readonly number[], resolutions: readonly number[] = SHARD_RESOLUTIONS): ShardIndexT {
  const cells: Record<string, Record<string, [number, number]>> = {};
  for (const res of resolutions) cells[String(res)] = {};
  shards.forEach((s, i) => {
    const perRes = cells[String(s.res)];
    if (perRes) perRes[s.cell] = [s.offices.length, bytes[i] ?? 0];
  });
  return { schema_version: SCHEMA_VERSION, resolutions: [...resolutions], max_shards_per_query: MAX_SHARDS_PER_QUERY, cells };
}
