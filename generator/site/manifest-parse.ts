/**
 * manifest.json parsed and checked by hand. A version of a million offices lists about a million objects (148 MB):
 * zod's record parse of that takes most of a minute and a second copy of it in memory, while this check of the same
 * shape (`Manifest` in shim/format/site-format.ts, which stays the reference) takes well under a second and keeps the
 * object JSON.parse made. Small documents keep zod.
 */
import { StoreError } from '../../shim/contract/errors.ts';
import type { ManifestT } from '../../shim/format/site-format.ts';
import { manifestKeys } from './manifest-join.ts';

/**
 * A manifest that is not JSON or not of the published shape; the message names the key and the first problem. A
 * StoreError like every other failure to read a published object (shim/format/site-json.ts).
 */
export class ManifestFormatError extends StoreError {
  constructor(message: string, key: string) {
    super(message, key);
    this.name = 'ManifestFormatError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed manifest in `bytes` (read from `key`); throws ManifestFormatError unless it has the shape of `Manifest`. */
export function parseManifest(bytes: Uint8Array | string, key: string): ManifestT {
  let value: unknown;
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw new ManifestFormatError(`${key} is not JSON: ${(err as Error).message}`, key);
  }
  return checkManifestShape(value, key);
}

/** `value` as a manifest when it has the shape of `Manifest` (the same object, not a copy); else throws ManifestFormatError. */
export function checkManifestShape(value: unknown, key: string): ManifestT {
  const fail = (path: string, what: string): never => {
    throw new ManifestFormatError(`${key} does not match its format: ${path}: ${what}`, key);
  };
  if (!isRecord(value)) return fail('(root)', 'expected an object');
  if (value.schema_version !== 1) fail('schema_version', 'expected 1');
  if (typeof value.version !== 'string') fail('version', 'expected a string');
  const objects = value.objects;
  if (!isRecord(objects)) return fail('objects', 'expected an object');
  for (const k of manifestKeys(objects as ManifestT['objects'])) {
    const e = objects[k];
    if (!isRecord(e)) fail(`objects.${k}`, 'expected an object');
    const entry = e as Record<string, unknown>;
    if (typeof entry.sha256 !== 'string') fail(`objects.${k}.sha256`, 'expected a string');
    if (typeof entry.bytes !== 'number' || !Number.isSafeInteger(entry.bytes)) fail(`objects.${k}.bytes`, 'expected an integer');
  }
  return value as unknown as ManifestT;
}
