/** The one mapping from errors to RFC 9457 problem responses (application/problem+json), for REST, MCP and the server; never a stack trace. */
import { toApiError } from '../core/errors.ts';
import { problemTypeUri } from '../core/problem-pages.ts';
import type { ProblemT } from '../core/schemas.ts';

/** A JSON response with the given status, body and extra headers. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': `${contentType}; charset=utf-8`, ...headers },
  });
}

/**
 * The problem body and the headers it needs (Retry-After for 503) of anything thrown. Unexpected errors are logged to
 * stderr with `context`. With `publicBaseUrl`, `type` is the code's page on the service itself.
 */
export function problemOf(
  error: unknown,
  context = 'request',
  publicBaseUrl?: string,
): { problem: ProblemT; headers: Record<string, string> } {
  const api = toApiError(error);
  if (api !== error)
    console.error(
      `[shim] ${api.status === 503 ? 'store failure' : 'unexpected error'} on ${context}:`,
      error instanceof Error ? error.message : error,
    );
  const headers: Record<string, string> = {};
  if (api.extra.retryAfterSeconds !== undefined) headers['retry-after'] = String(api.extra.retryAfterSeconds);
  const problem = api.toProblem();
  if (publicBaseUrl !== undefined) problem.type = problemTypeUri(publicBaseUrl, problem.code);
  return { problem, headers };
}

/** A problem response for a body already shaped as RFC 9457. */
export function problemResponse(problem: ProblemT, headers: Record<string, string> = {}): Response {
  return jsonResponse(problem.status, problem, headers, 'application/problem+json');
}

/**
 * Map anything a handler threw to a problem response: ApiError as is, StoreError 503 with Retry-After, anything else a
 * generic 500. With `publicBaseUrl`, `type` is absolute from the start (the code's page on the service).
 */
export function errorResponse(
  error: unknown,
  context: string,
  headers: Record<string, string> = {},
  publicBaseUrl?: string,
): Response {
  const { problem, headers: own } = problemOf(error, context, publicBaseUrl);
  return problemResponse(problem, { ...own, ...headers });
}
