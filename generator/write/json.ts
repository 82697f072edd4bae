/** Deterministic serialisation of published objects. */
import { hash } from 'node:crypto';
import { encodeBlock } from '../../shim/format/block-binary.ts';
import type { CellBlockT, CellGroupT, CellSharedT } from '../../shim/format/cell-format.ts';
import { encodeGroup } from '../../shim/format/group-binary.ts';
import { binaryCellKind, type BinaryCellKind } from '../../shim/format/paths.ts';
import { encodeShared } from '../../shim/format/shared-binary.ts';

/** Compact JSON in the objects' own key order (built deterministically), UTF-8, with a trailing newline. */
export function serialise(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/** The encoder of each kind of binary cell object (site-json.ts has the decoders). */
const ENCODE: Record<BinaryCellKind, (value: unknown) => Uint8Array> = {
  block: (v) => encodeBlock(v as CellBlockT),
  group: (v) => encodeGroup(v as CellGroupT),
  shared: (v) => encodeShared(v as CellSharedT),
};

/** The bytes of `value` as stored at `rel` (any key or path): a binary cell object by its encoder, else serialise. */
export function serialiseAt(rel: string, value: unknown): Buffer {
  const kind = binaryCellKind(rel);
  if (kind === null) return serialise(value);
  const bytes = ENCODE[kind](value);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return hash('sha256', bytes, 'hex');
}
