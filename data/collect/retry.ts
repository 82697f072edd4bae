/** Retry policy: which answers are worth retrying and how long to wait (exponential backoff, full jitter, Retry-After). */

/** HTTP statuses worth retrying: rate limited, or a server-side failure. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Backoff policy parameters. */
export interface BackoffPolicy {
  /** First delay's upper bound, doubled each attempt. */
  baseMs: number;
  /** Never wait longer than this (Retry-After included). */
  capMs: number;
}

/** Delay before retry number `attempt` (1 = first retry): full jitter over base * 2^(attempt-1), or Retry-After when larger. */
export function backoffMs(
  attempt: number,
  policy: BackoffPolicy,
  retryAfter: number | undefined,
  random: () => number,
): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  const jittered = Math.floor(random() * exp);
  return Math.min(policy.capMs, Math.max(jittered, retryAfter ?? 0));
}
