/**
 * Integrity of stored objects: each object the shim reads is checked against the sha256 that the object naming it
 * records (meta.json for the objects it names, the cell index for groups, a group for its blocks and shared lists, a
 * block for its record chunks, a listings bucket for its firm documents). A version generated before the hashes
 * existed has none in its meta.json and is read without checks.
 */
import { createHash } from 'node:crypto';
import type { MetaT } from './site-format.ts';
import { StoreError } from '../contract/errors.ts';

/** sha256 of `bytes` as lowercase hex, the form manifest.json and the parents record. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** True when the version records the hashes of its objects (its meta.json has `sha256`). */
export function recordsHashes(meta: MetaT): boolean {
  return meta.sha256 !== undefined;
}

/**
 * The sha256 `rel` (relative to the version root) must have when its parent or meta.json records it: `given` by its
 * parent, else meta.json's entry. Undefined otherwise: the `hashes/` document hashDocOf names may record it.
 */
export function expectedHash(meta: MetaT, rel: string, given: string | undefined): string | undefined {
  return given ?? meta.sha256?.[rel];
}

/**
 * Objects a version that records hashes may still hold without one: the measurement documents of versions generated
 * before meta.json recorded theirs (the shim answers them for the served version). Such a version records no
 * `measurement/` hash at all; one that records any records all of them.
 */
export function readsUnhashed(meta: MetaT): (rel: string) => boolean {
  const sha = meta.sha256;
  if (sha === undefined) return () => true;
  const measured = Object.keys(sha).some((rel) => rel.startsWith('measurement/') || rel === 'hashes/measurement.json');
  return (rel) => !measured && rel.startsWith('measurement/');
}

/** Throws StoreError (a 503) unless `bytes` hash to `expected`; nothing read so is ever cached. */
export function checkHash(key: string, bytes: Uint8Array, expected: string | undefined): void {
  if (expected === undefined) return;
  const got = sha256Hex(bytes);
  if (got !== expected)
    throw new StoreError(
      `${key} does not match the sha256 recorded for it (${got.slice(0, 12)}... stored, ${expected.slice(0, 12)}... recorded)`,
      key,
    );
}
