/** A listing's firm document in a site folder, through its firm pack (docs/SITE-FORMAT.md), for tests that read or alter one. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firmPackPrefix, FirmPack, keys, type FirmDocT, type FirmPackT } from '../../shim/format/site-format.ts';

/** The store key of the firm pack holding `listingId` in `version` of the site folder `site`. */
export function firmPackKey(site: string, version: string, listingId: string): string {
  const metaPath = join(site, keys.meta(version));
  let length = prefixLengths.get(metaPath);
  if (length === undefined) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { listing_prefix_length: number };
    prefixLengths.set(metaPath, (length = meta.listing_prefix_length));
  }
  return keys.firmPack(version, firmPackPrefix(listingId, length));
}

/** listing_prefix_length by meta.json path (a version's never changes). */
const prefixLengths = new Map<string, number>();

/** The firm pack at `key` of the site folder `site`, parsed. */
export function readFirmPack(site: string, key: string): FirmPackT {
  return FirmPack.parse(JSON.parse(readFileSync(join(site, key), 'utf8')));
}

/** The firm document of `listingId` in `version` of the site folder `site`, or undefined when its pack has none. */
export function readFirmDoc(site: string, version: string, listingId: string): FirmDocT | undefined {
  return readFirmPack(site, firmPackKey(site, version, listingId)).documents.find((d) => d.listing_id === listingId);
}

/**
 * Replace the firm document of `doc.listing_id` in its pack (the pack rewritten; no hash recorded). `own` gives the path
 * to write for a version-relative path (a linked site copy's `own`, so the original is never written through a link).
 * Returns the pack's store key.
 */
export function writeFirmDoc(site: string, version: string, doc: FirmDocT, own?: (rel: string) => string): string {
  const key = firmPackKey(site, version, doc.listing_id);
  const pack = readFirmPack(site, key);
  const documents = pack.documents.map((d) => (d.listing_id === doc.listing_id ? doc : d));
  const path = own === undefined ? join(site, key) : own(key.slice(keys.root(version).length));
  writeFileSync(path, `${JSON.stringify({ ...pack, documents })}\n`);
  return key;
}
