/**
 * Problem answers for people: a browser (Accept preferring text/html) that meets a 404, 429, 500 or 503 on a GET or
 * HEAD gets the site-styled page of shim/pages/error-page.ts with the same status and headers, and the page CSP; every
 * other caller keeps the problem+json. Both carry `Vary: Accept`.
 */
import { ERROR_PAGE_STATUSES, errorPageHtml } from '../pages/error-page.ts';
import { isProblemCode } from '../pages/problem-pages.ts';
import type { ProblemCodeT } from '../contract/schemas.ts';
import type { Answer, PlainRequest } from '../edge/edge-types.ts';
import { headerOf } from './answer.ts';
import { prefersHtml, securityHeaders } from './page-response.ts';

const HTML = 'text/html; charset=utf-8';
/** The code of each status, for a problem body that does not name one. */
const CODE_OF: Record<number, ProblemCodeT> = {
  404: 'not_found',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** `answer`, as a page when the request came from a person's browser and the answer is a problem it has a page for. */
export function errorPageFor(request: PlainRequest, answer: Answer, now: Date = new Date()): Answer {
  const method = request.method;
  if (!ERROR_PAGE_STATUSES.has(answer.status) || (method !== 'GET' && method !== 'HEAD')) return answer;
  if (!(answer.headers['content-type'] ?? '').startsWith('application/problem+json')) return answer;
  const headers = { ...answer.headers };
  headers.vary = headers.vary === undefined ? 'Accept' : `${headers.vary}, Accept`;
  if (!prefersHtml(headerOf(request, 'accept'))) return { status: answer.status, headers, body: answer.body };
  let code: unknown;
  try {
    code = (JSON.parse(Buffer.from(answer.body ?? []).toString('utf8')) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  const retryAfter = Number(answer.headers['retry-after']);
  const html = errorPageHtml({
    status: answer.status,
    code: typeof code === 'string' && isProblemCode(code) ? code : (CODE_OF[answer.status] ?? 'internal_error'),
    path: request.path,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    now,
  });
  const body = Buffer.from(html);
  headers['content-type'] = HTML;
  headers['content-length'] = String(body.byteLength);
  // The page CSP and the security headers every page has; the path '' allows no geolocation and is not /docs.
  Object.assign(headers, securityHeaders('', HTML));
  return { status: answer.status, headers, body };
}
