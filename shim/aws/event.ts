/**
 * Lambda Function URL events (payload format 2.0) to web-standard Request and Response back to the result format.
 * Pure: no AWS calls, no environment. Kept rather than hono/aws-lambda's handle(): the Request's host is the
 * viewer's (from the CloudFront header, checked), the origin-verify and viewer-host headers are dropped before the
 * app sees them, forbidden methods travel in RequestInfo.method, and compressed bodies go out base64 by their
 * Content-Encoding; handle() builds the Request from the Function URL's own domain and knows none of these.
 */
import { isIP } from 'node:net';
import { normaliseAddress } from '../http/client-address.ts';
import { webMethod } from '../http/method.ts';

/** The request a Function URL hands to the function (payload format 2.0); header names arrive lower-cased. */
export interface FunctionUrlEvent {
  version: string;
  routeKey?: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined>;
  requestContext: {
    accountId?: string;
    apiId?: string;
    domainName: string;
    domainPrefix?: string;
    requestId?: string;
    routeKey?: string;
    stage?: string;
    http: { method: string; path?: string; protocol?: string; sourceIp: string; userAgent?: string };
    time?: string;
    timeEpoch?: number;
  };
  body?: string;
  isBase64Encoded: boolean;
}

/** The answer a Function URL expects (buffered invoke mode). */
export interface FunctionUrlResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

/** Options of eventToRequest. */
export interface EventToRequestOptions {
  /** Host for the Request URL (default: the event's requestContext.domainName). */
  host?: string;
  /** Headers not passed on to the app (lower-case), e.g. the origin secret. */
  dropHeaders?: readonly string[];
}

/** A Request for the event (a method a Request cannot carry becomes GET; pass webMethod(...).info to the app): https://<host><rawPath>?<rawQueryString>, its headers, cookies and body (base64 decoded). */
export function eventToRequest(event: FunctionUrlEvent, options: EventToRequestOptions = {}): Request {
  const host = options.host ?? event.requestContext.domainName;
  const path = event.rawPath.startsWith('/') ? event.rawPath : `/${event.rawPath}`;
  // Concatenated, never resolved against a base: a path like //other.example must stay a path.
  const url = `https://${host}${path}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  const drop = new Set(options.dropHeaders ?? []);
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value === undefined || drop.has(name.toLowerCase())) continue;
    try {
      headers.set(name, value);
    } catch {
      // A header value undici refuses (control characters) is dropped, as the local server does.
    }
  }
  if (event.cookies !== undefined && event.cookies.length > 0) headers.set('cookie', event.cookies.join('; '));
  const { method } = webMethod(event.requestContext.http.method);
  const hasBody = method !== 'GET' && method !== 'HEAD' && event.body !== undefined && event.body !== '';
  const body = hasBody
    ? event.isBase64Encoded
      ? Buffer.from(event.body as string, 'base64')
      : Buffer.from(event.body as string, 'utf8')
    : undefined;
  return new Request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
}

/** Content types sent back as text; everything else is base64. */
function isText(contentType: string | null): boolean {
  if (contentType === null) return true;
  return /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript)\b)/i.test(contentType);
}

/** The Function URL result for a Response: buffered body (text or base64), headers, Set-Cookie as `cookies`. */
export async function responseToResult(response: Response): Promise<FunctionUrlResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  const bytes = response.body === null ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer());
  const encoding = response.headers.get('content-encoding');
  const text = isText(response.headers.get('content-type')) && (encoding === null || encoding === 'identity');
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    body: text ? Buffer.from(bytes).toString('utf8') : Buffer.from(bytes).toString('base64'),
    isBase64Encoded: !text,
  };
}

/**
 * The client's IP from CloudFront-Viewer-Address, "ip:port" with the port after the last colon for IPv4 and IPv6 alike
 * (e.g. "198.51.100.10:46532", "2001:db8::1:443"; "[2001:db8::1]:443" is accepted too). Null when absent or malformed.
 */
export function viewerAddress(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  const bracketed = /^\[([^\]]+)\]:\d{1,5}$/.exec(v);
  if (bracketed?.[1] !== undefined) return isIP(bracketed[1]) !== 0 ? normaliseAddress(bracketed[1]) : null;
  const colon = v.lastIndexOf(':');
  if (colon > 0 && /^\d{1,5}$/.test(v.slice(colon + 1))) {
    const ip = v.slice(0, colon);
    if (isIP(ip) !== 0) return normaliseAddress(ip);
  }
  // CloudFront always adds the port; a bare address is taken only when it parses as one.
  return isIP(v) !== 0 ? normaliseAddress(v) : null;
}
