/**
 * For tests that alter a stored object of a linked site copy and expect it served (a server serving other data):
 * record the altered object's sha256 where the version records it, as a generator writing those bytes would have.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LISTING_ALPHABET } from '../../shim/format/site-format.ts';
import { hashDocPath } from '../../shim/format/hash-docs.ts';
import type { SiteCopy } from './site-copy.ts';

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Record the sha256 of `rel` (relative to v/<version>/, already written in `copy`) in its listings bucket (a firm pack), its hashes/ document and meta.json. */
export function recordHash(copy: SiteCopy, rel: string): void {
  const metaPath = copy.own('meta.json');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    listing_prefix_length: number;
    sha256?: Record<string, string>;
  };
  if (meta.sha256 === undefined) return;
  let named = rel;
  const pack = /^firms\/([a-z2-7]+)\.json$/.exec(rel)?.[1];
  if (pack !== undefined && pack.length === meta.listing_prefix_length + 1) {
    named = `listings/${pack.slice(0, -1)}.json`;
    const bucketPath = copy.own(named);
    const bucket = JSON.parse(readFileSync(bucketPath, 'utf8')) as { firms_sha256: string[] };
    bucket.firms_sha256[LISTING_ALPHABET.indexOf(pack.slice(-1))] = sha256(copy.own(rel));
    writeFileSync(bucketPath, `${JSON.stringify(bucket)}\n`);
  }
  const doc = hashDocPath(named);
  if (doc !== null && meta.sha256[doc] !== undefined) {
    const docPath = copy.own(doc);
    const hashes = JSON.parse(readFileSync(docPath, 'utf8')) as { sha256: Record<string, string> };
    hashes.sha256[named] = sha256(copy.own(named));
    writeFileSync(docPath, `${JSON.stringify(hashes)}\n`);
    named = doc;
  }
  meta.sha256[named] = sha256(copy.own(named));
  writeFileSync(metaPath, `${JSON.stringify(meta)}\n`);
  recordMetaHash(copy.dir);
}

/** After meta.json of the version `<dir>/current.json` names was rewritten: record its new sha256 in the pointer, if it records one. */
export function recordMetaHash(dir: string): void {
  const pointerPath = join(dir, 'current.json');
  const pointer = JSON.parse(readFileSync(pointerPath, 'utf8')) as { version: string; meta_sha256?: string };
  if (pointer.meta_sha256 === undefined) return;
  pointer.meta_sha256 = sha256(join(dir, 'v', pointer.version, 'meta.json'));
  writeFileSync(pointerPath, `${JSON.stringify(pointer)}\n`);
}
