/** The version a new changes document compares against: the one live on the target site (a folder or a bucket). */
import { ChangesDoc, keys, Pointer, Shard, type ChangesDocT, type StoredOfficeT } from '../shim/core/site-format.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { S3Store } from '../shim/store/s3.ts';
import type { Store } from '../shim/store/types.ts';
import { cheapestResolution, readShardIndex } from './audit/scan.ts';
import { runPool } from './pool.ts';
import { openSite, parseObject, type SiteLocation } from './audit/site.ts';
import { changesDoc, ListingDiffer, type Provenance } from './changes.ts';

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
  const index = await readShardIndex(previous);
  const res = cheapestResolution(index);
  const cells = Object.keys(index.cells[String(res)] ?? {}).sort();
  const differ = new ListingDiffer(offices);
  // One shard at a time into the differ: the previous version is never held whole.
  await runPool(cells, 8, async (cell) => {
    const key = keys.shard(live, res, cell);
    const bytes = await previous.store.get(key);
    if (bytes === null) throw new Error(`the live version ${live} lacks ${key}, which its shard index lists`);
    differ.add(parseObject(bytes, key, Shard).offices);
  });
  return changesDoc(version, week, { version: live, week: previous.meta.week, diff: differ.result() }, provenance);
}
