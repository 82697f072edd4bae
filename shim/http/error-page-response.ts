/**
 * Problem answers for people: a browser (Accept preferring text/html) that meets a 404, 429, 500 or 503 on a GET or
 * HEAD gets the site-styled page of shim/core/error-page.ts with the same status and headers, and the page CSP; every
 * other caller keeps the problem+json. Both carry `Vary: Accept`.
 */
import { ERROR_PAGE_STATUSES, errorPageHtml } from '../core/error-page.ts';
import { isProblemCode } from '../core/problem-pages.ts';
import type { ProblemCodeT } from '../core/schemas.ts';
import { prefersHtml, securityHeaders } from './page-response.ts';

const HTML = 'text/html; charset=utf-8';
/** The code of each status, for a problem body that does not name one. */
const CODE_OF: Record<number, ProblemCodeT> = {
  404: 'not_found',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** `response`, as a page when the request came from a person's browser and the response is a problem it has a page for. */
export async function errorPageFor(
  request: Request,
  method: string,
  response: Response,
  now: Date = new Date(),
): Promise<Response> {
  if (!ERROR_PAGE_STATUSES.has(response.status) || (method !== 'GET' && method !== 'HEAD')) return response;
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) return response;
  const headers = new Headers(response.headers);
  headers.append('vary', 'Accept');
  if (!prefersHtml(request.headers.get('accept')))
    return new Response(response.body, { status: response.status, headers });
  let code: unknown;
  try {
    code = (JSON.parse(await response.text()) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  const html = errorPageHtml({
    status: response.status,
    code: typeof code === 'string' && isProblemCode(code) ? code : (CODE_OF[response.status] ?? 'internal_error'),
    path: new URL(request.url).pathname,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    now,
  });
  headers.delete('content-length');
  headers.set('content-type', HTML);
  // The page CSP and the security headers every page has; the path '' allows no geolocation and is not /docs.
  for (const [name, value] of Object.entries(securityHeaders('', HTML))) headers.set(name, value);
  return new Response(html, { status: response.status, headers });
}
