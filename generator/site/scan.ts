/**
 * Brute-force read of the published offices: every record chunk of every block of every group the cell index lists,
 * with the checks that make the scan a complete, independent list (records agree with the block columns, no listing
 * twice, totals as in meta.json), and a rebuild of the whole cell tree from those records compared with the published
 * one, so every summary the shim counts with is checked. No search: the scan is the independent answer.
 */
import { isDeepStrictEqual } from 'node:util';
import { buildCells } from '../write/cells.ts';
import { sealCellTree } from '../write/cell-hashes.ts';
import { serialise } from '../write/json.ts';
import { decodeCoords } from '../../shim/format/block-coords.ts';
import { CellBlock, CellGroup, CellIndex, CellRecords, CellShared, FINE_ORDER, type CellBlockT, type CellGroupT, type CellIndexT, type CellSharedT } from '../../shim/format/cell-format.ts';
import { keys, type StoredOfficeT } from '../../shim/format/site-format.ts';
import { mapPool } from '../write/pool.ts';
import { packProblems } from '../../shim/format/pack-layout.ts';
import { progressEvery } from '../write/progress.ts';
import { StoreError } from '../../shim/contract/errors.ts';
import { parseObject, type AuditSite } from './site.ts';
import type { ZodType } from 'zod';

/** Every office of one version as read from its record chunks, with the tree objects read on the way. */
export interface OfficeScan {
  /** Offices sorted by listing_id. */
  offices: StoredOfficeT[];
  /** Objects read (index, groups, blocks, record chunks). */
  objects: number;
  bytes: number;
  /** Broken invariants found while reading (empty when the tree is sound). */
  problems: string[];
  index: CellIndexT;
  groups: CellGroupT[];
  /** Each group's shared pages. */
  shared: CellSharedT[];
  blocks: CellBlockT[];
}

