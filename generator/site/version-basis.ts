/**
 * What a new version id is based on besides its content: the version live on the target before it (its changes
 * document compares with that one, so two runs of the same content against different live versions write different
 * bytes and must not share an id), and whether the run reproduces the live version itself.
 */
import { z } from 'zod';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { openStoredVersion, parseObject, type SiteLocation } from './site.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { S3Store } from '../../shim/store/s3.ts';

/** Only the field every changes document has: which version it compared with. */
const ChangesPrevious = z.object({ previous: z.object({ version: z.string() }).nullable() });

/** The live version on the target and the version its own changes document compared with (null when unknown). */
export interface VersionBasis {
  live: string | null;
  livePrevious: string | null;
}

/**
 * Read the target's pointer (or take `base`, the version live when a release began) and, when a version is live, the
 * `previous` its changes document names.
 */
export async function versionBasis(site: SiteLocation, base?: string | null): Promise<VersionBasis> {
  const store = site.kind === 'folder' ? new FolderStore(site.dir) : new S3Store((({ kind: _k, ...o }) => o)(site));
  const pointerBytes = base === undefined ? await store.get(keys.pointer) : null;
  const live = base !== undefined ? base : pointerBytes === null ? null : parseObject(pointerBytes, keys.pointer, Pointer).version;
  if (live === null) return { live: null, livePrevious: null };
  const stored = await openStoredVersion(site, live);
  const changes = await stored.json(keys.changes(live), ChangesPrevious).catch(() => null);
  return { live, livePrevious: changes?.previous?.version ?? null };
}

/**
 * The id of a version whose content ids to `idFor(previous)`: the live version itself when the content with the live
 * version's own previous gives its id (the same week generated again), otherwise the id over the content and the live
 * version. With `newVersion` the live version is never reproduced: the id is over the content and the live version (a
 * new version of the same week over it), to publish another generator's output of the live version's inputs.
 */
export function chooseVersionId(
  basis: VersionBasis,
  idFor: (previous: string | null) => string,
  newVersion = false,
): { version: string; previous: string | null } {
  if (!newVersion && basis.live !== null && idFor(basis.livePrevious) === basis.live)
    return { version: basis.live, previous: basis.livePrevious };
  return { version: idFor(basis.live), previous: basis.live };
}
