/** The one mapping from errors to RFC 9457 problem answers (application/problem+json), for REST, MCP and the adapters; never a stack trace. */
import { toApiError } from '../contract/errors.ts';
import { problemTypeUri } from '../pages/problem-pages.ts';
import type { ProblemT } from '../contract/schemas.ts';
import type { Answer } from '../edge/edge-types.ts';
import { errorText, logLine, rateLimited } from '../edge/log-line.ts';

/** Store failures and unexpected errors let into the process log per minute; a faulty store under load writes no more. */
export const FAILURE_LINES_PER_MINUTE = 60;

const failureLog = rateLimited(
  (line: string) => logLine(line),
  (dropped) => logLine(`[shim] ${dropped} more store failures or unexpected errors in the last minute were not logged`),
  { perWindow: FAILURE_LINES_PER_MINUTE },
);

/**
 * The problem body and the headers it needs (Retry-After for 503) of anything thrown. Unexpected errors are logged to
 * stderr with `context`, at most FAILURE_LINES_PER_MINUTE a minute. With `publicBaseUrl`, `type` is the code's page on the service itself.
 */
export function problemOf(
  error: unknown,
  context = 'request',
  publicBaseUrl?: string,
): { problem: ProblemT; headers: Record<string, string> } {
  const api = toApiError(error);
  if (api !== error)
    failureLog(
      `[shim] ${api.status === 503 ? 'store failure' : 'unexpected error'} on ${context}: ${errorText(error)}`,
    );
  const headers: Record<string, string> = {};
  if (api.extra.retryAfterSeconds !== undefined) headers['retry-after'] = String(api.extra.retryAfterSeconds);
  const problem = api.toProblem();
  if (publicBaseUrl !== undefined) problem.type = problemTypeUri(publicBaseUrl, problem.code);
  return { problem, headers };
}

/** A problem answer rendered once: status, every header and the JSON body; a Response, a socket or a Lambda result only serialise it. */
export interface RenderedProblem {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one problem renderer: anything thrown as its RFC 9457 answer (ApiError as is, StoreError 503 with Retry-After,
 * anything else a generic 500), with `type` absolute under `publicBaseUrl` when given, `extra` headers (Allow, CORS,
 * RateLimit) beside its own, and the headers every problem carries (no-store, nosniff).
 */
export function renderProblem(
  error: unknown,
  context: string,
  publicBaseUrl?: string,
  extra: Record<string, string> = {},
): RenderedProblem {
  const { problem, headers } = problemOf(error, context, publicBaseUrl);
  return {
    status: problem.status,
    headers: {
      ...extra,
      ...headers,
      'content-type': 'application/problem+json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: JSON.stringify(problem),
  };
}

/** Anything thrown as its problem answer (renderProblem), with Content-Length. */
export function problemAnswer(
  error: unknown,
  context: string,
  headers: Record<string, string> = {},
  publicBaseUrl?: string,
): Answer {
  const rendered = renderProblem(error, context, publicBaseUrl, headers);
  const body = Buffer.from(rendered.body);
  return {
    status: rendered.status,
    headers: { ...rendered.headers, 'content-length': String(body.byteLength) },
    body,
  };
}

/** Anything thrown as a problem Response (renderProblem), for a route served by a web library (MCP). */
export function errorResponse(
  error: unknown,
  context: string,
  headers: Record<string, string> = {},
  publicBaseUrl?: string,
): Response {
  const rendered = renderProblem(error, context, publicBaseUrl, headers);
  return new Response(rendered.body, { status: rendered.status, headers: rendered.headers });
}
