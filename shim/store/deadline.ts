/** A deadline on store reads: a read that does not finish in time is a StoreError (503) instead of a request that waits. */
import { StoreError, type Store } from './types.ts';

/** Default deadline of one store read, in milliseconds (STORE_TIMEOUT_MS). */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/**
 * `store` with every read bounded by `ms`: past it the read rejects with StoreError, and the late result, whenever it
 * comes, is dropped. Nothing is cached here, so the next request reads the object again.
 */
export function withDeadline(store: Store, ms: number): Store {
  return {
    kind: store.kind,
    get(key: string): Promise<Uint8Array | null> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new StoreError(`${store.kind} store did not return ${key} within ${ms} ms`, key)),
          ms,
        );
        store.get(key).then(
          (bytes) => {
            clearTimeout(timer);
            resolve(bytes);
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err as Error);
          },
        );
      });
    },
  };
}
