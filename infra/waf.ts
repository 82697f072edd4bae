/**
 * AWS WAF web ACL (CLOUDFRONT scope) with the per-address limits, answered as 429 problem+json with the same RateLimit
 * headers as the function: the answer quota scoped to API paths and MCP tool calls, and a ceiling on every request.
 */
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ALL_REQUESTS_FACTOR, REQUESTS_PER_HOUR } from '../shim/contract/constants.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { problemPath } from '../shim/pages/problem-pages.ts';
import { EXPOSED_HEADERS } from '../shim/http/cors.ts';
import { allPolicyName, ANSWER_PATH_PREFIXES, MCP_PATH } from '../shim/http/admission.ts';
import { limitHeader, perWindow, policyHeader } from '../shim/http/rate-limit.ts';

/** Requests per address and hour promised by the contract. */
export { REQUESTS_PER_HOUR };
/** WAF evaluation window, in seconds (one of 60, 120, 300, 600). */
export const WINDOW_SECONDS = 600;
/** WAF limit per window on answers: the hourly quota scaled to the window (600 per hour = 100 per 600 s). */
export const LIMIT_PER_WINDOW = perWindow(REQUESTS_PER_HOUR, WINDOW_SECONDS);
/** WAF limit per window on every request: ALL_REQUESTS_FACTOR times the answer limit. */
export const ALL_LIMIT_PER_WINDOW = LIMIT_PER_WINDOW * ALL_REQUESTS_FACTOR;
/** Keys of the custom response bodies. */
export const RATE_LIMITED_BODY_KEY = 'rate_limited_problem';
export const ALL_LIMITED_BODY_KEY = 'all_requests_limited_problem';
/** The MCP method whose requests spend answers, as it appears (quoted) in a JSON-RPC body. */
export const TOOL_CALL_MARKER = '"tools/call"';

/** The problem body WAF returns with 429 (WAF fixes its Content-Type to application/json; it cannot send problem+json). */
export function rateLimitedProblem(which: 'answers' | 'all' = 'answers'): object {
  const detail =
    which === 'answers'
      ? `More than ${LIMIT_PER_WINDOW} API and tool calls in ${WINDOW_SECONDS} seconds (the hourly quota of ${REQUESTS_PER_HOUR} in WAF's window) came from this ` +
        `network address (REST and MCP together). Retry after ${WINDOW_SECONDS} seconds.`
      : `More than ${ALL_LIMIT_PER_WINDOW} requests of any kind (pages, documents and MCP protocol messages included) in ${WINDOW_SECONDS} seconds came from this ` +
        `network address. Retry after ${WINDOW_SECONDS} seconds.`;
  const problem = new ApiError('rate_limited', detail).toProblem();
  // WAF cannot know the viewer's host: a relative reference, which resolves to the page on the host that answered.
  return { ...problem, type: problemPath('rate_limited') };
}

function uriPath(match: 'STARTS_WITH' | 'EXACTLY', value: string): wafv2.CfnWebACL.StatementProperty {
  return {
    byteMatchStatement: {
      fieldToMatch: { uriPath: {} },
      positionalConstraint: match,
      searchString: value,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
}

/**
 * The requests the answer rule counts: paths under ANSWER_PATH_PREFIXES, and POSTs to /mcp whose body holds a
 * tools/call (one request per POST, however many calls a batch holds; bodies beyond WAF's inspection size count).
 */
export function answerScope(): wafv2.CfnWebACL.StatementProperty {
  const toolCall: wafv2.CfnWebACL.StatementProperty = {
    byteMatchStatement: {
      fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
      positionalConstraint: 'CONTAINS',
      searchString: TOOL_CALL_MARKER,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
  return {
    orStatement: {
      statements: [
        ...ANSWER_PATH_PREFIXES.map((prefix) => uriPath('STARTS_WITH', prefix)),
        { andStatement: { statements: [uriPath('EXACTLY', MCP_PATH), toolCall] } },
      ],
    },
  };
}

function block(bodyKey: string, policy: string, limit: string): wafv2.CfnWebACL.RuleActionProperty {
  return {
    block: {
      customResponse: {
        responseCode: 429,
        customResponseBodyKey: bodyKey,
        responseHeaders: [
          { name: 'Retry-After', value: String(WINDOW_SECONDS) },
          { name: 'RateLimit-Policy', value: policy },
          { name: 'RateLimit', value: limit },
          { name: 'Cache-Control', value: 'no-store' },
          // WAF answers before CloudFront's response headers policy, so CORS goes here too.
          { name: 'Access-Control-Allow-Origin', value: '*' },
          { name: 'Access-Control-Expose-Headers', value: EXPOSED_HEADERS },
        ],
      },
    },
  };
}

/** The web ACL; attach it to the distribution with `webAclId: acl.webAcl.attrArn`. */
export class RateLimitAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const answersPolicy = policyHeader(LIMIT_PER_WINDOW, WINDOW_SECONDS);
    const allName = allPolicyName(WINDOW_SECONDS);
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description:
        'Per-address rate limits of the injury attorney directory: answers, and every request at ten times that',
      defaultAction: { allow: {} },
      // Sampled requests would keep raw client addresses for hours; metrics are counts only.
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'directory-acl', sampledRequestsEnabled: false },
      customResponseBodies: {
        [RATE_LIMITED_BODY_KEY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(rateLimitedProblem('answers')),
        },
        [ALL_LIMITED_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedProblem('all')) },
      },
      rules: [
        {
          name: 'per-address-rate-limit',
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: LIMIT_PER_WINDOW,
              evaluationWindowSec: WINDOW_SECONDS,
              scopeDownStatement: answerScope(),
            },
          },
          action: block(RATE_LIMITED_BODY_KEY, answersPolicy, limitHeader(WINDOW_SECONDS, 0, WINDOW_SECONDS)),
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            metricName: 'directory-rate-limited',
            sampledRequestsEnabled: false,
          },
        },
        {
          name: 'per-address-all-requests-limit',
          priority: 1,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: ALL_LIMIT_PER_WINDOW,
              evaluationWindowSec: WINDOW_SECONDS,
            },
          },
          action: block(
            ALL_LIMITED_BODY_KEY,
            `${answersPolicy}, ${policyHeader(ALL_LIMIT_PER_WINDOW, WINDOW_SECONDS, allName)}`,
            limitHeader(WINDOW_SECONDS, 0, WINDOW_SECONDS, allName),
          ),
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            metricName: 'directory-all-requests-limited',
            sampledRequestsEnabled: false,
          },
        },
      ],
    });
  }
}
