/** RFC 9457 problem responses (application/problem+json); never a stack trace. */
import { ApiError } from '../core/errors.ts';
import type { ProblemCodeT, ProblemT } from '../core/schemas.ts';
import { StoreError } from '../store/types.ts';

/** Seconds a client should wait before retrying after a store failure. */
export const STORE_RETRY_AFTER_SECONDS = 30;

/** A JSON response with the given status, body and extra headers. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': `${contentType}; charset=utf-8`, ...headers } });
}

/** A problem response for a body already shaped as RFC 9457. */
export function problemResponse(problem: ProblemT, headers: Record<string, string> = {}): Response {
  return jsonResponse(problem.status, problem, headers, 'application/problem+json');
}

/** A problem whose HTTP status differs from the code's usual one (413, 500, 501), shaped like ApiError.toProblem(). */
export function customProblem(status: number, code: ProblemCodeT, title: string, detail: string): ProblemT {
  return { type: `https://injury-attorney-directory.example/problems/${code}`, title, status, detail, code };
}

/** Map anything a handler threw to a problem response: ApiError as is, StoreError 503, anything else a generic 500 (logged to stderr). */
export function errorResponse(err: unknown, context: string): Response {
  if (err instanceof ApiError) return problemResponse(err.toProblem());
  if (err instanceof StoreError) {
    console.error(`[shim] store failure on ${context}: ${err.message}`);
    const problem = new ApiError(
      'service_unavailable',
      `The directory data could not be read just now; no partial answer is given. Retry after ${STORE_RETRY_AFTER_SECONDS} seconds.`,
    ).toProblem();
    return problemResponse(problem, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
  }
  console.error(`[shim] unexpected error on ${context}:`, err);
  return problemResponse(new ApiError('internal_error', 'The service failed to answer this request. Please retry later.').toProblem());
}
