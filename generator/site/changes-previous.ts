/** The version a new changes document compares against: the one live on the target site (a folder or a bucket). */
import { z } from 'zod';
import { CellRecordsShown } from '../../shim/core/cell-format.ts';
import { ChangesDoc, keys, Pointer, StoredOffice, type ChangesDocT, type StoredOfficeT } from '../../shim/core/site-format.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { S3Store } from '../../shim/store/s3.ts';
import type { Store } from '../../shim/store/types.ts';
import { recordChunkKeys } from './scan.ts';
import { runPool } from '../write/pool.ts';
import { checkParsed, openStoredVersion, parseObject, type SiteLocation, type StoredSite } from './site.ts';
import { CURRENT_SCHEMA, otherSchemaMessage } from './published-meta.ts';
import { changesDoc, ListingDiffer, type Provenance } from '../model/changes.ts';

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
  // Read loosely first: the live version may be of an older schema than this generator writes. Keys are read through
  // its map, so a layered live version's keys resolve where the map says.
  const previous = await openStoredVersion(site, live);
  if (live === version) {
    const kept = await previous.json(keys.changes(version), ChangesDoc);
    if (kept !== null) return kept;
  }
  const schema = previous.meta.schema_version;
  log?.(`changes: comparing with ${previous.label} version ${live} (schema ${schema})`);
  const differ = new ListingDiffer(offices);
  // Only the cell tree is read: a meta.json of the same schema but other fields still compares.
  if (schema === CURRENT_SCHEMA) await addCellRecords(previous, differ);
  else if (schema === 1) await addLegacyShards(previous, differ);
  else throw new Error(otherSchemaMessage(`the live version of ${previous.label}`, live, schema));
  return changesDoc(version, week, { version: live, week: previous.meta.week, diff: differ.result() }, provenance);
}

/** Every office of a schema-2 version, one record chunk at a time into the differ: the version is never held whole. */
async function addCellRecords(previous: StoredSite, differ: ListingDiffer): Promise<void> {
  const chunks = await recordChunkKeys(previous);
  if (chunks === null) throw new Error(`the live version ${previous.version} is schema 2 but has no cell index`);
  await runPool(chunks, 8, async (key) => {
    const bytes = await previous.store.get(key);
    if (bytes === null) throw new Error(`the live version ${previous.version} lacks ${key}, which its cell tree lists`);
    // The chunk is checked whole but its records loosely; the differ checks the records that differ from this week's.
    differ.add(parseObject(bytes, key, CellRecordsShown).offices, (raw, i) => checkParsed(raw, `${key} offices.${i}`, StoredOffice));
  });
}

/** Every office of a schema-1 version (before the cell tree): each is in one shard of the coarsest resolution. */
async function addLegacyShards(previous: StoredSite, differ: ListingDiffer): Promise<void> {
  const live = previous.version;
  const index = await previous.json(`${keys.root(live)}shards/index.json`, LegacyShardIndex);
  if (index === null) throw new Error(`the live version ${live} is schema 1 but has no ${keys.root(live)}shards/index.json`);
  if (index.resolutions.length === 0) throw new Error(`the live version ${live}: shards/index.json lists no resolution`);
  const res = Math.min(...index.resolutions);
  await runPool(Object.keys(index.cells[String(res)] ?? {}).sort(), 8, async (cell) => {
    const key = `${keys.root(live)}shards/${res}/${cell}.json`;
    const bytes = await previous.store.get(key);
    if (bytes === null) throw new Error(`the live version ${live} lacks ${key}, which its shard index lists`);
    differ.add(parseObject(bytes, key, LegacyShard).offices);
  });
}
