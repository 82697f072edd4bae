/** The ApiError a call refuses with, for tests that check its code and detail. */
import { ApiError } from '../../shim/contract/errors.ts';

/** The ApiError `f` throws; anything else it throws is rethrown, and no throw fails the test. */
export function rejection(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

/** The ApiError `p` rejects with; any other rejection is rethrown, and fulfilment fails the test. */
export async function asyncRejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}
