/** The version a new changes document compares against: the one live on the target site (a folder or a bucket). */
import { z } from 'zod';
import { CellRecords } from '../shim/core/cell-format.ts';
import { ChangesDoc, keys, Pointer, StoredOffice, type ChangesDocT, type StoredOfficeT } from '../shim/core/site-format.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { S3Store } from '../shim/store/s3.ts';
import type { Store } from '../shim/store/types.ts';
import { recordChunkKeys } from './audit/scan.ts';
import { runPool } from './pool.ts';
import { openSite, parseObject, type SiteLocation } from './audit/site.ts';
import { changesDoc, ListingDiffer, type Provenance } from './changes.ts';

/** The schema-1 shard index and shard, only as far as reading a live version published before the cell tree needs. */
const LegacyShardIndex = z.object({ resolutions: z.array(z.number().int()), cells: z.record(z.string(), z.record(z.string(), z.unknown())) });
const LegacyShard = z.object({ offices: z.array(StoredOffice) });

/**
 * The changes document of `version`, against the version `site`'s current.json names (none: the first version of the
 * site). When the pointer already names `version` (the same inputs generated again), the document it was published with
 * is kept, so a rerun does not turn it into "nothing changed".
 */
export async function changesAgainstLive(
  site: SiteLocation,
  version: string,
  week: string,
  offices: readonly StoredOfficeT[],
  provenance: Provenance,
  log?: (line: string) => void,
): Promise<ChangesDocT> {
  let store: Store;
  if (site.kind === 'folder') store = new FolderStore(site.dir);
  else {
    const { kind: _kind, ...options } = site;
    store = new S3Store(options);
  }
  const pointerBytes = await store.get(keys.pointer);
  if (pointerBytes === null) return changesDoc(version, week, null, provenance);
  const live = parseObject(pointerBytes, keys.pointer, Pointer).version;
  // Read through openSite, so a layered live version's keys resolve where its map says.
  const previous = await openSite(site, live);
  if (live === version) {
    const kept = await previous.json(keys.changes(version), ChangesDoc);
    if (kept !== null) return kept;
  }
  log?.(`changes: comparing with ${previous.label} version ${live}`);
  const differ = new ListingDiffer(offices);
  // One object at a time into the differ: the previous version is never held whole.
  const chunks = await recordChunkKeys(previous);
  if (chunks !== null) {
    await runPool(chunks, 8, async (key) => {
      const bytes = await previous.store.get(key);
      if (bytes === null) throw new Error(`the live version ${live} lacks ${key}, which its cell tree lists`);
      differ.add(parseObject(bytes, key, CellRecords).offices);
    });
  } else {
    // A live version of schema 1 (before the cell tree): every office is in one shard of its coarsest resolution.
    const index = await previous.json(`${keys.root(live)}shards/index.json`, LegacyShardIndex);
    if (index === null) throw new Error(`the live version ${live} has neither a cell index nor a shard index`);
    const res = Math.min(...index.resolutions);
    await runPool(Object.keys(index.cells[String(res)] ?? {}).sort(), 8, async (cell) => {
      const key = `${keys.root(live)}shards/${res}/${cell}.json`;
      const bytes = await previous.store.get(key);
      if (bytes === null) throw new Error(`the live version ${live} lacks ${key}, which its shard index lists`);
      differ.add(parseObject(bytes, key, LegacyShard).offices);
    });
  }
  return changesDoc(version, week, { version: live, week: previous.meta.week, diff: differ.result() }, provenance);
}
