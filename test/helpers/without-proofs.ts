/** A linked copy of a site as a version written before the gazetteer proofs: no gazetteer_root in meta.json. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { MetaT } from '../../shim/format/site-format.ts';
import { recordMetaHash } from './rehash.ts';
import { linkSite, type SiteCopy } from './site-copy.ts';

/**
 * Copy `site` (linkSite), then drop meta.json's gazetteer_root, the pointer recording the new meta.json: its gazetteer
 * documents are checked by their hashes/ documents (the proof each still carries is one more member, not read).
 */
export function withoutProofs(site: string): SiteCopy {
  const copy = linkSite(site);
  const metaPath = copy.own('meta.json');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as MetaT;
  delete meta.gazetteer_root;
  writeFileSync(metaPath, `${JSON.stringify(meta)}\n`);
  recordMetaHash(copy.dir);
  return copy;
}
