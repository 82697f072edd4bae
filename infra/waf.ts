/** AWS WAF web ACL (CLOUDFRONT scope) with the per-address rate limit of DESIGN.md 3.4, answered as 429 problem+json. */
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ApiError } from '../shim/core/errors.ts';

/** Requests per address and hour promised by the contract. */
export const REQUESTS_PER_HOUR = 600;
/** WAF evaluation window, in seconds (one of 60, 120, 300, 600). */
export const WINDOW_SECONDS = 600;
/** WAF limit per window: the hourly quota scaled to the window (600 per hour = 100 per 600 s). */
export const LIMIT_PER_WINDOW = (REQUESTS_PER_HOUR * WINDOW_SECONDS) / 3600;
/** Key of the custom response body. */
export const RATE_LIMITED_BODY_KEY = 'rate_limited_problem';

/** The problem body WAF returns with 429 (WAF fixes its Content-Type to application/json; it cannot send problem+json). */
export function rateLimitedProblem(): object {
  return new ApiError(
    'rate_limited',
    `More than ${REQUESTS_PER_HOUR} requests in an hour came from this network address (REST and MCP together). ` +
      `Retry after ${WINDOW_SECONDS} seconds.`,
  ).toProblem();
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
                  { name: 'RateLimit-Policy', value: `"hour";q=${REQUESTS_PER_HOUR};w=3600` },
                  { name: 'RateLimit', value: `"hour";r=0;t=${WINDOW_SECONDS}` },
                  { name: 'Cache-Control', value: 'no-store' },
                  // WAF answers before CloudFront's response headers policy, so CORS goes here too.
                  { name: 'Access-Control-Allow-Origin', value: '*' },
                  { name: 'Access-Control-Expose-Headers', value: 'RateLimit, RateLimit-Policy, Retry-After' },
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
