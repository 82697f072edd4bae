/** The one narrow interface through which the shim reads published objects. */
import { StoreError } from '../contract/errors.ts';

/** Store failures belong to the core's error taxonomy; re-exported for the drivers. */
export { StoreError };

/** A read-only object store. A missing key resolves to `null`; any other failure rejects with StoreError. */
export interface Store {
  /** Short name for logs and benchmarks, e.g. "folder", "s3", "memory". */
  readonly kind: string;
  /** The object's bytes, or null when the key does not exist; once `signal` fires the driver stops reading. */
  get(key: string, options?: ReadOptions): Promise<Uint8Array | null>;
  /**
   * Bytes `start` to `end - 1` of the object as stored (one HTTP range request on S3), or null when the key does not
   * exist. Rejects with StoreError when the object is shorter than `end` or is stored compressed (a range of gzip
   * bytes is not a range of the object). Absent on stores (and decorators) that cannot: readers then get whole objects.
   */
  getRange?(key: string, start: number, end: number, options?: ReadOptions): Promise<Uint8Array | null>;
}

/** How a read may be cut short. */
export interface ReadOptions {
  /** Fired when nobody waits for the read any more (its deadline passed): the driver lets go of socket or file. */
  signal?: AbortSignal;
}

/** True when `s` contains a C0 control character (U+0000-U+001F). */
function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20) return true;
  return false;
}

/** Keys must be relative, slash-separated and free of `..`, backslashes and control characters. */
export function assertSafeKey(key: string): void {
  if (
    key === '' ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.split('/').some((p) => p === '..' || p === '.' || p === '') ||
    hasControlCharacter(key)
  ) {
    throw new StoreError(`unsafe store key: ${JSON.stringify(key)}`, key);
  }
}
