/** Deterministic serialisation of published objects. */
import { hash } from 'node:crypto';

/** Compact JSON in the objects' own key order (built deterministically), UTF-8, with a trailing newline. */
export function serialise(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

/** Hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return hash('sha256', bytes, 'hex');
}
