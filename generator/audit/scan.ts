/**
 * Brute-force read of the published offices: every shard of one resolution listed in the shard index, with the checks
 * that make the scan a complete, independent list (each office in the cell its coordinates fall in, counts and sizes as
 * indexed, no listing twice, total as in meta.json). No shard planning: the scan is the independent answer.
 */
import { latLngToCell } from 'h3-js';
import { keys, Shard, ShardIndex, type ShardIndexT, type StoredOfficeT } from '../../shim/core/site-format.ts';
import { mapPool } from '../pool.ts';
import { progressEvery } from '../progress.ts';
import { AuditError, parseObject, type AuditSite } from './site.ts';

/** Every office of one version as read from one resolution's shards. */
export interface OfficeScan {
  res: number;
  /** Offices sorted by listing_id. */
  offices: StoredOfficeT[];
  shards: number;
  bytes: number;
  /** Broken invariants found while reading (empty when the shards are sound). */
  problems: string[];
}

/** Options of scanOffices. */
export interface ScanOptions {
  /** Resolution to read; default: the one with the fewest shard objects. */
  res?: number;
  /** Concurrent reads (default 16). */
  concurrency?: number;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

/** The version's shard index; AuditError when it is missing. */
export async function readShardIndex(site: AuditSite): Promise<ShardIndexT> {
  const index = await site.json(keys.shardIndex(site.version), ShardIndex);
  if (index === null) throw new AuditError(`${site.label}: version ${site.version} has no shard index`);
  return index;
}

/** The resolution with the fewest shard objects (ties: coarser), which a full scan reads fastest. */
export function cheapestResolution(index: ShardIndexT): number {
  let best: { res: number; n: number } | null = null;
  for (const res of [...index.resolutions].sort((a, b) => a - b)) {
    const n = Object.keys(index.cells[String(res)] ?? {}).length;
    if (best === null || n < best.n) best = { res, n };
  }
  if (best === null) throw new AuditError('the shard index lists no resolution');
  return best.res;
}

/** Read every shard of one resolution and check it; problems are collected, not thrown. */
export async function scanOffices(site: AuditSite, options: ScanOptions = {}): Promise<OfficeScan> {
  const index = await readShardIndex(site);
  const res = options.res ?? cheapestResolution(index);
  if (!index.resolutions.includes(res)) throw new AuditError(`resolution ${res} is not published (the index lists ${index.resolutions.join(', ')})`);
  const cells = Object.entries(index.cells[String(res)] ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const problems: string[] = [];
  const progress = progressEvery(options.log);
  let done = 0;
  let bytes = 0;
  const perShard = await mapPool(cells, options.concurrency ?? 16, async ([cell, [count, size]]) => {
    const key = keys.shard(site.version, res, cell);
    const raw = await site.store.get(key).catch((err: unknown) => {
      throw new AuditError(`${site.label}: ${(err as Error).message}`);
    });
    progress(++done, cells.length, `scan res ${res} shards`);
    if (raw === null) {
      problems.push(`${key}: listed in the shard index but missing`);
      return [];
    }
    bytes += raw.byteLength;
    let shard;
    try {
      shard = parseObject(raw, key, Shard);
    } catch (err) {
      problems.push((err as Error).message);
      return [];
    }
    if (shard.res !== res || shard.cell !== cell) problems.push(`${key}: holds cell ${shard.cell} at res ${shard.res}`);
    if (shard.offices.length !== count) problems.push(`${key}: ${shard.offices.length} offices, the index says ${count}`);
    if (raw.byteLength !== size) problems.push(`${key}: ${raw.byteLength} bytes, the index says ${size}`);
    for (let i = 1; i < shard.offices.length; i++) {
      if ((shard.offices[i - 1] as StoredOfficeT).listing_id >= (shard.offices[i] as StoredOfficeT).listing_id) {
        problems.push(`${key}: offices not sorted by listing_id at position ${i}`);
        break;
      }
    }
    for (const o of shard.offices) {
      const own = latLngToCell(o.lat, o.lng, res);
      if (own !== cell) problems.push(`${key}: ${o.listing_id} at ${o.lat},${o.lng} lies in cell ${own}, not ${cell}`);
    }
    return shard.offices;
  });
  const offices = perShard.flat().sort((a, b) => (a.listing_id < b.listing_id ? -1 : a.listing_id > b.listing_id ? 1 : 0));
  for (let i = 1; i < offices.length; i++) {
    if ((offices[i - 1] as StoredOfficeT).listing_id === (offices[i] as StoredOfficeT).listing_id) problems.push(`res ${res}: ${(offices[i] as StoredOfficeT).listing_id} is in more than one shard`);
  }
  if (offices.length !== site.meta.totals.offices) problems.push(`res ${res}: ${offices.length} offices in the shards, meta.json totals say ${site.meta.totals.offices}`);
  return { res, offices, shards: cells.length, bytes, problems };
}

/** Problems where another resolution's shards do not hold exactly the same office records as `base`. */
export async function compareResolutions(site: AuditSite, base: OfficeScan, options: Omit<ScanOptions, 'res'> = {}): Promise<string[]> {
  const index = await readShardIndex(site);
  const want = new Map(base.offices.map((o) => [o.listing_id, JSON.stringify(o)]));
  const problems: string[] = [];
  for (const res of index.resolutions) {
    if (res === base.res) continue;
    const other = await scanOffices(site, { ...options, res });
    problems.push(...other.problems);
    const seen = new Set<string>();
    for (const o of other.offices) {
      seen.add(o.listing_id);
      const w = want.get(o.listing_id);
      if (w === undefined) problems.push(`res ${res} has ${o.listing_id}, res ${base.res} does not`);
      else if (w !== JSON.stringify(o)) problems.push(`${o.listing_id} differs between res ${base.res} and res ${res}: ${fieldsDiffering(JSON.parse(w) as StoredOfficeT, o).join(', ')}`);
    }
    for (const id of want.keys()) if (!seen.has(id)) problems.push(`res ${base.res} has ${id}, res ${res} does not`);
  }
  return problems;
}

/** Names of the top-level fields whose JSON differs between two records of one office. */
export function fieldsDiffering(a: StoredOfficeT, b: StoredOfficeT): (keyof StoredOfficeT)[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof StoredOfficeT>;
  return [...names].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}
