/** Deterministic serialisation of published objects. */
import { hash } from 'node:crypto';
import { encodeBlock } from '../../shim/format/block-binary.ts';
import type { CellBlockT, CellGroupT, CellSharedT } from '../../shim/format/cell-format.ts';
import { encodeGroup } from '../../shim/format/group-binary.ts';
import { binaryCellKind } from '../../shim/format/paths.ts';
import { encodeShared } from '../../shim/format/shared-binary.ts';

/** Compact JSON in the objects' own key order (built deterministically), UTF-8, with a trailing newline. */
export function serialise(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/** The bytes of `value` as stored at `rel` (any key or path): a binary cell object by its encoder, else serialise. */
export function serialiseAt(rel: string, value: unknown): Buffer {
  const kind = binaryCellKind(rel);
  if (kind === null) return serialise(value);
  const bytes =
    kind === 'block'
      ? encodeBlock(value as CellBlockT)
      : kind === 'group'
        ? encodeGroup(value as CellGroupT)
        : encodeShared(value as CellSharedT);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return hash('sha256', bytes, 'hex');
}
