/** Whether this release's shim can serve a version of a site folder: its meta and cell schemas. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PREVIOUS_CELL_SCHEMA, SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import { keys } from '../../shim/format/site-format.ts';
import { currentVersion } from '../write/site-folder.ts';

/** The schema_version of the JSON object at `path`, or null when it cannot be read. */
async function schemaAt(path: string): Promise<number | null> {
  try {
    const schema = (JSON.parse(await readFile(path, 'utf8')) as { schema_version?: unknown }).schema_version;
    return typeof schema === 'number' ? schema : null;
  } catch {
    return null;
  }
}

/**
 * Why this release cannot serve `version` of the site folder `siteDir`, or null when it can: the shim reads the current
 * meta schema only and the current or previous cell schema, so a version of another answers every search with a 503.
 */
export async function unservableBecause(siteDir: string, version: string): Promise<string | null> {
  const meta = await schemaAt(join(siteDir, keys.meta(version)));
  if (meta !== SCHEMA_VERSIONS.meta)
    return `${version} is meta schema ${meta ?? 'unreadable'}, which this release does not serve (it reads meta schema ${SCHEMA_VERSIONS.meta} only)`;
  const cells = await schemaAt(join(siteDir, keys.cellIndex(version)));
  if (cells !== SCHEMA_VERSIONS.cells && cells !== PREVIOUS_CELL_SCHEMA)
    return `${version} is cells schema ${cells ?? 'unreadable'}, which this release does not serve (it reads cells schema ${SCHEMA_VERSIONS.cells} or ${PREVIOUS_CELL_SCHEMA} only)`;
  return null;
}

/** Why this release cannot serve the version the site folder's current.json names, or null when it can. */
export async function liveUnservable(siteDir: string): Promise<string | null> {
  const version = await currentVersion(siteDir);
  if (version === null) return `its ${keys.pointer} is not a pointer this release reads`;
  return unservableBecause(siteDir, version);
}
