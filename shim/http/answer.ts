/** Plain answers and request headers: the values routes return and read, with no web Request or Response. */
import type { Answer, PlainRequest } from '../edge/edge-types.ts';

/** The value of header `name` (lower case) of `request`, repeated values joined; null when absent. */
export function headerOf(request: Pick<PlainRequest, 'headers'>, name: string): string | null {
  const value = request.headers[name];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}

/** A JSON answer of `json` (the body serialised once by the caller) with Content-Type, Content-Length and `headers`. */
export function jsonAnswer(
  status: number,
  json: string | Buffer,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): Answer {
  const body = typeof json === 'string' ? Buffer.from(json) : json;
  return {
    status,
    headers: {
      'content-type': `${contentType}; charset=utf-8`,
      'content-length': String(body.byteLength),
      ...headers,
    },
    body,
  };
}
