/** Lambda Function URL events (payload format 2.0) as CloudFront relays them, for the Lambda tests. */
import type { FunctionUrlEvent, FunctionUrlResult } from '../../shim/aws/event.ts';

/** Host name of the (fictional) Function URL. */
const FUNCTION_URL_PREFIX = 'abcdefghijklmnopqrstuvwxyz123456';
export const FUNCTION_URL_HOST = `${FUNCTION_URL_PREFIX}.lambda-url.us-east-1.on.aws`;
/** An IPv6 viewer as CloudFront writes it: address, colon, port, no brackets. */
export const VIEWER_IPV6 = '2406:2d40:728d:fa10::c4a';
export const VIEWER_ADDRESS_HEADER = `${VIEWER_IPV6}:42838`;

/** What a test sets; everything else is filled in like a real CloudFront -> Function URL request. */
export interface EventSpec {
  method?: string;
  /** Path and optional query, e.g. "/v1/attorneys?location=60601". */
  target: string;
  headers?: Record<string, string>;
  /** Request body; sent base64-encoded, as Function URLs do for POST from CloudFront. */
  body?: string;
  /** Omit the CloudFront headers (and with them the origin secret). */
  bare?: boolean;
}

/** Build the event. Header names are lower-case, as Function URLs deliver them. */
export function functionUrlEvent(
  spec: EventSpec,
  secret: string | null,
  viewerHost = 'directory.example',
): FunctionUrlEvent {
  const method = spec.method ?? 'GET';
  const q = spec.target.indexOf('?');
  const rawPath = q < 0 ? spec.target : spec.target.slice(0, q);
  const rawQueryString = q < 0 ? '' : spec.target.slice(q + 1);
  const cloudFront: Record<string, string> = spec.bare
    ? {}
    : {
        via: '2.0 5f1a2b3c4d5e6f708192a3b4c5d6e7f8.cloudfront.net (CloudFront)',
        'x-amz-cf-id': 'X2dL8vQ0bq1ZQkq8Q0m7pC1nE3oYt7l8J9r5s6u7v8w9x0y1z2a3b4==',
        'x-forwarded-for': `${VIEWER_IPV6}, 130.176.0.10`,
        'x-forwarded-proto': 'https',
        'cloudfront-viewer-address': VIEWER_ADDRESS_HEADER,
        'cloudfront-viewer-country': 'US',
        'cloudfront-forwarded-proto': 'https',
        'cloudfront-is-desktop-viewer': 'true',
        'x-viewer-host': viewerHost,
        ...(secret !== null ? { 'x-origin-verify': secret } : {}),
      };
  const headers: Record<string, string> = {
    host: FUNCTION_URL_HOST,
    'user-agent': 'test-agent/1.0',
    'x-amzn-trace-id': 'Root=1-6740a1b2-0123456789abcdef01234567',
    ...cloudFront,
    ...Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQueryString)) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    ...(rawQueryString !== '' ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: FUNCTION_URL_PREFIX,
      domainName: FUNCTION_URL_HOST,
      domainPrefix: FUNCTION_URL_PREFIX,
      http: {
        method,
        path: decodeURIComponent(rawPath),
        protocol: 'HTTP/1.1',
        sourceIp: '130.176.0.10',
        userAgent: 'Amazon CloudFront',
      },
      requestId: '5c4f8a2e-6d1b-4e0a-9b7c-3f2e1d0c9b8a',
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(spec.body !== undefined ? { body: Buffer.from(spec.body, 'utf8').toString('base64') } : {}),
    isBase64Encoded: spec.body !== undefined,
  };
}

/** The result's body as text (decoding base64). */
export function resultText(result: FunctionUrlResult): string {
  return result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
}

/** The result's body parsed as JSON. */
export function resultJson(result: FunctionUrlResult): Record<string, unknown> {
  return JSON.parse(resultText(result)) as Record<string, unknown>;
}
