/** AWS WAF web ACL (CLOUDFRONT scope) with the per-address rate limit, answered as 429 problem+json with the same RateLimit headers as the function. */
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { REQUESTS_PER_HOUR } from '../shim/core/constants.ts';
import { ApiError } from '../shim/core/errors.ts';
import { problemPath } from '../shim/core/problem-pages.ts';
import { EXPOSED_HEADERS } from '../shim/http/cors.ts';
import { limitHeader, perWindow, policyHeader } from '../shim/http/rate-limit.ts';

/** Requests per address and hour promised by the contract. */
export { REQUESTS_PER_HOUR };
/** WAF evaluation window, in seconds (one of 60, 120, 300, 600). */
export const WINDOW_SECONDS = 600;
/** WAF limit per window: the hourly quota scaled to the window (600 per hour = 100 per 600 s). */
export const LIMIT_PER_WINDOW = perWindow(REQUESTS_PER_HOUR, WINDOW_SECONDS);
/** Key of the custom response body. */
export const RATE_LIMITED_BODY_KEY = 'rate_limited_problem';

/** The problem body WAF returns with 429 (WAF fixes its Content-Type to application/json; it cannot send problem+json). */
export function rateLimitedProblem(): object {
  const problem = new ApiError(
    'rate_limited',
    `More than ${LIMIT_PER_WINDOW} requests in ${WINDOW_SECONDS} seconds (the hourly quota of ${REQUESTS_PER_HOUR} in WAF's window) came from this ` +
      `network address (REST and MCP together). Retry after ${WINDOW_SECONDS} seconds.`,
  ).toProblem();
  // WAF cannot know the viewer's host: a relative reference, which resolves to the page on the host that answered.
  return { ...problem, type: problemPath('rate_limited') };
}

/** The web ACL; attach it to the distribution with `webAclId: acl.webAcl.attrArn`. */
export class RateLimitAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Per-address rate limit of the injury attorney directory',
      defaultAction: { allow: {} },
      // Sampled requests would keep raw client addresses for hours; metrics are counts only.
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'directory-acl', sampledRequestsEnabled: false },
      customResponseBodies: {
        [RATE_LIMITED_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedProblem()) },
      },
      rules: [
        {
          name: 'per-address-rate-limit',
          priority: 0,
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: LIMIT_PER_WINDOW, evaluationWindowSec: WINDOW_SECONDS } },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: RATE_LIMITED_BODY_KEY,
                responseHeaders: [
                  { name: 'Retry-After', value: String(WINDOW_SECONDS) },
                  { name: 'RateLimit-Policy', value: policyHeader(LIMIT_PER_WINDOW, WINDOW_SECONDS) },
                  { name: 'RateLimit', value: limitHeader(WINDOW_SECONDS, 0, WINDOW_SECONDS) },
                  { name: 'Cache-Control', value: 'no-store' },
                  // WAF answers before CloudFront's response headers policy, so CORS goes here too.
                  { name: 'Access-Control-Allow-Origin', value: '*' },
                  { name: 'Access-Control-Expose-Headers', value: EXPOSED_HEADERS },
                ],
              },
            },
          },
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'directory-rate-limited', sampledRequestsEnabled: false },
        },
      ],
    });
  }
}
