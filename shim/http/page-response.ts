/** Answers of the pages for people: the stored bytes with a strict Content-Security-Policy and security headers. */
import type { PageDocT } from '../format/page-format.ts';
import type { Answer } from '../edge/edge-types.ts';
import { DOCUMENT_CACHE_CONTROL, etagOf, ifNoneMatchHits } from './caching.ts';

/** CSP of HTML pages: only this origin's scripts, styles, images and API; no frames, no plugins, no inline code. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/**
 * CSP of /docs: Swagger UI sets element styles from script and uses data: icons in its stylesheet, and writes markup
 * through React, so it needs those two sources and no Trusted Types requirement. Still no inline script and no other host.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** CSP of standalone SVG charts: their own embedded style sheet and nothing else (no script). */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'";

/** CSP of stylesheets and scripts (they load nothing themselves). */
export const ASSET_CSP = "default-src 'none'; frame-ancestors 'none'";

function cspOf(path: string, contentType: string): string {
  if (contentType.startsWith('text/html')) return path === '/docs' ? DOCS_CSP : PAGE_CSP;
  if (contentType.startsWith('image/svg+xml')) return SVG_CSP;
  return ASSET_CSP;
}

/** Headers every response for people carries besides content type and caching, by its public path and media type. */
export function securityHeaders(path: string, contentType: string): Record<string, string> {
  return {
    'content-security-policy': cspOf(path, contentType),
    'referrer-policy': 'no-referrer',
    'x-frame-options': contentType.startsWith('image/svg+xml') ? 'SAMEORIGIN' : 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    // Only the search page asks for the position, and only when "Use my location" is pressed.
    'permissions-policy': `geolocation=(${path === '/' ? 'self' : ''}), camera=(), microphone=(), payment=(), usb=(), interest-cohort=()`,
  };
}

/** Headers every page response carries, besides content type and caching. */
export function pageSecurityHeaders(page: PageDocT): Record<string, string> {
  return securityHeaders(page.path, page.content_type);
}

/** A 200 page with ETag and Cache-Control, or a bodiless 304 when the caller's copy is current. */
export function pageAnswer(ifNoneMatch: string | null, page: PageDocT, extra: Record<string, string> = {}): Answer {
  const bytes = Buffer.from(page.body);
  const etag = etagOf(bytes);
  const headers = { etag, 'cache-control': DOCUMENT_CACHE_CONTROL, ...pageSecurityHeaders(page), ...extra };
  if (ifNoneMatchHits(ifNoneMatch, etag)) return { status: 304, headers, body: null };
  return {
    status: 200,
    headers: { ...headers, 'content-type': page.content_type, 'content-length': String(bytes.byteLength) },
    body: bytes,
  };
}

/** True when the caller asked for HTML (a browser); JSON and any-type callers keep the JSON index. */
export function wantsHtml(accept: string | null): boolean {
  if (accept === null) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return type === 'text/html' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** A page the shim renders itself (/terms, /problems/{code}) answered like a stored page: ETag, caching, CSP and security headers. */
export function renderedPageAnswer(ifNoneMatch: string | null, path: string, html: string): Answer {
  return pageAnswer(ifNoneMatch, {
    schema_version: 1,
    generated: 'by generator/; do not edit',
    path,
    content_type: 'text/html; charset=utf-8',
    body: html,
  });
}

/** Highest q the Accept header gives any of `types` (0 when none is named). */
function qualityOf(accept: string, types: readonly string[]): number {
  let best = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (type === undefined || !types.includes(type.trim())) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value) && value > best) best = value;
  }
  return best;
}

/**
 * True when the caller prefers an HTML page to a problem+json body: it names text/html, with a higher q than any JSON
 * type it names. Browsers navigating do; fetch() (Accept: *\/*), curl and API clients do not.
 */
export function prefersHtml(accept: string | null): boolean {
  if (accept === null) return false;
  const html = qualityOf(accept, ['text/html', 'application/xhtml+xml']);
  return html > 0 && html > qualityOf(accept, ['application/problem+json', 'application/json']);
}
