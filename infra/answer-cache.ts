/**
 * CloudFront policies of /v1/attorneys: answers cached until the next publish (which invalidates /v1/attorneys*),
 * keyed on the whole query string as the viewer-request function normalised it and on the viewer host the links are
 * built from, compressed with gzip or brotli. The per-caller RateLimit header is removed at the edge: a cached answer
 * would otherwise repeat its first caller's count to everyone (docs/CONTRACT.md, Caching).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { ANSWER_SHARED_MAX_AGE_SECONDS } from '../shim/http/caching.ts';
import { VIEWER_HOST_HEADER } from '../shim/edge/env.ts';

/** Response headers that depend on the caller, not on the answer, and so never come from CloudFront's cache. */
export const PER_CALLER_HEADERS = ['RateLimit'] as const;
/**
 * Request headers the function still sees on a miss: links' host, the address it rate-limits and hashes, its log's user
 * agent, whether the caller is a browser (Accept: a 404, 429 or 503 is then the site's HTML page, as locally), and what
 * a CORS preflight asks (OPTIONS is never cached; the function allows the headers a browser asks for). Accept stays out
 * of the cache key: the only answers that differ by it are problems, which no cache shares (a 404 says no-store, which
 * CloudFront honours for 404s; it never caches a 429; the distribution keeps a 5xx 0 seconds).
 */
export const ANSWER_ORIGIN_HEADERS = [
  VIEWER_HOST_HEADER,
  'CloudFront-Viewer-Address',
  'User-Agent',
  'Accept',
  'Origin',
  'Access-Control-Request-Method',
  'Access-Control-Request-Headers',
] as const;

/** The three policies of the /v1/attorneys behaviour. */
export interface AnswerPolicies {
  cachePolicy: cloudfront.CachePolicy;
  originRequestPolicy: cloudfront.OriginRequestPolicy;
  responseHeadersPolicy: cloudfront.ResponseHeadersPolicy;
}

/** Create the /v1/attorneys policies; `cors` and `security` are the distribution's public ones. */
export function answerPolicies(
  scope: Construct,
  cors: cloudfront.ResponseHeadersCorsBehavior,
  security: cloudfront.ResponseSecurityHeadersBehavior,
): AnswerPolicies {
  const cachePolicy = new cloudfront.CachePolicy(scope, 'AnswerCache', {
    comment:
      '/v1/attorneys: kept as the function says (a week, until the next publish invalidates it), keyed on the normalised query',
    minTtl: Duration.seconds(0),
    // No Cache-Control (never sent by the function) means not cached; errors say no-store.
    defaultTtl: Duration.seconds(0),
    maxTtl: Duration.seconds(ANSWER_SHARED_MAX_AGE_SECONDS),
    queryStringBehavior: cloudfront.CacheQueryStringBehavior.all(),
    // The viewer-request function sets it before the cache lookup; answers' links are built on it.
    headerBehavior: cloudfront.CacheHeaderBehavior.allowList(VIEWER_HOST_HEADER),
    cookieBehavior: cloudfront.CacheCookieBehavior.none(),
    enableAcceptEncodingGzip: true,
    enableAcceptEncodingBrotli: true,
  });
  const originRequestPolicy = new cloudfront.OriginRequestPolicy(scope, 'AnswerOriginRequest', {
    comment:
      '/v1/attorneys misses: the viewer host, the client address (rate limit, hashed log), the user agent and Accept (error pages)',
    headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(...ANSWER_ORIGIN_HEADERS),
    queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.all(),
    cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
  });
  const responseHeadersPolicy = new cloudfront.ResponseHeadersPolicy(scope, 'AnswerHeaders', {
    comment:
      'CORS and security headers like the public paths; the per-caller RateLimit count is removed from cached answers',
    corsBehavior: cors,
    securityHeadersBehavior: security,
    removeHeaders: [...PER_CALLER_HEADERS],
  });
  return { cachePolicy, originRequestPolicy, responseHeadersPolicy };
}
