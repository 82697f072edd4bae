/**
 * Per-address request limit: a fixed window (one hour by default) per address, opened by its first request.
 * Headers follow RATELIMIT_DRAFT (structured fields):
 *   RateLimit-Policy: "hour";q=600;w=3600
 *   RateLimit: "hour";r=<requests left>;t=<seconds until the window resets>
 * Memory is bounded: expired windows are evicted oldest first, and at most `maxKeys` addresses are tracked.
 */

/** The state of one address's window after a request was counted (or peeked). */
export interface RateLimitState {
  allowed: boolean;
  /** Requests left in the window. */
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** Counts requests per key (a network address or prefix). */
export interface RateLimiter {
  /** Requests per window; 0 means disabled. */
  readonly limit: number;
  /** Window length in seconds. */
  readonly windowSeconds: number;
  /**
   * Count a request of `cost` units (default 1) for `key` and say whether it is allowed. A request costing more than
   * what is left is refused and counts nothing, so a batch cannot overdraw the window.
   */
  take(key: string, cost?: number): RateLimitState;
  /** The state of `key` without counting a request. */
  peek(key: string): RateLimitState;
  /** Give back `units` counted by an allowed take of this window (what the request did not spend after all). */
  refund(key: string, units: number): void;
  /** Addresses currently held in memory (for metrics and tests). */
  trackedKeys(): number;
}

/** Options of createRateLimiter. */
export interface RateLimiterOptions {
  /** Requests per window per key; 0 disables limiting. */
  limit: number;
  /** Window length in seconds (default 3600). */
  windowSeconds?: number;
  /** Most keys tracked at once; beyond it the oldest window is forgotten (default 200,000, about 20 MB). */
  maxKeys?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

/** Name of the policy in the headers: "hour" for the default window, else "<seconds>s" (e.g. "600s" under WAF). */
export function policyName(windowSeconds: number): string {
  return windowSeconds === 3600 ? 'hour' : `${windowSeconds}s`;
}

/** RateLimit-Policy value for `limit` requests per `windowSeconds`, under `name` (default policyName). */
export function policyHeader(limit: number, windowSeconds: number, name = policyName(windowSeconds)): string {
  return `"${name}";q=${limit};w=${windowSeconds}`;
}

/** RateLimit value: `remaining` requests left, reset in `resetSeconds`, for the policy `name` (default policyName). */
export function limitHeader(
  windowSeconds: number,
  remaining: number,
  resetSeconds: number,
  name = policyName(windowSeconds),
): string {
  return `"${name}";r=${remaining};t=${resetSeconds}`;
}

/** Requests allowed per window for an hourly quota (windowSeconds divides 3600). */
export function perWindow(perHour: number, windowSeconds: number): number {
  return (perHour * windowSeconds) / 3600;
}

interface Window {
  start: number;
  count: number;
}

/** A fixed-window limiter held in memory; a Map in window-start order makes eviction O(1) per request. */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const limit = opts.limit;
  const windowSeconds = opts.windowSeconds ?? 3600;
  const windowMs = windowSeconds * 1000;
  const maxKeys = opts.maxKeys ?? 200_000;
  const now = opts.now ?? Date.now;
  const windows = new Map<string, Window>();

  function evict(t: number): void {
    for (const [key, w] of windows) {
      if (t - w.start < windowMs && windows.size <= maxKeys) break;
      windows.delete(key);
    }
  }

  function state(w: Window | undefined, t: number, counted: boolean): RateLimitState {
    if (w === undefined) return { allowed: true, remaining: limit, resetSeconds: windowSeconds };
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    const allowed = counted ? w.count <= limit : w.count < limit;
    return { allowed, remaining: Math.max(0, limit - w.count), resetSeconds };
  }

  function current(key: string, t: number): Window | undefined {
    const w = windows.get(key);
    return w !== undefined && t - w.start < windowMs ? w : undefined;
  }

  return {
    limit,
    windowSeconds,
    take(key: string, cost = 1): RateLimitState {
      if (limit === 0) return { allowed: true, remaining: 0, resetSeconds: windowSeconds };
      const t = now();
      evict(t);
      let w = current(key, t);
      if (w === undefined) {
        w = { start: t, count: 0 };
        // Re-inserting keeps the Map ordered by window start.
        windows.delete(key);
        windows.set(key, w);
        if (windows.size > maxKeys) evict(t);
      }
      if (cost > 1 && w.count + cost > limit) {
        return { ...state(w, t, false), allowed: false };
      }
      // Stop counting past limit + 1 so a flood cannot overflow anything and the answer stays "blocked".
      if (w.count <= limit) w.count = Math.min(limit + 1, w.count + cost);
      return state(w, t, true);
    },
    peek(key: string): RateLimitState {
      if (limit === 0) return { allowed: true, remaining: 0, resetSeconds: windowSeconds };
      const t = now();
      return state(current(key, t), t, false);
    },
    refund(key: string, units: number): void {
      if (limit === 0 || units <= 0) return;
      const w = current(key, now());
      if (w !== undefined) w.count = Math.max(0, w.count - units);
    },
    trackedKeys(): number {
      return windows.size;
    },
  };
}

/** RateLimit-Policy and RateLimit headers for a state (none when limiting is disabled); Retry-After when blocked. */
export function rateLimitHeaders(limiter: RateLimiter, s: RateLimitState): Record<string, string> {
  if (limiter.limit === 0) return {};
  const headers: Record<string, string> = {
    'ratelimit-policy': policyHeader(limiter.limit, limiter.windowSeconds),
    ratelimit: limitHeader(limiter.windowSeconds, s.remaining, s.resetSeconds),
  };
  if (!s.allowed) headers['retry-after'] = String(s.resetSeconds);
  return headers;
}
