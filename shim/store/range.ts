/** The checks every Store.getRange shares: a safe key, a well-formed range, and an object long enough for it. */
import { assertSafeKey, StoreError } from './types.ts';

/** The range as written in messages and logs: `bytes start-(end - 1)`, HTTP's inclusive form. */
export function describeRange(start: number, end: number): string {
  return `bytes ${start}-${end - 1}`;
}

/** Rejects an unsafe key, and a range that is not whole numbers with 0 <= start < end, before any read. */
export function assertSafeRange(key: string, start: number, end: number): void {
  assertSafeKey(key);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) {
    throw new StoreError(`bad range of ${key}: start ${start}, end ${end} (need whole numbers, 0 <= start < end)`, key);
  }
}

/** The StoreError of a range that runs past the end of an object of `size` bytes. */
export function pastEnd(store: string, key: string, start: number, end: number, size: number): StoreError {
  return new StoreError(
    `${store} store could not read ${describeRange(start, end)} of ${key}: the object has ${size} bytes`,
    key,
  );
}

/** Bytes start to end - 1 of `bytes` (a view, not a copy), or a StoreError when `bytes` is shorter than `end`. */
export function sliceRange(store: string, key: string, bytes: Uint8Array, start: number, end: number): Uint8Array {
  if (bytes.byteLength < end) throw pastEnd(store, key, start, end, bytes.byteLength);
  return bytes.subarray(start, end);
}
