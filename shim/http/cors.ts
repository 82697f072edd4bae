/** CORS: public read endpoints are open to every origin; /mcp only to configured origins (the MCP route checks Origin too). */

/** Response headers scripts in a browser may read. */
export const EXPOSED_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, ETag, Directory-Version';
const ALLOWED_REQUEST_HEADERS =
  'Accept, Content-Type, If-None-Match, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 86400;

/** CORS headers for a response to a public GET/HEAD endpoint. */
export function publicCorsHeaders(): Record<string, string> {
  return { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS };
}

/** CORS headers for a response on /mcp: the request's Origin echoed when it is allowed, otherwise none. */
export function mcpCorsHeaders(origin: string | null, allowedOrigins: readonly string[]): Record<string, string> {
  if (origin === null || !allowedOrigins.includes(origin)) return { vary: 'Origin' };
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
}

// A field-name list as RFC 9110 defines it: tokens separated by commas and optional whitespace.
const HEADER_LIST_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * The request headers a preflight may allow: the ones the browser asks for (Access-Control-Request-Headers) when that
 * is a well-formed list, since no request header changes what a caller may read; otherwise the ones the API uses.
 */
export function allowedRequestHeaders(requested: string | null): string {
  const list = requested?.trim() ?? '';
  return list !== '' && list.length <= 1024 && HEADER_LIST_RE.test(list) ? list : ALLOWED_REQUEST_HEADERS;
}

/** Headers of a 204 answer to a preflight for a route accepting `methods`, allowing the request headers asked for. */
export function preflightHeaders(
  methods: readonly string[],
  cors: Record<string, string>,
  requestedHeaders: string | null = null,
): Record<string, string> {
  const vary = [cors.vary, 'Access-Control-Request-Headers'].filter((v) => v !== undefined).join(', ');
  return {
    ...cors,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': allowedRequestHeaders(requestedHeaders),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE),
    vary,
  };
}
