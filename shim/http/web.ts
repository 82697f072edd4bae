/**
 * The bridge to a library that speaks web Request and Response (the MCP SDK): a Request made from the plain request,
 * and the library's Response read back into an answer. Nothing else in the pipeline builds either.
 */
import type { Answer, PlainRequest } from '../edge/edge-types.ts';

/**
 * A web Request of `request` at `base` (an absolute URL; only its origin is used). `withBody` false leaves the body
 * out, for a library handed the body already parsed (the MCP SDK's `parsedBody`): a body stream it never reads was a
 * twentieth of an MCP call.
 */
export function toWebRequest(request: PlainRequest, base: string, withBody = true): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    try {
      headers.set(name, typeof value === 'string' ? value : value.join(', '));
    } catch {
      // A header value undici will not carry is dropped; the HTTP parser has already refused malformed ones.
    }
  }
  const url = `${new URL(base).origin}${request.path}${request.query === '' ? '' : `?${request.query}`}`;
  const body =
    withBody && request.body !== null && request.method !== 'GET' && request.method !== 'HEAD' ? request.body : null;
  return new Request(url, { method: request.method, headers, body });
}

/** The answer of a library's Response: its status, headers and body read once into bytes. */
export async function answerOf(response: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers, body };
}

/** A Response of `answer`, for a library that reads one (the MCP charge counts the calls answered). */
export function toWebResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
