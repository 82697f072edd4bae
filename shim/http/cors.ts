/** CORS: public read endpoints are open to every origin; /mcp only to configured origins (the MCP route checks Origin too). */

/** Response headers scripts in a browser may read. */
export const EXPOSED_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, ETag, Directory-Version';
const ALLOWED_REQUEST_HEADERS = 'Accept, Content-Type, If-None-Match, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
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

/** Headers of a 204 answer to a preflight for a route accepting `methods`. */
export function preflightHeaders(methods: readonly string[], cors: Record<string, string>): Record<string, string> {
  return {
    ...cors,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE),
  };
}