/** Options of scanOffices. */
export interface ScanOptions {
  /** Concurrent reads (default 16). */
  concurrency?: number;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

const byListing = (a: StoredOfficeT, b: StoredOfficeT): number => (a.listing_id < b.listing_id ? -1 : a.listing_id > b.listing_id ? 1 : 0);

/** Read every object of the cell tree and check it; problems are collected, not thrown. */
export async function scanOffices(site: AuditSite, options: ScanOptions = {}): Promise<OfficeScan> {
  const problems: string[] = [];
  const concurrency = options.concurrency ?? 16;
  const progress = progressEvery(options.log);
  let objects = 0;
  let bytes = 0;
  const read = async <T>(key: string, schema: ZodType<T>): Promise<T | null> => {
    const raw = await site.store.get(key).catch((err: unknown) => {
      throw new StoreError(`${site.label}: ${(err as Error).message}`, key, { cause: err });
    });
    if (raw === null) return null;
    objects++;
    bytes += raw.byteLength;
    try {
      return parseObject(raw, key, schema);
    } catch (err) {
      problems.push((err as Error).message);
      return null;
    }
  };
  const v = site.version;
  const index = await read(keys.cellIndex(v), CellIndex);
  if (index === null) throw new StoreError(`${site.label}: version ${v} has no readable cell index (${problems[0] ?? keys.cellIndex(v)})`, keys.cellIndex(v));
  // The shim searches with the index meta.json carries, older readers with cells/index.json: they must be one index.
  if (site.meta.cell_index !== undefined) {
    const carried = CellIndex.safeParse(site.meta.cell_index);
    if (!carried.success || !isDeepStrictEqual(carried.data, index))
      problems.push(`${keys.meta(v)}: its cell_index is not ${keys.cellIndex(v)}`);
  }
  const groupCells = Object.keys(index.groups).sort();
  const groups = (
    await mapPool(groupCells, concurrency, async (cell) => {
      const key = keys.cellGroup(v, cell, index.schema_version);
      const g = await read(key, CellGroup);
      if (g === null) problems.push(`${key}: listed in the cell index but missing or unreadable`);
      else if (g.cell !== cell) problems.push(`${key}: holds group ${g.cell}`);
      return g;
    })
  ).filter((g): g is CellGroupT => g !== null);
  const shared = (
    await mapPool(
      groups.flatMap((g) => Object.keys(g.shared_sha256)),
      concurrency,
      async (cell) => {
        const key = keys.cellShared(v, cell, index.schema_version);
        const a = await read(key, CellShared);
        if (a === null) problems.push(`${key}: its group records it but it is missing or unreadable`);
        return a;
      },
    )
  ).filter((a): a is CellSharedT => a !== null);
  const blockRows = groups.flatMap((g) => g.rows.cell.flatMap((cell, i) => (g.rows.block[i] === i ? [{ cell, n: g.rows.n[i] ?? 0 }] : [])));
  let done = 0;
  const perBlock = await mapPool(blockRows, concurrency, async ({ cell, n }) => {
    const key = keys.cellBlock(v, cell);
    const block = await read(key, CellBlock);
    progress(++done, blockRows.length, 'scan cell blocks');
    if (block === null) {
      problems.push(`${key}: listed in its group but missing or unreadable`);
      return { block: null, offices: [] as StoredOfficeT[] };
    }
    const coords = decodeCoords(block, n);
    if (typeof coords === 'string') problems.push(`${key}: ${coords}`);
    if (block.cell !== cell || block.listing.length !== n || block.dunit.length !== n) problems.push(`${key}: holds ${block.cell} with ${block.listing.length} offices, its group says ${cell} with ${n}`);
    const offices: StoredOfficeT[] = [];
    for (let k = 0; k * index.record_chunk < n; k++) {
      const rkey = keys.cellRecords(v, cell, k);
      const rec = await read(rkey, CellRecords);
      if (rec === null) {
        problems.push(`${rkey}: missing or unreadable`);
        continue;
      }
      rec.offices.forEach((o, j) => {
        const p = k * index.record_chunk + j;
        const [lat, lng] = typeof coords === 'string' ? [undefined, undefined] : [coords.lat[p], coords.lng[p]];
        if (o.lat !== lat || o.lng !== lng) problems.push(`${rkey}: ${o.listing_id} at ${o.lat},${o.lng}, the block column says ${lat},${lng}`);
      });
      offices.push(...rec.offices);
    }
    return { block, offices };
  });
  const offices = perBlock.flatMap((b) => b.offices).sort(byListing);
  for (let i = 1; i < offices.length; i++) {
    if ((offices[i - 1] as StoredOfficeT).listing_id === (offices[i] as StoredOfficeT).listing_id) problems.push(`${(offices[i] as StoredOfficeT).listing_id} is in more than one record chunk`);
  }
  if (offices.length !== site.meta.totals.offices) problems.push(`${offices.length} offices in the record chunks, meta.json totals say ${site.meta.totals.offices}`);
  const blocks = perBlock.flatMap((b) => (b.block === null ? [] : [b.block]));
  const blockOf = new Map(blocks.map((b) => [b.cell, b]));
  // Each group's pack, where the index gives its blocks' lengths: exactly the blocks and pages its group tree records,
  // and from cell schema 9 the record chunks its blocks record.
  await mapPool(
    groups.filter((g) => index.block_bytes?.[g.cell] !== undefined),
    concurrency,
    async (g) => {
      const key = keys.cellPack(v, g.cell);
      const raw = await site.store.get(key).catch((err: unknown) => {
        throw new StoreError(`${site.label}: ${(err as Error).message}`, key, { cause: err });
      });
      if (raw !== null) {
        objects++;
        bytes += raw.byteLength;
      }
      const own = (index.blocks[g.cell] ?? []).flatMap(([cell]) => blockOf.get(cell) ?? []);
      problems.push(...packProblems(key, raw, index, g, own));
    },
  );
  return { offices, objects, bytes, problems, index, groups, shared, blocks };
}

/** Every record chunk key of a version, from its cell index and group trees; null when the version has no cell index. */
export async function recordChunkKeys(site: Pick<AuditSite, 'version' | 'json' | 'label'>): Promise<string[] | null> {
  const v = site.version;
  const index = await site.json(keys.cellIndex(v), CellIndex);
  if (index === null) return null;
  const out: string[] = [];
  for (const cell of Object.keys(index.groups).sort()) {
    const key = keys.cellGroup(v, cell, index.schema_version);
    const group = await site.json(key, CellGroup);
    if (group === null) throw new StoreError(`${site.label}: ${key} is listed in the cell index but missing`, key);
    group.rows.cell.forEach((block, i) => {
      if (group.rows.block[i] !== i) return;
      for (let k = 0; k * index.record_chunk < (group.rows.n[i] ?? 0); k++) out.push(keys.cellRecords(v, block, k));
    });
  }
  return out;
}

/**
 * Problems where the published index, groups and blocks differ from the tree the generator's rules build from the
 * scanned records: a wrong count, reach, shared firm, column or order anywhere shows up here, named by object.
 */
export function compareTree(scan: OfficeScan, version: string): string[] {
  const order = scan.index.fine_order ?? 'listing';
  if (order !== FINE_ORDER && order !== 'listing')
    return [`${keys.cellIndex(version)}: fine_order ${JSON.stringify(order)} is not an order this release rebuilds (${FINE_ORDER}, or absent for listing order)`];
  const rebuilt = buildCells(scan.offices, { leafMax: scan.index.leaf_max, blockMax: scan.index.block_max, recordChunk: scan.index.record_chunk, sharedRes: scan.index.shared_res, fineOrder: order, schema: scan.index.schema_version });
  // Schema 4: each level's hashes of the level below, from the rebuilt objects (equal to the published ones when intact).
  sealCellTree(rebuilt);
  const problems: string[] = [];
  const same = (key: string, a: unknown, b: unknown): void => {
    if (a === undefined) problems.push(`${key}: published but the records do not give it`);
    else if (b === undefined) problems.push(`${key}: the records give it but it is not published`);
    else if (!serialise(a).equals(serialise(b))) problems.push(`${key}: differs from the tree the records give`);
  };
  // An index written before `block_core` (it only tightens a cold search's plan) or `block_bytes` and `shared_bytes`
  // (packs) were is compared without them.
  const optional = new Set(['block_core', 'block_bytes', 'shared_bytes'].filter((k) => !(k in scan.index)));
  const expected = Object.fromEntries(Object.entries(rebuilt.index).filter(([k]) => !optional.has(k)));
  same(keys.cellIndex(version), expected, scan.index);
  const pub = new Map(scan.groups.map((g) => [g.cell, g]));
  const sv = scan.index.schema_version;
  for (const g of rebuilt.groups) same(keys.cellGroup(version, g.cell, sv), g, pub.get(g.cell));
  for (const c of pub.keys()) if (!rebuilt.groups.some((g) => g.cell === c)) same(keys.cellGroup(version, c, sv), undefined, pub.get(c));
  const pubShared = new Map(scan.shared.map((a) => [a.cell, a]));
  for (const a of rebuilt.shared) same(keys.cellShared(version, a.cell, sv), a, pubShared.get(a.cell));
  const pubBlocks = new Map(scan.blocks.map((b) => [b.cell, b]));
  for (const b of rebuilt.blocks) same(keys.cellBlock(version, b.cell), b, pubBlocks.get(b.cell));
  return problems;
}
