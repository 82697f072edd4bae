/** The version a new changes document compares against: the one live on the target site (a folder or a bucket). */
import { ChangesDoc, keys, Pointer, type ChangesDocT, type StoredOfficeT } from '../shim/core/site-format.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { S3Store } from '../shim/store/s3.ts';
import type { Store } from '../shim/store/types.ts';
import { scanOffices } from './audit/scan.ts';
import { openSite, parseObject, type SiteLocation } from './audit/site.ts';
import { changesDoc, type PreviousVersion, type Provenance } from './changes.ts';

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
  if (pointerBytes === null) return changesDoc(version, week, null, offices, provenance);
  const live = parseObject(pointerBytes, keys.pointer, Pointer).version;
  if (live === version) {
    const kept = await store.get(keys.changes(version));
    if (kept !== null) return parseObject(kept, keys.changes(version), ChangesDoc);
  }
  const previous = await openSite(site, live);
  log?.(`changes: comparing with ${previous.label} version ${live}`);
  const scan = await scanOffices(previous, {});
  if (scan.problems.length > 0) throw new Error(`the live version ${live} has broken shards: ${scan.problems.slice(0, 3).join('; ')}`);
  const prev: PreviousVersion = { version: live, week: previous.meta.week, offices: scan.offices };
  return changesDoc(version, week, prev, offices, provenance);
}
