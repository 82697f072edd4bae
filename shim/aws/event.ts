/**
 * Lambda Function URL events (payload format 2.0) to the app's plain request, and its plain answer back to the result
 * format. Pure: no AWS calls, no environment, no web Request or Response. Kept rather than hono/aws-lambda's handle():
 * the origin-verify and viewer-host headers are dropped before the app sees them, every method (TRACE included)
 * reaches the app as sent, and compressed bodies go out base64 by their Content-Encoding.
 */
import { isIP } from 'node:net';
import type { Answer, PlainRequest } from '../edge/edge-types.ts';
import { normaliseAddress } from '../http/client-address.ts';
import { splitTarget } from '../http/target.ts';

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

/** What eventToPlain needs besides the event. */
export interface EventOptions {
  /** The caller's address (the viewer's, from CloudFront). */
  clientAddress: string;
  /** The base of the request's links and problem types. */
  publicBaseUrl?: string;
  /** Headers not passed on to the app (lower-case), e.g. the origin secret. */
  dropHeaders?: readonly string[];
}

/** The plain request of a Function URL event, read once: method, path and query as sent, headers, cookies, body. */
export function eventToPlain(event: FunctionUrlEvent, options: EventOptions): PlainRequest {
  const raw = event.rawPath.startsWith('/') ? event.rawPath : `/${event.rawPath}`;
  const query = event.rawQueryString;
  const target = splitTarget(query === '' ? raw : `${raw}?${query}`) ?? { path: raw, query };
  const drop = options.dropHeaders ?? [];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined && !drop.includes(name)) headers[name] = value;
  if (event.cookies !== undefined && event.cookies.length > 0) headers.cookie = event.cookies.join('; ');
  const method = event.requestContext.http.method.toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD' && event.body !== undefined && event.body !== '';
  return {
    method,
    path: target.path,
    query: target.query,
    headers,
    body: hasBody ? Buffer.from(event.body as string, event.isBase64Encoded ? 'base64' : 'utf8') : null,
    clientAddress: options.clientAddress,
    ...(options.publicBaseUrl !== undefined ? { publicBaseUrl: options.publicBaseUrl } : {}),
  };
}

/** Content types sent back as text; everything else is base64. */
function isText(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript)\b)/i.test(contentType);
}

/** Most bytes of the result a buffered Function URL invocation may return (Lambda's 6 MB response payload limit). */
export const FUNCTION_URL_PAYLOAD_MAX_BYTES = 6 * 1024 * 1024;

/** True when `result`, serialised as Lambda returns it, fits FUNCTION_URL_PAYLOAD_MAX_BYTES. */
export function fitsPayload(result: FunctionUrlResult): boolean {
  // JSON escaping and UTF-8 make at most 6 bytes of one UTF-16 unit; headers take a few KiB. Only a body that could
  // come near the limit is serialised to count it exactly.
  if (result.body.length * 6 + 64 * 1024 <= FUNCTION_URL_PAYLOAD_MAX_BYTES) return true;
  return Buffer.byteLength(JSON.stringify(result)) <= FUNCTION_URL_PAYLOAD_MAX_BYTES;
}

/** The Function URL result of an answer: its headers, and its body as text when it is uncompressed text, else base64. */
export function answerToResult(answer: Answer): FunctionUrlResult {
  const bytes = answer.body ?? new Uint8Array(0);
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const encoding = answer.headers['content-encoding'];
  const text = isText(answer.headers['content-type']) && (encoding === undefined || encoding === 'identity');
  return {
    statusCode: answer.status,
    headers: answer.headers,
    body: buffer.toString(text ? 'utf8' : 'base64'),
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
