/** Strict reading of the request target: size limit and percent-decoding that refuses what URLSearchParams would silently repair. */
import { ApiError } from '../contract/errors.ts';
import type { RawArgs } from '../answer/params.ts';

import { MAX_TARGET_BYTES } from '../edge/limits.ts';

export { MAX_TARGET_BYTES };

// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

function badQuery(detail: string): ApiError {
  return new ApiError('invalid_parameter', detail, { parameter: 'query' });
}

/**
 * Reject a request target (`path` and `query` as sent, the query without its "?") longer than MAX_TARGET_BYTES,
 * naming the path when it alone is too long, else the query.
 */
export function checkTargetSize(path: string, query: string): void {
  const pathBytes = Buffer.byteLength(path, 'utf8');
  const bytes = query === '' ? pathBytes : pathBytes + 1 + Buffer.byteLength(query, 'utf8');
  if (bytes <= MAX_TARGET_BYTES) return;
  const accepted = `at most ${MAX_TARGET_BYTES} bytes of path and query together are accepted.`;
  if (pathBytes > MAX_TARGET_BYTES) {
    throw new ApiError(
      'invalid_parameter',
      `The request path is ${pathBytes} bytes long; ${accepted} The paths this API answers are listed in /openapi.json.`,
      { parameter: 'path' },
    );
  }
  throw badQuery(`The request URL is ${bytes} bytes long with its query string; ${accepted}`);
}

function decode(part: string): string {
  // Most names and values need no decoding (no escape, no "+"): they are kept as sent.
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw badQuery('The query string is not valid: every %-escape must encode UTF-8 text.');
  }
}

/**
 * Parse a query string (without the leading "?") into names and values: a name sent once maps to a string, a name
 * repeated to a string[]. Invalid %-escapes, non-UTF-8 bytes and control characters are 400 invalid_parameter.
 */
export function parseQuery(search: string): RawArgs {
  // Null prototype: a caller's name such as __proto__ or constructor is an ordinary (unknown) parameter.
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (search === '') return out;
  for (const piece of search.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decode(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : decode(piece.slice(eq + 1));
    if (CONTROL_RE.test(name) || CONTROL_RE.test(value)) {
      throw badQuery('The query string contains control characters; send text only.');
    }
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out;
}

/** Decode one path segment; null when its %-escapes are invalid. */
export function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
