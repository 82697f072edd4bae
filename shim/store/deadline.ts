/** A deadline on store reads: a read that does not finish in time is aborted and is a StoreError (503), not a wait. */
import { requestDeadline } from './request-deadline.ts';
import { StoreError, type ReadOptions, type Store } from './types.ts';

/** A read given up at a request's deadline: another request sharing the read may still have time to read again. */
export class StoreDeadlineError extends StoreError {}

/** Default deadline of one request's store reads together, in milliseconds (STORE_TIMEOUT_MS; the Lambda's). */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;
/**
 * The API function's timeout in seconds (infra/api-function.ts). The Lambda's store deadline must end well inside it,
 * so a stalled store is a 503 the function sends, never a timed-out invocation; the rest is left for the answer.
 */
export const LAMBDA_TIMEOUT_SECONDS = 10;

/**
 * `store` with every read bounded by the deadline of the request it serves (runWithDeadline), or by `ms` from its start
 * outside a request. At the deadline the read's AbortSignal fires, so the driver lets go of its socket or file, and the
 * read rejects with StoreError whether or not the driver has stopped. Nothing is cached here, so the next request reads
 * the object again.
 */
export function withDeadline(store: Store, ms: number): Store {
  const { getRange } = store;
  return {
    kind: store.kind,
    get: (key) => bounded(store.kind, key, ms, (options) => store.get(key, options)),
    // Only when the inner store reads ranges: without it readers fall back to whole objects.
    ...(getRange !== undefined
      ? {
          getRange: (key: string, start: number, end: number) =>
            bounded(store.kind, key, ms, (options) => getRange.call(store, key, start, end, options)),
        }
      : {}),
  };
}

/** `read` given an AbortSignal that fires at the deadline, when the read rejects with StoreDeadlineError. */
function bounded(
  kind: string,
  key: string,
  ms: number,
  read: (options: ReadOptions) => Promise<Uint8Array | null>,
): Promise<Uint8Array | null> {
  const deadline = requestDeadline();
  const budget = deadline?.ms ?? ms;
  const left = deadline === undefined ? ms : deadline.at - performance.now();
  const late = (): StoreError => new StoreDeadlineError(`${kind} store did not return ${key} within ${budget} ms`, key);
  if (left <= 0) return Promise.reject(late());
  const controller = new AbortController();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = late();
      controller.abort(error);
      reject(error);
    }, left);
    read({ signal: controller.signal }).then(
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
}
