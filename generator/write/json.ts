/** Deterministic serialisation of published objects. */
import { hash } from 'node:crypto';
import { encodeBlock } from '../../shim/format/block-binary.ts';
import type { CellBlockT } from '../../shim/format/cell-format.ts';
import { isBinaryBlock } from '../../shim/format/paths.ts';

/** Compact JSON in the objects' own key order (built deterministically), UTF-8, with a trailing newline. */
export function serialise(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/** The bytes of `value` as stored at `rel` (any key or path): a binary block coded by block-binary.ts, else serialise. */
export function serialiseAt(rel: string, value: unknown): Buffer {
  if (!isBinaryBlock(rel)) return serialise(value);
  const bytes = encodeBlock(value as CellBlockT);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return hash('sha256', bytes, 'hex');
}
