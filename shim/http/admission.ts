/**
 * The two per-address limits every request passes: the answer quota (RATE_LIMIT_PER_HOUR), spent by API calls under
 * /v1/ and /r/ and by MCP tool calls, and a ceiling ALL_REQUESTS_FACTOR times higher on every request, so pages,
 * assets, documents and MCP protocol messages spend no answer yet cannot flood the service.
 */
import { ALL_REQUESTS_FACTOR } from '../contract/constants.ts';
import {
  createRateLimiter,
  limitHeader,
  policyHeader,
  policyName,
  rateLimitHeaders,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitState,
} from './rate-limit.ts';
import type { JsonBody } from '../edge/edge-types.ts';

/** Path prefixes whose every request spends one answer (the WAF rule's scope-down matches the same prefixes). */
export const ANSWER_PATH_PREFIXES = ['/v1/', '/r/'] as const;
/** The MCP endpoint: only its tool calls spend answers. */
export const MCP_PATH = '/mcp';

/** The answer quota and the ceiling on every request, counted per address in the same window. */
export interface RequestLimits {
  /** Answers per window (API calls and MCP tool calls); its policy is the one every response advertises. */
  readonly answers: RateLimiter;
  /** Requests of any kind per window: ALL_REQUESTS_FACTOR times the answer quota. */
  readonly all: RateLimiter;
}

/** What a request spends: `units` answers reserved up front, and, when known only once it ran, how to settle it. */
export interface Charge {
  units: number;
  /**
   * Set when the answers are the calls the request makes (MCP tool calls): it spends as many as it recorded
   * (RequestInfo.recordCall), at most `units`; a call refused before it ran spends nothing.
   */
  perCall?: boolean;
  /** The request body as the charge read it, handed on to the route (RequestInfo.body). */
  body?: JsonBody;
}

/** The outcome of counting one request. */
export interface Admission {
  allowed: boolean;
  /** The limit that refused the request, or null. */
  refusedBy: 'answers' | 'all' | null;
  answers: RateLimitState;
  all: RateLimitState;
}

/** Both limits for `opts.limit` answers per window (0 disables both). */
export function createRequestLimits(opts: RateLimiterOptions): RequestLimits {
  return {
    answers: createRateLimiter(opts),
    all: createRateLimiter({ ...opts, limit: opts.limit * ALL_REQUESTS_FACTOR }),
  };
}

/** Name of the all-requests policy in the headers: "all-hour", or "all-600s" under WAF's window. */
export function allPolicyName(windowSeconds: number): string {
  return `all-${policyName(windowSeconds)}`;
}

/** Answers a request outside /mcp spends: one under ANSWER_PATH_PREFIXES, none elsewhere (pages, assets, documents). */
export function pathCharge(pathname: string): Charge {
  return { units: ANSWER_PATH_PREFIXES.some((prefix) => pathname.startsWith(prefix)) ? 1 : 0 };
}

/** The answer state of `key` as a request that spends nothing sees it (never refused by the answer quota). */
function answersNow(limits: RequestLimits, key: string): RateLimitState {
  return { ...limits.answers.peek(key), allowed: true };
}

/** Count a request of `units` answers for `key`: one request against the ceiling, then the answers. */
export function admit(limits: RequestLimits, key: string, units: number): Admission {
  const all = limits.all.take(key);
  if (!all.allowed) return { allowed: false, refusedBy: 'all', answers: answersNow(limits, key), all };
  const answers = units > 0 ? limits.answers.take(key, units) : answersNow(limits, key);
  return { allowed: answers.allowed, refusedBy: answers.allowed ? null : 'answers', answers, all };
}

/** Whether a request of `units` answers would be admitted now, counting nothing. */
export function wouldAdmit(limits: RequestLimits, key: string, units: number): boolean {
  return (
    limits.all.peek(key).allowed &&
    (units === 0 || limits.answers.peek(key).remaining >= units || limits.answers.limit === 0)
  );
}

/** Give back what an admitted request reserved but did not spend; the admission as it now stands. */
export function settle(
  limits: RequestLimits,
  key: string,
  admission: Admission,
  reserved: number,
  spent: number,
): Admission {
  if (!admission.allowed || spent >= reserved) return admission;
  limits.answers.refund(key, reserved - spent);
  return { ...admission, answers: answersNow(limits, key) };
}

/**
 * RateLimit-Policy, RateLimit and Retry-After for an admission: the answer policy on every response; a request the
 * ceiling refused also names the all-requests policy, with its own count and reset.
 */
export function admissionHeaders(limits: RequestLimits, admission: Admission): Record<string, string> {
  const headers = rateLimitHeaders(limits.answers, admission.answers);
  if (admission.refusedBy !== 'all' || limits.all.limit === 0) return headers;
  const { limit, windowSeconds } = limits.all;
  const name = allPolicyName(windowSeconds);
  return {
    ...headers,
    'ratelimit-policy': `${headers['ratelimit-policy'] ?? ''}, ${policyHeader(limit, windowSeconds, name)}`,
    ratelimit: `${headers.ratelimit ?? ''}, ${limitHeader(windowSeconds, admission.all.remaining, admission.all.resetSeconds, name)}`,
    'retry-after': String(admission.all.resetSeconds),
  };
}

/** The headers of `key`'s answer state, counting nothing (answers the HTTP layer gives itself). */
export function peekHeaders(limits: RequestLimits, key: string): Record<string, string> {
  return rateLimitHeaders(limits.answers, limits.answers.peek(key));
}
