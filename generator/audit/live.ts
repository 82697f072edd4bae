/** Reading the live API: one GET with a timeout, JSON parsed, checked against the public schema. */
import type { ZodType } from 'zod';

/** A live reply: HTTP status and, when the body was JSON of the expected schema, the parsed body. */
export interface LiveReply<T> {
  status: number;
  body: T | null;
  /** Why body is null although the status was 200 (not JSON, or not the documented shape). */
  problem: string | null;
  retryAfter: string | null;
  /** The problem's `code` when a non-200 body is problem+json (e.g. "location_not_understood"), else null. */
  code: string | null;
}

/** The live API could not be reached at all (network error, timeout). */
export class LiveError extends Error {
  override name = 'LiveError';
}

/** GET `base + path` and parse a 200 body with `schema`. Other statuses come back with body null. */
export async function getLive<T>(
  base: string,
  path: string,
  schema: ZodType<T>,
  timeoutMs = 15_000,
): Promise<LiveReply<T>> {
  const url = base.replace(/\/+$/, '') + path;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': 'injury-attorney-directory-audit' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    throw new LiveError(`GET ${url} failed: ${(err as Error).message}`);
  }
  const retryAfter = res.headers.get('retry-after');
  if (res.status !== 200)
    return {
      status: res.status,
      body: null,
      problem: `HTTP ${res.status}: ${text.slice(0, 300)}`,
      retryAfter,
      code: problemCode(text),
    };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 200, body: null, problem: 'the body is not JSON', retryAfter, code: null };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.')}: ${i.message}`)
      .join('; ');
    return {
      status: 200,
      body: null,
      problem: `the body does not match the published schema: ${issues}`,
      retryAfter,
      code: null,
    };
  }
  return { status: 200, body: parsed.data, problem: null, retryAfter, code: null };
}

/** The `code` of a problem+json body, or null when the text is not one. */
function problemCode(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    const code = typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/** Paths (at most `max`) where two JSON values differ, e.g. "totals.offices: 9077 vs 9080". */
export function jsonDifferences(a: unknown, b: unknown, max = 5, path = ''): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, p: string): void => {
    if (out.length >= max) return;
    if (
      typeof x !== 'object' ||
      typeof y !== 'object' ||
      x === null ||
      y === null ||
      Array.isArray(x) !== Array.isArray(y)
    ) {
      if (JSON.stringify(x) !== JSON.stringify(y))
        out.push(`${p || '(root)'}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
      return;
    }
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    for (const k of new Set([...kx, ...ky]))
      walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], p === '' ? k : `${p}.${k}`);
  };
  walk(a, b, path);
  return out;
}
