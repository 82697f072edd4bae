/** A linked copy of a site as a version written before coverage pieces: no coverage-cells/, no piece hashes in meta.json. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { MetaT } from '../../shim/format/site-format.ts';
import { recordMetaHash } from './rehash.ts';
import { linkSite, type SiteCopy } from './site-copy.ts';

/** Copy `site` (linkSite), then drop its coverage pieces and their hashes, the pointer recording the new meta.json. */
export function withoutCoveragePieces(site: string): SiteCopy {
  const copy = linkSite(site);
  const metaPath = copy.own('meta.json');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as MetaT;
  for (const rel of Object.keys(meta.sha256 ?? {})) if (rel.startsWith('coverage-cells/')) delete meta.sha256?.[rel];
  writeFileSync(metaPath, `${JSON.stringify(meta)}\n`);
  recordMetaHash(copy.dir);
  rmSync(copy.own('coverage-cells'), { recursive: true });
  return copy;
}
